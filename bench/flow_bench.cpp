// The flow-level model's re-solve cost (bench/README.md, "flow_bench"): the median time of one
// incremental re-solve (after one flow ends and another starts) with 10k and 100k active flows on
// a ~10k-link fabric, as a ratio to a full re-solve in the same run (thread CPU time).
//
// Four traffic layouts:
//   fat-tree  a fabric: XGFT(3;16,16,6;1,16,16), 1536 nodes and 9216 links at 100 Gb/s, every flow
//             between two random nodes on the route its DmodK LFTs give (one job on the whole
//             machine, all to all);
//   ft-jobs   the same fabric as 48 jobs of 32 consecutive nodes (two leaf switches each), every
//             flow between two random nodes of one random job;
//   spread    the worst case: 10,240 links of 1x-4x 12.5 GB/s and routes of 4-6 links drawn over
//             all of them, so any two flows may share a link and one start or end moves most
//             rates (no fabric's routes cross that evenly);
//   confined  the same links in 64 groups of 160 and every route inside one group, as jobs
//             confined to subtrees.
// Beside the times: how many flows the incremental re-solve re-solved, and how many moved (the new
// flow, and those whose rate changed by more than 1e-9 relative). An exact re-solve has to give
// every moved flow its new rate, so "moved" bounds what any incremental scheme can save. "as run"
// is solve_touched() as the flow model calls it, which solves in full for a while after an
// incremental solve re-solved most flows (MaxMinSharing::set_full_fallback).
//
//   flow_bench            the four layouts, 10k and 100k flows
//   flow_bench --quick    10k flows only, for smoke runs
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <vector>

#include "bench/median.hpp"
#include "routing/default_tables.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/flowmodel/max_min_sharing.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {
namespace {

constexpr std::uint32_t kLinks = 10'240;
constexpr std::uint32_t kGroups = 64;
constexpr const char* kTree = "3;16,16,6;1,16,16";
constexpr std::size_t kJobNodes = 32;  // ft-jobs: 48 jobs of 32 nodes, two leaf switches each

/// Where flows go: the links' capacities, and a route per flow.
class Layout {
 public:
  virtual ~Layout() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  [[nodiscard]] virtual std::vector<double> capacities(std::mt19937_64& rng) const = 0;
  virtual std::vector<LinkId> next() = 0;
};

/// Random routes over synthetic links, inside one of `groups` equal link groups.
class RandomLinks : public Layout {
 public:
  RandomLinks(const char* name, std::uint32_t groups, std::uint64_t seed)
      : name_(name), groups_(groups), rng_(seed) {}
  [[nodiscard]] const char* name() const override { return name_; }
  [[nodiscard]] std::vector<double> capacities(std::mt19937_64& rng) const override {
    // Link rates from 1x to 4x a base of 12.5 GB/s (mixed generations, tapered levels).
    std::vector<double> capacity(kLinks);
    for (double& c : capacity) c = 12.5e9 * (1 + static_cast<double>(rng() % 4));
    return capacity;
  }
  std::vector<LinkId> next() override {
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
  const char* name_;
  std::uint32_t groups_;
  std::mt19937_64 rng_;
};

/// Random node pairs of a fat-tree on their DmodK routes: over all the nodes, or inside jobs of
/// `job_nodes` consecutive nodes (a pair's job drawn at random).
class FatTree : public Layout {
 public:
  FatTree(std::uint64_t seed, std::size_t job_nodes)
      : fabric_(generate_xgft(XgftParams::parse(kTree), 1, 100.0)),
        lfts_(default_tables(fabric_, sequential_lids(fabric_)).lfts),
        routes_(lft_routes(fabric_, lfts_)),
        rng_(seed),
        job_nodes_(job_nodes == 0 ? fabric_.hcas().size() : job_nodes) {}
  [[nodiscard]] const char* name() const override {
    return job_nodes_ == fabric_.hcas().size() ? "fat-tree" : "ft-jobs";
  }
  [[nodiscard]] std::vector<double> capacities(std::mt19937_64& /*rng*/) const override {
    std::vector<double> capacity;
    for (const Link& l : fabric_.links()) capacity.push_back(l.gbps * 1e9 / 8);
    return capacity;
  }
  std::vector<LinkId> next() override {
    const std::vector<NodeIdx>& nodes = fabric_.hcas();
    const std::size_t first = rng_() % (nodes.size() / job_nodes_) * job_nodes_;
    const NodeIdx src = nodes[first + rng_() % job_nodes_];
    NodeIdx dst = src;
    while (dst == src) dst = nodes[first + rng_() % job_nodes_];
    found_.clear();
    routes_->routes(0, src, dst, LinkState{}, found_);
    return found_.front();
  }

