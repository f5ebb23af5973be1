#include "plugin/opensm/glue_lft.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "flowtable/guid_text.hpp"

namespace ibsdn::plugin {
namespace {

osmsdn_lft_block to_abi(const LftBlock& b) {
  osmsdn_lft_block out{};
  out.switch_guid = b.sw.value();
  out.block = b.block;
  std::memcpy(out.ports, b.ports.data(), sizeof(out.ports));
  return out;
}

std::uint32_t timeout_ms(std::chrono::milliseconds t) {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(t.count(), 0, 600'000));
}

/// Whether a packet for `lid` (`owned_as`: the LID itself, or the base LID of an LMC alias)
/// entering switch `from` reaches the LID's node through the tables (no loop, no dead end).
bool delivers(const Subnet& s, const LftSet& lfts, NodeIdx from, Lid lid, Lid owned_as) {
  const auto owner = s.lids.owner(owned_as);
  if (!owner) return false;
  NodeIdx at = from;
  for (std::size_t hop = 0; hop <= s.fabric.num_nodes(); ++hop) {
    if (at == owner->node) return true;
    if (!s.fabric.node(at).is_switch() || !lfts.has_table(at)) return false;
    const PortNum out = lfts.table(at).out(lid);
    const auto& ports = s.fabric.node(at).ports;
    if (out == kLftUnset || out.value() == 0 || out.value() > ports.size()) return false;
    const Port& p = ports[out.value() - 1];
    if (!p.connected()) return false;
    at = p.peer;
  }
  return false;
}

}  // namespace

void KeptLftOverrides::set(std::shared_ptr<const LftOverrides> overrides) {
  std::lock_guard lock(mu_);
  kept_ = std::move(overrides);
}

std::size_t KeptLftOverrides::apply(const Subnet& s, LftSet& lfts) {
  std::lock_guard lock(mu_);
  applied_.clear();
  if (!kept_) return 0;
  const Fabric& f = s.fabric;
  std::size_t n = 0;
  for (const auto& [g, table] : *kept_) {
    const auto sw = f.find_guid(g);
    if (!sw || !f.node(*sw).is_switch() || !lfts.has_table(*sw)) continue;
    for (const auto& [lid, port] : table) {
      const PortNum before = lfts.table(*sw).out(Lid(lid));
      // A LID the engine routes, through a port that is cabled now; anything else keeps the
      // default route (the controller re-routes the job at SUBNET UP).
      const auto& ports = f.node(*sw).ports;
      const bool cabled =
          port.value() >= 1 && port.value() <= ports.size() && ports[port.value() - 1].connected();
      if (before == kLftUnset || !cabled) continue;
      lfts.table(*sw).set(Lid(lid), port);
      applied_[g][lid] = {port, before};
      ++n;
    }
  }
  // Kept entries written for another fabric (a cable failed, a switch went) may now lead into
  // a dead end or close a loop with the defaults: a destination where one of them does not
  // deliver keeps all of its default routes. (A new loop passes through an overridden switch,
  // so walking from each of them finds it.)
  std::map<std::uint16_t, Lid> base_of;  // LMC alias -> its port's base LID
  for (const auto& [alias, base] : s.lmc_aliases) base_of.emplace(alias.value(), base);
  std::set<std::uint16_t> broken;
  for (const auto& [g, table] : applied_) {
    const auto sw = f.find_guid(g);
    for (const auto& [lid, ports] : table) {
      const auto b = base_of.find(lid);
      const Lid owned_as = b == base_of.end() ? Lid(lid) : b->second;
      if (!broken.contains(lid) && !delivers(s, lfts, *sw, Lid(lid), owned_as)) {
        broken.insert(lid);
      }
    }
  }
  dropped_ = 0;
  for (auto& [g, table] : applied_) {
    const auto sw = f.find_guid(g);
    for (auto it = table.begin(); it != table.end();) {
      if (!broken.contains(it->first)) {
        ++it;
        continue;
      }
      lfts.table(*sw).set(Lid(it->first), it->second.second);
      it = table.erase(it);
      --n;
      ++dropped_;
    }
  }
  return n;
}

void KeptLftOverrides::restore_defaults(const Subnet& s, LftSet& lfts) const {
  std::lock_guard lock(mu_);
  for (const auto& [g, table] : applied_) {
    const auto sw = s.fabric.find_guid(g);
    if (!sw || !lfts.has_table(*sw)) continue;
    for (const auto& [lid, ports] : table) {
      if (lfts.table(*sw).out(Lid(lid)) == ports.first) lfts.table(*sw).set(Lid(lid), ports.second);
    }
  }
}

std::string GlueLftAccess::unavailable_reason() const {
  return glue_.has_lft() ? std::string() : "the glue cannot write LFTs";
}

void GlueLftAccess::keep(std::shared_ptr<const LftOverrides> overrides) {
  kept_.set(std::move(overrides));
}

LftWriteResult GlueLftAccess::write(std::span<const LftBlock> blocks,
                                    std::chrono::milliseconds timeout) {
  LftWriteResult out;
  if (blocks.empty()) return out;
  std::vector<osmsdn_lft_block> abi;
  abi.reserve(blocks.size());
  for (const LftBlock& b : blocks) abi.push_back(to_abi(b));
  std::vector<std::uint8_t> confirmed(blocks.size(), 0);
  const int rc = glue_.lft_write(abi, timeout_ms(timeout), confirmed);
  out.blocks = rc == OSMSDN_OK ? blocks.size() : 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (confirmed[i] != 0 || out.failed.contains(blocks[i].sw)) continue;
    out.failed.emplace(blocks[i].sw,
                       rc != OSMSDN_OK
                           ? std::string("OpenSM did not take the LFT blocks (not master, or its "
                                         "lock not free within the timeout)")
                           : "LFT block " + std::to_string(blocks[i].block) +
                                 " not confirmed by the switch within " +
                                 std::to_string(timeout.count()) + " ms");
  }
  return out;
}

std::vector<bool> GlueLftAccess::read(std::span<LftBlock> blocks,
                                      std::chrono::milliseconds timeout) {
  std::vector<bool> out(blocks.size(), false);
  if (blocks.empty()) return out;
  std::vector<osmsdn_lft_block> abi;
  abi.reserve(blocks.size());
  for (const LftBlock& b : blocks) abi.push_back(to_abi(b));
  std::vector<std::uint8_t> answered(blocks.size(), 0);
  if (glue_.lft_read(abi, timeout_ms(timeout), answered) != OSMSDN_OK) return out;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    out[i] = answered[i] != 0;
    if (out[i]) std::memcpy(blocks[i].ports.data(), abi[i].ports, kLftBlockSize);
  }
  return out;
}

}  // namespace ibsdn::plugin
