// Volume-aware routing (docs/routing.md, "Volumes"), in one run, every figure a ratio:
//
//   1. max link utilisation / splittable bound of dmodk, sdn-greedy, sdn-optimal and sdn-volume on
//      the generated heavy-tailed cases (sim_backend/workload/volume_cases.hpp): geometric mean and
//      worst case per algorithm, and how often sdn-volume is worse than DmodK (must be never);
//   2. a degraded Curie tree (1% and 5% of its switch cables removed, 3 seeds): L_D / bound and
//      max utilisation / bound on a random permutation and a 1024-host heavy-tailed job;
//   3. time: sdn-volume / DmodK on the same flows (a 16k-rank-pair matrix on a 20-host tree, the
//      1024-host job on Curie), and the sdn engine's per-destination LFTs on a degraded Curie /
//      on the complete one.
//
//   volume_bench            everything (a few minutes)
//   volume_bench --quick    a reduced set on smaller trees, for CI smoke runs
//   volume_bench --cases    also one line per case of table 1
//   volume_bench --only S   table 1 alone, on the cases whose name contains S
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/median.hpp"
#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"
#include "routing/lft.hpp"
#include "routing/patterns/mapping.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/workload/job_builder.hpp"
#include "sim_backend/workload/volume_cases.hpp"
#include "tests/support/fat_tree_fabrics.hpp"

