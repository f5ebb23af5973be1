// The switches as the controller knows them: the fabric's switches (GUID, LID, node, name) as of
// the last SUBNET UP, what the controller knows of each one's SDN agent, and each one's table
// generation as the controller last left or read it.
//
// A switch that never answered the SDN class is "not SDN-capable" (every real fabric has such
// switches): it is probed again only after an exponential back-off or when its cabling changes,
// and no job relies on entries there. A switch that answered before and stops is "unreachable":
// checked at every round. What the registry knows of a switch's agent outlives the switch's
// absence from a fabric (it is kept by GUID).
//
// The clock is the caller's: every call that needs the time takes it, so the back-off is tested
// without sleeping. Nothing here sends a MAD or logs; JobController (job_audit.cpp) does both.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "flowtable/types.hpp"
#include "plugin/controller/switch_sync.hpp"
#include "routing/ids.hpp"
#include "routing/subnet.hpp"

namespace ibsdn::plugin {

class SwitchRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  /// A switch of the fabric with a LID: where its MADs go and what the log calls it.
  struct Switch {
    NodeIdx node;
    Guid guid;
    Lid lid;
    std::string name;
  };

  /// What the controller knows of a switch's SDN agent.
  enum class Agent : std::uint8_t {
    kUnknown,      // never asked (or asked nothing yet)
    kCapable,      // answered the SDN class last time
    kUnreachable,  // answered before, not last time: checked at every round
    kIncapable,    // never answered: not SDN-capable, probed again after a back-off
  };

  /// What one answer (or its absence) changed: only changes of state are worth a log line.
  enum class Change : std::uint8_t {
    kNone,           // the state is the one it was (a further failure of an unreachable or
                     // not SDN-capable switch: the latter's back-off grows)
    kAnswersAgain,   // unreachable -> capable
    kNowCapable,     // not SDN-capable -> capable
    kUnreachable,    // capable -> unreachable
    kNotSdnCapable,  // never asked -> not SDN-capable
  };

  /// The back-off of a switch that is not SDN-capable starts at the periodic check's interval
  /// (at least kMinProbeWait) and doubles with each failed probe, up to kMaxProbeWait.
  static constexpr std::chrono::milliseconds kMinProbeWait{30'000};
  static constexpr std::chrono::milliseconds kMaxProbeWait{3'600'000};

  explicit SwitchRegistry(std::chrono::milliseconds check_interval);

  /// A SUBNET UP: the switches of `subnet` replace the previous ones. A switch that is not
  /// SDN-capable and whose cabling (its connected ports and their peers) changed is due at once.
  void update(std::shared_ptr<const Subnet> subnet);

  /// The switch with node GUID `g` in the fabric, if it is one and has a LID.
  [[nodiscard]] std::optional<Switch> find(Guid g) const;
  /// Every switch of the fabric with a LID, by name.
  [[nodiscard]] const std::vector<Switch>& all() const { return all_; }
  /// The switches worth a MAD at `now`: all but the not-SDN-capable ones whose back-off runs.
  [[nodiscard]] std::vector<Switch> due(Clock::time_point now) const;

  /// Records at `now` that switch `g` answered the SDN class (true) or not.
  Change note_answer(Guid g, bool answered, Clock::time_point now);
  /// What the controller knows of switch `g`'s agent.
  [[nodiscard]] Agent agent(Guid g) const;
  /// Switches no job may rely on: not SDN-capable.
  [[nodiscard]] std::set<Guid> incapable() const;
  /// How many switches answered before and did not last time.
  [[nodiscard]] std::size_t unreachable_count() const;

  /// Switch `g`'s table generation as the controller last left or read it.
  [[nodiscard]] std::optional<std::uint64_t> generation(Guid g) const;
  void set_generation(Guid g, std::uint64_t generation) { generation_[g] = generation; }
  /// Forgets `g`'s generation: its table is not known to be the one intended.
  void forget_generation(Guid g) { generation_.erase(g); }
  /// Records the generations a sync left on the switches, and forgets those of the switches
  /// that failed it.
  void note_sync(const SyncResult& result);
  /// Records the generations a sync left on the switches (only those).
  void note_generations(const std::map<Guid, std::uint64_t>& generations);

 private:
  struct Health {
    Agent agent = Agent::kUnknown;
    unsigned failures = 0;
    Clock::time_point next_probe{};
    std::string ports;  // the switch's cabling at the last SUBNET UP, to notice a change
  };

  std::chrono::milliseconds probe_base_;
  std::shared_ptr<const Subnet> subnet_;
  std::vector<Switch> all_;
  std::map<Guid, Health> health_;
  std::map<Guid, std::uint64_t> generation_;
};

}  // namespace ibsdn::plugin
