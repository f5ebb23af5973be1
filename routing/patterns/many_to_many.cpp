// Many-to-many, "M2M" of seed 001 (parallel FFTs as in pF3D, NAMD, VASP): ranks fill an
// X x Y x Z grid, z fastest, and each line along Y, {(x, *, z)}, runs an all-to-all. Partners are
// therefore multiples of Z ranks apart, as the seed reports for its 180 x 128 x 384 grid.
#include "routing/patterns/grid.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_many_to_many(const PatternSpec& spec, std::uint32_t ranks,
                                            std::uint64_t /*seed*/) {
  const std::vector<std::uint32_t> dims = spec.dims.empty() ? most_cubic(ranks, 3) : spec.dims;
  require_dims_match("many-to-many", dims, ranks);
  const std::uint32_t ys = dims[1];
  const std::uint32_t zs = dims[2];
  RankFlowBuilder out(spec.bytes);
  out.reserve(static_cast<std::size_t>(ranks) * (ys - 1));
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::uint32_t y = (r / zs) % ys;
    const std::uint32_t line_start = r - y * zs;
    for (std::uint32_t other = 0; other < ys; ++other) out.add(r, line_start + other * zs);
  }
  return out.take();
}

}  // namespace ibsdn
