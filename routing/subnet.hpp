// A subnet as the subnet manager sees it, in the routing library's terms: the fabric graph, the
// LIDs OpenSM assigned, and the master SM. Built from OpenSM's structs by the plugin
// (plugin/opensm/abi_fabric.hpp), or from a generator or netlist by the simulator and the tests.
#pragma once

#include <utility>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn {

struct Subnet {
  Fabric fabric;
  LidMap lids;
  /// LIDs a port answers beyond its base LID (LMC > 0): (extra LID, base LID). Routes to an
  /// extra LID are the base LID's.
  std::vector<std::pair<Lid, Lid>> lmc_aliases;
  Lid sm_lid{};

  /// The node with this node GUID; throws std::invalid_argument naming the GUID.
  [[nodiscard]] NodeIdx node_of(Guid guid) const;
};

}  // namespace ibsdn
