// The LFTs of OpenSM routing engine "sdn": routing/default_tables.hpp's default routes for the
// subnet OpenSM discovered, written into OpenSM's tables (LMC aliases start on their base LID's
// route; a job on an LID offset overrides them).
#pragma once

#include <span>
#include <string>

#include "osmsdn_abi.h"
#include "plugin/opensm/abi_fabric.hpp"
#include "routing/default_tables.hpp"
#include "routing/lft.hpp"

namespace ibsdn::plugin {

using SdnTables = DefaultTables;

/// default_tables() for the subnet, with every LMC alias on its base LID's route. Throws
/// std::invalid_argument when the fabric cannot be routed (e.g. an HCA unreachable).
SdnTables compute_sdn_tables(Subnet& f);

/// Writes `lfts` into the glue's tables (entries beyond a table's size are dropped, unset ones
/// become OSMSDN_NO_PATH, an LMC alias without an entry takes its base LID's port). Checks every
/// table's switch before writing any, so on an exception nothing was written.
void write_tables(const Subnet& f, const LftSet& lfts, std::span<const osmsdn_lft> tables);

}  // namespace ibsdn::plugin
