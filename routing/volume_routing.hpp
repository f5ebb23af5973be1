// Routing that minimises the largest link utilisation (volume per unit of capacity) on a fat-tree:
// the engine behind sdn-volume, and behind sdn-optimal on fat-trees that are not complete XGFTs.
//
// 1. Insertion: flows in the given order (heaviest first for sdn-volume), each on the shortest
//    up*/down* path whose most utilised switch link, with the flow added, is least utilised.
// 2. Start: among that result and the other starts the caller gives (DmodK's paths, SDN-optimal's
//    on a complete XGFT), the one with the smallest maximum utilisation wins, so the result is
//    never worse than any of them.
// 3. Rip-up and re-route: while some flow on a most utilised link can move to a path whose
//    utilisation stays below that maximum, move it; stop when no flow on the hottest links can
//    move, after `max_rounds`, or at the deadline (the best routing so far is kept: every round
//    only lowers the maximum or the number of links at it).
// Host links are on every candidate path of their flows, so only switch-to-switch links are
// scored; the node terms are in the bound (route_quality.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"

namespace ibsdn {

struct VolumeRoutingInput {
  std::span<const double> volume;         // per flow, > 0
  std::span<const std::uint32_t> order;   // insertion order (a permutation of the flows)
  std::vector<std::vector<Path>> starts;  // other complete routings to compare with
  std::size_t max_rounds = 2000;
};

struct VolumeRoutingResult {
  std::vector<Path> paths;
  double start_max = 0.0;  // largest switch-link utilisation of the chosen start
  double final_max = 0.0;  // after rip-up and re-route
  int chosen_start = -1;   // -1: the insertion; otherwise an index into starts
  std::size_t moves = 0;
  std::size_t rounds = 0;
};

/// Utilisations are in volume per unit of the fastest link's capacity, other jobs' volumes
/// (req.background) included.
VolumeRoutingResult route_min_max_utilisation(const RouteRequest& req, const FatTreeLayout& t,
                                              const VolumeRoutingInput& in);

}  // namespace ibsdn
