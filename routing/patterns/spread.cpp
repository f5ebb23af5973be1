// Uniform spread, "Spread" of seed 001 (load-balanced codes such as NAMD): rank r sends to a
// random number in [min, max] of distinct partners chosen uniformly among all other ranks.
#include <algorithm>

#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_spread(const PatternSpec& spec, std::uint32_t ranks,
                                      std::uint64_t seed) {
  PatternRng rng(seed);
  RankFlowBuilder out(spec.bytes);
  const std::uint32_t others = ranks - 1;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::uint32_t count = std::min(rng.between(spec.min_partners, spec.max_partners), others);
    for (const std::uint32_t j : rng.distinct(others, count)) out.add(r, j < r ? j : j + 1);
  }
  return out.take();
}

}  // namespace ibsdn
