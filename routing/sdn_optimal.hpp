// Pieces of SDN-optimal that tests and the phase logic use directly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fat_tree.hpp"
#include "routing/flow.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

/// Thesis Algorithm 3: splits flows into NL_D matchings (each source and each destination at most
/// once per matching). Returns flow indexes per matching.
std::vector<std::vector<std::uint32_t>> partition_into_matchings(const XgftLayout& x,
                                                                 std::span<const Flow> flows);
std::vector<std::vector<std::uint32_t>> partition_into_matchings(const FatTreeLayout& t,
                                                                 std::span<const Flow> flows);

}  // namespace ibsdn
