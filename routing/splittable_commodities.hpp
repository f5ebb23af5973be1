// The splittable LP's commodities: the flows grouped by destination HCA, and each commodity cut
// down to the nodes and links it may use (routing/splittable_bound.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/splittable_bound.hpp"

namespace ibsdn {

struct Demand {
  NodeIdx src;
  std::uint64_t bytes = 0;
};

/// The traffic toward one destination HCA and, once pruned, the part of the fabric it may use.
struct Commodity {
  NodeIdx dst;
  std::vector<Demand> sources;  // distinct sources, bytes added up
  std::vector<NodeIdx> nodes;   // on some allowed path from a source to dst; dst included
  std::vector<LinkId> links;    // allowed links between those nodes: the LP's columns
};

/// Groups the flows by destination (sorted by node index, so the LP is the same for the same
/// flows in any order); a flow without a byte count weighs one byte (flow_volume), flows with
/// src == dst are left out. Empty, or what is
/// wrong with a flow (an endpoint that is not an HCA of `f`).
std::string collect_commodities(const Fabric& f, std::span<const Flow> flows,
                                std::vector<Commodity>& out);

/// Cuts each commodity's graph down to the nodes and links on some allowed path from one of its
/// sources to its destination: forward from the sources, backward from the destination, the
/// intersection. Flow may enter an HCA only at the commodity's destination and leave one only at
/// its sources (HCAs are endpoints, never transit); links without capacity carry nothing. Marks
/// are stamped per commodity so that nothing is cleared between them.
class CommodityPruner {
 public:
  CommodityPruner(const Fabric& f, LinkFilter allowed);
  /// Fills c.nodes and c.links; empty, or which source cannot reach the destination.
  std::string prune(Commodity& c);

 private:
  bool usable(const Commodity& c, LinkId l);
  void search(const Commodity& c, std::vector<std::uint32_t>& mark, bool forward);

  const Fabric& f_;
  LinkFilter allowed_;  // a copy: callers pass temporaries such as nullptr
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> source_, forward_, backward_, checked_;
  std::vector<bool> usable_;
  std::vector<NodeIdx> queue_;
};

}  // namespace ibsdn
