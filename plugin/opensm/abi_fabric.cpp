#include "plugin/opensm/abi_fabric.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "flowtable/guid_text.hpp"

namespace ibsdn::plugin {
namespace {

std::string_view description_of(const osmsdn_node& n) {
  // The glue NUL-terminates; bound the scan anyway in case a caller did not.
  std::size_t len = 0;
  while (len < OSMSDN_DESC_SIZE && n.description[len] != '\0') ++len;
  return {n.description, len};
}

bool is_name_char(char c) {
  return c > ' ' && c != '"' && c != 0x7F;
}

/// First word of the description, if it can serve as a Fabric node name.
std::string first_word(std::string_view desc) {
  std::size_t b = 0;
  while (b < desc.size() && !is_name_char(desc[b])) ++b;
  std::size_t e = b;
  while (e < desc.size() && is_name_char(desc[e])) ++e;
  return std::string(desc.substr(b, e - b));
}

std::string node_label(const osmsdn_node& n) {
  return "node " + guid_text(Guid(n.guid)) + " ('" + std::string(description_of(n)) + "')";
}

void add_lid(Subnet& out, NodeIdx node, PortNum port, std::uint16_t lid, std::uint8_t lmc,
             const osmsdn_node& n) {
  if (lid == 0) return;  // not assigned (yet): nothing routes to it
  try {
    out.lids.assign(node, port, Lid(lid));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(node_label(n) + " port " + std::to_string(port.value()) + ": " +
                                e.what());
  }
  if (lmc > 7) throw std::invalid_argument(node_label(n) + ": LMC " + std::to_string(lmc) + " > 7");
  const unsigned count = 1u << lmc;
  for (unsigned k = 1; k < count; ++k) {
    const unsigned alias = lid + k;
    if (alias > kMaxUnicastLid.value()) break;
    out.lmc_aliases.emplace_back(Lid(static_cast<std::uint16_t>(alias)), Lid(lid));
  }
}

}  // namespace

double link_gbps(const osmsdn_port& p) {
  double lanes = 0.0;
  switch (p.link_width_active) {
    case 1:
      lanes = 1;
      break;
    case 2:
      lanes = 4;
      break;
    case 4:
      lanes = 8;
      break;
    case 8:
      lanes = 12;
      break;
    case 16:
      lanes = 2;
      break;
    default:
      return 0.0;
  }
  // Nominal per-lane data rates, as ibnetdiscover's speed names mean them.
  double lane_gbps = 0.0;
  switch (p.link_speed_ext_active) {
    case 1:
      lane_gbps = 14.0;
      break;  // FDR
    case 2:
      lane_gbps = 25.0;
      break;  // EDR
    case 4:
      lane_gbps = 50.0;
      break;  // HDR
    case 8:
      lane_gbps = 100.0;
      break;  // NDR
    default:
      switch (p.link_speed_active) {
        case 1:
          lane_gbps = 2.5;
          break;  // SDR
        case 2:
          lane_gbps = 5.0;
          break;  // DDR
        case 4:
          lane_gbps = 10.0;
          break;  // QDR
        default:
          return 0.0;
      }
  }
  return lanes * lane_gbps;
}

Subnet subnet_from_abi(const osmsdn_fabric& in) {
  if (in.num_nodes > 0 && in.nodes == nullptr) throw std::invalid_argument("no node array");
  if (in.num_ports > 0 && in.ports == nullptr) throw std::invalid_argument("no port array");
  const std::span<const osmsdn_node> nodes(in.nodes, in.num_nodes);
  const std::span<const osmsdn_port> ports(in.ports, in.num_ports);
  for (const osmsdn_node& n : nodes) {
    if (n.num_ports == 0 || std::uint64_t{n.first_port} + n.num_ports > ports.size()) {
      throw std::invalid_argument(node_label(n) + ": ports " + std::to_string(n.first_port) + "+" +
                                  std::to_string(n.num_ports) + " outside the " +
                                  std::to_string(ports.size()) + " given");
    }
  }

  Subnet out;
  out.sm_lid = Lid(in.sm_lid);
  // OpenSM's node table is ordered by the GUID in network byte order (on a little-endian host, by
  // its last byte first): the subnet order (fabric.hpp) makes ours independent of that, and the
  // same as a replay of the fabric from its netlist.
  std::vector<std::uint32_t> order(nodes.size());  // fabric node index -> ABI node index
  for (std::uint32_t i = 0; i < nodes.size(); ++i) order[i] = i;
  const auto kind_of = [&nodes](std::uint32_t i) {
    return nodes[i].type == OSMSDN_NODE_SWITCH ? NodeKind::kSwitch : NodeKind::kHca;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return subnet_order_before(kind_of(a), Guid(nodes[a].guid), kind_of(b), Guid(nodes[b].guid));
  });
  for (const std::uint32_t i : order) {
    const osmsdn_node& n = nodes[i];
    std::string name = first_word(description_of(n));
    if (name.empty() || out.fabric.find(name)) name = "guid-" + guid_text(Guid(n.guid));
    if (n.guid == 0 || out.fabric.find_guid(Guid(n.guid))) {
      throw std::invalid_argument(node_label(n) +
                                  (n.guid == 0 ? " has no GUID" : " appears twice"));
    }
    const NodeIdx idx = out.fabric.add_node(kind_of(i), name, n.num_ports, Guid(n.guid));
    out.fabric.node(idx).description = std::string(description_of(n));
  }