 private:
  Fabric fabric_;
  LftSet lfts_;  // routes_ reads them
  std::unique_ptr<RouteSource> routes_;
  std::mt19937_64 rng_;
  std::size_t job_nodes_;
  std::vector<std::vector<LinkId>> found_;
};

/// The thread's CPU time (ms): on a shared machine the wall clock also counts other processes'
/// turns, which made the medians swing by 3x under load.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

/// The flows at the start and the events (one flow ends, one starts), drawn once so that both
/// passes of measure() see the same history.
struct History {
  std::vector<double> capacity;
  std::vector<std::vector<LinkId>> routes;  // of the initial flows
  std::vector<double> caps;
  std::vector<std::size_t> victims;  // per event: the index into the live flows that ends
  std::vector<std::vector<LinkId>> started;
};

History draw(Layout& layout, std::size_t flows, int repeats) {
  std::mt19937_64 rng(flows);
  std::uniform_real_distribution<double> unit(0, 1);
  History h;
  h.capacity = layout.capacities(rng);
  for (std::size_t i = 0; i < flows; ++i) {
    h.caps.push_back(unit(rng) < 0.1 ? 5e9 : 0.0);
    h.routes.push_back(layout.next());
  }
  for (int k = 0; k < repeats; ++k) {
    h.victims.push_back(rng() % flows);
    h.started.push_back(layout.next());
  }
  return h;
}

/// Replays the history through `sharing`; at each event calls `solve(live, victim)` with the
/// new flow in place.
template <typename Solve>
void replay(const History& h, MaxMinSharing& sharing, Solve&& solve) {
  std::vector<MaxMinSharing::FlowSlot> live;
  for (std::size_t i = 0; i < h.routes.size(); ++i) {
    live.push_back(sharing.add(h.routes[i], 1.0, h.caps[i]));
  }
  std::vector<MaxMinSharing::FlowSlot> changed;
  sharing.solve_all(changed);
  for (std::size_t k = 0; k < h.victims.size(); ++k) {
    const std::size_t victim = h.victims[k];
    solve(live, victim, [&] {
      sharing.remove(live[victim]);
      live[victim] = sharing.add(h.started[k], 1.0, 0.0);
    });
  }
}

void measure(Layout& layout, std::size_t flows, int repeats) {
  const History history = draw(layout, flows, repeats);
  std::vector<MaxMinSharing::FlowSlot> changed;

  // First pass: every event solved incrementally (the figure), then in full.
  std::vector<double> inc_ms;
  std::vector<double> full_ms;
  std::vector<double> solved;
  std::vector<double> moved;
  {
    MaxMinSharing sharing(history.capacity);
    sharing.set_full_fallback(false);
    std::vector<double> before(flows);  // slots are reused: there are never more than `flows`
    replay(history, sharing, [&](const auto& live, std::size_t victim, const auto& event) {
      for (const MaxMinSharing::FlowSlot f : live) before[f] = sharing.rate(f);
      event();
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
    });
  }
  // Second pass: solve_touched() as the flow model calls it, falling back to full solves while
  // most rates move (MaxMinSharing::set_full_fallback).
  std::vector<double> run_ms;
  {
    MaxMinSharing sharing(history.capacity);
    replay(history, sharing, [&](const auto& /*live*/, std::size_t /*victim*/, const auto& event) {
      event();
      changed.clear();
      const double t0 = cpu_ms();
      sharing.solve_touched(changed);
      run_ms.push_back(cpu_ms() - t0);
    });
  }
  const double inc = bench::median(inc_ms);
  const double full = bench::median(full_ms);
  const double run = bench::median(run_ms);
  std::printf(
      "%-9s %7zu flows  incremental %7.3f ms (re-solves %6.0f flows, %6.0f moved)  full %7.3f ms  "
      "incremental/full %.3f  as run %7.3f ms (/full %.3f)\n",
      layout.name(), flows, inc, bench::median(solved), bench::median(moved), full,
      full > 0 ? inc / full : 0, run, full > 0 ? run / full : 0);
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf(
      "flow_bench: median of one re-solve after one flow ends and one starts; fat-tree XGFT(%s), "
      "others %u synthetic links\n",
      ibsdn::kTree, ibsdn::kLinks);
  for (const std::size_t flows : {std::size_t{10'000}, std::size_t{100'000}}) {
    if (quick && flows > 10'000) break;
    const int repeats = flows > 10'000 ? 21 : 41;
    ibsdn::FatTree tree(flows, 0);
    ibsdn::FatTree jobs(flows, ibsdn::kJobNodes);
    ibsdn::RandomLinks spread("spread", 1, flows + 1);
    ibsdn::RandomLinks confined("confined", ibsdn::kGroups, flows + ibsdn::kGroups);
    for (ibsdn::Layout* layout :
         {static_cast<ibsdn::Layout*>(&tree), static_cast<ibsdn::Layout*>(&jobs),
          static_cast<ibsdn::Layout*>(&spread), static_cast<ibsdn::Layout*>(&confined)}) {
      ibsdn::measure(*layout, flows, repeats);
    }
  }
  return 0;
}
