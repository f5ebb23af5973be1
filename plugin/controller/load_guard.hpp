// The load guard's arithmetic and turn-taking (config `load_guard`, docs/routing.md "The load
// guard"): the gap between the fabric's load and the load the default routes (the LFTs) would
// give the same jobs, what a plan would leave above the default routes' SWML, and whose turn it
// is to leave the default routes again. JobController (job_guard.cpp) holds the jobs, plans,
// places and logs; this touches no job and no switch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "routing/flow.hpp"
#include "routing/ids.hpp"
#include "routing/link_load.hpp"
#include "routing/network_state.hpp"

namespace ibsdn::plugin {

/// The fabric's load against the default routes' for the same routed jobs (seed 002 weights).
struct LoadGap {
  double sdn_max = 0;         // the SWML as the switches carry the jobs
  double lft_max = 0;         // the SWML were every job on the LFTs
  double excess = 0;          // sum over links of what exceeds lft_max
  std::vector<LinkId> above;  // the links above lft_max, the busiest first
};

class LoadGuard {
 public:
  /// The order of starts the jobs are kept in (JobController::OrderKey).
  using OrderKey = std::pair<std::uint64_t, std::uint64_t>;

  /// Loads are sums of doubles added in different orders: equal within this.
  static constexpr double kEps = 1e-9;
  /// Plans tried per re-route step, and re-route steps per guard call.
  static constexpr std::size_t kReroutePlans = 3;
  static constexpr std::size_t kRerouteSteps = 8;
  /// Guarded jobs planned again per job_end.
  static constexpr std::size_t kRestorePlans = 4;

  /// The gap between `sdn`, the load as the switches carry the jobs, and `lft`, the same jobs'
  /// load on their default routes.
  static LoadGap gap(const LinkLoad& sdn, const LinkLoad& lft);
  /// The sum over links of what `net`'s load would carry above `lft_max` were job `id` on
  /// `paths` (one per flow of `flows`) instead of the paths `net` holds for it (none: a job `net`
  /// does not hold adds its load).
  static double excess_with(const NetworkState& net, JobId id, const std::vector<Flow>& flows,
                            const std::vector<Path>& paths, double lft_max);

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
