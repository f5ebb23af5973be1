// The glue's plain structs (osmsdn_abi.h) as the routing library's Fabric, LidMap and LftSet.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "osmsdn_abi.h"
#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn::plugin {

/// A subnet as OpenSM saw it. Node names come from the first word of each NodeDescription
/// ("n0001 HCA-1" -> "n0001"), or "guid-0x..." when that word is missing or already taken.
/// CAs and routers are inserted before switches, each in the glue's (node GUID) order, so that
/// recognisers that depend on order label a fabric as its generator did.
struct AbiFabric {
  Fabric fabric;
  LidMap lids;
  std::unordered_map<std::uint64_t, NodeIdx> by_guid;  // node GUID -> node
  /// LIDs a port answers beyond its base LID (LMC > 0): (extra LID, base LID). Routes to an
  /// extra LID are the base LID's.
  std::vector<std::pair<Lid, Lid>> lmc_aliases;
  Lid sm_lid{};

  [[nodiscard]] NodeIdx node_of(std::uint64_t guid) const;  // throws std::invalid_argument
};

/// Throws std::invalid_argument naming the node and port when the structs are inconsistent: a
/// port index out of range, a cable to an unknown GUID or seen differently from its two ends,
/// a LID given twice.
AbiFabric fabric_from_abi(const osmsdn_fabric& in);

/// Link capacity in Gbit/s from PortInfo's active width and speed codes; 0 when unknown.
double link_gbps(const osmsdn_port& p);

/// Tables handed over by the glue (e.g. the LFTs on the switches). Entries equal to
/// OSMSDN_NO_PATH stay unset. Throws std::invalid_argument for a GUID that is not a switch.
LftSet lfts_from_abi(const AbiFabric& f, std::span<const osmsdn_lft> tables);

}  // namespace ibsdn::plugin
