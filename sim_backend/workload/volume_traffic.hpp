// Heavy-tailed rank traffic: MPI exchange patterns whose message sizes differ by 3-4 orders of
// magnitude between pairs, as profiled applications show (docs/routing.md, "Volumes"). They
// feed the volume-aware routing's tests and bench (volume_cases.hpp); unlike the named patterns
// (routing/patterns/) they are not part of the notice syntax: they exist to prove the routing.
//
// Every generator is seeded (the same seed gives the same flows on every platform: sizes come
// from SplitMix64, not from <random>'s distributions), gives each ordered (src, dst) pair at most
// once with bytes > 0, never src == dst, ordered by source then destination.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

enum class VolumeTraffic : std::uint8_t {
  /// 3-D 27-point halo exchange on a most-cubic torus of the ranks, subdomains of 32^3 cells:
  /// faces 32^2 cells, edges 32, corners 1 (1024 : 32 : 1), 64 bytes a cell.
  kStencil27,
  /// 3-D 7-point exchange on subdomains of 2 x 32 x 2048 cells, 8 bytes a cell: the faces
  /// across the first axis carry 16x what those across the second carry, 1024x the third's.
  kStencilAxes,
  /// NAS CG-like: a 2-D process grid; per rank a transpose partner (the whole vector segment),
  /// recursive-halving partners along its row (half, quarter, ... of it), and 8 random light
  /// partners (1/4096 to 1/64 of it, log-uniform).
  kCg,
  /// NAS FT-like all-to-all: every ordered pair, block sizes log-uniform in [1 KiB, 1 MiB].
  kFt,
  /// OpenFOAM-like unstructured mesh: each rank shares faces with 2-6 ranks among the next 24
  /// (a space-filling-curve decomposition), face sizes log-uniform over 3 decades, both ways.
  kUnstructured,
};

/// Every kind, in declaration order.
std::span<const VolumeTraffic> volume_traffic_kinds();
/// "stencil27", "stencil-axes", "cg", "ft", "unstructured".
std::string_view to_string(VolumeTraffic kind);

/// The rank flows of `kind` over `ranks` ranks (>= 2). Each stencil rank's messages are scaled by
/// a factor of its own, log-uniform in [0.8, 1.25] (load imbalance), so the seed matters for
/// every kind. Throws std::invalid_argument for ranks < 2.
std::vector<RankFlow> volume_traffic(VolumeTraffic kind, std::uint32_t ranks, std::uint64_t seed);

}  // namespace ibsdn
