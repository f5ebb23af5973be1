#include "sim_backend/topology_spec.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "routing/dragonfly.hpp"
#include "routing/netlist.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

Fabric build_topology(const TopologySpec& spec) {
  const int sources = !spec.xgft.empty() + !spec.dragonfly.empty() + !spec.megafly.empty() +
                      !spec.netlist_in.empty();
  if (sources != 1) {
    throw std::invalid_argument(
        "give exactly one topology: --xgft, --dragonfly, --megafly or --netlist-in");
  }
  if (!spec.xgft.empty())
    return generate_xgft(XgftParams::parse(spec.xgft), spec.gpus_per_node, spec.gbps);
  if (!spec.dragonfly.empty())
    return generate_dragonfly(DragonflyParams::parse(spec.dragonfly), spec.gpus_per_node,
                              spec.gbps);
  if (!spec.megafly.empty())
    return generate_megafly(MegaflyParams::parse(spec.megafly), spec.gpus_per_node, spec.gbps);
  if (!spec.netlist_in.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(spec.netlist_in, ec)) {
      throw std::invalid_argument("cannot read netlist '" + spec.netlist_in + "': is a directory");
    }
    std::ifstream in(spec.netlist_in, std::ios::binary);
    if (!in) {
      throw std::invalid_argument("cannot read netlist '" + spec.netlist_in +
                                  "': " + std::strerror(errno));
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw std::invalid_argument("error reading netlist '" + spec.netlist_in + "'");
    Fabric f = parse_netlist(text.view(), spec.netlist_in);
    for (NodeIdx h : f.hcas()) f.node(h).gpus = static_cast<std::uint16_t>(spec.gpus_per_node);
    return f;
  }
  throw std::invalid_argument("this topology source is not available yet");
}

}  // namespace ibsdn
