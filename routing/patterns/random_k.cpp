// Random4 and Random8 (seed 002): each rank sends to K distinct other ranks chosen uniformly at
// random, or to all others when there are no more than K.
#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {
namespace {

std::vector<RankFlow> random_k(const PatternSpec& spec, std::uint32_t ranks, std::uint64_t seed,
                               std::uint32_t k) {
  PatternRng rng(seed);
  RankFlowBuilder out(spec.bytes);
  const std::uint32_t others = ranks - 1;
  const std::uint32_t count = std::min(k, others);
  out.reserve(static_cast<std::size_t>(ranks) * count);
  for (std::uint32_t i = 0; i < ranks; ++i) {
    // Draw among the other ranks numbered 0..N-2, then skip over i itself.
    for (const std::uint32_t j : rng.distinct(others, count)) out.add(i, j < i ? j : j + 1);
  }
  return out.take();
}

}  // namespace

std::vector<RankFlow> generate_random4(const PatternSpec& spec, std::uint32_t ranks,
                                       std::uint64_t seed) {
  return random_k(spec, ranks, seed, 4);
}

std::vector<RankFlow> generate_random8(const PatternSpec& spec, std::uint32_t ranks,
                                       std::uint64_t seed) {
  return random_k(spec, ranks, seed, 8);
}

}  // namespace ibsdn
