// Route quality and compute time of the fat-tree routing algorithms, printed as ratios measured
// in one run: L_D / lower bound per algorithm, and compute time / DmodK's on the same demand; and
// the time of the sdn engine's LFTs, per destination, against the all-pairs builder it replaced.
//
//   route_bench            the full tables of bench/README.md (about a minute)
//   route_bench --quick    a reduced set, for CI smoke runs
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "bench/median.hpp"
#include "routing/algorithm.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/lft.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/scenario/topology_spec.hpp"
#include "sim_backend/workload/job_builder.hpp"

namespace ibsdn {
namespace {

using bench::median;

struct Topo {
  const char* label;
  const char* xgft;
};

// The 1024-node full-bisection tree of thesis 4.4.1 built from 32-port switches (16 down and 16
// up at leaf and aggregation level), its 1536-node 3:1 tapered tree (24 hosts and 8 up links per
// leaf), and Curie's XGFT from seed 002 Table I.
const Topo kFull1024{"full-1024", "3;16,16,4;1,16,16"};
const Topo kTapered1536{"tapered-1536", "3;24,16,4;1,8,16"};
const Topo kCurie{"curie-6750", "3;15,15,30;1,15,15"};

struct Pattern {
  const char* label;
  const char* spec;
  std::uint32_t nodes;  // 0 = all
};

double median_ms(const RoutingAlgorithm& alg, const RouteRequest& req, int reps,
                 std::vector<Path>* keep) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Path> p = alg.route(req);
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (keep && i == 0) *keep = std::move(p);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void quality_table(bool quick) {
  const std::vector<Topo> topos = quick ? std::vector<Topo>{kFull1024, kTapered1536}
                                        : std::vector<Topo>{kFull1024, kTapered1536, kCurie};
  // all-to-all runs on a 256-node job: on the whole 6750-node tree it would be 45 M flows.
  const std::vector<Pattern> patterns = {{"random-perm", "random-perm", 0},
                                         {"shift:k=1", "shift:k=1", 0},
                                         {"3dnn", "3dnn", 0},
                                         {"all-to-all/256", "all-to-all", quick ? 64u : 256u},
                                         {"random4", "random4", 0}};
  const char* algs[] = {"dmodk", "sdn-greedy", "sdn-optimal"};
  std::printf("\n== Route quality: L_D / lower bound (1.00 = optimal) ==\n");
  std::printf("%-14s %-16s %8s %7s | %8s %10s %11s\n", "topology", "pattern", "flows", "bound",
              "dmodk", "sdn-greedy", "sdn-optimal");
  for (const Topo& t : topos) {
    TopologySpec ts;
    ts.xgft = t.xgft;
    const Fabric f = build_topology(ts);
    for (const Pattern& p : patterns) {
      JobSpec js;
      js.pattern = p.spec;
      js.nodes = p.nodes;
      js.selection = p.nodes ? "random" : "linear";
      js.seed = 7;
      const BuiltJob job = build_job(f, js);
      const LowerBound b = lower_bound(f, job.flows);
      std::printf("%-14s %-16s %8zu %7u |", t.label, p.label, job.flows.size(), b.value);
      for (const char* a : algs) {
        const auto paths = make_algorithm(a)->route(RouteRequest{f, job.flows});
        const RouteQuality q = evaluate(f, job.flows, paths);
        std::printf(" %*.2f", a == algs[0] ? 8 : (a == algs[1] ? 10 : 11), q.ratio());
      }
      std::printf("\n");
    }
  }
}

void speed_table(bool quick) {
  struct Case {
    Topo topo;
    Pattern pattern;
  };
  std::vector<Case> cases = {{kFull1024, {"random-perm", "random-perm", 0}},
                             {kCurie, {"random-perm", "random-perm", 0}},
                             {kCurie, {"3dnn/4096", "3dnn", 4096}}};
  if (quick) cases.resize(1);
  const int reps = quick ? 3 : 7;
  std::printf("\n== Compute time: ratio to DmodK on the same demand (median of %d runs) ==\n",
              reps);
  std::printf("%-12s %-12s %7s | %10s | %12s %12s | %13s %13s\n", "topology", "pattern", "flows",
              "dmodk ms", "greedy/dmodk", "optimal/dmodk", "greedy ms", "optimal ms");
  for (const Case& c : cases) {
    TopologySpec ts;
    ts.xgft = c.topo.xgft;
    const Fabric f = build_topology(ts);
    JobSpec js;
    js.pattern = c.pattern.spec;
    js.nodes = c.pattern.nodes;
    js.seed = 7;
    const BuiltJob job = build_job(f, js);
    const RouteRequest req{f, job.flows};
    const double base = median_ms(*make_algorithm("dmodk"), req, reps, nullptr);
    const double greedy = median_ms(*make_algorithm("sdn-greedy"), req, reps, nullptr);
    const double optimal = median_ms(*make_algorithm("sdn-optimal"), req, reps, nullptr);
    std::printf("%-12s %-12s %7zu | %10.3f | %12.1f %12.1f | %13.3f %13.3f\n", c.topo.label,
                c.pattern.label, job.flows.size(), base, greedy / base, optimal / base, greedy,
                optimal);
  }
}

void memory_table(bool quick) {
  std::printf("\n== Memory: peak heap bytes of one sdn-optimal call, per flow ==\n");
  std::printf("%-12s %-14s %8s | %14s %10s\n", "topology", "pattern", "flows", "peak bytes",
              "per flow");
  const std::vector<std::pair<Topo, std::uint32_t>> cases =
      quick ? std::vector<std::pair<Topo, std::uint32_t>>{{kFull1024, 256}, {kFull1024, 1024}}
            : std::vector<std::pair<Topo, std::uint32_t>>{
                  {kFull1024, 256}, {kFull1024, 1024}, {kCurie, 1024}, {kCurie, 6750}};
  for (const auto& [t, nodes] : cases) {
    TopologySpec ts;
    ts.xgft = t.xgft;
    const Fabric f = build_topology(ts);
    JobSpec js;
    js.nodes = nodes;
    js.seed = 7;
    for (const char* pat : {"random-perm", "random8"}) {
      js.pattern = pat;
      const BuiltJob job = build_job(f, js);
      const auto alg = make_algorithm("sdn-optimal");
      bench::reset_peak();
      const std::size_t before = bench::live_bytes();
      { const auto paths = alg->route(RouteRequest{f, job.flows}); }
      const std::size_t peak = bench::peak_bytes() - before;
      std::printf("%-12s %-14s %8zu | %14zu %10.0f\n", t.label, pat, job.flows.size(), peak,
                  static_cast<double>(peak) / static_cast<double>(job.flows.size()));
    }
  }
}

void compiler_table(bool quick) {
  std::printf("\n== Flow entries: what the compiler installs for SDN-optimal paths on %s ==\n",
              kFull1024.label);
  std::printf("(hops = switch hops on the chosen paths; overrides = hops leaving DmodK's LFT)\n");
  std::printf("%-16s %8s | %9s %9s %8s | %13s %13s\n", "pattern", "flows", "hops", "overrides",
              "entries", "entries/hops", "entries/ovr");
  TopologySpec ts;
  ts.xgft = kFull1024.xgft;
  const Fabric f = build_topology(ts);
  const LftSet lfts = lfts_from_destination_routes(f, sequential_lids(f), *make_algorithm("dmodk"));
  const std::vector<Pattern> patterns = {{"random-perm", "random-perm", 0},
                                         {"shift:k=1", "shift:k=1", 0},
                                         {"3dnn", "3dnn", 0},
                                         {"all-to-all/256", "all-to-all", quick ? 64u : 256u},
                                         {"random4", "random4", 0}};
  for (const Pattern& p : patterns) {
    JobSpec js;
    js.pattern = p.spec;
    js.nodes = p.nodes;
    js.selection = p.nodes ? "random" : "linear";
    js.seed = 7;
    const BuiltJob job = build_job(f, js);
    const auto paths = make_algorithm("sdn-optimal")->route(RouteRequest{f, job.flows});
    const CompiledFlows c = compile_flows(f, lfts, job.flows, paths, JobId(1), CompileOptions{});
    std::printf("%-16s %8zu | %9zu %9zu %8zu | %13.3f %13.3f\n", p.label, job.flows.size(),
                c.path_hops, c.override_hops, c.entries,
                static_cast<double>(c.entries) / static_cast<double>(c.path_hops),
                c.override_hops
                    ? static_cast<double>(c.entries) / static_cast<double>(c.override_hops)
                    : 0.0);
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// The graph alone, as the sdn engine receives it: no layout until recognize_xgft finds one.
Fabric bare_copy(const Fabric& f) {
  Fabric g;
  for (const Node& n : f.nodes()) {
    g.add_node(n.kind, n.name, n.ports.size(), n.guid);
  }
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    for (const Port& p : f.nodes()[i].ports) {
      if (p.connected() && p.peer.value() > i) {
        g.connect(NodeIdx(i), p.num, p.peer, p.peer_port, p.gbps);
      }
    }
  }
  return g;
}

void lft_table(bool quick) {
  const std::vector<Topo> topos =
      quick ? std::vector<Topo>{kFull1024} : std::vector<Topo>{kFull1024, kTapered1536, kCurie};
  const int reps = quick ? 3 : 7;
  std::printf(
      "\n== sdn engine LFTs: per destination vs all pairs, DmodK (median of %d; all-pairs "
      "columns: 1 run beyond 2000 hosts) ==\n",
      reps);
  std::printf(
      "(engine = recognise the XGFT + lfts_per_destination, what compute_sdn_tables does; "
      "all-pairs = lfts_from_destination_routes;\n dmodk-pairs = DmodK's route() of "
      "every HCA pair alone, no tables)\n");
  std::printf("%-12s %5s %5s | %9s %9s %9s | %10s %11s | %8s %11s %8s\n", "topology", "hosts",
              "LIDs", "recognise", "per-dest", "engine", "all-pairs", "dmodk-pairs", "eng/all",
              "eng/dk-pair", "ns/pair");
  for (const Topo& t : topos) {
    TopologySpec ts;
    ts.xgft = t.xgft;
    const Fabric generated = build_topology(ts);
    const LidMap lids = sequential_lids(generated);
    const auto dmodk = make_algorithm("dmodk");
    std::vector<double> recognise;
    std::vector<double> per_dest;
    std::vector<double> engine;
    LftSet now;
    for (int i = 0; i < reps; ++i) {
      Fabric f = bare_copy(generated);
      const auto t0 = std::chrono::steady_clock::now();
      if (!recognize_xgft(f, nullptr)) {
        std::printf("%s: not recognised\n", t.label);
        return;
      }
      const auto t1 = std::chrono::steady_clock::now();
      now = lfts_per_destination(f, lids, *dmodk);
      recognise.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      per_dest.push_back(ms_since(t1));
      engine.push_back(ms_since(t0));
    }
    const int slow_reps = generated.hcas().size() > 2000 ? 1 : reps;
    std::vector<double> all_pairs;
    bool same = true;
    for (int i = 0; i < slow_reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const LftSet old = lfts_from_destination_routes(generated, lids, *dmodk);
      all_pairs.push_back(ms_since(t0));
      for (const NodeIdx s : generated.switches()) {
        for (std::uint32_t l = 1; l <= lids.max_lid().value(); ++l) {
          const Lid lid(static_cast<std::uint16_t>(l));
          same = same && old.table(s).out(lid) == now.table(s).out(lid);
        }
      }
    }
    // DmodK alone on every pair, in the all-pairs builder's batches (bounded memory).
    std::vector<double> pairs_ms;
    std::uint64_t pairs = 0;
    for (int i = 0; i < slow_reps; ++i) {
      std::vector<Flow> flows;
      double ms = 0;
      pairs = 0;
      const auto flush = [&]() {
        const auto t0 = std::chrono::steady_clock::now();
        const std::vector<Path> paths = dmodk->route(RouteRequest{generated, flows});
        ms += ms_since(t0);
        pairs += paths.size();
        flows.clear();
      };
      for (const NodeIdx d : generated.hcas()) {
        for (const NodeIdx s : generated.hcas()) {
          if (s == d) continue;
          Flow fl;
          fl.src = s;
          fl.dst = d;
          flows.push_back(fl);
        }
        if (flows.size() >= (std::size_t{1} << 18)) flush();
      }
      if (!flows.empty()) flush();
      pairs_ms.push_back(ms);
    }
    const double eng = median(engine);
    const double dk = median(pairs_ms);
    std::printf("%-12s %5zu %5u | %9.2f %9.2f %9.2f | %10.1f %11.1f | %8.4f %11.4f %8.1f%s\n",
                t.label, generated.hcas().size(), unsigned{lids.max_lid().value()},
                median(recognise), median(per_dest), eng, median(all_pairs), dk,
                eng / median(all_pairs), eng / dk, dk * 1e6 / static_cast<double>(pairs),
                same ? "" : "  TABLES DIFFER");
  }
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  ibsdn::quality_table(quick);
  ibsdn::speed_table(quick);
  ibsdn::memory_table(quick);
  ibsdn::compiler_table(quick);
  ibsdn::lft_table(quick);
  return 0;
}
