// Routing that minimises the largest link utilisation (volume per unit of capacity) on a fat-tree:
// the engine behind sdn-volume, and behind sdn-optimal on fat-trees that are not complete XGFTs.
//
// 1. Insertion: flows in the given order (heaviest first for sdn-volume), each on the shortest
//    up*/down* path whose most utilised switch link, with the flow added, is least utilised.
// 2. Start: among that result and the other starts the caller gives (DmodK's paths, SDN-optimal's
//    on a complete XGFT, ...; a start may fix only some flows, insertion places the rest), the
//    one with the smallest maximum utilisation wins (a later one only when strictly smaller), so
//    the result is never worse than any of them.
// 3. Rip-up and re-route: while some flow on a most utilised link can move to a path whose
//    utilisation stays below that maximum, move it. When every such path is blocked, relocate
//    first one flow that crosses all the blocking links, the same way, up to three flows deep (an
//    ejection chain): where the links at the maximum each need exactly k flows of nearly equal
//    volume (a stencil's heavy faces on a tapered tree's pod links), no single move helps. Stop
//    when no flow on the hottest links can move, within 0.5% of `target`, after `max_rounds`, or
//    at the deadline (DeadlineExceeded). Every move lowers the number of links at the maximum or
//    the maximum itself, so the rounds end.
// 4. Ruin and recreate (optional): lift the flows near the maximum and a random sixteenth of the
//    others, insert them again, improve as in 3; keep the result if its maximum is lower. Up to
//    `restarts` times, while the maximum is above `target`.
// Host links are on every candidate path of their flows, so only switch-to-switch links are
// scored; the node terms are in the bound (route_quality.hpp).
//
// With RouteRequest::per_destination (an LFT: one output port per switch and destination) every
// decision is a destination's port at one switch, and whatever moves, moves whole decisions: the
// flows toward one destination from one leaf are inserted together (heaviest group first), and a
// path never leaves a switch by another port than the destination's flows there already take;
// rip-up moves all the flows toward a destination that cross a switch with a choice, from that
// switch on, and ejection chains evict such units; ruin and recreate lifts whole leaf groups.
// Starts that split a destination (SDN-optimal's and SDN-greedy's, except on permutations) are
// dropped; DmodK's, destination-based, always fit, so the result is never worse than DmodK.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"

namespace ibsdn {

struct VolumeRoutingInput {
  std::span<const double> volume;        // per flow, > 0
  std::span<const std::uint32_t> order;  // insertion order (a permutation of the flows)
  /// Other routings to compare with, one path per flow; an empty path is placed by insertion
  /// (in `order`, on top of the given paths), so a start may fix only some flows.
  std::vector<std::vector<Path>> starts;
  std::size_t max_rounds = 2000;
  /// Rip-up and re-route stops within 0.5% of `target` (e.g. a lower bound in these units: below
  /// it nothing counts); ruin and recreate runs at most `restarts` times while the maximum is
  /// more than 0.5% above it and the chains' work budget lasts.
  std::size_t restarts = 0;
  double target = 0.0;
};

struct VolumeRoutingResult {
  std::vector<Path> paths;
  double start_max = 0.0;          // largest switch-link utilisation of the chosen start
  double final_max = 0.0;          // after rip-up and re-route
  int chosen_start = -1;           // -1: the insertion; otherwise an index into starts
  std::size_t dropped_starts = 0;  // starts that split a destination (per_destination only)
  std::size_t moves = 0;           // flows moved by rip-up and re-route
  std::size_t evictions = 0;       // moves that first evicted another flow (counted in moves too)
  std::size_t rounds = 0;
  std::size_t restarts = 0;            // ruin-and-recreate attempts
  std::size_t improving_restarts = 0;  // those that lowered the maximum
};

/// The single-path volume bound (route_quality.hpp) of `flows` in the engine's units: volume per
/// unit of the fastest link's capacity, flows without bytes counting 1. No single-path routing
/// does better, so it is the natural VolumeRoutingInput::target.
double single_path_bound_utilisation(const Fabric& f, std::span<const Flow> flows);

/// Utilisations are in volume per unit of the fastest link's capacity, other jobs' volumes
/// (req.background) included. With req.per_destination the paths satisfy it
/// (per_destination_consistent).
VolumeRoutingResult route_min_max_utilisation(const RouteRequest& req, const FatTreeLayout& t,
                                              const VolumeRoutingInput& in);

}  // namespace ibsdn
