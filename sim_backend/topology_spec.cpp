#include "sim_backend/topology_spec.hpp"

#include <stdexcept>

#include "routing/dragonfly.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

Fabric build_topology(const TopologySpec& spec) {
  const int sources = !spec.xgft.empty() + !spec.dragonfly.empty() + !spec.megafly.empty() +
                      !spec.netlist_in.empty();
  if (sources != 1) {
    throw std::invalid_argument(
        "give exactly one topology: --xgft, --dragonfly, --megafly or --netlist-in");
  }
  if (!spec.xgft.empty()) return generate_xgft(XgftParams::parse(spec.xgft), spec.gpus_per_node, spec.gbps);
  if (!spec.dragonfly.empty()) return generate_dragonfly(DragonflyParams::parse(spec.dragonfly), spec.gpus_per_node, spec.gbps);
  if (!spec.megafly.empty()) return generate_megafly(MegaflyParams::parse(spec.megafly), spec.gpus_per_node, spec.gbps);
  throw std::invalid_argument("this topology source is not available yet");
}

}  // namespace ibsdn
