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
// On a tapered XGFT the theorem does not apply; sdn-optimal then routes with the tapered variant
// (sdn_optimal_tapered.cpp) and the result is reported against the tapered lower bound.
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/bipartite_edge_colouring.hpp"
#include "routing/sdn_optimal.hpp"
#include "routing/xgft_up_digits.hpp"

namespace ibsdn {

std::vector<std::vector<std::uint32_t>> partition_into_matchings(const XgftLayout& x,
                                                                 std::span<const Flow> flows) {
  BipartiteEdges g;
  g.num_left = g.num_right = static_cast<std::uint32_t>(x.hosts.size());
  for (const Flow& fl : flows)
    g.add(x.host_of_node[fl.src.value()], x.host_of_node[fl.dst.value()]);
  const std::uint32_t nl = g.max_degree();
  std::vector<std::vector<std::uint32_t>> matchings(nl);
  if (nl == 0) return matchings;
  const std::vector<std::uint32_t> colour = colour_bipartite(g, nl);
  for (std::uint32_t i = 0; i < colour.size(); ++i) matchings[colour[i]].push_back(i);
  return matchings;
}

namespace {

class SdnOptimal final : public XgftRoutingAlgorithm {
 public:
  std::string_view name() const override { return "sdn-optimal"; }
  std::string_view summary() const override {
    return "NL_D matchings by edge colouring, each routed contention-free (optimal on full XGFTs)";
  }
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
    return out;
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_sdn_optimal() {
  return std::make_unique<SdnOptimal>();
}

}  // namespace ibsdn