  // Cables: each is listed from both ends; build it once, from the end that sorts first.
  for (const std::uint32_t i : order) {
    const osmsdn_node& n = nodes[i];
    const NodeIdx a = out.node_of(Guid(n.guid));
    for (std::uint32_t k = 0; k < n.num_ports; ++k) {
      const osmsdn_port& p = ports[n.first_port + k];
      if (p.num != k + 1) {
        throw std::invalid_argument(node_label(n) + ": port slot " + std::to_string(k + 1) +
                                    " holds port " + std::to_string(p.num));
      }
      if (p.peer_node_guid == 0) continue;
      const auto peer = out.fabric.find_guid(Guid(p.peer_node_guid));
      if (!peer) {
        throw std::invalid_argument(node_label(n) + " port " + std::to_string(p.num) +
                                    " is cabled to unknown node " +
                                    guid_text(Guid(p.peer_node_guid)));
      }
      const NodeIdx b = *peer;
      if (a == b) continue;  // a loopback cable carries no route
      const osmsdn_node& m = nodes[order[b.value()]];
      if (p.peer_port == 0 || p.peer_port > m.num_ports) {
        throw std::invalid_argument(node_label(n) + " port " + std::to_string(p.num) +
                                    " is cabled to missing port " + std::to_string(p.peer_port) +
                                    " of " + node_label(m));
      }
      const osmsdn_port& q = ports[m.first_port + p.peer_port - 1u];
      if (q.peer_node_guid != n.guid || q.peer_port != p.num) {
        throw std::invalid_argument("cable " + node_label(n) + " port " + std::to_string(p.num) +
                                    " -> " + node_label(m) + " port " +
                                    std::to_string(p.peer_port) + " is not seen from its far end");
      }
      if (std::pair(a.value(), p.num) > std::pair(b.value(), p.peer_port)) continue;
      out.fabric.connect(a, PortNum(p.num), b, PortNum(p.peer_port), link_gbps(p));
    }
  }

  out.lids = LidMap(out.fabric);
  for (const std::uint32_t i : order) {
    const osmsdn_node& n = nodes[i];
    const NodeIdx idx = out.node_of(Guid(n.guid));
    if (n.type == OSMSDN_NODE_SWITCH) {
      add_lid(out, idx, PortNum(0), n.lid, n.lmc, n);
      out.fabric.node(idx).lid = Lid(n.lid);
      continue;
    }
    for (std::uint32_t k = 0; k < n.num_ports; ++k) {
      const osmsdn_port& p = ports[n.first_port + k];
      add_lid(out, idx, PortNum(p.num), p.lid, p.lmc, n);
    }
    out.fabric.node(idx).lid = out.lids.lid(idx);
  }
  out.fabric.compute_levels();
  return out;
}

LftSet lfts_from_abi(const Subnet& f, std::span<const osmsdn_lft> tables) {
  LftSet out(f.fabric);
  out.lids = f.lids;
  for (const osmsdn_lft& t : tables) {
    const NodeIdx sw = f.node_of(Guid(t.switch_guid));
    if (!f.fabric.node(sw).is_switch()) {
      throw std::invalid_argument("LFT for " + guid_text(Guid(t.switch_guid)) +
                                  ", which is not a switch");
    }
    if (t.size > 0 && t.ports == nullptr) throw std::invalid_argument("LFT without entries");
    Lft& lft = out.table(sw);
    const std::uint32_t n = std::min<std::uint32_t>(t.size, kMaxUnicastLid.value() + 1u);
    for (std::uint32_t lid = 1; lid < n; ++lid) {
      if (t.ports[lid] != OSMSDN_NO_PATH) {
        lft.set(Lid(static_cast<std::uint16_t>(lid)), PortNum(t.ports[lid]));
      }
    }
  }
  return out;
}

}  // namespace ibsdn::plugin
