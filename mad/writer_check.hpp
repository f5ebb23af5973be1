// Who may change a switch's flow table: the subnet's master SM (its controller runs inside it),
// plus LIDs the operator allows. The key proves a sender knows the secret; this check limits
// writes to the one place they should come from, so a host that learnt the key still cannot
// rewrite routes. Reads (FlowStats, TableInfo, Barrier) need only the key.
//
// The master SM's LID is PortInfo:MasterSMLID of the switch's own port, which the SM sets on every
// port it manages. It changes on fail-over, so it is cached only briefly and re-read when a write
// comes from another LID (at most once per `reread_gap`: a flood of refused writes costs at most
// one SMP per gap; without the gap while no master SM is known, so that the first write of an SM
// that has just come up is taken).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "flowtable/types.hpp"

namespace ibsdn::mad {

struct WriterPolicy {
  /// Every sender that knows the key may write (tests, tools); PortInfo is never read.
  bool any_writer = false;
  /// Senders that may write besides the master SM.
  std::vector<Lid> allowed;
  /// A master SM LID read longer ago than this is read again before a write is judged.
  std::chrono::milliseconds refresh{10'000};
  /// A write from a LID that is not the cached master re-reads it, at most this often (every
  /// time while no master SM is known).
  std::chrono::milliseconds reread_gap{1'000};
  /// Refusals are reported (Verdict::report) once per sender LID per this interval.
  std::chrono::milliseconds report_every{60'000};
};

class WriterCheck {
 public:
  using Clock = std::chrono::steady_clock;
  /// Reads PortInfo:MasterSMLID of the local port: Lid 0 when no SM has set it, nullopt when the
  /// read failed (the last value read is then kept).
  using ReadMasterSmLid = std::function<std::optional<Lid>()>;

  struct Verdict {
    bool allowed = true;
    std::string why;  // a refusal: who the sender is and who may write
    /// A refusal the log should show: the first from this LID within report_every.
    bool report = false;
    /// Refusals from this LID left out of the log since its previous report (with `report`).
    std::uint64_t unreported = 0;
  };

  WriterCheck(WriterPolicy policy, ReadMasterSmLid read);

  /// May `from` write now? Reads the master SM LID when the cached one is stale or `from` is not
  /// it (see the class comment). Counts refusals.
  Verdict judge(Lid from, Clock::time_point now);
  Verdict judge(Lid from) { return judge(from, Clock::now()); }

  /// Reads the master SM LID now (at start, so that the log can say who may write).
  std::optional<Lid> refresh(Clock::time_point now);

  [[nodiscard]] const WriterPolicy& policy() const { return policy_; }
  /// The master SM LID last read (Lid 0: none set); nullopt before a read succeeded.
  [[nodiscard]] std::optional<Lid> master() const { return master_; }
  [[nodiscard]] std::uint64_t refused() const { return refused_; }
  [[nodiscard]] std::uint64_t master_reads() const { return reads_; }

 private:
  [[nodiscard]] bool is_master(Lid from) const;
  [[nodiscard]] bool is_allowed(Lid from) const;
  Verdict refuse(Lid from, Clock::time_point now);

  struct Reports {
    Clock::time_point last;
    std::uint64_t unreported = 0;
  };

  WriterPolicy policy_;
  ReadMasterSmLid read_;
  std::optional<Lid> master_;
  std::optional<Clock::time_point> read_at_;  // the last read attempt, failed or not
  std::uint64_t refused_ = 0;
  std::uint64_t reads_ = 0;
  std::unordered_map<std::uint16_t, Reports> reports_;  // by sender LID
};

}  // namespace ibsdn::mad
