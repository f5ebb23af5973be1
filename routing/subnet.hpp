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

/// Per node (by NodeIdx): how many LIDs its port answers, 2^LMC (1 without LMC or without a
/// LID; a switch's 1). O(nodes + aliases).
[[nodiscard]] std::vector<unsigned> lids_per_node(const Subnet& s);

/// The subnet's LIDs as a job on LID offset `offset` (its path bits) addresses the hosts: every HCA
/// port with a LID at base LID + `offset`, the switches at their own. With LMC a port answers
/// 2^LMC LIDs and a sender whose path bits are `offset` sends to the peer's base LID + `offset`
/// (UCX: DLID = LID | path bits), so a job's traffic has its own destination LIDs and its own
/// LFT entries. Throws std::invalid_argument when a host in `hosts` has no LID at that offset.
[[nodiscard]] LidMap lids_at_offset(const Subnet& s, std::uint8_t offset,
                                    const std::vector<NodeIdx>& hosts);

}  // namespace ibsdn
