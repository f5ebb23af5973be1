// The load guard's arithmetic (load_guard.hpp).
#include "plugin/controller/load_guard.hpp"

namespace ibsdn::plugin {

LoadGap LoadGuard::gap(const LinkLoad& sdn, const LinkLoad& lft) {
  LoadGap g;
  g.lft_max = lft.max_weight();
  g.sdn_max = sdn.max_weight();
  for (std::size_t l = 0; l < sdn.size(); ++l) {
    const LinkId id(static_cast<std::uint32_t>(l));
    if (sdn.weight(id) > g.lft_max + kEps) {
      g.excess += sdn.weight(id) - g.lft_max;
      g.above.push_back(id);
    }
  }
  std::stable_sort(g.above.begin(), g.above.end(),
                   [&](LinkId a, LinkId b) { return sdn.weight(a) > sdn.weight(b); });
  return g;
}

double LoadGuard::excess_with(const NetworkState& net, JobId id, const std::vector<Flow>& flows,
                              const std::vector<Path>& paths, double lft_max) {
  LinkLoad load = net.load();
  if (const NetworkState::Job* now = net.job(id)) {
    for (std::size_t i = 0; i < now->flows.size() && i < now->paths.size(); ++i) {
      load.remove(now->paths[i], now->flows[i]);
    }
  }
  for (std::size_t i = 0; i < flows.size() && i < paths.size(); ++i) load.add(paths[i], flows[i]);
  double excess = 0;
  for (std::size_t l = 0; l < load.size(); ++l) {
    const double w = load.weight(LinkId(static_cast<std::uint32_t>(l)));
    if (w > lft_max + kEps) excess += w - lft_max;
  }
  return excess;
}

}  // namespace ibsdn::plugin
