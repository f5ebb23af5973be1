// SDN-greedy (thesis Algorithm 2): flows in order; for each, every shortest up*/down* path is
// scored by its path load (the largest load among its links, counting other jobs' load and the
// flows placed so far) and the least loaded path wins. Ties go to the first path in the order
// of up digits y_2, y_3, ... (lowest y_2 first). The weighted variant scores with seed 002's
// weights w(s,d) = min(1/s_out, 1/d_in) instead of flow counts. Loads are per unit of capacity
// (relative to the fastest link), so a 4x link takes four times the flows of a 1x link.
// On fat-trees other than complete XGFTs the same choice runs over the shortest up*/down* paths of
// the layout (UpDownPaths::best_path, which breaks ties by the sum of loads, then port order).
//
// Paths are explored digit by digit: the up link and the matching down link at level j depend
// only on y_2..y_j, so a prefix whose load already reaches the best path's is not extended
// (it cannot win: ties keep the earlier path).
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/fat_tree_paths.hpp"
#include "routing/link_capacity.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

class SdnGreedy final : public FatTreeRoutingAlgorithm {
 public:
  explicit SdnGreedy(bool weighted) : weighted_(weighted) {}
  std::string_view name() const override {
    return weighted_ ? "sdn-greedy-weighted" : "sdn-greedy";
  }
  std::string_view summary() const override {
    return weighted_ ? "least max-loaded shortest path per flow, seed 002 weights"
                     : "least max-loaded shortest path per flow, in flow order (Algorithm 2)";
  }

  std::vector<Path> route_on(const RouteRequest& req, const XgftLayout& layout) const override {
    const XgftLayout* x = &layout;
    const bool weighted = weighted_ || req.weighted;
    const Fabric& f = req.fabric;
    std::vector<double> load = start_load(req, weighted);
    const std::vector<double> inv_cap = relative_inverse_capacity(f);
    Search s{f, *x, load, inv_cap};
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "sdn-greedy routes the flows");
      const Flow& fl = req.flows[i];
      s.src = x->host_of_node[fl.src.value()];
      s.dst = x->host_of_node[fl.dst.value()];
      s.k = x->nca_level(s.src, s.dst);
      // The host's own up link and the destination's down link are on every candidate path.
      const LinkId first = f.port(fl.src, PortNum(1)).out;
      const LinkId last = f.reverse(f.port(fl.dst, PortNum(1)).out);
      s.best = -1.0;
      s.best_y = 0;
      s.descend(2, 0, std::max(s.cost(first), s.cost(last)));
      xgft_path(f, *x, s.src, s.dst, s.best_y, out[i]);
      const double add = weighted ? fl.weight : 1.0;
      for (LinkId l : out[i]) load[l.value()] += add;
    }
    return out;
  }

  std::vector<Path> route_on_tree(const RouteRequest& req,
                                  const FatTreeLayout& layout) const override {
    const bool weighted = weighted_ || req.weighted;
    const Fabric& f = req.fabric;
    std::vector<double> load = start_load(req, weighted);
    const std::vector<double> inv_cap = relative_inverse_capacity(f);
    UpDownPaths paths(f, layout);
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "sdn-greedy routes the flows");
      const Flow& fl = req.flows[i];
      const double add = weighted ? fl.weight : 1.0;
      paths.best_path(
          layout.host_of_node[fl.src.value()], layout.host_of_node[fl.dst.value()],
          [&](LinkId l) { return (load[l.value()] + add) * inv_cap[l.value()]; }, out[i]);
      for (LinkId l : out[i]) load[l.value()] += add;
    }
    return out;
  }

  // Other jobs' load, in the unit this variant compares.
  static std::vector<double> start_load(const RouteRequest& req, bool weighted) {
    std::vector<double> load(req.fabric.num_links(), 0.0);
    if (req.background) {
      for (std::size_t l = 0; l < load.size(); ++l) {
        load[l] = weighted ? req.background->weight(LinkId(l)) : req.background->flows(LinkId(l));
      }
    }
    return load;
  }

 private:
  struct Search {
    const Fabric& f;
    const XgftLayout& x;
    const std::vector<double>& load;
    const std::vector<double>& inv_cap;
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    int k = 0;
    double best = -1.0;
    std::uint64_t best_y = 0;

    [[nodiscard]] double cost(LinkId l) const { return load[l.value()] * inv_cap[l.value()]; }

    // Chooses y_j for j = level..k given the digits in y so far and the prefix's path load.
    void descend(int level, std::uint64_t y, double prefix_load) {
      constexpr double kEps = 1e-9;
      if (best >= 0.0 && prefix_load >= best - kEps) return;
      if (level > k) {
        best = prefix_load;
        best_y = y;
        return;
      }
      const NodeIdx a = x.ancestor(src, level - 1, y);
      const NodeIdx b = x.ancestor(dst, level - 1, y);
      const auto& ups_a = x.up_port[a.value()];
      const auto& ups_b = x.up_port[b.value()];
      for (std::size_t d = 0; d < ups_a.size(); ++d) {
        const LinkId up = f.port(a, ups_a[d]).out;
        const LinkId down = f.reverse(f.port(b, ups_b[d]).out);
        const double l = std::max({prefix_load, cost(up), cost(down)});
        descend(level + 1, y + d * x.w_prefix[level - 1], l);
      }
    }
  };

  bool weighted_;
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_sdn_greedy() {
  return std::make_unique<SdnGreedy>(false);
}
std::unique_ptr<RoutingAlgorithm> make_sdn_greedy_weighted() {
  return std::make_unique<SdnGreedy>(true);
}

}  // namespace ibsdn
