// A job's routes as LFT entries: the DLID-only entries the flow compiler produces (flow definition
// level kDlid, seed 002 III.B's first level) written into the linear forwarding tables every
// switch already has, and the 64-entry blocks that an LFT write then has to carry.
//
// InfiniBand writes a switch's LFT one block at a time (SubnSet(LinearForwardingTable), attribute
// modifier = block number, LIDs 64 x block .. 64 x block + 63), so what an install, a job's end or
// an audit repair costs is the number of blocks that differ, not the number of entries.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn {

/// LIDs per LFT block.
inline constexpr std::size_t kLftBlockSize = 64;

/// One block of one switch's LFT as it should read after a change.
struct LftBlockChange {
  NodeIdx sw{};
  std::uint16_t block = 0;                     // LIDs kLftBlockSize x block .. + kLftBlockSize - 1
  std::array<PortNum, kLftBlockSize> ports{};  // kLftUnset where the table has no entry
  bool operator==(const LftBlockChange&) const = default;
};

/// `base` with each entry of `entries` (per switch) written into that switch's table: the entry's
/// DLID leaves by its output port. Only what an LFT can hold is accepted: an exact DLID match and
/// an output port, at a switch of `f` that has a table in `base`, the port one the switch has.
/// Throws std::invalid_argument naming the switch and the DLID otherwise, and when two entries
/// give one (switch, DLID) different ports (the routes are not DLID-expressible there).
LftSet lfts_with_dlid_entries(const Fabric& f, const LftSet& base,
                              const std::map<NodeIdx, std::vector<FlowEntry>>& entries);

/// The blocks whose entries differ between `before` and `after` (a LID beyond a table reads as
/// kLftUnset), switch by switch in `f.switches()` order and block by block, each with `after`'s
/// entries: what a write has to send to turn `before` into `after`. A switch with a table on one
/// side only counts as all unset on the other.
std::vector<LftBlockChange> changed_lft_blocks(const Fabric& f, const LftSet& before,
                                               const LftSet& after);

}  // namespace ibsdn
