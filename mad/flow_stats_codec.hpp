// Internal to the SDN MAD codec: the FlowStats GetResp page, a page header and up to
// kMaxStatsEntriesPerMad fixed 40-byte entries (docs/wire-format.md section 5).
#pragma once

#include <cstdint>

#include "mad/codec_bytes.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad::wire {

/// Writes the page whose first entry is table entry `start` (the AttributeModifier). Throws
/// (unrepresentable) for too many entries, a page beyond `total`, or an entry the wire cannot
/// carry.
void put_stats(MadBytes& b, const FlowStatsReply& r, std::uint32_t start);

/// Reads and validates a FlowStats GetResp body; rejects.
FlowStatsReply read_stats(const Reader& r, std::uint32_t start);

}  // namespace ibsdn::mad::wire
