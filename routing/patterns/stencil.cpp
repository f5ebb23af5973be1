// Stencil3d and Stencil4d (thesis 2.3 and 4.4.2): 6- and 8-point near-neighbour exchanges on a
// 3-D or 4-D torus whose extents multiply to the rank count.
#include "routing/patterns/grid.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn {
namespace {

std::vector<RankFlow> stencil(std::string_view name, const PatternSpec& spec, std::uint32_t ranks,
                              std::size_t d) {
  const std::vector<std::uint32_t> dims =
      spec.dims.empty() ? default_stencil_dims(ranks, d) : spec.dims;
  require_dims_match(name, dims, ranks);
  RankFlowBuilder out(spec.bytes);
  add_torus_neighbours(out, dims, ranks);
  return out.take();
}

}  // namespace

std::vector<std::uint32_t> default_stencil_dims(std::uint32_t ranks, std::size_t d) {
  // The decompositions of thesis 4.4.2: 1024 nodes (full fat-tree) and 1536 (3:1 tapered).
  if (d == 3 && ranks == 1024) return {8, 8, 16};
  if (d == 4 && ranks == 1024) return {8, 8, 4, 4};
  if (d == 3 && ranks == 1536) return {8, 8, 24};
  if (d == 4 && ranks == 1536) return {8, 8, 6, 4};
  return most_cubic(ranks, d);
}

std::vector<RankFlow> generate_stencil3d(const PatternSpec& spec, std::uint32_t ranks,
                                         std::uint64_t /*seed*/) {
  return stencil("stencil3d", spec, ranks, 3);
}

std::vector<RankFlow> generate_stencil4d(const PatternSpec& spec, std::uint32_t ranks,
                                         std::uint64_t /*seed*/) {
  return stencil("stencil4d", spec, ranks, 4);
}

}  // namespace ibsdn
