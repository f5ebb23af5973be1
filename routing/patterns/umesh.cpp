// Unstructured mesh, "UMesh" of seed 001 (unstructured-mesh and particle-in-cell codes with
// space-filling-curve rank order): rank r sends to a random number in [min, max] of distinct
// partners within [r - range, r + range], clipped to the rank range (no wrap-around).
#include <algorithm>

#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_umesh(const PatternSpec& spec, std::uint32_t ranks,
                                     std::uint64_t seed) {
  PatternRng rng(seed);
  RankFlowBuilder out(spec.bytes);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::uint32_t lo = r - std::min(r, spec.range);
    const auto hi = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{r} + spec.range, ranks - 1));
    const std::uint32_t window = hi - lo;  // partners in [lo, hi] other than r
    const std::uint32_t count = std::min(rng.between(spec.min_partners, spec.max_partners), window);
    for (const std::uint32_t j : rng.distinct(window, count)) {
      const std::uint32_t partner = lo + j;
      out.add(r, partner < r ? partner : partner + 1);
    }
  }
  return out.take();
}

}  // namespace ibsdn
