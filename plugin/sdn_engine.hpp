// The LFTs of OpenSM routing engine "sdn": the default routes that flow entries later override.
//
// DmodK when the fabric is recognised as an XGFT (the fat-tree default of the thesis), min-hop
// otherwise (on a recognised dragonfly / megafly too: its algorithms choose by source as well as
// destination, which an LFT cannot hold; flow entries carry them), filled one destination at a time
// (routing/lft.hpp: lfts_per_destination, the same tables as tracing every pair, in O(destinations
// x switches)); then the tables are completed so that every switch routes every LID (switch LIDs
// too: the controller's own MADs travel to them), and LMC aliases take their base LID's route when
// written out.
#pragma once

#include <span>
#include <string>

#include "osmsdn_abi.h"
#include "plugin/abi_fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn::plugin {

struct SdnTables {
  LftSet lfts;
  std::string algorithm;  // "dmodk" or "minhop"
  std::string topology;   // as recognize_topology() describes it
};

/// Recognises the fabric as an XGFT, else as a dragonfly / megafly, attaching the layout, and
/// describes it for the log: "XGFT(2;4,4;1,4)", "dragonfly(4,8,4,9)" (with what is missing, as
/// "dragonfly(4,8,4,9), 2 local cables missing"), or "not an XGFT: ...; not a dragonfly: ...".
std::string recognize_topology(Fabric& f);

/// Throws std::invalid_argument when the fabric cannot be routed (e.g. an HCA unreachable).
SdnTables compute_sdn_tables(Subnet& f);

/// Writes `lfts` into the glue's tables (entries beyond a table's size are dropped, unset ones
/// become OSMSDN_NO_PATH, LMC aliases take their base LID's port). Checks every table's switch
/// before writing any, so on an exception nothing was written.
void write_tables(const Subnet& f, const LftSet& lfts, std::span<const osmsdn_lft> tables);

}  // namespace ibsdn::plugin
