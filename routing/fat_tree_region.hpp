// The part of a fat-tree that a set of flows can use, as a fabric of its own.
//
// Every shortest up*/down* path between two leaves climbs only through their up-cones, so the
// region of a job is: its leaves, their up-cones up to the highest turn level K its flows need,
// and every leaf (with its hosts) below the cones' switches under level K (so that pods are
// whole). When a degraded fabric keeps that region intact, the region is a complete XGFT and the
// XGFT algorithms run on it unchanged: SDN-optimal stays exact for a job that no failure touches.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"

namespace ibsdn {

struct FatTreeRegion {
  Fabric fabric;                 // the region's nodes (names, ports, GUIDs, LIDs kept) and cables
  std::vector<NodeIdx> inside;   // node of the whole fabric -> node of the region, or none
  std::vector<NodeIdx> outside;  // node of the region -> node of the whole fabric
};

/// The region of `flows` when it is a complete XGFT; nullopt otherwise (or when a flow has no
/// up*/down* path).
std::optional<FatTreeRegion> xgft_region(const Fabric& f, const FatTreeLayout& t,
                                         std::span<const Flow> flows);

/// Routes `req` with `alg` on the region and maps the paths back to `req.fabric`'s links; the
/// background load is carried into the region link by link.
std::vector<Path> route_in_region(const RouteRequest& req, const FatTreeRegion& region,
                                  const RoutingAlgorithm& alg);

}  // namespace ibsdn
