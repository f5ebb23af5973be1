// Internal to the SDN MAD codec: the TableInfo GetResp body (docs/wire-format.md section 6).
#pragma once

#include "mad/codec_bytes.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad::wire {

/// Throws (unrepresentable) for a level outside 1-4 or more entries used than the capacity.
void put_table_info(MadBytes& b, const TableInfo& t);

/// Reads and validates a TableInfo GetResp body; rejects.
TableInfo read_table_info(const Reader& r);

}  // namespace ibsdn::mad::wire
