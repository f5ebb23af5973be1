#include "plugin/opensm/sdn_engine.hpp"

#include <stdexcept>
#include <vector>

namespace ibsdn::plugin {

SdnTables compute_sdn_tables(Subnet& f) {
  return default_tables(f.fabric, f.lids);
}

void write_tables(const Subnet& f, const LftSet& lfts, std::span<const osmsdn_lft> tables) {
  std::vector<NodeIdx> switches;
  switches.reserve(tables.size());
  for (const osmsdn_lft& t : tables) {
    const NodeIdx sw = f.node_of(Guid(t.switch_guid));
    if (!f.fabric.node(sw).is_switch()) {
      throw std::invalid_argument("a table for " + f.fabric.node(sw).name +
                                  ", which is not a switch");
    }
    if (t.size > 0 && t.ports == nullptr) throw std::invalid_argument("a table without entries");
    switches.push_back(sw);
  }
  // Entry -> the LID whose route it takes (itself, or the base LID of an LMC alias).
  std::vector<Lid> route_of;
  for (const auto& [alias, base] : f.lmc_aliases) {
    if (alias.value() >= route_of.size()) route_of.resize(alias.value() + 1u);
    route_of[alias.value()] = base;
  }
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const osmsdn_lft& t = tables[i];
    const bool routed = lfts.has_table(switches[i]);
    const Lft* table = routed ? &lfts.table(switches[i]) : nullptr;
    for (std::uint32_t lid = 0; lid < t.size; ++lid) {
      std::uint8_t port = OSMSDN_NO_PATH;
      if (table != nullptr && lid > 0 && lid <= kMaxUnicastLid.value()) {
        Lid l(static_cast<std::uint16_t>(lid));
        if (lid < route_of.size() && route_of[lid].value() != 0) l = route_of[lid];
        port = table->out(l).value();
      }
      t.ports[lid] = port;
    }
  }
}

}  // namespace ibsdn::plugin
