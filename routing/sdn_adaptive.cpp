// SDN-adaptive (thesis 4.3.3). When the rule picks adaptive routing the controller installs no
// flow entries and traffic follows the switches' own routing; route() then returns the LFT's
// default (DmodK) paths as the single-path picture of that choice, so callers can see which
// flows were left to the fabric.
#include "routing/sdn_adaptive.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "routing/algorithm.hpp"

namespace ibsdn {

AdaptiveDecision decide_sdn_adaptive(std::span<const Flow> flows) {
  std::unordered_map<NodeIdx, std::uint32_t> out;
  std::unordered_map<NodeIdx, std::uint32_t> in;
  AdaptiveDecision d;
  for (const Flow& f : flows) d.node_load = std::max({d.node_load, ++out[f.src], ++in[f.dst]});
  d.single_path = d.node_load <= 1;
  d.reason = d.single_path
                 ? "demand is at most a permutation (NL_D <= 1): SDN-optimal paths"
                 : "demand denser than a permutation (NL_D = " + std::to_string(d.node_load) +
                       "): adaptive routing";
  return d;
}

namespace {

class SdnAdaptive final : public FatTreeRoutingAlgorithm {
 public:
  std::string_view name() const override { return "sdn-adaptive"; }
  std::string_view summary() const override {
    return "SDN-optimal for permutations, the fabric's adaptive routing otherwise (4.3.3)";
  }
  // Both of its choices, SDN-optimal and DmodK, honour it.
  bool honours_per_destination() const override { return true; }
  std::vector<Path> route_on(const RouteRequest& req, const XgftLayout&) const override {
    return route_by_decision(req);
  }
  std::vector<Path> route_on_tree(const RouteRequest& req, const FatTreeLayout&) const override {
    return route_by_decision(req);
  }

 private:
  static std::vector<Path> route_by_decision(const RouteRequest& req) {
    const AdaptiveDecision d = decide_sdn_adaptive(req.flows);
    return make_algorithm(d.single_path ? "sdn-optimal" : "dmodk")->route(req);
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_sdn_adaptive() {
  return std::make_unique<SdnAdaptive>();
}

}  // namespace ibsdn
