#include "routing/netlist.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/quote_for_message.hpp"
#include "flowtable/guid_text.hpp"
#include "routing/netlist_ibsim.hpp"

namespace ibsdn {

using netlist_detail::is_control;
using netlist_detail::kIbsimDefaultNodes;
using netlist_detail::kIbsimDefaultSwitches;
using netlist_detail::kIbsimMaxDescLen;
using netlist_detail::kIbsimMaxIdLen;

std::string export_ibsim_netlist(const Fabric& f) {
  std::unordered_map<std::uint64_t, NodeIdx> node_guids;
  std::unordered_map<std::uint64_t, NodeIdx> port_guids;
  for (std::uint32_t i = 0; i < f.num_nodes(); ++i) {
    const NodeIdx idx(i);
    const Node& n = f.node(idx);
    if (n.name.size() > kIbsimMaxIdLen || n.name.find_first_of("#@") != std::string::npos ||
        std::any_of(n.name.begin(), n.name.end(), is_control)) {
      throw std::invalid_argument("node " + quote_for_message(n.name) +
                                  ": ibsim node ids are at most 64 bytes, without '#', '@' or "
                                  "control characters");
    }
    const std::string& desc = n.description.empty() ? n.name : n.description;
    if (desc.size() > kIbsimMaxDescLen || desc.find('"') != std::string::npos ||
        std::any_of(desc.begin(), desc.end(), is_control)) {
      throw std::invalid_argument("node '" + n.name + "': description " + quote_for_message(desc) +
                                  " does not fit ibsim (at most 63 bytes, no quotes or control "
                                  "characters)");
    }
    if (n.guid.value() == 0) throw std::invalid_argument("node '" + n.name + "' has no GUID");
    if (const auto [it, fresh] = node_guids.emplace(n.guid.value(), idx); !fresh) {
      throw std::invalid_argument("nodes '" + f.node(it->second).name + "' and '" + n.name +
                                  "' share GUID " + guid_text(n.guid));
    }
    // ibsim: a switch's ports carry the node GUID, an HCA's port p carries node GUID + p.
    const std::size_t guid_ports = n.is_switch() ? 1 : n.ports.size();
    for (std::size_t p = 1; p <= guid_ports; ++p) {
      const std::uint64_t pg = n.guid.value() + (n.is_switch() ? 0 : p);
      if (const auto [it, fresh] = port_guids.emplace(pg, idx); !fresh) {
        throw std::invalid_argument("ibsim would give '" + n.name + "' and '" +
                                    f.node(it->second).name + "' the same port GUID " +
                                    guid_text(Guid(pg)) + " (HCA port p gets node GUID + p)");
      }
    }
  }

  std::string out;
  out += "# ibsim netlist written by ibsdn: " + (f.kind_label.empty() ? "fabric" : f.kind_label) +
         ", " + std::to_string(f.hcas().size()) + " HCAs, " + std::to_string(f.switches().size()) +
         " switches, " + std::to_string(f.num_links() / 2) + " cables\n";
  out += "# load with: ibsim -s FILE";
  if (f.num_nodes() > kIbsimDefaultNodes || f.switches().size() > kIbsimDefaultSwitches) {
    out += " -N " + std::to_string(std::max(f.num_nodes(), kIbsimDefaultNodes)) + " -S " +
           std::to_string(std::max(f.switches().size(), kIbsimDefaultSwitches));
  }
  out += "\n\n";
  for (const Node& n : f.nodes()) {
    // ibsim ends a record at the first line that is not a port line and discards that line, so
    // every record is followed by a blank line before the next GUID line.
    out += (n.is_switch() ? "switchguid=" : "caguid=") + guid_text(n.guid) + "\n";
    out += std::string(n.is_switch() ? "Switch" : "Hca") + "\t" + std::to_string(n.ports.size()) +
           "\t\"" + n.name + "\"\t# \"" + (n.description.empty() ? n.name : n.description) + "\"\n";
    for (const Port& p : n.ports) {
      if (!p.connected()) continue;
      out += "[" + std::to_string(p.num.value()) + "]\t\"" + f.node(p.peer).name + "\"[" +
             std::to_string(p.peer_port.value()) + "]\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace ibsdn
