// Test helper: a Fabric as the glue would hand it over (osmsdn_abi.h structs, owned here).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "osmsdn_abi.h"
#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn::plugin::test {

struct AbiBuffers {
  std::vector<osmsdn_node> nodes;
  std::vector<osmsdn_port> ports;
  osmsdn_fabric view{};

  void refresh() {
    view = osmsdn_fabric{nodes.data(), static_cast<std::uint32_t>(nodes.size()), ports.data(),
                         static_cast<std::uint32_t>(ports.size()), 1};
  }
  osmsdn_port& port(std::size_t node, std::size_t num) {
    return ports[nodes[node].first_port + num - 1];
  }
};

/// Every node of `f` in its own order, 4x QDR links, LIDs from `lids`.
inline AbiBuffers to_abi(const Fabric& f, const LidMap& lids) {
  AbiBuffers out;
  for (std::uint32_t i = 0; i < f.num_nodes(); ++i) {
    const NodeIdx n(i);
    const Node& node = f.node(n);
    osmsdn_node a{};
    a.guid = node.guid.value();
    a.first_port = static_cast<std::uint32_t>(out.ports.size());
    a.type = node.is_switch() ? OSMSDN_NODE_SWITCH : OSMSDN_NODE_CA;
    a.num_ports = static_cast<std::uint8_t>(node.ports.size());
    a.lid = node.is_switch() ? lids.lid(n, PortNum(0)).value() : 0;
    std::strncpy(a.description, node.description.c_str(), OSMSDN_DESC_SIZE - 1);
    out.nodes.push_back(a);
    for (const Port& p : node.ports) {
      osmsdn_port q{};
      q.guid = node.guid.value() + (node.is_switch() ? 0 : p.num.value());
      q.num = p.num.value();
      q.lid = node.is_switch() ? 0 : lids.lid(n, p.num).value();
      q.link_width_active = 2;  // 4x
      q.link_speed_active = 4;  // QDR
      if (p.connected()) {
        q.peer_node_guid = f.node(p.peer).guid.value();
        q.peer_port = p.peer_port.value();
      }
      out.ports.push_back(q);
    }
  }
  out.refresh();
  return out;
}

}  // namespace ibsdn::plugin::test
