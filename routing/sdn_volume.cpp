// SDN-volume: the volume-aware routing (routing/volume_routing.hpp). Flows go heaviest first,
// each on the path whose most utilised link is least utilised with it, in bytes per unit of
// capacity; DmodK's, SDN-optimal's and SDN-greedy's paths are the other starts, and rip-up and
// re-route (with ejection chains) lowers the maximum from the best of them; while it stays above
// the single-path volume bound, ruin and recreate tries again. So it is never worse than any of
// the three, and on unit demands it reaches L_D = NL_D wherever SDN-optimal does.
// With RouteRequest::per_destination the engine moves whole per-destination decisions and keeps
// only the starts that fit (volume_routing.hpp): never worse than DmodK, the LFT default.
#include <algorithm>
#include <numeric>

#include "routing/algorithm.hpp"
#include "routing/volume_routing.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

// Ruin-and-recreate attempts while the maximum is above the single-path bound (most cases reach
// it without any; a stalled one may need a hundred, each a fraction of a millisecond per 1000
// flows).
constexpr std::size_t kRestarts = 200;

class SdnVolume final : public FatTreeRoutingAlgorithm {
 public:
  std::string_view name() const override { return "sdn-volume"; }
  std::string_view summary() const override {
    return "least maximum link utilisation in bytes: heaviest first, then rip-up and re-route";
  }
  bool honours_per_destination() const override { return true; }

  std::vector<Path> route_on(const RouteRequest& req, const XgftLayout&) const override {
    return route(req, *req.fabric.fat_tree());
  }
  std::vector<Path> route_on_tree(const RouteRequest& req, const FatTreeLayout& t) const override {
    return route(req, t);
  }

 private:
  static std::vector<Path> route(const RouteRequest& req, const FatTreeLayout& t) {
    std::vector<double> volume(req.flows.size());
    std::transform(req.flows.begin(), req.flows.end(), volume.begin(), flow_volume);
    std::vector<std::uint32_t> order(req.flows.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return volume[a] > volume[b]; });
    // The starts as their algorithms route without the constraint; with it, the engine drops
    // those that split a destination (DmodK's never do).
    RouteRequest free = req;
    free.per_destination = false;
    std::vector<std::vector<Path>> starts;
    starts.push_back(make_algorithm("dmodk")->route(free));
    starts.push_back(make_algorithm("sdn-optimal")->route(free));
    starts.push_back(make_algorithm("sdn-greedy")->route(free));
    VolumeRoutingInput in{volume, order, std::move(starts)};
    in.restarts = kRestarts;
    in.target = single_path_bound_utilisation(req.fabric, req.flows);
    return route_min_max_utilisation(req, t, in).paths;
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_sdn_volume() {
  return std::make_unique<SdnVolume>();
}

}  // namespace ibsdn
