// Tapered SDN-optimal (thesis 4.3.2, Algorithm 4, generalised to any XGFT and any demand).
//
// Algorithm 4 builds sub-permutations that fill the core links with inter-pod flows first and the
// aggregation links with intra-pod flows after, so each sub-permutation fits the tapered links
// without contention. Here the same idea runs per node and per level: at level j each
// level-(j-1) node's flows are cut into chunks of w_j (its up links), flows that continue above
// level j first, and every chunk is one sub-permutation coloured over the w_j up links
// (colour_bipartite_balanced). Each up link of a node then carries at most ceil(flows through
// the node / w_j), which meets the leaf-level tapered bound exactly; the result is reported
// against the full tapered bound (route_quality.hpp).
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/sdn_optimal.hpp"
#include "routing/xgft_up_digits.hpp"

namespace ibsdn {
namespace {

class SdnOptimalTapered final : public FatTreeRoutingAlgorithm {
 public:
  std::string_view name() const override { return "sdn-optimal-tapered"; }
  std::string_view summary() const override {
    return "balanced sub-permutations per level (thesis Algorithm 4, generalised); any XGFT";
  }
  bool honours_per_destination() const override { return true; }
  std::vector<Path> route_on(const RouteRequest& req, const XgftLayout& layout) const override {
    const XgftLayout* x = &layout;
    std::vector<std::int32_t> load(req.fabric.num_links(), 0);
    if (req.background) load = req.background->flow_counts();
    std::vector<std::uint32_t> src;
    std::vector<std::uint32_t> dst;
    for (const Flow& fl : req.flows) {
      src.push_back(x->host_of_node[fl.src.value()]);
      dst.push_back(x->host_of_node[fl.dst.value()]);
    }
    UpDigitOptions opt;
    opt.balanced = true;
    opt.link_flows = &load;
    const auto y = choose_up_digits(req.fabric, *x, src, dst, opt);
    req.deadline.check("sdn-optimal-tapered chooses up-ports");
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      xgft_path(req.fabric, *x, src[i], dst[i], y[i], out[i]);
    return keep_per_destination(req, *req.fabric.fat_tree(), std::move(out));
  }
  // Without labels the per-level chunks do not exist; SDN-optimal's fat-tree form balances the
  // utilisation of what remains instead.
  std::vector<Path> route_on_tree(const RouteRequest& req, const FatTreeLayout&) const override {
    return make_algorithm("sdn-optimal")->route(req);
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_sdn_optimal_tapered() {
  return std::make_unique<SdnOptimalTapered>();
}

}  // namespace ibsdn
