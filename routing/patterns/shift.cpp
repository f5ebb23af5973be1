// Shift (thesis 2.3, "Shift-256"): rank i sends to (i + k) mod N. An adversarial permutation for
// destination-based routing.
#include <stdexcept>

#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rank_flow_builder.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_shift(const PatternSpec& spec, std::uint32_t ranks,
                                     std::uint64_t /*seed*/) {
  const std::int64_t n = ranks;
  const auto offset = static_cast<std::uint64_t>(((spec.k % n) + n) % n);
  if (offset == 0) {
    throw std::invalid_argument("pattern 'shift': k=" + std::to_string(spec.k) +
                                " is a multiple of the job's " + std::to_string(ranks) +
                                " ranks, so every rank would send to itself");
  }
  RankFlowBuilder out(spec.bytes);
  out.reserve(ranks);
  for (std::uint32_t i = 0; i < ranks; ++i) {
    out.add(i, static_cast<std::uint32_t>((i + offset) % ranks));
  }
  return out.take();
}

}  // namespace ibsdn
