// The 256-byte wire form of the SDN MAD class (seed 002 III.D, Figure 4) and back. The layout of
// every byte is in docs/wire-format.md: the 24-byte IBA common header, the 64-bit authentication
// key in data bytes 0-7, then one OpenFlow 1.5 message (ofp_flow_mod with experimenter OXM
// fields for the InfiniBand header, or the class's fixed FlowStats / TableInfo / Barrier bodies).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "mad/sdn_mad.hpp"

namespace ibsdn::mad {

/// Why a buffer is not a valid SDN MAD: the Status a responder answers with, what was wrong, and
/// the byte offset (from the start of the MAD) where the problem is.
struct DecodeError {
  Status status = Status::kInvalidField;
  std::string reason;
  std::size_t offset = 0;
};

using DecodeResult = std::variant<SdnMad, DecodeError>;

/// Serialises `m`. Throws std::invalid_argument when `m` cannot be represented: a payload type
/// that the method / attribute does not carry, more FlowStats entries than fit in one MAD, a
/// match that FlowMatch::validate() rejects, an SL rewrite above 15, ... Fields the method does
/// not carry are not sent (and decode back as defaults): `affected` of a Set, the action of a
/// delete, the contents of a TableInfo / Barrier Get.
MadBytes encode(const SdnMad& m);

/// Parses and strictly validates one MAD. Never reads outside `bytes` and never throws; anything
/// but a well-formed MAD of this class gives a DecodeError.
DecodeResult decode(std::span<const std::uint8_t> bytes);

/// How many FlowEntry records fit in one FlowStats GetResp. Entries have one fixed 40-byte form
/// (every field slot present, unused ones zero) so that a page never depends on which fields
/// the entries use: (232 data - 8 key - 16 page header) / 40 = 5.
inline constexpr std::size_t kStatsEntrySize = 40;
inline constexpr std::size_t kMaxStatsEntriesPerMad = 5;

/// The GetResp to `request`: same transaction id, attribute and attribute modifier, the same key
/// (a responder proves nothing by echoing it; the requester matches it), R bit set.
SdnMad make_response(const SdnMad& request, Status status, Payload payload);

}  // namespace ibsdn::mad
