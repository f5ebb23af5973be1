// Internal to sim_backend/flowmodel/max_min_*.cpp: what the full solve (max_min_sharing.cpp) and
// the incremental re-solve (max_min_incremental.cpp) share besides the class. Constants, not
// inline variables: each file keeps copies of its own, with internal linkage, as when the solver
// was one file (its heap operations are instantiated for it alone).
#pragma once

#include <limits>

namespace ibsdn::max_min_detail {

// A function object, not a function: the heap operations inline it (a function pointer made
// the comparisons 40 % of a solve).
constexpr auto later = [](const auto& a, const auto& b) {
  return a.level != b.level ? a.level > b.level : a.index > b.index;
};

/// Relative slack of the re-solve's comparisons (header comment): far above the rounding of a
/// link's sums, far below the 1e-9 the rates are compared with.
constexpr double kSlack = 1e-12;
constexpr double kNoLevel = std::numeric_limits<double>::infinity();

}  // namespace ibsdn::max_min_detail
