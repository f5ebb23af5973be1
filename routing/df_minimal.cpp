// Dragonfly minimal routing (Kim et al.'s MIN, thesis 2.2.2) on 1D dragonflies and megaflies.
//
// A path uses at most one global link: local route to a gateway that owns a global link to the
// destination group, the global link, local route to the destination router; at most 3
// router-to-router hops on both kinds (megafly: leaf-spine, global, spine-leaf; within a group
// leaf-spine-leaf). Where several such paths exist (several global links between the two groups,
// or megafly's spines for two leaves of one group) the choice is flow_hash(0, src, dst) modulo
// their number: oblivious, deterministic, and spread over the alternatives.
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"

namespace ibsdn {
namespace {

class DfMinimal final : public DragonflyRoutingAlgorithm {
 public:
  std::string_view name() const override { return "df-minimal"; }
  std::string_view summary() const override {
    return "dragonfly / megafly minimal paths (one global link), hashed over the alternatives";
  }
  std::vector<Path> route_on(const RouteRequest& req,
                             const DragonflyLayout& layout) const override {
    const DragonflyLayout* x = &layout;
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "df-minimal routes the flows");
      const Flow& fl = req.flows[i];
      const std::size_t count = x->minimal_path_count(fl.src, fl.dst);
      out[i].reserve(5);
      x->minimal_path(fl.src, fl.dst, flow_hash(0, fl.src, fl.dst) % count, out[i]);
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_df_minimal() {
  return std::make_unique<DfMinimal>();
}

}  // namespace ibsdn
