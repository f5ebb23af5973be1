// SDN-adaptive's decision rule (thesis 4.3.3).
#pragma once

#include <span>
#include <string>

#include "routing/flow.hpp"

namespace ibsdn {

struct AdaptiveDecision {
  bool single_path = false;  // true: install SDN-optimal paths; false: leave it to adaptive routing
  std::uint32_t node_load = 0;
  std::string reason;
};

/// A demand that is at most a permutation (every node sends at most one flow and receives at
/// most one: NL_D <= 1) is routed contention-free by SDN-optimal on a full-bisection tree, which
/// beats adaptive routing; anything denser is left to the fabric's adaptive routing.
AdaptiveDecision decide_sdn_adaptive(std::span<const Flow> flows);

}  // namespace ibsdn
