#include "routing/flow.hpp"

#include <algorithm>
#include <unordered_map>

namespace ibsdn {

void set_weights(std::vector<Flow>& flows) {
  std::unordered_map<NodeIdx, std::uint32_t> out;
  std::unordered_map<NodeIdx, std::uint32_t> in;
  for (const Flow& f : flows) {
    ++out[f.src];
    ++in[f.dst];
  }
  for (Flow& f : flows) {
    f.weight = std::min(1.0 / out[f.src], 1.0 / in[f.dst]);
  }
}

bool volumes_differ(std::span<const Flow> flows) {
  if (flows.empty()) return false;
  const double first = flow_volume(flows.front());
  return std::any_of(flows.begin(), flows.end(),
                     [first](const Flow& f) { return flow_volume(f) != first; });
}

std::uint32_t node_load(const std::vector<Flow>& flows) {
  std::unordered_map<NodeIdx, std::uint32_t> out;
  std::unordered_map<NodeIdx, std::uint32_t> in;
  std::uint32_t best = 0;
  for (const Flow& f : flows) {
    best = std::max({best, ++out[f.src], ++in[f.dst]});
  }
  return best;
}

}  // namespace ibsdn
