#include "routing/lft_overrides.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "routing/lft_text.hpp"

namespace ibsdn {

namespace {

std::string where(const Fabric& f, const LftSet& lfts, NodeIdx sw, Lid dlid) {
  return "switch " + f.node(sw).name + ", DLID " + lft_detail::lid_label(f, lfts.lids, dlid);
}

/// The DLID an LFT entry is for; throws when the entry needs more than an LFT holds.
Lid lft_dlid(const Fabric& f, NodeIdx sw, const FlowEntry& e) {
  const FlowMatch& m = e.match;
  if (!m.dlid || m.dlid->mask != 0xFFFF || m.slid || m.sl || m.dest_qp) {
    throw std::invalid_argument("switch " + f.node(sw).name +
                                ": an LFT entry matches on an exact DLID only, this entry needs "
                                "flow definition level " +
                                std::string(to_string(m.required_level())) +
                                (m.dlid ? " or a DLID mask" : " and has no DLID"));
  }
  return Lid(m.dlid->value);
}

PortNum entry_at(const LftSet& lfts, NodeIdx sw, std::size_t lid) {
  if (!lfts.has_table(sw)) return kLftUnset;
  return lfts.table(sw).out(Lid(static_cast<std::uint16_t>(lid)));
}

}  // namespace

LftSet lfts_with_dlid_entries(const Fabric& f, const LftSet& base,
                              const std::map<NodeIdx, std::vector<FlowEntry>>& entries) {
  LftSet out = base;
  for (const auto& [sw, list] : entries) {
    if (sw.value() >= f.num_nodes() || !f.node(sw).is_switch()) {
      throw std::invalid_argument("LFT entries for node " + std::to_string(sw.value()) +
                                  ", which is not a switch of the fabric");
    }
    if (!base.has_table(sw)) {
      throw std::invalid_argument("switch " + f.node(sw).name + " has no LFT to write entries to");
    }
    std::map<Lid, PortNum> written;
    for (const FlowEntry& e : list) {
      const Lid dlid = lft_dlid(f, sw, e);
      if (e.action.set_sl) {
        throw std::invalid_argument(where(f, base, sw, dlid) +
                                    ": an LFT entry cannot rewrite the SL");
      }
      const PortNum port = e.action.output;
      if (port.value() > f.node(sw).ports.size()) {
        throw std::invalid_argument(where(f, base, sw, dlid) + ": port " +
                                    lft_detail::port_text(port) + " is not a port of the switch");
      }
      const auto [it, fresh] = written.emplace(dlid, port);
      if (!fresh && it->second != port) {
        throw std::invalid_argument(where(f, base, sw, dlid) + ": entries for ports " +
                                    lft_detail::port_text(it->second) + " and " +
                                    lft_detail::port_text(port) +
                                    " (the routes need more than the DLID to tell them apart)");
      }
      out.table(sw).set(dlid, port);
    }
  }
  return out;
}

std::vector<LftBlockChange> changed_lft_blocks(const Fabric& f, const LftSet& before,
                                               const LftSet& after) {
  std::vector<LftBlockChange> changes;
  for (const NodeIdx sw : f.switches()) {
    const std::size_t a = before.has_table(sw) ? before.table(sw).size() : 0;
    const std::size_t b = after.has_table(sw) ? after.table(sw).size() : 0;
    const std::size_t blocks = (std::max(a, b) + kLftBlockSize - 1) / kLftBlockSize;
    for (std::size_t block = 0; block < blocks; ++block) {
      LftBlockChange c{sw, static_cast<std::uint16_t>(block), {}};
      bool differs = false;
      for (std::size_t i = 0; i < kLftBlockSize; ++i) {
        const std::size_t lid = block * kLftBlockSize + i;
        c.ports[i] = entry_at(after, sw, lid);
        differs = differs || c.ports[i] != entry_at(before, sw, lid);
      }
      if (differs) changes.push_back(c);
    }
  }
  return changes;
}

}  // namespace ibsdn
