// The flow-level model's re-solve cost (issue 12, "Figures to measure"): the median time of one
// incremental re-solve (after one flow ends and another starts) with 10k and 100k active flows on
// a 10,240-link fabric, as a ratio to a full re-solve in the same run (thread CPU time).
//
// Two traffic layouts:
//   spread    routes of 4-6 links drawn over all the links: one connected component holds nearly
//             every flow;
//   confined  the links in 64 groups of 160 and every route inside one group, as jobs confined
//             to subtrees.
// Beside the times: how many flows the incremental re-solve re-solved, and how many moved (the new
// flow, and those whose rate changed by more than 1e-9 relative). An exact re-solve has to give
// every moved flow its new rate, so "moved" bounds what any incremental scheme can save.
//
//   flow_bench            both layouts, 10k and 100k flows
//   flow_bench --quick    10k flows only, for smoke runs
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
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

/// The thread's CPU time (ms): on a shared machine the wall clock also counts other processes'
/// turns, which made the medians swing by 3x under load.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
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
  std::vector<double> solved;
  std::vector<double> moved;
  std::vector<double> before(flows);  // slots are reused: there are never more than `flows`
  for (int k = 0; k < repeats; ++k) {
    // One flow ends and another starts: the event the model re-solves at.
    const std::size_t victim = rng() % live.size();
    for (const MaxMinSharing::FlowSlot f : live) before[f] = sharing.rate(f);
    sharing.remove(live[victim]);
    live[victim] = sharing.add(routes.next(), 1.0, 0.0);
    changed.clear();
    double t0 = cpu_ms();
    solved.push_back(static_cast<double>(sharing.solve_touched(changed)));
    inc_ms.push_back(cpu_ms() - t0);
    std::size_t n = 1;
    for (const MaxMinSharing::FlowSlot f : changed) {
      n += f != live[victim] && std::abs(sharing.rate(f) - before[f]) > 1e-9 * before[f] ? 1 : 0;
    }
    moved.push_back(static_cast<double>(n));
    changed.clear();
    t0 = cpu_ms();
    sharing.solve_all(changed);
    full_ms.push_back(cpu_ms() - t0);
  }
  const double inc = bench::median(inc_ms);
  const double full = bench::median(full_ms);
  std::printf(
      "%-9s %7zu flows  incremental %8.3f ms (re-solves %7.0f flows, %7.0f moved)  full %8.3f ms  "
      "incremental/full %.3f\n",
      layout.name, flows, inc, bench::median(solved), bench::median(moved), full,
      full > 0 ? inc / full : 0);
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
