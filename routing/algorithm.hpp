// The routing-algorithm plug-in interface and its registry (BookSim-style: chosen by name).
//
// Adding an algorithm is one new file that defines `std::unique_ptr<RoutingAlgorithm>
// make_<name>()` and one line in algorithms.def.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "routing/deadline.hpp"
#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/link_load.hpp"

namespace ibsdn {

struct RouteRequest {
  const Fabric& fabric;
  std::span<const Flow> flows;
  /// Load already placed by other active jobs; algorithms that look at load add theirs on top.
  const LinkLoad* background = nullptr;
  /// Compare seed 002 weights instead of flow counts (greedy family).
  bool weighted = false;
  /// For randomised choices (Valiant's intermediate group); same seed, same routes.
  std::uint64_t seed = 1;
  /// Checked inside the algorithms' loops: route() throws DeadlineExceeded once it passes.
  Deadline deadline{};
  /// The target holds one output port per (switch, destination): every flow to one destination
  /// must leave each switch through the same port (an LFT, or flow entries at
  /// FlowDefinitionLevel::kDlid). Algorithms that honour it (honours_per_destination(): dmodk,
  /// minhop, sdn-volume, sdn-optimal, sdn-optimal-tapered, sdn-adaptive) return paths that
  /// per_destination_consistent() (routing/per_destination.hpp) accepts; the others (smodk,
  /// sdn-greedy, sdn-greedy-weighted, df-*) throw std::invalid_argument.
  bool per_destination = false;
};

/// Where a destination-based algorithm sends the traffic for one destination HCA, at every node
/// at once: one column of all the LFTs.
struct DestinationColumn {
  NodeIdx dst;
  /// Indexed by node. At a switch, the port it forwards `dst`'s traffic to; at an HCA whose
  /// cabled ports are not exactly one to a switch, the port it leaves through toward `dst` (an
  /// HCA with a single cable to a switch leaves through that cable, whatever this says).
  /// PortNum{} where the algorithm has no route to `dst`; the value at a node that no route to
  /// `dst` crosses is the algorithm's choice, or PortNum{}.
  std::span<const PortNum> out;
};
using DestinationColumnSink = std::function<void(const DestinationColumn&)>;

class RoutingAlgorithm {
 public:
  virtual ~RoutingAlgorithm() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view summary() const = 0;
  /// Empty when this algorithm can route on `f`; otherwise why it cannot.
  [[nodiscard]] virtual std::string unsupported_reason(const Fabric& f) const = 0;
  /// One path per flow, in the order of req.flows. Throws std::invalid_argument for a fabric it
  /// does not support, a flow whose endpoints are not HCAs of the fabric, or req.per_destination
  /// when it does not honour it.
  [[nodiscard]] virtual std::vector<Path> route(const RouteRequest& req) const = 0;
  /// Whether route() honours RouteRequest::per_destination. False unless an algorithm says so:
  /// one whose choice may depend on the source must not claim it.
  [[nodiscard]] virtual bool honours_per_destination() const { return false; }
  /// For algorithms whose choice at a switch depends on the destination alone (what an LFT can
  /// hold): calls `sink` once per HCA of `f` (in an order of its own) with that destination's
  /// column; the routes the columns imply are the paths route() returns. O(switches) per
  /// destination instead of route()'s work per pair. Returns false without calling `sink` when the
  /// choice may depend on the source. Throws like route() for a fabric it cannot route; checks
  /// `deadline` between destinations.
  virtual bool route_by_destination(const Fabric& f, const Deadline& deadline,
                                    const DestinationColumnSink& sink) const;
};

struct XgftLayout;
struct DragonflyLayout;

/// Base of the algorithms that need a topology layout: route() checks the flows and the layout
/// once and hands the layout to route_on().
template <typename Layout>
class LayoutRoutingAlgorithm : public RoutingAlgorithm {
 public:
  [[nodiscard]] std::string unsupported_reason(const Fabric& f) const override;
  [[nodiscard]] std::vector<Path> route(const RouteRequest& req) const final;

 protected:
  [[nodiscard]] virtual std::vector<Path> route_on(const RouteRequest& req,
                                                   const Layout& layout) const = 0;
};
using DragonflyRoutingAlgorithm = LayoutRoutingAlgorithm<DragonflyLayout>;

struct FatTreeLayout;

/// Base of the fat-tree algorithms. route() checks the flows, then hands a complete XGFT to
/// route_on() (the thesis's label arithmetic) and any other fat-tree, however degraded or
/// irregular, to route_on_tree() (routing/fat_tree_paths.hpp).
class FatTreeRoutingAlgorithm : public RoutingAlgorithm {
 public:
  [[nodiscard]] std::string unsupported_reason(const Fabric& f) const override;
  [[nodiscard]] std::vector<Path> route(const RouteRequest& req) const final;

 protected:
  [[nodiscard]] virtual std::vector<Path> route_on(const RouteRequest& req,
                                                   const XgftLayout& layout) const = 0;
  [[nodiscard]] virtual std::vector<Path> route_on_tree(const RouteRequest& req,
                                                        const FatTreeLayout& layout) const = 0;
};

/// Throws std::invalid_argument listing the known names when `name` is unknown.
std::unique_ptr<RoutingAlgorithm> make_algorithm(std::string_view name);
std::vector<std::string> algorithm_names();
/// Whether `name` is one of algorithm_names().
[[nodiscard]] bool is_algorithm(std::string_view name);

/// Checks the request's flows: endpoints are distinct HCAs of the fabric. Throws otherwise.
void check_flows(const RouteRequest& req);
/// Throws std::invalid_argument, naming the algorithms that do, when req.per_destination is set
/// and `alg` does not honour it.
void check_per_destination(const RouteRequest& req, const RoutingAlgorithm& alg);

}  // namespace ibsdn
