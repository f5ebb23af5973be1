// Measures of a routing: L_D, its lower bounds (thesis Theorem 1 and the tapered subtree bound),
// seed 002's weighted load, and path validity.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/link_load.hpp"

namespace ibsdn {

struct LowerBound {
  std::uint32_t value = 0;      // max(node_load, subtree terms)
  std::uint32_t node_load = 0;  // NL_D (Theorem 1)
  /// Which term set the bound: "NL_D" or e.g. "level-1 subtree 3 (up links 8, 24 flows out)".
  std::string binding;
};

/// On any fabric NL_D bounds L_D from below (one link per HCA). On a fat-tree every subtree below
/// the top also bounds it: the flows leaving (entering) a subtree share its up links, so some up
/// (down) link carries at least ceil(flows / up links). On full-bisection XGFTs those terms never
/// exceed NL_D; on tapered ones they usually do.
LowerBound lower_bound(const Fabric& f, std::span<const Flow> flows);

/// The splittable bound on the largest link utilisation, in seconds (link_seconds: the time the
/// busiest link needs for its bytes). No routing, even one that splits flows over many paths, can
/// do better: a host's bytes all cross its own cable, and on a fat-tree the bytes leaving (or
/// entering) a subtree all cross its up links. Flows without a byte count weigh 1 byte.
struct VolumeBound {
  double seconds = 0.0;
  /// Which term set it: "host n0003 out (1.2 GB over 100 Gb/s)" or "level-2 subtree of l2s001 ...".
  std::string binding;
};
VolumeBound volume_lower_bound(const Fabric& f, std::span<const Flow> flows);

/// A lower bound for single-path routing, at least volume_lower_bound(): on a fat-tree a flow
/// that leaves (enters) a subtree crosses exactly one of its u up (down) links, which therefore
/// carry the crossing flows as u machines carry jobs in makespan scheduling: one carries the
/// largest flow, and of the j*u + 1 largest flows some link carries j + 1, at least the j + 1
/// smallest of them. Where it exceeds volume_lower_bound(), no routing without splitting flows
/// reaches that bound. Cuts whose links differ in capacity keep only the largest-flow term (over
/// the fastest link).
VolumeBound single_path_volume_bound(const Fabric& f, std::span<const Flow> flows);

struct RouteQuality {
  std::int32_t max_link_load = 0;  // L_D of these flows alone
  double max_weight = 0.0;         // largest sum of seed 002 weights on one link (PJML)
  LowerBound bound;
  double max_seconds = 0.0;  // largest link utilisation (link_seconds) of these flows alone
  VolumeBound volume_bound;
  [[nodiscard]] double ratio() const {
    return bound.value ? static_cast<double>(max_link_load) / bound.value : 0.0;
  }
  [[nodiscard]] double volume_ratio() const {
    return volume_bound.seconds > 0.0 ? max_seconds / volume_bound.seconds : 0.0;
  }
};

RouteQuality evaluate(const Fabric& f, std::span<const Flow> flows, std::span<const Path> paths);

/// Empty when `p` is a loop-free path of existing, contiguous links from flow.src to flow.dst
/// (and, on a fat-tree, a shortest up*/down* path of what remains); otherwise what is wrong.
std::string validate_path(const Fabric& f, const Flow& flow, const Path& p);

}  // namespace ibsdn
