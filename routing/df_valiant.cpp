// Valiant load balancing on dragonflies (Kim et al.'s VLB, thesis 2.2.2).
//
// A flow between two groups goes minimally to a pseudo-random intermediate group (neither
// endpoint's group), then minimally to the destination: two global links. The intermediate
// group, both global links (when groups are joined by several) and, on a megafly, the leaf that
// joins the two spines of the intermediate group are drawn from flow_hash(RouteRequest::seed,
// src, dst): the same seed gives the same routes. Router-to-router hops: at most 5 on a 1D
// dragonfly (local, global, local, global, local) and 6 on a megafly (leaf-spine, global,
// spine-leaf, leaf-spine, global, spine-leaf; 4 when the first global link lands on the spine
// that owns the second). Flows within one group, and every flow when there are only two groups,
// route minimally as df-minimal does.
#include <algorithm>
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"

namespace ibsdn {
namespace {

class DfValiant final : public DragonflyRoutingAlgorithm {
 public:
  std::string_view name() const override { return "df-valiant"; }
  std::string_view summary() const override {
    return "dragonfly / megafly Valiant: minimal to a seeded random group, then to the target";
  }
  std::vector<Path> route_on(const RouteRequest& req,
                             const DragonflyLayout& layout) const override {
    const DragonflyLayout* x = &layout;
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "df-valiant routes the flows");
      const Flow& fl = req.flows[i];
      const int gs = x->group_of(fl.src);
      const int gd = x->group_of(fl.dst);
      out[i].reserve(8);
      if (gs == gd || x->groups < 3) {
        const std::size_t count = x->minimal_path_count(fl.src, fl.dst);
        x->minimal_path(fl.src, fl.dst, flow_hash(0, fl.src, fl.dst) % count, out[i]);
        continue;
      }
      // Mixed-radix digits of one well-mixed hash: group, first link, second link, local route.
      std::uint64_t h = flow_hash(req.seed, fl.src, fl.dst);
      const auto draw = [&h](std::size_t n) {
        const std::size_t v = static_cast<std::size_t>(h % n);
        h /= n;
        return v;
      };
      // The k-th group in increasing order, skipping gs and gd.
      int mid = static_cast<int>(draw(static_cast<std::size_t>(x->groups - 2)));
      for (const int skip : {std::min(gs, gd), std::max(gs, gd)}) {
        if (mid >= skip) ++mid;
      }
      const auto first_links = x->global_links(gs, mid);
      const auto second_links = x->global_links(mid, gd);
      const std::size_t first = draw(first_links.size());
      const std::size_t second = draw(second_links.size());
      const std::size_t local =
          draw(x->local_route_count(first_links[first].to, second_links[second].from));
      x->valiant_path(fl.src, fl.dst, mid, first, second, local, out[i]);
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_df_valiant() {
  return std::make_unique<DfValiant>();
}

}  // namespace ibsdn
