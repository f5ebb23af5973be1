// The splittable LP bound's cost and what it says, in one run: its time as a ratio to DmodK's
// routing of the same flows, its size, and the maximum link utilisation of the single-path
// algorithms divided by the bound. Each job, with the pattern's uniform volumes and with
// heavy-tailed ones, gets three rows:
//   all/direct  the LP over every link given to GLPK at once (the definition, solved as it is)
//   all         the same LP by column generation (what splittable_lp_bound() does)
//   shortest    over shortest paths only (shortest_path_filter(), the fat-tree algorithms' paths)
//
//   lp_bound_bench [--quick] [--lp-seconds N]
//     --quick          the 20-host tree only, for CI smoke runs
//     --lp-seconds N   the deadline of each LP (default 120): past it, the row says so
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/splittable_bound.hpp"
#include "routing/splittable_commodities.hpp"
#include "routing/splittable_lp.hpp"
#include "sim_backend/scenario/topology_spec.hpp"
#include "sim_backend/workload/job_builder.hpp"

namespace ibsdn {
namespace {

struct Case {
  const char* label;
  const char* xgft;
  const char* pattern;
  std::uint32_t nodes;  // 0 = all
};

// A 20-host two-level tree (all 380 pairs); on the 512-host XGFT(3;8,8,8;1,8,8), a 256-host job
// with a random permutation and all-to-all within 64 hosts (nodes drawn at random, seeded).
const Case kCases[] = {{"xgft-20", "2;4,5;1,4", "all-to-all", 0},
                       {"xgft-512", "3;8,8,8;1,8,8", "random-perm", 256},
                       {"xgft-512", "3;8,8,8;1,8,8", "all-to-all", 64}};

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Median of `reps` runs.
template <typename F>
double median_ms(int reps, F&& run) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    run();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Volumes spread over four orders of magnitude (1 KB to 10 MB, log-uniform), seeded.
void heavy_tailed(std::vector<Flow>& flows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(3, 7);
  for (Flow& f : flows) f.bytes = static_cast<std::uint64_t>(std::pow(10.0, exponent(rng)));
}

enum class Variant { kDirect, kColumnGeneration, kShortestPaths };
const char* const kVariantNames[] = {"all/direct", "all", "shortest"};

/// The LP over every link without column generation, through the internal interface.
LpBound direct_bound(const Fabric& f, const std::vector<Flow>& flows, const Deadline& deadline) {
  LpBound out;
  std::vector<Commodity> cs;
  out.why_not = collect_commodities(f, flows, cs);
  CommodityPruner pruner(f, nullptr);
  out.variables = 1;
  for (Commodity& c : cs) {
    if (out.why_not.empty()) out.why_not = pruner.prune(c);
    out.variables += c.links.size();
  }
  if (!out.why_not.empty()) return out;
  try {
    const SplittableLpResult r = solve_splittable_lp(f, cs, deadline, FirstColumns::kAll);
    out.computed = r.solved;
    out.seconds = r.seconds;
    out.why_not = r.why_not;
    out.constraints = r.rows;
    out.solved_columns = r.columns;
    out.rounds = r.rounds;
  } catch (const DeadlineExceeded& e) {
    out.why_not = e.what();
  }
  return out;
}

/// One LP, repeated (median of 3) only when it is quick enough for that to be cheap.
LpBound timed_bound(const Fabric& f, const std::vector<Flow>& flows, Variant v, double lp_seconds,
                    double* ms) {
  const auto budget =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(lp_seconds));
  LpBound lp;
  const auto once = [&] {
    LpLimits lim;
    lim.deadline = Deadline(Clock::now() + budget);
    switch (v) {
      case Variant::kDirect:
        lp = direct_bound(f, flows, lim.deadline);
        break;
      case Variant::kColumnGeneration:
        lp = splittable_lp_bound(f, flows, nullptr, lim);
        break;
      case Variant::kShortestPaths:
        lp = splittable_lp_bound(f, flows, shortest_path_filter(f), lim);
        break;
    }
  };
  *ms = median_ms(1, once);
  if (*ms < 1000) *ms = median_ms(3, once);
  return lp;
}

void run(bool quick, double lp_seconds) {
  const char* algs[] = {"dmodk", "sdn-greedy", "sdn-optimal"};
  std::printf(
      "== Splittable LP bound: size, time / DmodK's routing time, max utilisation / bound"
      " (of that row) ==\n");
  std::printf("%-8s %-11s %5s %-7s %5s | %-10s %7s %6s %6s %3s %9s %8s %8s | %8s %6s %6s %6s\n",
              "tree", "pattern", "nodes", "volumes", "flows", "LP", "vars", "cols", "rows", "rnd",
              "lp ms", "lp/dmodk", "bound s", "dmodk ms", "dmodk", "greedy", "optim.");
  for (const Case& c : kCases) {
    if (quick && c.nodes != 0) continue;
    TopologySpec ts;
    ts.xgft = c.xgft;
    const Fabric f = build_topology(ts);
    JobSpec js;
    js.pattern = c.pattern;
    js.nodes = c.nodes;
    js.selection = c.nodes ? "random" : "linear";
    js.seed = 7;
    const BuiltJob job = build_job(f, js);
    for (const bool heavy : {false, true}) {
      std::vector<Flow> flows = job.flows;
      if (heavy) heavy_tailed(flows, 11);
      const RouteRequest req{f, flows};
      const auto dmodk = make_algorithm("dmodk");
      const double dmodk_ms = median_ms(quick ? 3 : 7, [&] { (void)dmodk->route(req); });
      std::vector<double> utilisation;
      for (const char* a : algs) {
        utilisation.push_back(max_link_seconds(f, flows, make_algorithm(a)->route(req)));
      }
      for (const Variant v :
           {Variant::kDirect, Variant::kColumnGeneration, Variant::kShortestPaths}) {
        double lp_ms = 0;
        const LpBound lp = timed_bound(f, flows, v, lp_seconds, &lp_ms);
        std::printf("%-8s %-11s %5zu %-7s %5zu | %-10s %7zu %6zu %6zu %3d %9.1f %8.0f", c.label,
                    c.pattern, job.nodes.size(), heavy ? "heavy" : "uniform", flows.size(),
                    kVariantNames[static_cast<int>(v)], lp.variables, lp.solved_columns,
                    lp.constraints, lp.rounds, lp_ms, lp_ms / dmodk_ms);
        if (!lp.computed) {
          std::printf("  not computed: %s\n", lp.why_not.c_str());
        } else {
          std::printf(" %8.2e | %8.3f", lp.seconds, dmodk_ms);
          for (const double u : utilisation) std::printf(" %6.3f", u / lp.seconds);
          std::printf("\n");
        }
        std::fflush(stdout);  // rows of a long run appear as they are measured
      }
    }
  }
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  bool quick = false;
  double lp_seconds = 120;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--lp-seconds") == 0 && i + 1 < argc) {
      lp_seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: lp_bound_bench [--quick] [--lp-seconds N]\n");
      return 2;
    }
  }
  ibsdn::run(quick, lp_seconds);
  return 0;
}
