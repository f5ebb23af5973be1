#include "sim_backend/timing_runner.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "plugin/controller/subnet.hpp"
#include "routing/default_tables.hpp"
#include "sim_backend/app_model.hpp"
#include "sim_backend/controller_routes.hpp"
#include "sim_backend/topology_spec.hpp"

namespace ibsdn {
namespace {

constexpr double kBytesPerGbps = 1e9 / 8;

/// The application job `w` runs: its own, else its own pattern as a one-phase application, else
/// the run's application, else the run's pattern as one.
AppSpec job_application(const ScenarioRun& run, const WorkloadJob& w) {
  if (w.application) return w.application->spec;
  if (!w.own_pattern && run.application) return run.application->spec;
  AppSpec spec = app_defaults(w.pattern.name);
  spec.pattern = w.pattern;
  return spec;
}

std::unique_ptr<RouteSource> route_source(const std::string& routing, const ScenarioRun& run,
                                          const plugin::Subnet& subnet, const LftSet& lfts) {
  if (routing == "dmodk") return lft_routes(subnet.fabric, lfts);
  if (routing == "adaptive") return adaptive_routes(subnet.fabric, run.timing.adaptive);
  ReplayOptions o;
  o.routing = routing;
  o.table_capacity = static_cast<std::uint32_t>(run.table_capacity);
  o.flow_level = run.flow_level;
  o.load_guard = run.load_guard;
  o.ranks_per_node = run.ranks_per_node;
  o.mapping = run.placement;
  return controller_routes(subnet, lfts, o, run.timing.adaptive);
}

std::string link_name(const Fabric& f, const Link& l) {
  return f.node(l.from).name + ":" + std::to_string(l.from_port.value()) + "->" +
         f.node(l.to).name + ":" + std::to_string(l.to_port.value());
}

}  // namespace

std::optional<double> FlowOutcome::speedup(const FlowJob& j) const {
  if (!j.sim) return std::nullopt;
  const double own = result.jobs[*j.sim].comm_time;
  const double base = reference().jobs[*j.sim].comm_time;
  if (own == 0) return base == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  return base / own;
}

std::optional<double> FlowOutcome::slowdown(const FlowJob& j) const {
  if (!j.sim || !j.alone_total) return std::nullopt;
  const double total = result.jobs[*j.sim].total_time();
  if (*j.alone_total == 0) return total == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  return total / *j.alone_total;
}

FlowOutcome run_flow_scenario(const ScenarioRun& run, const RunHooks& hooks) {
  const auto enter = [&hooks](RunPart p) {
    if (hooks.part) hooks.part(p);
  };
  enter(RunPart::kPrepare);
  FlowOutcome out;
  out.run = run;
  RunFabric fabric = build_run_fabric(run);
  const plugin::Subnet& subnet = fabric.subnet;
  const DefaultTables& tables = fabric.tables;
  out.topology = tables.topology;
  out.lft_routing = tables.algorithm;
  for (std::uint32_t l = 0; l < subnet.fabric.num_links(); ++l) {
    const Link& link = subnet.fabric.link(LinkId(l));
    out.link_names.push_back(link_name(subnet.fabric, link));
    out.link_bandwidth.push_back(link.gbps * kBytesPerGbps);
  }

  const std::vector<WorkloadJob> workload = workload_jobs(run, out.counts);
  const auto nodes = allocate_workload(run, subnet.fabric, workload);
  std::vector<TimingJob> jobs;
  for (std::size_t i = 0; i < workload.size(); ++i) {
    if (!nodes[i]) {
      ++out.counts.not_placed;
      continue;
    }
    const WorkloadJob& w = workload[i];
    FlowJob fj;
    fj.id = w.id;
    fj.nodes = w.nodes;
    fj.ranks = w.ranks != 0 ? w.ranks : w.nodes * run.ranks_per_node;
    TimingJob t;
    t.id = w.id;
    t.start = w.start;
    t.nodes = *nodes[i];
    t.ranks_per_node = run.ranks_per_node;
    t.ranks = fj.ranks;
    t.mapping = run.placement;
    try {
      const AppSpec spec = job_application(run, w);
      fj.application = spec.to_string();
      // Seeded by the job id, as the static model seeds a job's pattern.
      t.phases = timing_phases(generate_app(spec, fj.ranks, w.id));
      fj.sim = jobs.size();
      jobs.push_back(std::move(t));
    } catch (const std::invalid_argument& e) {
      fj.status = std::string("not run: ") + e.what();
      ++out.counts.no_traffic;
    }
    out.jobs.push_back(std::move(fj));
  }
  out.counts.placed = out.jobs.size();

  const bool alone = run.timing.alone;
  if (alone && jobs.size() > kMaxAloneJobs) {
    throw std::invalid_argument("timing.alone: " + std::to_string(jobs.size()) +
                                " jobs would each run once more alone; at most " +
                                std::to_string(kMaxAloneJobs));
  }
  TimingOptions options;
  options.nic = run.timing.nic;
  // The GPU links stay gpu_link x the unscaled link bandwidth: the fabric's links are scaled.
  options.gpu_link_factor = run.timing.gpu_link / run.timing.bandwidth_multiple;
  options.link_latency = run.timing.link_latency;
  options.sample_interval = run.timing.sample_interval;

  const bool baseline = run.timing.baseline != run.routing;
  const std::size_t total = 1 + (baseline ? 1 : 0) + (alone ? jobs.size() : 0);
  std::size_t done = 0;
  const auto step = [&] {
    ++done;
    if (hooks.progress) hooks.progress(done, total);
  };
  enter(RunPart::kReplay);
  {
    const auto routes = route_source(run.routing, run, subnet, tables.lfts);
    out.result = simulate_timing(subnet.fabric, jobs, *routes, options);
  }
  step();
  if (baseline) {
    enter(RunPart::kBaseline);
    const auto routes = route_source(run.timing.baseline, run, subnet, tables.lfts);
    TimingOptions base = options;
    base.sample_interval = 0;
    out.baseline = simulate_timing(subnet.fabric, jobs, *routes, base);
    step();
  }
  if (alone) {
    TimingOptions solo = options;
    solo.sample_interval = 0;
    for (FlowJob& fj : out.jobs) {
      if (!fj.sim) continue;
      const auto routes = route_source(run.routing, run, subnet, tables.lfts);
      const TimingResult r = simulate_timing(
          subnet.fabric, std::span<const TimingJob>(&jobs[*fj.sim], 1), *routes, solo);
      fj.alone_total = r.jobs[0].total_time();
      step();
    }
  }
  enter(RunPart::kSummary);
  return out;
}

}  // namespace ibsdn
