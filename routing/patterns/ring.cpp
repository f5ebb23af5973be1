// Ring (seed 002): rank i talks to i + 1 and i - 1, with wrap-around. With two ranks both
// directions reach the same partner, which counts once.
#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_ring(const PatternSpec& spec, std::uint32_t ranks,
                                    std::uint64_t /*seed*/) {
  RankFlowBuilder out(spec.bytes);
  out.reserve(2 * static_cast<std::size_t>(ranks));
  for (std::uint32_t i = 0; i < ranks; ++i) {
    out.add(i, static_cast<std::uint32_t>((std::uint64_t{i} + 1) % ranks));
    out.add(i, static_cast<std::uint32_t>((std::uint64_t{i} + ranks - 1) % ranks));
  }
  return out.take();
}

}  // namespace ibsdn
