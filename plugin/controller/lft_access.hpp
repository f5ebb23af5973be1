// The switches' Linear Forwarding Tables as the controller reaches them (the LFT backend,
// docs/routing.md "Install backends"): inside opensm the glue writes 64-entry blocks into OpenSM's
// own tables and lets OpenSM send them (SubnSet(LinearForwardingTable)) and read them
// (SubnGet); the tests and the simulator hold the tables in memory.
//
// OpenSM recomputes every LFT at a heavy sweep: what the jobs wrote would be lost unless the
// routing engine writes it again. keep() hands the engine the overrides of all jobs; the "sdn"
// engine applies them over its default routes (plugin/opensm/sdn_engine.hpp).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flowtable/types.hpp"
#include "routing/lft_overrides.hpp"

namespace ibsdn::plugin {

/// Every job's LFT entries: per switch GUID, DLID -> output port.
using LftOverrides = std::map<Guid, std::map<std::uint16_t, PortNum>>;

/// One 64-entry block of one switch's LFT: LIDs kLftBlockSize x block .. + kLftBlockSize - 1.
struct LftBlock {
  Guid sw;
  std::uint16_t block = 0;
  std::array<std::uint8_t, kLftBlockSize> ports{};
  bool operator==(const LftBlock&) const = default;
};

struct LftWriteResult {
  /// Switches that did not confirm every block written to them, with why.
  std::map<Guid, std::string> failed;
  std::size_t blocks = 0;  // blocks sent
};

class LftAccess {
 public:
  virtual ~LftAccess() = default;
  /// Why LFT entries cannot be written at all (empty when they can), e.g. "opensm runs routing
  /// engine ftree, not sdn".
  [[nodiscard]] virtual std::string unavailable_reason() const = 0;
  /// The overrides every later computation of the LFTs must keep. Called with all jobs'
  /// overrides before the blocks that carry a change are written, and after a rollback.
  virtual void keep(std::shared_ptr<const LftOverrides> overrides) = 0;
  /// Writes the blocks and returns once the switches confirmed them or `timeout` passed.
  virtual LftWriteResult write(std::span<const LftBlock> blocks,
                               std::chrono::milliseconds timeout) = 0;
  /// Reads the blocks from the switches (sw and block given, ports filled in); per block whether
  /// its switch answered within `timeout`.
  virtual std::vector<bool> read(std::span<LftBlock> blocks, std::chrono::milliseconds timeout) = 0;
};

}  // namespace ibsdn::plugin
