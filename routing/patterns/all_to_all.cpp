// All-to-all: every rank sends to every other rank, N(N-1) flows.
#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_all_to_all(const PatternSpec& spec, std::uint32_t ranks,
                                          std::uint64_t /*seed*/) {
  RankFlowBuilder out(spec.bytes);
  out.reserve(static_cast<std::size_t>(ranks) * (ranks - 1));
  for (std::uint32_t s = 0; s < ranks; ++s) {
    for (std::uint32_t d = 0; d < ranks; ++d) out.add(s, d);
  }
  return out.take();
}

}  // namespace ibsdn
