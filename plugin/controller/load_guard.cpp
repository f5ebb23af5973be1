// The load guard's arithmetic (load_guard.hpp).
#include "plugin/controller/load_guard.hpp"

namespace ibsdn::plugin {

std::string_view to_string(GuardMeasure m) {
  return m == GuardMeasure::kBytes ? "bytes" : "flows";
}

GuardMeasure guard_measure(std::span<const Flow> flows) {
  return volumes_differ(flows) ? GuardMeasure::kBytes : GuardMeasure::kFlows;
}

double flow_share(const Flow& f, GuardMeasure m) {
  return m == GuardMeasure::kBytes ? flow_volume(f) : f.weight;
}

std::vector<double> link_values(const Fabric& f, const LinkLoad& load, GuardMeasure m) {
  std::vector<double> out(load.size());
  for (std::size_t l = 0; l < load.size(); ++l) {
    const LinkId id(static_cast<std::uint32_t>(l));
    out[l] = m == GuardMeasure::kBytes ? link_seconds(load.volume(id), f.link(id).gbps)
                                       : load.weight(id);
  }
  return out;
}

namespace {

double tolerance(GuardMeasure m, double lft_max) {
  return m == GuardMeasure::kBytes ? LoadGuard::kEps * lft_max : LoadGuard::kEps;
}

}  // namespace

LoadGap LoadGuard::gap(GuardMeasure m, std::span<const double> sdn, std::span<const double> lft) {
  LoadGap g;
  g.measure = m;
  g.lft_max = lft.empty() ? 0.0 : *std::max_element(lft.begin(), lft.end());
  g.sdn_max = sdn.empty() ? 0.0 : *std::max_element(sdn.begin(), sdn.end());
  g.tolerance = tolerance(m, g.lft_max);
  for (std::size_t l = 0; l < sdn.size(); ++l) {
    if (sdn[l] > g.lft_max + g.tolerance) {
      g.excess += sdn[l] - g.lft_max;
      g.above.emplace_back(static_cast<std::uint32_t>(l));
    }
  }
  std::stable_sort(g.above.begin(), g.above.end(),
                   [&](LinkId a, LinkId b) { return sdn[a.value()] > sdn[b.value()]; });
  return g;
}

double LoadGuard::excess_with(const Fabric& f, GuardMeasure m, LinkLoad load, FlowsOnPaths now,
                              FlowsOnPaths next, double lft_max) {
  for (std::size_t i = 0; i < now.flows.size() && i < now.paths.size(); ++i) {
    load.remove(now.paths[i], now.flows[i]);
  }
  for (std::size_t i = 0; i < next.flows.size() && i < next.paths.size(); ++i) {
    load.add(next.paths[i], next.flows[i]);
  }
  const double tol = tolerance(m, lft_max);
  double excess = 0;
  for (const double v : link_values(f, load, m)) {
    if (v > lft_max + tol) excess += v - lft_max;
  }
  return excess;
}

}  // namespace ibsdn::plugin
