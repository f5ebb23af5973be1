// The default routes of a fabric: the LFTs OpenSM's routing engine "sdn" (the plugin) writes and
// the simulator replays against, which flow entries later override.
//
// DmodK when the fabric is recognised as a fat-tree (the default of the thesis), min-hop
// otherwise (on a recognised dragonfly / megafly too: its algorithms choose by source as well as
// destination, which an LFT cannot hold; flow entries carry them), filled one destination at a time
// (lft.hpp: lfts_per_destination, the same tables as tracing every pair, in O(destinations x
// switches)); then the tables are completed so that every switch routes every LID (switch LIDs
// too: the controller's own MADs travel to them).
#pragma once

#include <string>

#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn {

/// Recognises the fabric as a fat-tree, else as a dragonfly / megafly, attaching the layout, and
/// describes it for the log: "XGFT(2;4,4;1,4)", "dragonfly(4,8,4,9)" (with what is missing, as
/// "dragonfly(4,8,4,9), 2 local cables missing"), or "not a fat-tree: ...; not a dragonfly: ...".
std::string recognize_topology(Fabric& f);

struct DefaultTables {
  LftSet lfts;
  std::string algorithm;  // "dmodk" or "minhop"
  std::string topology;   // as recognize_topology() describes it
};

/// Recognises `f` (attaching its layout) and computes its default LFTs for `lids`. Throws
/// std::invalid_argument when the fabric cannot be routed (e.g. an HCA unreachable).
DefaultTables default_tables(Fabric& f, const LidMap& lids);

}  // namespace ibsdn
