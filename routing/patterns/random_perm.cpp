// Random permutation (thesis 2.3): every rank sends to exactly one other rank and receives from
// exactly one, as a derangement drawn uniformly among all derangements.
#include <numeric>

#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_random_perm(const PatternSpec& spec, std::uint32_t ranks,
                                           std::uint64_t seed) {
  RankFlowBuilder out(spec.bytes);
  if (ranks < 2) return out.take();  // one rank has no derangement
  PatternRng rng(seed);
  std::vector<std::uint32_t> to(ranks);
  // Shuffle until no rank maps to itself: uniform over derangements, and about e ~ 2.72 shuffles
  // on average for every N >= 2 (one in two for N = 2).
  for (bool fixed_point = true; fixed_point;) {
    std::iota(to.begin(), to.end(), 0u);
    for (std::uint32_t i = ranks - 1; i > 0; --i) {
      std::swap(to[i], to[static_cast<std::size_t>(rng.below(std::uint64_t{i} + 1))]);
    }
    fixed_point = false;
    for (std::uint32_t i = 0; i < ranks && !fixed_point; ++i) fixed_point = to[i] == i;
  }
  out.reserve(ranks);
  for (std::uint32_t i = 0; i < ranks; ++i) out.add(i, to[i]);
  return out.take();
}

}  // namespace ibsdn
