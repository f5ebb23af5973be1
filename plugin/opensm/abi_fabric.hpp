// The glue's plain structs (osmsdn_abi.h) as the routing library's Fabric, LidMap and LftSet.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "osmsdn_abi.h"
#include "routing/lft.hpp"
#include "routing/subnet.hpp"

namespace ibsdn::plugin {

/// The subnet OpenSM saw. Node names come from the first word of each NodeDescription
/// ("n0001 HCA-1" -> "n0001"), or "guid-0x..." when that word is missing or already taken.
/// Nodes are inserted in subnet order (routing/fabric.hpp: CAs and routers before switches, each
/// by ascending node GUID), whatever the glue's order, so that recognisers that depend on order
/// label a fabric as its generator did, and what depends on the node order (min-hop's default
/// LFTs) comes out as in a replay of the fabric from its netlist.
/// Throws std::invalid_argument naming the node and port when the structs are inconsistent: a
/// port index out of range, a cable to an unknown GUID or seen differently from its two ends,
/// a LID given twice.
Subnet subnet_from_abi(const osmsdn_fabric& in);

/// Link capacity in Gbit/s from PortInfo's active width and speed codes; 0 when unknown.
double link_gbps(const osmsdn_port& p);

/// Tables handed over by the glue (e.g. the LFTs on the switches). Entries equal to
/// OSMSDN_NO_PATH stay unset. Throws std::invalid_argument for a GUID that is not a switch.
LftSet lfts_from_abi(const Subnet& f, std::span<const osmsdn_lft> tables);

}  // namespace ibsdn::plugin
