// What a switch does with one FlowMod: OpenFlow's flow_mod commands (ADD, MODIFY[_STRICT],
// DELETE[_STRICT], restricted by cookie / cookie_mask as in OpenFlow 1.3+) mapped onto FlowTable
// operations, and the table's outcome mapped onto the MAD Status a GetResp carries.
#pragma once

#include "flowtable/flow_table.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad {

/// Applies `mod` to `table`. A command that fails changes nothing. MODIFY and DELETE act on
/// every entry whose match is covered by mod.match (an empty match covers all) and, when
/// cookie_mask is non-zero, whose cookie equals mod.cookie under the mask; the strict forms on
/// the one entry with exactly this match and priority (same cookie restriction).
FlowModResult apply_flow_mod(FlowTable& table, const FlowMod& mod);

Status to_mad_status(FlowModStatus s);

}  // namespace ibsdn::mad
