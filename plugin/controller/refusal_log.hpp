// Which refused connections the notice server logs. A local user who connects in a loop past its
// limit must not flood OpenSM's log (and the disk under it) with one line per attempt: per uid,
// the first refusal is logged in full; the ones that follow within `interval` of the last line
// logged for that uid are only counted, and the count goes out as one summary line per uid at
// most once per interval ("57 more connections refused from uid 1000").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

class RefusalLog {
 public:
  using Clock = std::chrono::steady_clock;

  /// What was refused from one uid since its last line.
  struct Summary {
    std::uint32_t uid = 0;
    std::size_t count = 0;
    std::string last_reason;  // why the last of them was refused
    bool operator==(const Summary&) const = default;
  };

  /// `interval` 0 (or less): every refusal is logged in full.
  explicit RefusalLog(std::chrono::milliseconds interval);

  /// A connection of `uid` was refused at `now` for `reason`. True: log this refusal in full;
  /// false: it is counted for a summary.
  [[nodiscard]] bool refused(std::uint32_t uid, std::string_view reason, Clock::time_point now);

  /// The summaries due at `now`: one for every uid with counted refusals whose last line is at
  /// least `interval` old. Forgets uids that have been quiet for an interval, so that their next
  /// refusal is logged in full again.
  [[nodiscard]] std::vector<Summary> due(Clock::time_point now);

  /// Every counted refusal, due or not (when the server stops).
  [[nodiscard]] std::vector<Summary> flush();

  /// When due() next has a summary to give; none when nothing is counted.
  [[nodiscard]] std::optional<Clock::time_point> next_due() const;

  /// "57 more connections refused from uid 1000 (the last: REASON)".
  [[nodiscard]] static std::string text(const Summary& s);

 private:
  struct Uid {
    Clock::time_point last_line;  // of this uid, in full or a summary
    std::size_t counted = 0;      // refusals since
    std::string last_reason;
  };

  std::chrono::milliseconds interval_;
  // Keyed by local uids, which only root can create: the map stays small, and a uid leaves it an
  // interval after its last refusal.
  std::map<std::uint32_t, Uid> uids_;
};

}  // namespace ibsdn
