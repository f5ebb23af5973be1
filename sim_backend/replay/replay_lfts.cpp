#include "sim_backend/replay/replay_lfts.hpp"

#include <string>

namespace ibsdn {

ReplayLfts::ReplayLfts(const Fabric& f, const LftSet& defaults)
    : fabric_(f), defaults_(defaults), changed_(f.num_nodes()) {}

std::optional<NodeIdx> ReplayLfts::switch_of(Guid g) const {
  const std::optional<NodeIdx> n = fabric_.find_guid(g);
  if (!n || !fabric_.node(*n).is_switch() || !defaults_.has_table(*n)) return std::nullopt;
  return n;
}

plugin::LftWriteResult ReplayLfts::write(std::span<const plugin::LftBlock> blocks,
                                         std::chrono::milliseconds /*timeout*/) {
  plugin::LftWriteResult out;
  for (const plugin::LftBlock& b : blocks) {
    const std::optional<NodeIdx> sw = switch_of(b.sw);
    if (!sw) {
      out.failed.emplace(b.sw, "no switch with an LFT has this GUID");
      continue;
    }
    if (std::size_t{b.block} * kLftBlockSize > kMaxUnicastLid.value()) {
      out.failed.emplace(b.sw, "block " + std::to_string(b.block) + " is beyond the unicast LIDs");
      continue;
    }
    ++out.blocks;
    ++blocks_written_;
    const Lft& base = defaults_.table(*sw);
    auto& changed = changed_[sw->value()];
    for (std::size_t i = 0; i < kLftBlockSize; ++i) {
      const auto lid = static_cast<std::uint16_t>(b.block * kLftBlockSize + i);
      const PortNum port(b.ports[i]);
      if (port == base.out(Lid(lid))) {
        changed.erase(lid);
      } else {
        changed[lid] = port;
      }
    }
  }
  return out;
}

std::vector<bool> ReplayLfts::read(std::span<plugin::LftBlock> blocks,
                                   std::chrono::milliseconds /*timeout*/) {
  std::vector<bool> answered(blocks.size(), false);
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    plugin::LftBlock& b = blocks[k];
    const std::optional<NodeIdx> sw = switch_of(b.sw);
    if (!sw || std::size_t{b.block} * kLftBlockSize > kMaxUnicastLid.value()) continue;
    for (std::size_t i = 0; i < kLftBlockSize; ++i) {
      const Lid lid(static_cast<std::uint16_t>(b.block * kLftBlockSize + i));
      b.ports[i] = changed_port(*sw, lid).value_or(defaults_.table(*sw).out(lid)).value();
    }
    answered[k] = true;
  }
  return answered;
}

std::size_t ReplayLfts::changed_entries() const {
  std::size_t n = 0;
  for (const auto& t : changed_) n += t.size();
  return n;
}

}  // namespace ibsdn
