#include "routing/subnet.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>

#include "flowtable/guid_text.hpp"

namespace ibsdn {

NodeIdx Subnet::node_of(Guid guid) const {
  if (const auto n = fabric.find_guid(guid)) return *n;
  throw std::invalid_argument("no node with GUID " + guid_text(guid));
}

std::vector<unsigned> lids_per_node(const Subnet& s) {
  std::vector<unsigned> out(s.fabric.num_nodes(), 1);
  for (const auto& [alias, base] : s.lmc_aliases) {
    if (const auto owner = s.lids.owner(base)) ++out[owner->node.value()];
  }
  return out;
}

LidMap lids_at_offset(const Subnet& s, std::uint8_t offset, const std::vector<NodeIdx>& hosts) {
  const Fabric& f = s.fabric;
  std::unordered_map<std::uint32_t, bool> alias_of;  // (base << 16 | alias) -> exists
  for (const auto& [alias, base] : s.lmc_aliases) {
    alias_of.emplace((std::uint32_t{base.value()} << 16) | alias.value(), true);
  }
  const auto has = [&](Lid base) {
    return offset == 0 ||
           alias_of.contains((std::uint32_t{base.value()} << 16) | (base.value() + offset));
  };
  for (const NodeIdx h : hosts) {
    const Lid base = s.lids.lid(h);
    if (base.value() == 0 || !has(base)) {
      throw std::invalid_argument(f.node(h).name + " has no LID at offset " +
                                  std::to_string(offset) + " (LMC: its port answers too few)");
    }
  }
  LidMap out(f);
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    const NodeIdx n(static_cast<std::uint32_t>(i));
    if (f.node(n).is_switch()) {
      if (const Lid l = s.lids.lid(n, PortNum(0)); l.value() != 0) out.assign(n, PortNum(0), l);
      continue;
    }
    for (std::size_t p = 1; p <= f.node(n).ports.size(); ++p) {
      const PortNum port(static_cast<std::uint8_t>(p));
      const Lid base = s.lids.lid(n, port);
      if (base.value() == 0) continue;
      out.assign(n, port,
                 has(base) ? Lid(static_cast<std::uint16_t>(base.value() + offset)) : base);
    }
  }
  return out;
}

}  // namespace ibsdn
