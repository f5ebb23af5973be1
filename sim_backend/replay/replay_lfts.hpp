// The switches' Linear Forwarding Tables as the replay's controller reaches them: its LFT backend
// (install_backend lft, plugin/controller/lft_access.hpp) over in-memory tables instead of
// OpenSM's. The controller writes 64-entry blocks; what a write changed from the default LFTs is
// the data plane packets are traced through (changed_port()), as the flow tables are the
// switchboard's. A replay has no heavy sweep that would recompute the LFTs, so the overrides the
// controller asks to keep are not needed: the written blocks stay until it writes them back.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "plugin/controller/lft_access.hpp"
#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn {

class ReplayLfts final : public plugin::LftAccess {
 public:
  /// Every switch of `f` holds its table of `defaults` (both must outlive this).
  ReplayLfts(const Fabric& f, const LftSet& defaults);

  [[nodiscard]] std::string unavailable_reason() const override { return {}; }
  void keep(std::shared_ptr<const plugin::LftOverrides> /*overrides*/) override {}
  /// Applies every block at once (the switches confirm at once). A block of a GUID that is not a
  /// switch of the fabric, or of a switch without a default table, fails for that switch.
  plugin::LftWriteResult write(std::span<const plugin::LftBlock> blocks,
                               std::chrono::milliseconds timeout) override;
  std::vector<bool> read(std::span<plugin::LftBlock> blocks,
                         std::chrono::milliseconds timeout) override;

  /// At switch `sw`, the port its LFT now gives `dlid` where a write made it differ from the
  /// default table; nullopt where the default decides.
  [[nodiscard]] std::optional<PortNum> changed_port(NodeIdx sw, Lid dlid) const {
    const auto& t = changed_[sw.value()];
    if (t.empty()) return std::nullopt;
    const auto it = t.find(dlid.value());
    if (it == t.end()) return std::nullopt;
    return it->second;
  }
  /// Blocks written so far, and entries that differ from the default tables now.
  [[nodiscard]] std::size_t blocks_written() const { return blocks_written_; }
  [[nodiscard]] std::size_t changed_entries() const;

 private:
  [[nodiscard]] std::optional<NodeIdx> switch_of(Guid g) const;

  const Fabric& fabric_;
  const LftSet& defaults_;
  std::vector<std::map<std::uint16_t, PortNum>> changed_;  // by NodeIdx: DLID -> port
  std::size_t blocks_written_ = 0;
};

}  // namespace ibsdn
