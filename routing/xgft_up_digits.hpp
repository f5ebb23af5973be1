// Chooses every flow's up digits on an XGFT by edge-colouring one level at a time: the engine
// behind SDN-optimal and its tapered variant (thesis 4.3.2).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

struct UpDigitOptions {
  /// false: proper colouring with w_j colours at each level; the caller guarantees that no
  /// level-(j-1) node has more than w_j flows leaving or entering it (true for a permutation on
  /// a full-bisection XGFT). true: vertex splitting, each up link of a node carries at most
  /// ceil(flows through the node / w_j), flows that continue higher spread first.
  bool balanced = false;
  /// Current flow count per directed link (background jobs + flows already placed). When set,
  /// among colours free at both ends the one whose two links are least loaded wins.
  const std::vector<std::int32_t>* link_flows = nullptr;
};

/// Returns the y index (see XgftLayout::ancestor) for each flow src_host[i] -> dst_host[i].
std::vector<std::uint64_t> choose_up_digits(const Fabric& f, const XgftLayout& x,
                                            std::span<const std::uint32_t> src_host,
                                            std::span<const std::uint32_t> dst_host,
                                            const UpDigitOptions& opt);

}  // namespace ibsdn
