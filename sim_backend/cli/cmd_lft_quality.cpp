// ibsdn-sim lft-quality: how good are the LFTs OpenSM computed? Reads its dumps, traces a job's
// flows through the tables and reports L_D against the lower bound, over one or many seeds.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/lft.hpp"
#include "routing/route_quality.hpp"
#include "sim_backend/cli/commands.hpp"
#include "sim_backend/cli/route_quality_text.hpp"
#include "sim_backend/io/text_file.hpp"
#include "sim_backend/workload/job_builder.hpp"

namespace ibsdn {
namespace {

struct LftQualityOptions {
  TopologySpec topo;
  JobSpec job;
  std::string lfts_dump;
  std::string subnet_lst;
  std::uint32_t seeds = 1;
  bool check_all_pairs = false;
  std::string compare_alg;
  bool json = false;
};

struct SeedResult {
  std::uint64_t seed = 0;
  std::size_t flows = 0;
  RouteQuality quality;
};

struct AllPairs {
  std::size_t checked = 0;
  std::size_t failed = 0;
  std::vector<std::string> first_failures;
  std::size_t same_as_alg = 0;  // pairs whose LFT route is the one --compare-alg chooses
};

constexpr std::size_t kFailuresShown = 10;

/// Traces every ordered HCA pair; with `alg`, also counts the routes it would choose alike.
AllPairs check_all_pairs(const Fabric& f, const LftSet& lfts, const RoutingAlgorithm* alg) {
  std::vector<Flow> flows;
  flows.reserve(f.hcas().size() * f.hcas().size());
  for (const NodeIdx s : f.hcas()) {
    for (const NodeIdx d : f.hcas()) {
      if (s == d) continue;
      Flow fl;
      fl.src = s;
      fl.dst = d;
      flows.push_back(fl);
    }
  }
  std::vector<Path> theirs;
  if (alg) theirs = alg->route(RouteRequest{f, flows});
  AllPairs r;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    ++r.checked;
    const Trace t = trace(f, lfts, flows[i].src, flows[i].dst);
    if (t.ok()) {
      if (alg && t.path == theirs[i]) ++r.same_as_alg;
      continue;
    }
    ++r.failed;
    if (r.first_failures.size() < kFailuresShown) {
      r.first_failures.push_back(f.node(flows[i].src).name + " -> " + f.node(flows[i].dst).name +
                                 ": " + t.error);
    }
  }
  return r;
}

SeedResult measure(const Fabric& f, const LftSet& lfts, JobSpec job, std::uint64_t seed) {
  job.seed = seed;
  const BuiltJob built = build_job(f, job);
  std::vector<Path> paths;
  paths.reserve(built.flows.size());
  for (const Flow& fl : built.flows) {
    Trace t = trace(f, lfts, fl.src, fl.dst);
    if (!t.ok()) {
      throw std::runtime_error("seed " + std::to_string(seed) + ": the LFTs do not deliver " +
                               f.node(fl.src).name + " -> " + f.node(fl.dst).name + ": " + t.error);
    }
    paths.push_back(std::move(t.path));
  }
  return SeedResult{seed, built.flows.size(), evaluate(f, built.flows, paths)};
}

void run(const LftQualityOptions& o) {
  const Fabric f = build_topology(o.topo);
  const std::string dump = read_text_file(o.lfts_dump, "--lfts-dump");
  const std::string lst = read_text_file(o.subnet_lst, "--subnet-lst");
  const LftSet lfts = lfts_from_opensm_dump(f, dump, lst, o.lfts_dump, o.subnet_lst);
  std::size_t tables = 0;
  for (const NodeIdx s : f.switches()) tables += lfts.has_table(s) ? 1 : 0;

  std::unique_ptr<RoutingAlgorithm> alg;
  if (!o.compare_alg.empty()) {
    alg = make_algorithm(o.compare_alg);
    if (const std::string why = alg->unsupported_reason(f); !why.empty()) {
      throw std::invalid_argument(o.compare_alg + " cannot route on " + f.kind_label + ": " + why);
    }
  }
  AllPairs pairs;
  if (o.check_all_pairs || alg) {
    pairs = check_all_pairs(f, lfts, alg.get());
    if (pairs.failed != 0) {
      std::string msg = std::to_string(pairs.failed) + " of " + std::to_string(pairs.checked) +
                        " HCA pairs are not delivered by the LFTs; first ones:";
      for (const std::string& s : pairs.first_failures) msg += "\n  " + s;
      throw std::runtime_error(msg);
    }
  }
  // Loads are meaningful only when every flow is delivered: measure() throws otherwise.
  std::vector<SeedResult> results;
  for (std::uint32_t i = 0; i < o.seeds; ++i)
    results.push_back(measure(f, lfts, o.job, o.job.seed + i));

  double sum = 0.0;
  double lo = results.front().quality.ratio();
  double hi = lo;
  double nl_sum = 0.0;
  double nl_hi = 0.0;
  for (const SeedResult& r : results) {
    const double ratio = r.quality.ratio();
    sum += ratio;
    lo = std::min(lo, ratio);
    hi = std::max(hi, ratio);
    const double nl = r.quality.bound.node_load
                          ? static_cast<double>(r.quality.max_link_load) / r.quality.bound.node_load
                          : 0.0;
    nl_sum += nl;
    nl_hi = std::max(nl_hi, nl);
  }
  const double n = static_cast<double>(results.size());

  if (o.json) {
    nlohmann::json seeds = nlohmann::json::array();
    for (const SeedResult& r : results) {
      seeds.push_back({{"seed", r.seed},
                       {"flows", r.flows},
                       {"max_link_load", r.quality.max_link_load},
                       {"node_load", r.quality.bound.node_load},
                       {"bound", r.quality.bound.value},
                       {"ratio", r.quality.ratio()}});
    }
    nlohmann::json j = {
        {"topology", f.kind_label},
        {"compute_nodes", f.hcas().size()},
        {"switches", f.switches().size()},
        {"switch_tables", tables},
        {"lfts_dump", o.lfts_dump},
        {"subnet_lst", o.subnet_lst},
        {"pattern", o.job.pattern},
        {"runs", seeds},
        {"ratio_min", lo},
        {"ratio_mean", sum / n},
        {"ratio_max", hi},
        {"nl_ratio_mean", nl_sum / n},
        {"nl_ratio_max", nl_hi},
    };
    if (pairs.checked != 0) {
      j["all_pairs"] = {{"checked", pairs.checked},
                        {"failed", pairs.failed},
                        {"first_failures", pairs.first_failures}};
      if (alg) j["all_pairs"]["same_as_" + o.compare_alg] = pairs.same_as_alg;
    }
    std::cout << j.dump(2) << '\n';
  } else {
    std::printf("topology    %s: %zu compute nodes, %zu switches\n", f.kind_label.c_str(),
                f.hcas().size(), f.switches().size());
    std::printf("lfts        %s: %zu switch tables\n", o.lfts_dump.c_str(), tables);
    if (pairs.checked != 0) {
      std::printf("all pairs   %zu traced, all delivered\n", pairs.checked);
    }
    if (alg) {
      std::printf("same as %s %zu of %zu pair routes\n", o.compare_alg.c_str(), pairs.same_as_alg,
                  pairs.checked);
    }
    if (results.size() == 1) {
      const RouteQuality& q = results.front().quality;
      std::printf("job         %s, seed %llu: %zu fabric flows\n", o.job.pattern.c_str(),
                  static_cast<unsigned long long>(results.front().seed), results.front().flows);
      print_link_load(q);
    } else {
      std::printf("job         %s, seeds %llu..%llu\n", o.job.pattern.c_str(),
                  static_cast<unsigned long long>(results.front().seed),
                  static_cast<unsigned long long>(results.back().seed));
      std::printf("L_D/bound   min %.2f  mean %.2f  max %.2f\n", lo, sum / n, hi);
      std::printf("L_D/NL_D    mean %.2f  max %.2f\n", nl_sum / n, nl_hi);
    }
  }
}

}  // namespace

void add_lft_quality_command(CLI::App& app) {
  auto o = std::make_shared<LftQualityOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lft-quality", "trace a job through OpenSM's dumped LFTs and report L_D vs its bound");
  add_topology_options(*cmd, o->topo);
  add_job_options(*cmd, o->job);
  cmd->add_option("--lfts-dump", o->lfts_dump, "OpenSM's opensm-lfts.dump")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--subnet-lst", o->subnet_lst, "OpenSM's opensm-subnet.lst")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--seeds", o->seeds, "measure seeds --seed .. --seed + N - 1")
      ->default_val(1)
      ->check(CLI::Range(1u, 100000u));
  cmd->add_flag("--check-all-pairs", o->check_all_pairs,
                "also trace every ordered HCA pair; fail if one is not delivered");
  cmd->add_option("--compare-alg", o->compare_alg,
                  "count the HCA pairs whose LFT route is the one this algorithm chooses");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->callback([o]() { run(*o); });
}

}  // namespace ibsdn
