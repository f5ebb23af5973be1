// Pieces of SDN-optimal that tests and the phase logic use directly.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/algorithm.hpp"
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

/// SDN-optimal's answer to RouteRequest::per_destination: `paths` (its own) when the request does
/// not set it or they already send each destination's flows through one port per switch (a
/// permutation's always do, so it stays exact there); otherwise the volume engine's routing
/// under the constraint (routing/volume_routing.hpp) with unit volumes, the matchings inserted one
/// after the other and DmodK as the other start, which never splits a destination.
std::vector<Path> keep_per_destination(const RouteRequest& req, const FatTreeLayout& t,
                                       std::vector<Path> paths);

}  // namespace ibsdn
