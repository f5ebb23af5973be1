// Internal to the SDN MAD codec: the FlowMod attribute's body, an OpenFlow 1.5 ofp_flow_mod with
// the InfiniBand fields as experimenter OXM TLVs, then the result trailer of the GetResp
// (docs/wire-format.md section 4).
#pragma once

#include <cstdint>

#include "mad/codec_bytes.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad::wire {

/// Writes `fm` from MAD byte 32 on; `affected` only in a response. Throws (unrepresentable) for a
/// command, match or action the wire cannot carry.
void put_flow_mod(MadBytes& b, const FlowMod& fm, std::uint64_t tid, bool response);

/// Reads and validates the FlowMod body of a MAD whose header is already checked; rejects.
FlowMod read_flow_mod(const Reader& r, std::uint64_t tid, bool response);

}  // namespace ibsdn::mad::wire