namespace ibsdn {
namespace {

using bench::median;

// Curie's tree (seed 002 Table I, as in route_bench).
const char* const kCurie = "3;15,15,30;1,15,15";

const char* const kAlgorithms[] = {"dmodk", "sdn-greedy", "sdn-optimal", "sdn-volume"};
constexpr std::size_t kVolume = 3;

struct Ratios {
  std::vector<double> of[4];
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double geomean(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0.0 : std::exp(s / static_cast<double>(v.size()));
}

void quality_table(bool quick, bool per_case, const char* only) {
  VolumeCaseFabrics fabrics;
  std::vector<VolumeCase> cases =
      volume_cases(quick ? VolumeCaseScale::kTest : VolumeCaseScale::kBench);
  if (quick) {  // the smallest tree and the tapered one
    std::erase_if(cases, [](const VolumeCase& c) {
      return c.topology.label != std::string("2L-64") &&
             c.topology.label != std::string("3L-512-tapered");
    });
  }
  if (only != nullptr) {
    std::erase_if(cases,
                  [&](const VolumeCase& c) { return c.name().find(only) == std::string::npos; });
  }
  std::printf("\n== Volumes: max link utilisation / splittable bound (1.00 = optimal) ==\n");
  if (per_case) {
    std::printf("%-44s %6s %6s | %7s %7s %7s %7s\n", "case", "flows", "sp/bd", "dmodk", "greedy",
                "optimal", "volume");
  }
  Ratios all;
  std::size_t worse_than_dmodk = 0;
  std::size_t unsplittable = 0;
  std::vector<double> to_single;  // sdn-volume / the single-path bound
  std::vector<std::string> misses;
  for (const VolumeCase& c : cases) {
    const Fabric& f = fabrics.get(c.topology);
    const std::vector<Flow> flows = volume_case_flows(f, c);
    const VolumeBound bound = volume_lower_bound(f, flows);
    const VolumeBound single = single_path_volume_bound(f, flows);
    double r[4];
    for (std::size_t a = 0; a < 4; ++a) {
      const auto paths = make_algorithm(kAlgorithms[a])->route(RouteRequest{f, flows});
      r[a] = evaluate(f, flows, paths).max_seconds / bound.seconds;
      all.of[a].push_back(r[a]);
    }
    const double sp = single.seconds / bound.seconds;
    if (sp > 1.0 + 1e-9) ++unsplittable;
    to_single.push_back(r[kVolume] / sp);
    if (r[kVolume] / sp > 1.05) misses.push_back(c.name());
    if (r[kVolume] > r[0] * (1 + 1e-9)) ++worse_than_dmodk;
    if (per_case) {
      std::printf("%-44s %6zu %6.3f | %7.3f %7.3f %7.3f %7.3f  %s\n", c.name().c_str(),
                  flows.size(), sp, r[0], r[1], r[2], r[3], single.binding.c_str());
    }
  }
  std::printf("%zu cases (%zu where single-path routing provably cannot reach the bound)\n",
              cases.size(), unsplittable);
  std::printf("%-12s %9s %9s\n", "algorithm", "geo-mean", "worst");
  for (std::size_t a = 0; a < 4; ++a) {
    std::printf("%-12s %9.3f %9.3f\n", kAlgorithms[a], geomean(all.of[a]),
                *std::max_element(all.of[a].begin(), all.of[a].end()));
  }
  std::printf("cases where sdn-volume > dmodk: %zu\n", worse_than_dmodk);
  std::printf("sdn-volume / single-path bound: geo-mean %.3f, worst %.3f; above 1.05: %zu\n",
              geomean(to_single), *std::max_element(to_single.begin(), to_single.end()),
              misses.size());
  for (const std::string& m : misses) std::printf("  %s\n", m.c_str());
}

// ---- 2. A degraded Curie tree ----

/// `f` without `percent`% of its switch-to-switch cables (drawn as the fat-tree tests draw them,
/// seeded), recognised again. With percent 0, the graph alone recognised afresh.
Fabric degraded(const Fabric& f, double percent, std::uint64_t seed, std::size_t* removed) {
  std::vector<CableEnd> cables = test::switch_cables(f, seed);
  cables.resize(
      static_cast<std::size_t>(std::llround(percent / 100.0 * static_cast<double>(cables.size()))));
  Fabric out = without_cables(f, cables);
  std::string why;
  if (!recognize_fat_tree(out, &why)) throw std::runtime_error("not a fat-tree: " + why);
  if (removed) *removed = cables.size();
  return out;
}

/// The 1024-host job of tables 2 and 3: NAS CG-like traffic, 8 ranks per node, block, on 1024
/// hosts drawn at random.
std::vector<Flow> cg_job(const Fabric& f, std::uint32_t nodes) {
  VolumeCase c;
  c.topology = VolumeTopology{"curie", "", true};
  c.traffic = VolumeTraffic::kCg;
  c.nodes = nodes;
  c.ranks_per_node = 8;
  c.seed = 7;
  return volume_case_flows(f, c);
}

std::vector<Flow> permutation(const Fabric& f) {
  JobSpec js;
  js.pattern = "random-perm";
  js.seed = 7;
  return build_job(f, js).flows;
}

void degraded_table(bool quick) {
  const char* spec = quick ? "3;8,8,8;1,8,8" : kCurie;
  const std::uint32_t job_nodes = quick ? 64 : 1024;
  const Fabric full = generate_xgft(XgftParams::parse(spec));
  std::printf(
      "\n== Degraded XGFT(%s): L_D / bound (flow counts) and max utilisation / volume "
      "bound ==\n",
      spec);
  std::printf(
      "(random-perm: every host, equal bytes; cg: %u hosts, 8 ranks per node, NAS "
      "CG-like)\n",
      job_nodes);
  std::printf("(sp/bd: the single-path bound / the volume bound: what no unsplit routing beats)\n");
  std::printf("%-8s %4s %7s %-11s %6s | %6s %7s %7s | %6s | %6s %7s %7s\n", "removed", "seed",
              "cables", "pattern", "flows", "dmodk", "optimal", "volume", "sp/bd", "dmodk",
              "optimal", "volume");
  const char* const algs[] = {"dmodk", "sdn-optimal", "sdn-volume"};
  for (const double percent : {1.0, 5.0}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      std::size_t removed = 0;
      const Fabric f = degraded(full, percent, seed, &removed);
      for (const bool perm : {true, false}) {
        const std::vector<Flow> flows = perm ? permutation(f) : cg_job(f, job_nodes);
        double count[3];
        double util[3];
        for (std::size_t a = 0; a < 3; ++a) {
          const RouteQuality q =
              evaluate(f, flows, make_algorithm(algs[a])->route(RouteRequest{f, flows}));
          count[a] = q.ratio();
          util[a] = q.volume_ratio();
        }
        const double sp =
            single_path_volume_bound(f, flows).seconds / volume_lower_bound(f, flows).seconds;
        std::printf(
            "%6.0f%% %4llu %7zu %-11s %6zu | %6.2f %7.2f %7.2f | %6.3f | %6.3f %7.3f %7.3f\n",
            percent, static_cast<unsigned long long>(seed), removed, perm ? "random-perm" : "cg",
            flows.size(), count[0], count[1], count[2], sp, util[0], util[1], util[2]);
      }
    }
  }
}

// ---- 3. Time ----

double median_ms(const RoutingAlgorithm& alg, const RouteRequest& req, int reps) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<Path> p = alg.route(req);
    t.push_back(ms_since(t0));
  }
  return median(t);
}

