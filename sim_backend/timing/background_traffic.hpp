// The generator behind a background job of the timing simulator (TimingJob::background, seed
// 004's uniform random interference): when each node injects, where to, and what it delivered.
// The simulator makes the messages and runs them through the NICs and the engine.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "routing/patterns/rng.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

class BackgroundSender {
 public:
  /// `bandwidth`: each node's link bandwidth, bytes/s (> 0); at least two nodes.
  BackgroundSender(const BackgroundTraffic& spec, std::vector<double> bandwidth);

  /// Its job starts at `now`: injection runs until now + duration (duration 0: no end).
  void start(double now);
  /// Node i's first injection: a random offset within its first period.
  double first(std::uint32_t node);
  [[nodiscard]] double period(std::uint32_t node) const { return period_[node]; }
  /// Whether it still injects at `now` (before its end, below max_messages).
  [[nodiscard]] bool injecting(double now) const;
  /// An injection of `node` now: the node its message goes to, or nullopt when skipped (its
  /// queue holds kMaxQueued undelivered messages).
  std::optional<std::uint32_t> inject(std::uint32_t node);
  /// A message of `node` delivered `seconds` after its injection.
  void delivered(std::uint32_t node, double seconds);
  /// Nothing in flight.
  [[nodiscard]] bool drained() const { return in_flight_ == 0; }
  /// Its results into the job's TimedJob (TimedJob documents the fields).
  void report(TimedJob& out) const;

 private:
  BackgroundTraffic spec_;
  std::vector<double> period_;
  std::vector<std::uint32_t> queued_;  // per node: undelivered
  PatternRng rng_;
  double start_ = 0;
  double end_ = 0;
  std::uint64_t injected_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t in_flight_ = 0;
  std::uint64_t delivered_ = 0;
  double time_sum_ = 0;
  double time_max_ = 0;
};

}  // namespace ibsdn
