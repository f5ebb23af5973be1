// The flow-level model's re-solve cost (issue 12, "Figures to measure"): the median time of one
// incremental re-solve (after one flow ends and another starts) with 10k and 100k active flows on
// a 10,240-link fabric, as a ratio to a full re-solve in the same run.
//
// Two traffic layouts, because an incremental re-solve costs what the changed flow's connected
// component holds:
//   spread    routes of 4-6 links drawn over all the links: one component holds nearly every
//             flow, so the incremental re-solve is a full one (ratio about 1);
//   confined  the links in 64 groups of 160 and every route inside one group, as jobs confined
//             to subtrees: a change re-solves one group's flows.
//
//   flow_bench            both layouts, 10k and 100k flows
//   flow_bench --quick    10k flows only, for smoke runs
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "bench/median.hpp"
#include "sim_backend/max_min_sharing.hpp"

namespace ibsdn {
namespace {

constexpr std::uint32_t kLinks = 10'240;
constexpr std::uint32_t kGroups = 64;

struct Layout {
  const char* name;
  std::uint32_t groups;  // routes stay inside one of this many equal link groups
};

class Routes {
 public:
  Routes(std::uint32_t groups, std::uint64_t seed) : groups_(groups), rng_(seed) {}
  std::vector<LinkId> next() {
    const std::uint32_t per = kLinks / groups_;
    const std::uint32_t base = static_cast<std::uint32_t>(rng_() % groups_) * per;
    const std::size_t hops = 4 + rng_() % 3;
    std::vector<LinkId> r;
    while (r.size() < hops) {
      const LinkId l(base + static_cast<std::uint32_t>(rng_() % per));
      bool seen = false;
      for (const LinkId x : r) seen = seen || x == l;
      if (!seen) r.push_back(l);
    }
    return r;
  }

 private:
  std::uint32_t groups_;
  std::mt19937_64 rng_;
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void measure(const Layout& layout, std::size_t flows, int repeats) {
  std::mt19937_64 rng(flows);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> capacity(kLinks);
  // Link rates from 1x to 4x a base of 12.5 GB/s (mixed generations, tapered levels).
  for (double& c : capacity) c = 12.5e9 * (1 + static_cast<double>(rng() % 4));
  MaxMinSharing sharing(capacity);
  Routes routes(layout.groups, flows + layout.groups);
  std::vector<MaxMinSharing::FlowSlot> live;
  for (std::size_t i = 0; i < flows; ++i) {
    const double cap = unit(rng) < 0.1 ? 5e9 : 0.0;
    live.push_back(sharing.add(routes.next(), 1.0, cap));
  }
  std::vector<MaxMinSharing::FlowSlot> changed;
  sharing.solve_all(changed);

  std::vector<double> inc_ms;
  std::vector<double> full_ms;
  std::vector<double> component;
  for (int k = 0; k < repeats; ++k) {
    // One flow ends and another starts: the event the model re-solves at.
    const std::size_t victim = rng() % live.size();
    sharing.remove(live[victim]);
    live[victim] = sharing.add(routes.next(), 1.0, 0.0);
    changed.clear();
    auto t0 = std::chrono::steady_clock::now();
    component.push_back(static_cast<double>(sharing.solve_touched(changed)));
    inc_ms.push_back(ms_since(t0));
    changed.clear();
    t0 = std::chrono::steady_clock::now();
    sharing.solve_all(changed);
    full_ms.push_back(ms_since(t0));
  }
  const double inc = bench::median(inc_ms);
  const double full = bench::median(full_ms);
  std::printf(
      "%-9s %7zu flows  incremental %8.3f ms (re-solves %7.0f flows)  full %8.3f ms  "
      "incremental/full %.3f\n",
      layout.name, flows, inc, bench::median(component), full, full > 0 ? inc / full : 0);
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const ibsdn::Layout layouts[] = {{"spread", 1}, {"confined", ibsdn::kGroups}};
  std::printf("flow_bench: %u links; median of one re-solve after one flow ends and one starts\n",
              ibsdn::kLinks);
  for (const auto& layout : layouts) {
    ibsdn::measure(layout, 10'000, 41);
    if (!quick) ibsdn::measure(layout, 100'000, 21);
  }
  return 0;
}
