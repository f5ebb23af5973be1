// The load guard's arithmetic and turn-taking (config `load_guard`, docs/routing.md "The load
// guard"): the gap between the fabric's load and the load the default routes (the LFTs) would
// give the same jobs, in the measure the jobs have, what a plan would leave above the default
// routes' maximum, and whose turn it is to leave the default routes again. JobController
// (job_guard.cpp) holds the jobs, plans, places and logs; this touches no job and no switch.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/ids.hpp"
#include "routing/link_load.hpp"

namespace ibsdn::plugin {

/// What the guard compares loads in. A job whose flows' byte volumes differ (volumes_differ,
/// routing/flow.hpp: a matrix, or merged rank flows) is compared by the time the busiest link
/// needs for the bytes on it (bytes per unit of capacity, what sdn-volume balances): counting its
/// flows alike would let a routing pass that puts two heavy flows on a link where the default
/// routes put one. The others, whose flows all weigh the same, keep seed 002's measure, the
/// busiest link's weight w(s,d) = min(1/s_out, 1/d_in) (SWML). The two are never added up: each
/// covers the jobs it measures, and both must stay at most the default routes'.
enum class GuardMeasure : std::uint8_t { kFlows, kBytes };
inline constexpr std::array<GuardMeasure, 2> kGuardMeasures = {GuardMeasure::kFlows,
                                                               GuardMeasure::kBytes};
/// "flows" or "bytes", as the ready answer's guard_measure says it.
std::string_view to_string(GuardMeasure m);
/// kBytes when the flows' volumes differ.
GuardMeasure guard_measure(std::span<const Flow> flows);
/// A flow's part of a link's load in `m`: its weight, or its volume (flow_volume).
double flow_share(const Flow& f, GuardMeasure m);
/// Each link's load in `m`: its weight, or the seconds it needs for its volume (link_seconds).
std::vector<double> link_values(const Fabric& f, const LinkLoad& load, GuardMeasure m);

/// The fabric's load against the default routes' for the same routed jobs, in one measure.
struct LoadGap {
  GuardMeasure measure = GuardMeasure::kFlows;
  double sdn_max = 0;         // the busiest link as the switches carry the jobs
  double lft_max = 0;         // the busiest link were every job on the LFTs
  double excess = 0;          // sum over links of what exceeds lft_max
  double tolerance = 0;       // loads within it of lft_max are equal (rounding)
  std::vector<LinkId> above;  // the links above lft_max, the busiest first
};

/// A job's flows and one path per flow.
struct FlowsOnPaths {
  std::span<const Flow> flows;
  std::span<const Path> paths;
};

class LoadGuard {
 public:
  /// The order of starts the jobs are kept in (JobController::OrderKey).
  using OrderKey = std::pair<std::uint64_t, std::uint64_t>;

  /// Loads are sums of doubles added in different orders: equal within this (weights), or within
  /// this fraction of the default routes' maximum (bytes).
  static constexpr double kEps = 1e-9;
  /// Plans tried per re-route step, and re-route steps per guard call.
  static constexpr std::size_t kReroutePlans = 3;
  static constexpr std::size_t kRerouteSteps = 8;
  /// Guarded jobs planned again per job_end.
  static constexpr std::size_t kRestorePlans = 4;

  /// The gap in `m` between `sdn`, each link's load as the switches carry the jobs, and `lft`,
  /// the same jobs' on their default routes (link_values()).
  static LoadGap gap(GuardMeasure m, std::span<const double> sdn, std::span<const double> lft);
  /// The sum over links of what `load` (the load in `m`'s jobs, `now` among them) would carry
  /// above `lft_max`, in `m`, were the job of `now` on `next` instead (an empty `now`: a job the
  /// load does not hold adds its load).
  static double excess_with(const Fabric& f, GuardMeasure m, LinkLoad load, FlowsOnPaths now,
                            FlowsOnPaths next, double lft_max);

  /// Reorders `guarded`, the guarded jobs in start order (`key_of` gives each one's OrderKey),
  /// into this call's turns: beginning after the job that had the last turn, at most
  /// kRestorePlans, so that every guarded job gets its turn.
  template <class T, class KeyOf>
  void take_turns(std::vector<T>& guarded, KeyOf key_of) const {
    auto first = guarded.begin();
    if (last_turn_) {
      first = std::find_if(guarded.begin(), guarded.end(),
                           [&](const T& g) { return key_of(g) > *last_turn_; });
    }
    std::rotate(guarded.begin(), first, guarded.end());
    if (guarded.size() > kRestorePlans) guarded.resize(kRestorePlans);
  }
  /// Records that `job` had its turn: the next turns begin after it.
  void had_turn(OrderKey job) { last_turn_ = job; }

 private:
  std::optional<OrderKey> last_turn_;
};

}  // namespace ibsdn::plugin
