#include "plugin/opensm/sdn_engine.hpp"

#include <stdexcept>
#include <vector>

namespace ibsdn::plugin {

SdnTables compute_sdn_tables(Subnet& f) {
  SdnTables t = default_tables(f.fabric, f.lids);
  // An LMC alias starts on its base LID's route; a job on that LID offset overrides it
  // (KeptLftOverrides), without touching the base LID's.
  for (const NodeIdx sw : f.fabric.switches()) {
    if (!t.lfts.has_table(sw)) continue;
    Lft& table = t.lfts.table(sw);
    for (const auto& [alias, base] : f.lmc_aliases) {
      if (const PortNum p = table.out(base); p != kLftUnset) table.set(alias, p);
    }
  }
  return t;
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
  // An LMC alias the tables do not route takes its base LID's route.
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
        const Lid l(static_cast<std::uint16_t>(lid));
        PortNum p = table->out(l);
        if (p == kLftUnset && lid < route_of.size() && route_of[lid].value() != 0) {
          p = table->out(route_of[lid]);
        }
        port = p.value();
      }
      t.ports[lid] = port;
    }
  }
}

}  // namespace ibsdn::plugin
