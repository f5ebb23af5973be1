// Dragonfly-class topologies: 1D dragonfly (p, a, h, g) and megafly / dragonfly+ (seed 004).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn {

enum class DragonflyKind : std::uint8_t { kCanonical1D, kMegafly };

struct DragonflyLayout {
  DragonflyKind kind = DragonflyKind::kCanonical1D;
  int groups = 0;
  std::vector<int> group_of_node;              // node -> group, -1 for HCAs
  std::vector<std::vector<NodeIdx>> routers;   // routers[g] -> routers of group g
  std::vector<NodeIdx> hosts;                  // host index -> HCA node
};

}  // namespace ibsdn
