// Volume-aware routing (docs/routing.md, "Volumes"), in one run, every figure a ratio:
//
//   1. max link utilisation / splittable bound of dmodk, sdn-greedy, sdn-optimal and sdn-volume on
//      the generated heavy-tailed cases (sim_backend/workload/volume_cases.hpp): geometric mean and
//      worst case per algorithm, and how often sdn-volume is worse than DmodK (must be never);
//   2. a degraded Curie tree (1% and 5% of its switch cables removed, 3 seeds): L_D / bound and
//      max utilisation / bound on a random permutation and a 1024-host heavy-tailed job;
//   3. time: sdn-volume / DmodK on the same flows (a 16k-rank-pair matrix on a 20-host tree, the
//      1024-host job on Curie);
//   4. the sdn engine's per-destination LFTs on a degraded Curie / on the complete one;
//   5. install backends: the routes SDN-optimal and SDN-volume install as per-flow entries in
//      flow tables and as LFT entries (one port per switch and destination), against DmodK and
//      the bound, on seed 002's patterns on Curie and a degraded Curie and on the volume cases.
//
//   volume_bench              everything (a few minutes)
//   volume_bench --quick      a reduced set on smaller trees, for CI smoke runs
//   volume_bench --cases      also one line per case of tables 1 and 5
//   volume_bench --only S     table 1 alone, on the cases whose name contains S
//   volume_bench --backends   table 5 alone
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/median.hpp"
#include "routing/algorithm.hpp"
#include "routing/default_tables.hpp"
#include "routing/fat_tree.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/lft.hpp"
#include "routing/patterns/mapping.hpp"
#include "routing/per_destination.hpp"
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

// ---- 5. Install backends ----

/// Where a job's routes go (docs/routing.md): per-flow entries in the switches' flow tables, or
/// destination entries in their LFTs, one output port per (switch, DLID).
enum class Backend : std::uint8_t { kFlowTable, kLft };

/// The paths `alg`'s routes take once installed with `backend` over the default `lfts`, as the
/// controller installs them: routed with RouteRequest::per_destination for the LFTs, compiled at
/// the controller's defaults (4096 entries per flow table, SLID+DLID matches; LFTs: every switch,
/// no capacity), traced through the tables and the entries. `on_default`: flows the compiler
/// left on the LFT's route (a flow table full; never for the LFT when the routes fit it).
std::vector<Path> installed(const Fabric& f, const LftSet& lfts, const std::vector<Flow>& flows,
                            const char* alg, Backend backend, std::size_t* on_default) {
  RouteRequest req{f, flows};
  req.per_destination = backend == Backend::kLft;
  const std::vector<Path> routed = make_algorithm(alg)->route(req);
  CompileOptions opt;
  std::vector<bool> every_switch;
  if (backend == Backend::kLft) {
    every_switch.assign(f.num_nodes(), false);
    for (const NodeIdx sw : f.switches()) every_switch[sw.value()] = true;
    opt.lft_switches = &every_switch;
  }
  CompiledFlows c = compile_flows(f, lfts, flows, routed, JobId(1), opt);
  *on_default = c.flows_on_default;
  return std::move(c.effective);
}

/// Ratios of the LFT-installed routes to the flow-table-installed ones and to DmodK's, per
/// fabric and algorithm.
struct BackendCost {
  std::vector<double> vs_table;
  std::vector<double> vs_dmodk;
  std::size_t above_dmodk = 0;
  void add(double lft, double table, double dmodk) {
    vs_table.push_back(lft / table);
    vs_dmodk.push_back(lft / dmodk);
    if (lft > dmodk * (1 + 1e-9)) ++above_dmodk;
  }
};

double worst(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
}

using CostTable = std::map<std::pair<std::string, std::string>, BackendCost>;

void print_costs(const CostTable& costs) {
  std::printf("%-28s %-12s %5s | %9s %9s | %9s %9s | %s\n", "fabric", "algorithm", "jobs",
              "lft/table", "worst", "lft/dmodk", "worst", "lft > dmodk");
  for (const auto& [key, c] : costs) {
    std::printf("%-28s %-12s %5zu | %9.4f %9.4f | %9.4f %9.4f | %zu\n", key.first.c_str(),
                key.second.c_str(), c.vs_table.size(), geomean(c.vs_table), worst(c.vs_table),
                geomean(c.vs_dmodk), worst(c.vs_dmodk), c.above_dmodk);
  }
}

const char* const kBackendAlgorithms[] = {"sdn-optimal", "sdn-volume"};

