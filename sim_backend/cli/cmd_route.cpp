// ibsdn-sim route: route a job's pattern on a topology and report L_D against its lower bound.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/path_text.hpp"
#include "routing/route_quality.hpp"
#include "routing/splittable_bound.hpp"
#include "sim_backend/cli/commands.hpp"
#include "sim_backend/cli/route_quality_text.hpp"
#include "sim_backend/workload/job_builder.hpp"

namespace ibsdn {
namespace {

struct RouteOptions {
  TopologySpec topo;
  JobSpec job;
  std::string algorithm = "sdn-optimal";
  std::string paths_out;
  bool json = false;
  bool weighted = false;
  double lp_seconds = 2;  // 0: no LP bound
};

/// The splittable (LP) bound over every link, within `seconds`; none when seconds is 0.
std::optional<LpBound> lp_bound(const Fabric& f, const std::vector<Flow>& flows, double seconds) {
  if (seconds <= 0) return std::nullopt;
  LpLimits lim;
  lim.deadline =
      Deadline(Deadline::Clock::now() + std::chrono::duration_cast<Deadline::Clock::duration>(
                                            std::chrono::duration<double>(seconds)));
  return splittable_lp_bound(f, flows, nullptr, lim);
}

/// The best lower bound on the maximum utilisation known: the LP's when it was solved (never
/// below the cut bound, which is a relaxation of it), else the cut bound.
double best_bound(const RouteQuality& q, const std::optional<LpBound>& lp) {
  return lp && lp->computed ? std::max(lp->seconds, q.volume_bound.seconds)
                            : q.volume_bound.seconds;
}

/// One flow per line: SRC DST SWITCH:PORT ... (each switch on the path and its output port).
void write_paths(std::ostream& os, const Fabric& f, const std::vector<Flow>& flows,
                 const std::vector<Path>& paths) {
  for (std::size_t i = 0; i < flows.size(); ++i) {
    os << path_line(f, flows[i].src, flows[i].dst, paths[i]) << '\n';
  }
}

void run(const RouteOptions& o) {
  const Fabric f = build_topology(o.topo);
  const BuiltJob job = build_job(f, o.job);
  const auto alg = make_algorithm(o.algorithm);
  if (const std::string why = alg->unsupported_reason(f); !why.empty()) {
    throw std::invalid_argument(o.algorithm + " cannot route on " + f.kind_label + ": " + why);
  }
  RouteRequest req{f, job.flows};
  req.weighted = o.weighted;
  req.seed = o.job.seed;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Path> paths = alg->route(req);
  const auto t1 = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const RouteQuality q = evaluate(f, job.flows, paths);
  const std::optional<LpBound> lp = lp_bound(f, job.flows, o.lp_seconds);
  const double bound = best_bound(q, lp);
  const double util_ratio = bound > 0 ? q.max_seconds / bound : 1.0;

  if (!o.paths_out.empty()) {
    if (o.paths_out == "-") {
      write_paths(std::cout, f, job.flows, paths);
    } else {
      std::ofstream os(o.paths_out);
      if (!os) throw std::invalid_argument("cannot write --paths file '" + o.paths_out + "'");
      write_paths(os, f, job.flows, paths);
      if (!os.flush()) throw std::invalid_argument("error writing '" + o.paths_out + "'");
    }
  }
  if (o.json) {
    nlohmann::json j = {
        {"topology", f.kind_label},
        {"compute_nodes", f.hcas().size()},
        {"pattern", o.job.pattern},
        {"seed", o.job.seed},
        {"job_nodes", job.nodes.size()},
        {"ranks", job.ranks},
        {"ranks_per_node", job.ranks_per_node},
        {"mapping", o.job.mapping},
        {"rank_flows", job.rank_flows},
        {"flows", job.flows.size()},
        {"algorithm", o.algorithm},
        {"max_link_load", q.max_link_load},
        {"node_load", q.bound.node_load},
        {"bound", q.bound.value},
        {"bound_binding", q.bound.binding},
        {"ratio", q.ratio()},
        {"max_weight", q.max_weight},
        {"max_link_seconds", q.max_seconds},
        {"volume_bound_seconds", q.volume_bound.seconds},
        {"volume_bound_binding", q.volume_bound.binding},
        {"volume_ratio", util_ratio},
        {"compute_ms", ms},
    };
    if (lp) {
      j["lp_bound"] = {{"computed", lp->computed},
                       {"seconds", lp->seconds},
                       {"why_not", lp->why_not},
                       {"variables", lp->variables},
                       {"solved_columns", lp->solved_columns}};
    }
    if (const auto& skipped = job.matrix_skipped) {
      j["matrix"] = {{"pairs", job.rank_flows},
                     {"self_pairs", skipped->self_pairs},
                     {"intra_rank_bytes", skipped->intra_rank_bytes},
                     {"zero_pairs", skipped->zero_pairs}};
    }
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::printf("topology    %s: %zu compute nodes, %zu switches\n", f.kind_label.c_str(),
              f.hcas().size(), f.switches().size());
  std::printf("job         %s, seed %llu: %zu nodes, %u ranks (%u per node, %s mapping)\n",
              o.job.pattern.c_str(), static_cast<unsigned long long>(o.job.seed), job.nodes.size(),
              job.ranks, job.ranks_per_node, o.job.mapping.c_str());
  if (job.matrix_skipped) {
    std::printf("matrix      %s\n", matrix_summary(job.rank_flows, *job.matrix_skipped).c_str());
  }
  std::printf("flows       %zu fabric flows from %zu rank pairs\n", job.flows.size(),
              job.rank_flows);
  std::printf("algorithm   %s\n", o.algorithm.c_str());
  print_link_load(q);
  std::printf("max weight  %.3f\n", q.max_weight);
  // Utilisation as link time: the busiest link needs this long for its bytes.
  std::printf("max util    %.4g ms (bound %.4g ms: %s)\n", q.max_seconds * 1e3,
              q.volume_bound.seconds * 1e3, q.volume_bound.binding.c_str());
  if (lp && lp->computed) {
    std::printf("LP bound    %.4g ms (fractional multicommodity optimum, %zu of %zu columns)\n",
                lp->seconds * 1e3, lp->solved_columns, lp->variables);
  } else if (lp) {
    const bool late = lp->why_not.find("deadline") != std::string::npos;
    std::printf("LP bound    not computed: %s%s\n", lp->why_not.c_str(),
                late ? " (--lp-seconds gives it longer)" : "");
  }
  std::printf("util/bound  %.3f\n", util_ratio);
  std::printf("time        %.2f ms\n", ms);
}

}  // namespace

void add_job_options(CLI::App& cmd, JobSpec& job) {
  cmd.add_option("--pattern", job.pattern,
                 "pattern, e.g. random-perm, shift:k=3, 3dnn, matrix:file=F")
      ->default_val("random-perm");
  cmd.add_option("--seed", job.seed, "seed for random patterns and node selection")->default_val(1);
  cmd.add_option("--nodes", job.nodes, "compute nodes of the job (0 = all)")->default_val(0);
  cmd.add_option("--node-selection", job.selection,
                 "linear: --nodes consecutive nodes from --first-node; random: --nodes distinct "
                 "nodes drawn without replacement (seeded by --seed), as a scheduler allocates "
                 "(PFSim's RandomNodeSelector, seed 003)")
      ->default_val("linear")
      ->check(CLI::IsMember({"linear", "random"}));
  cmd.add_option("--first-node", job.first_node, "first node for linear selection")->default_val(0);
  cmd.add_option("--ranks-per-node", job.ranks_per_node, "ranks per node (0 = GPUs per node)")
      ->default_val(0);
  cmd.add_option("--mapping", job.mapping, "rank mapping: block | cyclic")
      ->default_val("block")
      ->check(CLI::IsMember({"block", "cyclic"}));
}

void add_route_command(CLI::App& app) {
  auto o = std::make_shared<RouteOptions>();
  CLI::App* cmd = app.add_subcommand("route", "route a job's pattern and report L_D vs its bound");
  add_topology_options(*cmd, o->topo);
  add_job_options(*cmd, o->job);
  cmd->add_option("--alg", o->algorithm, "routing algorithm (ibsdn-sim list)")
      ->default_val("sdn-optimal");
  cmd->add_option("--paths", o->paths_out,
                  "write one flow per line: SRC DST SWITCH:PORT ... ('-' = stdout)");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  cmd->add_flag("--weighted", o->weighted, "greedy family: balance seed 002 weights");
  cmd->add_option("--lp-seconds", o->lp_seconds,
                  "time limit of the splittable LP bound (GLPK) beside the cut bound; "
                  "0 = cut bound only")
      ->default_val(2)
      ->check(CLI::Range(0.0, 3600.0));
  cmd->callback([o]() { run(*o); });
}

}  // namespace ibsdn