void time_table(bool quick) {
  const int reps = quick ? 3 : 7;
  std::printf("\n== Time: sdn-volume / DmodK on the same flows (median of %d) ==\n", reps);
  std::printf("%-34s %8s %6s | %10s %10s %10s\n", "demand", "pairs", "flows", "dmodk ms",
              "volume ms", "volume/dk");
  const auto row = [&](const char* what, std::size_t pairs, const Fabric& f,
                       const std::vector<Flow>& flows) {
    const RouteRequest req{f, flows};
    const double dk = median_ms(*make_algorithm("dmodk"), req, reps);
    const double vol = median_ms(*make_algorithm("sdn-volume"), req, reps);
    const std::string pair_count = pairs ? std::to_string(pairs) : "-";  // - : not counted
    std::printf("%-34s %8s %6zu | %10.3f %10.3f %10.1f\n", what, pair_count.c_str(), flows.size(),
                dk, vol, vol / dk);
  };
  {
    // 128 ranks, 7 per node on the 20 hosts of XGFT(2;4,5;1,4): FT's 16256 rank pairs.
    const Fabric f = generate_xgft(XgftParams::parse("2;4,5;1,4"));
    const std::vector<RankFlow> rf = volume_traffic(VolumeTraffic::kFt, 128, 7);
    const std::vector<NodeIdx> nodes(f.hcas().begin(), f.hcas().end());
    const std::vector<Flow> flows = to_fabric_flows(rf, map_ranks(nodes, 7, Mapping::kBlock, 128));
    row("ft 128 ranks, XGFT(2;4,5;1,4)", rf.size(), f, flows);
  }
  if (!quick) {
    const Fabric f = generate_xgft(XgftParams::parse(kCurie));
    const std::vector<Flow> flows = cg_job(f, 1024);
    row("cg 1024 hosts x 8 ranks, Curie", 0, f, flows);
  }

  const char* spec = quick ? "3;8,8,8;1,8,8" : kCurie;
  const Fabric full = generate_xgft(XgftParams::parse(spec));
  const LidMap lids = sequential_lids(full);
  const auto dmodk = make_algorithm("dmodk");
  const int lft_reps = quick ? 3 : 5;
  std::printf(
      "\n== sdn engine LFTs (DmodK per destination) on a degraded XGFT(%s) / on the "
      "complete one (median of %d) ==\n",
      spec, lft_reps);
  std::printf("(recognise the fat-tree on the bare graph + lfts_per_destination)\n");
  std::printf("%-10s %4s %7s | %10s %9s\n", "removed", "seed", "cables", "ms", "/complete");
  const auto lft_ms = [&](const Fabric& f) {
    std::vector<double> t;
    for (int i = 0; i < lft_reps; ++i) {
      Fabric bare = degraded(f, 0.0, 1, nullptr);  // the graph alone, no layout
      const auto t0 = std::chrono::steady_clock::now();
      std::string why;
      if (!recognize_fat_tree(bare, &why)) throw std::runtime_error(why);
      const LftSet lfts = lfts_per_destination(bare, lids, *dmodk);
      t.push_back(ms_since(t0));
    }
    return median(t);
  };
  const double complete = lft_ms(full);
  std::printf("%-10s %4s %7d | %10.2f %9.2f\n", "none", "-", 0, complete, 1.0);
  for (const double percent : {1.0, 5.0}) {
    for (std::uint64_t seed = 1; seed <= (quick ? 1u : 3u); ++seed) {
      std::size_t removed = 0;
      const Fabric f = degraded(full, percent, seed, &removed);
      const double ms = lft_ms(f);
      std::printf("%9.0f%% %4llu %7zu | %10.2f %9.2f\n", percent,
                  static_cast<unsigned long long>(seed), removed, ms, ms / complete);
    }
  }
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  bool quick = false;
  bool per_case = false;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--cases") == 0) per_case = true;
  }
  ibsdn::quality_table(quick, per_case, only);
  if (only == nullptr) {
    ibsdn::degraded_table(quick);
    ibsdn::time_table(quick);
  }
  return 0;
}