/// Seed 002's patterns on a tree and on the same tree with 1% of its switch cables removed: L_D /
/// count bound of DmodK and of each algorithm's flow-table and LFT routes.
void pattern_backends(bool quick, bool per_case, CostTable& costs) {
  const char* spec = quick ? "3;8,8,8;1,8,8" : kCurie;
  const Fabric full = generate_xgft(XgftParams::parse(spec));
  const std::vector<std::uint32_t> sizes =
      quick ? std::vector<std::uint32_t>{128} : std::vector<std::uint32_t>{0, 1024};
  const char* const patterns[] = {"ring", "2dnn", "3dnn", "random4", "random8", "random-perm"};
  std::printf(
      "\n== Install backends: L_D / bound on XGFT(%s), complete and 1%% of its switch "
      "cables removed (seed 1) ==\n",
      spec);
  std::printf(
      "(table: per-flow entries, 4096 per switch; lft: one port per switch and "
      "destination, routed per destination; jobs: every host, or hosts drawn at random)\n");
  std::printf("%-11s %-11s %5s %6s %5s | %6s | %7s %7s | %7s %7s | %s\n", "fabric", "pattern",
              "nodes", "flows", "bound", "dmodk", "opt tab", "opt lft", "vol tab", "vol lft",
              "notes");
  for (const double percent : {0.0, 1.0}) {
    std::size_t removed = 0;
    // default_tables() recognises the fabric again, as the sdn engine does (a complete XGFT
    // gets its XGFT layout back).
    Fabric f = percent == 0.0 ? without_cables(full, {}) : degraded(full, percent, 1, &removed);
    const LftSet lfts = default_tables(f, sequential_lids(f)).lfts;
    const std::string fabric =
        std::string(quick ? "xgft-512" : "curie") + (percent == 0.0 ? "" : "-1%");
    for (const std::uint32_t nodes : sizes) {
      for (const char* pattern : patterns) {
        JobSpec js;
        js.pattern = pattern;
        js.nodes = nodes;
        js.selection = nodes ? "random" : "linear";
        js.seed = 7;
        const std::vector<Flow> flows = build_job(f, js).flows;
        const RouteQuality dk =
            evaluate(f, flows, make_algorithm("dmodk")->route(RouteRequest{f, flows}));
        double r[2][2];
        std::string notes;
        for (std::size_t a = 0; a < 2; ++a) {
          for (const Backend b : {Backend::kFlowTable, Backend::kLft}) {
            std::size_t on_default = 0;
            const std::vector<Path> paths =
                installed(f, lfts, flows, kBackendAlgorithms[a], b, &on_default);
            r[a][static_cast<int>(b)] = evaluate(f, flows, paths).ratio();
            if (on_default > 0) {
              notes += std::string(" ") + kBackendAlgorithms[a] +
                       (b == Backend::kLft ? " lft: " : " table: ") + std::to_string(on_default) +
                       " flows on the LFT;";
            }
            if (b == Backend::kLft && !per_destination_consistent(f, flows, paths, nullptr)) {
              notes += std::string(" ") + kBackendAlgorithms[a] + " lft: NOT PER DESTINATION;";
            }
          }
          costs[{fabric, kBackendAlgorithms[a]}].add(r[a][1], r[a][0], dk.ratio());
        }
        if (per_case || !quick) {
          std::printf("%-11s %-11s %5zu %6zu %5d | %6.2f | %7.2f %7.2f | %7.2f %7.2f |%s\n",
                      fabric.c_str(), pattern, nodes ? std::size_t{nodes} : f.hcas().size(),
                      flows.size(), dk.bound.value, dk.ratio(), r[0][0], r[0][1], r[1][0], r[1][1],
                      notes.c_str());
        }
      }
    }
    if (percent > 0.0) std::printf("(%s: %zu cables removed)\n", fabric.c_str(), removed);
  }
}

/// The heavy-tailed volume cases: max utilisation / splittable bound of DmodK and of SDN-volume's
/// flow-table and LFT routes.
void volume_backends(bool quick, bool per_case, CostTable& costs) {
  VolumeCaseFabrics fabrics;
  std::vector<VolumeCase> cases =
      volume_cases(quick ? VolumeCaseScale::kTest : VolumeCaseScale::kBench);
  if (quick) {
    std::erase_if(cases, [](const VolumeCase& c) {
      return c.topology.label != std::string("2L-64") || c.unit;
    });
  }
  std::map<std::string, LftSet> lfts;  // by topology label
  std::printf(
      "\n== Install backends on %zu volume cases: max utilisation / splittable bound "
      "(sdn-volume) ==\n",
      cases.size());
  if (per_case) {
    std::printf("%-44s %6s | %7s %7s %7s\n", "case", "flows", "dmodk", "table", "lft");
  }
  for (const VolumeCase& c : cases) {
    const Fabric& f = fabrics.get(c.topology);
    auto it = lfts.find(c.topology.label);
    if (it == lfts.end()) {
      Fabric copy = without_cables(f, {});  // the same node indexes, recognised again
      it = lfts.emplace(c.topology.label, default_tables(copy, sequential_lids(copy)).lfts).first;
    }
    const std::vector<Flow> flows = volume_case_flows(f, c);
    const double dk =
        evaluate(f, flows, make_algorithm("dmodk")->route(RouteRequest{f, flows})).volume_ratio();
    double r[2];
    std::size_t on_default = 0;
    for (const Backend b : {Backend::kFlowTable, Backend::kLft}) {
      r[static_cast<int>(b)] =
          evaluate(f, flows, installed(f, it->second, flows, "sdn-volume", b, &on_default))
              .volume_ratio();
    }
    costs[{std::string("volume cases ") + c.topology.label, "sdn-volume"}].add(r[1], r[0], dk);
    costs[{"volume cases, all", "sdn-volume"}].add(r[1], r[0], dk);
    if (per_case) {
      std::printf("%-44s %6zu | %7.3f %7.3f %7.3f\n", c.name().c_str(), flows.size(), dk, r[0],
                  r[1]);
    }
  }
}

void backends_table(bool quick, bool per_case) {
  CostTable patterns;
  pattern_backends(quick, per_case, patterns);
  std::printf(
      "\n== Install backends: the DLID constraint's cost (geo-mean and worst over the jobs) ==\n");
  print_costs(patterns);
  CostTable volumes;
  volume_backends(quick, per_case, volumes);
  print_costs(volumes);
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  bool quick = false;
  bool per_case = false;
  bool backends = false;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--cases") == 0) per_case = true;
    if (std::strcmp(argv[i], "--backends") == 0) backends = true;
  }
  if (backends) {
    ibsdn::backends_table(quick, per_case);
    return 0;
  }
  ibsdn::quality_table(quick, per_case, only);
  if (only == nullptr) {
    ibsdn::degraded_table(quick);
    ibsdn::time_table(quick);
    ibsdn::backends_table(quick, per_case);
  }
  return 0;
}
