// Rank grids shared by the near-neighbour patterns (2dnn, 3dnn, stencil3d/4d, many-to-many).
// Numbering and edge-case rules: see pattern.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "routing/patterns/rank_flow_builder.hpp"

namespace ibsdn {

/// Adds, for each of the ranks 0..ranks-1 placed row-major on a torus with these extents, its two
/// neighbours along every dimension, skipping neighbours at unoccupied points (index >= ranks).
void add_torus_neighbours(RankFlowBuilder& out, std::span<const std::uint32_t> extents,
                          std::uint32_t ranks);

/// The number of grid points, saturated at UINT64_MAX.
std::uint64_t grid_points(std::span<const std::uint32_t> extents);

/// Throws std::invalid_argument unless the dims hold exactly `ranks` points.
void require_dims_match(std::string_view pattern, std::span<const std::uint32_t> extents,
                        std::uint32_t ranks);

}  // namespace ibsdn
