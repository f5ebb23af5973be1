// 2DNN and 3DNN (seed 002): ranks fill a ceil(sqrt N)^2 grid row by row, or a ceil(cbrt N)^3 grid
// plane by plane, and talk to their 4 / 6 torus neighbours. The last row / plane may be
// incomplete; neighbours on its holes are skipped (pattern.hpp).
#include "routing/patterns/grid.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn {
namespace {

std::vector<RankFlow> nearest_neighbours(const PatternSpec& spec, std::uint32_t ranks,
                                         unsigned dimensions) {
  const std::vector<std::uint32_t> extents(dimensions, ceil_root(ranks, dimensions));
  RankFlowBuilder out(spec.bytes);
  add_torus_neighbours(out, extents, ranks);
  return out.take();
}

}  // namespace

std::vector<RankFlow> generate_nn2d(const PatternSpec& spec, std::uint32_t ranks,
                                    std::uint64_t /*seed*/) {
  return nearest_neighbours(spec, ranks, 2);
}

std::vector<RankFlow> generate_nn3d(const PatternSpec& spec, std::uint32_t ranks,
                                    std::uint64_t /*seed*/) {
  return nearest_neighbours(spec, ranks, 3);
}

}  // namespace ibsdn
