// SDN-optimal (thesis 4.3.2, Algorithm 3 + contention-free scheduling): on a full-bisection XGFT
// it reaches L_D = NL_D for every demand D.
//
// Step 1 partitions the flows into NL_D matchings by colouring the source/destination bipartite
// multigraph with NL_D colours (König). The thesis pads the graph to an NL_D-regular one with
// dummy nodes and edges first so that every colour class is a perfect matching; alternating-path
// colouring needs no padding to use exactly NL_D colours, and the dummy flows would be dropped
// anyway, so none are added.
// Step 2 routes each matching contention-free by colouring level by level
// (xgft_up_digits.cpp), so each matching puts at most one flow on any link: L_D <= NL_D, and
// Theorem 1 gives L_D >= NL_D.
//
// On a fat-tree that is not a complete XGFT (missing cables or switches, irregular wiring), a job
// whose region (routing/fat_tree_region.hpp) is still a complete XGFT is routed there exactly;
// otherwise there are no labels to colour by, and the matchings are placed one after the other by
// the volume engine with unit volumes (routing/volume_routing.hpp), reported against the bound.
// On a tapered XGFT the theorem does not apply; sdn-optimal then routes with the tapered variant
// (sdn_optimal_tapered.cpp) and the result is reported against the tapered lower bound.
// With RouteRequest::per_destination (an LFT) a demand with at most one source per destination
// keeps its exact routes, which fit; any other gets constraint-satisfying routes from the volume
// engine instead wherever its own would split a destination (keep_per_destination).
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/bipartite_edge_colouring.hpp"
#include "routing/fat_tree_region.hpp"
#include "routing/per_destination.hpp"
#include "routing/sdn_optimal.hpp"
#include "routing/volume_routing.hpp"
#include "routing/xgft_up_digits.hpp"

namespace ibsdn {

namespace {

std::vector<std::vector<std::uint32_t>> matchings_of(std::span<const std::uint32_t> host_of_node,
                                                     std::size_t hosts,
                                                     std::span<const Flow> flows) {
  BipartiteEdges g;
  g.num_left = g.num_right = static_cast<std::uint32_t>(hosts);
  for (const Flow& fl : flows) g.add(host_of_node[fl.src.value()], host_of_node[fl.dst.value()]);
  const std::uint32_t nl = g.max_degree();
  std::vector<std::vector<std::uint32_t>> matchings(nl);
  if (nl == 0) return matchings;
  const std::vector<std::uint32_t> colour = colour_bipartite(g, nl);
  for (std::uint32_t i = 0; i < colour.size(); ++i) matchings[colour[i]].push_back(i);
  return matchings;
}

/// The matchings inserted one after the other by the volume engine with unit volumes, DmodK as
/// the other start, rip-up and re-route down to the unit demand's bound (NL_D, or a subtree term
/// on a tapered or degraded tree: below it nothing counts, and on a tree whose switch links cannot
/// go below it the search would otherwise spend its whole budget trying). With per_destination
/// the engine keeps to it, and DmodK's start always fits.
std::vector<Path> route_matchings_by_volume(const RouteRequest& req, const FatTreeLayout& t) {
  const auto matchings = partition_into_matchings(t, req.flows);
  req.deadline.check("sdn-optimal colours the flows");
  std::vector<std::uint32_t> order;
  order.reserve(req.flows.size());
  for (const auto& m : matchings) order.insert(order.end(), m.begin(), m.end());
  const std::vector<double> unit(req.flows.size(), 1.0);
  VolumeRoutingInput in{unit, order, {}};
  in.starts.push_back(make_algorithm("dmodk")->route(req));
  std::vector<Flow> counted(req.flows.begin(), req.flows.end());
  for (Flow& fl : counted) fl.bytes = 0;
  in.target = single_path_bound_utilisation(req.fabric, counted);
  return route_min_max_utilisation(req, t, in).paths;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> partition_into_matchings(const XgftLayout& x,
                                                                 std::span<const Flow> flows) {
  return matchings_of(x.host_of_node, x.hosts.size(), flows);
}

std::vector<std::vector<std::uint32_t>> partition_into_matchings(const FatTreeLayout& t,
                                                                 std::span<const Flow> flows) {
  return matchings_of(t.host_of_node, t.hosts.size(), flows);
}

std::vector<Path> keep_per_destination(const RouteRequest& req, const FatTreeLayout& t,
                                       std::vector<Path> paths) {
  if (!req.per_destination || per_destination_consistent(req.fabric, req.flows, paths, nullptr))
    return paths;
  return route_matchings_by_volume(req, t);
}

namespace {

class SdnOptimal final : public FatTreeRoutingAlgorithm {
 public:
  std::string_view name() const override { return "sdn-optimal"; }
  std::string_view summary() const override {
    return "NL_D matchings by edge colouring, each routed contention-free (optimal on full XGFTs)";
  }
  bool honours_per_destination() const override { return true; }
  std::vector<Path> route_on(const RouteRequest& req, const XgftLayout& layout) const override {
    const XgftLayout* x = &layout;
    if (!x->params.full_bisection()) return make_algorithm("sdn-optimal-tapered")->route(req);

    std::vector<std::int32_t> load(req.fabric.num_links(), 0);
    if (req.background) load = req.background->flow_counts();
    std::vector<Path> out(req.flows.size());
    std::vector<std::uint32_t> src;
    std::vector<std::uint32_t> dst;
    const auto matchings = partition_into_matchings(*x, req.flows);
    req.deadline.check("sdn-optimal colours the flows");
    for (const auto& matching : matchings) {
      req.deadline.check("sdn-optimal routes a matching");
      src.clear();
      dst.clear();
      for (std::uint32_t i : matching) {
        src.push_back(x->host_of_node[req.flows[i].src.value()]);
        dst.push_back(x->host_of_node[req.flows[i].dst.value()]);
      }
      UpDigitOptions opt;
      opt.link_flows = &load;
      const auto y = choose_up_digits(req.fabric, *x, src, dst, opt);
      for (std::size_t k = 0; k < matching.size(); ++k) {
        Path& p = out[matching[k]];
        xgft_path(req.fabric, *x, src[k], dst[k], y[k], p);
        for (LinkId l : p) ++load[l.value()];
      }
    }
    return keep_per_destination(req, *req.fabric.fat_tree(), std::move(out));
  }

  // Where the job's region of the fabric is intact (a complete XGFT), the exact form runs there.
  // Otherwise there are no labels to colour with: the matchings go in one after the other, each
  // flow on its least utilised path, then rip-up and re-route; DmodK is the other start. Both
  // honour per_destination themselves (the region's request carries it, the engine keeps to it).
  std::vector<Path> route_on_tree(const RouteRequest& req, const FatTreeLayout& t) const override {
    if (const auto region = xgft_region(req.fabric, t, req.flows))
      return route_in_region(req, *region, *this);
    return route_matchings_by_volume(req, t);
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_sdn_optimal() {
  return std::make_unique<SdnOptimal>();
}

}  // namespace ibsdn
