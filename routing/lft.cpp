// LidMap, Lft and LftSet; the text forms the lft*.cpp files share (lft_text.hpp).
#include "routing/lft.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "routing/lft_text.hpp"

namespace ibsdn {

namespace {

std::string hex_lid(Lid l) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%04x", unsigned{l.value()});
  return buf.data();
}

}  // namespace

namespace lft_detail {

std::string port_text(PortNum p) {
  return std::to_string(unsigned{p.value()});
}

std::string lid_label(const Fabric& f, const LidMap& lids, Lid lid) {
  std::string s = hex_lid(lid);
  if (const auto o = lids.owner(lid)) s += " (" + f.node(o->node).name + ")";
  return s;
}

}  // namespace lft_detail

using lft_detail::lid_label;
using lft_detail::port_text;

// ---- LidMap, Lft, LftSet --------------------------------------------------------------------

LidMap::LidMap(const Fabric& f) : port_lids_(f.num_nodes()), is_switch_(f.num_nodes()) {
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    port_lids_[i].assign(f.nodes()[i].ports.size() + 1, Lid{});
    is_switch_[i] = f.nodes()[i].is_switch();
  }
}

void LidMap::assign(NodeIdx node, PortNum port, Lid lid) {
  if (node.value() >= port_lids_.size()) throw std::invalid_argument("LID for an unknown node");
  auto& ports = port_lids_[node.value()];
  // InfiniBand gives a switch one LID, on port 0; an HCA one per physical port.
  if (is_switch_[node.value()] ? port.value() != 0
                               : port.value() == 0 || port.value() >= ports.size()) {
    throw std::invalid_argument("LID " + hex_lid(lid) + " for port " + port_text(port) +
                                (is_switch_[node.value()] ? " of a switch (only port 0 has one)"
                                                          : " that the HCA does not have"));
  }
  if (lid.value() == 0 || lid > kMaxUnicastLid) {
    throw std::invalid_argument("LID " + hex_lid(lid) + " is not a unicast LID");
  }
  if (ports[port.value()] == lid) return;
  if (ports[port.value()].value() != 0) {
    throw std::invalid_argument("port " + port_text(port) + " already has LID " +
                                hex_lid(ports[port.value()]) + ", now " + hex_lid(lid));
  }
  if (lid.value() < owners_.size() && owners_[lid.value()].node.valid()) {
    throw std::invalid_argument("LID " + hex_lid(lid) + " is given to two ports");
  }
  ports[port.value()] = lid;
  if (lid.value() >= owners_.size()) owners_.resize(lid.value() + 1u);
  owners_[lid.value()] = LidOwner{node, port};
}

Lid LidMap::lid(NodeIdx node) const {
  const auto& ports = port_lids_.at(node.value());
  for (const Lid l : ports) {
    if (l.value() != 0) return l;
  }
  return Lid{};
}

Lid LidMap::lid(NodeIdx node, PortNum port) const {
  const auto& ports = port_lids_.at(node.value());
  return port.value() < ports.size() ? ports[port.value()] : Lid{};
}

std::optional<LidOwner> LidMap::owner(Lid lid) const {
  if (lid.value() == 0 || lid.value() >= owners_.size() || !owners_[lid.value()].node.valid()) {
    return std::nullopt;
  }
  return owners_[lid.value()];
}

LidMap sequential_lids(const Fabric& f) {
  LidMap m(f);
  std::uint32_t next = 1;
  const auto take = [&next]() {
    if (next > kMaxUnicastLid.value()) throw std::invalid_argument("more ports than unicast LIDs");
    return Lid(static_cast<std::uint16_t>(next++));
  };
  for (const NodeIdx h : f.hcas()) {
    for (const Port& p : f.node(h).ports) {
      if (p.connected()) m.assign(h, p.num, take());
    }
  }
  for (const NodeIdx s : f.switches()) m.assign(s, kSwitchPort0, take());
  return m;
}

void Lft::set(Lid dlid, PortNum port) {
  if (dlid > kMaxUnicastLid)
    throw std::invalid_argument("LFT entry for multicast LID " + hex_lid(dlid));
  if (dlid.value() >= ports_.size()) ports_.resize(dlid.value() + 1u, kLftUnset);
  ports_[dlid.value()] = port;
}

Lft& LftSet::table(NodeIdx sw) {
  present_.at(sw.value()) = true;
  return tables_.at(sw.value());
}

}  // namespace ibsdn
