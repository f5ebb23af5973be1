#include "sim_backend/run/timing_runner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "routing/default_tables.hpp"
#include "routing/subnet.hpp"
#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/run/static_report.hpp"
#include "sim_backend/scenario/topology_spec.hpp"
#include "sim_backend/timing/controller_routes.hpp"

namespace ibsdn {
namespace {

constexpr double kBytesPerGbps = 1e9 / 8;
// Mixed into the run's seed for the background's draws ("backgrnd"), so that they differ from
// the jobs' patterns of the same seed.
constexpr std::uint64_t kBackgroundSeed = 0x6261636b67726e64ULL;

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
                                          const Subnet& subnet, const LftSet& lfts) {
  if (routing == "dmodk") return lft_routes(subnet.fabric, lfts);
  if (routing == "adaptive") return adaptive_routes(subnet.fabric, run.timing.adaptive);
  ReplayOptions o;
  o.routing = routing;
  o.table_capacity = static_cast<std::uint32_t>(run.table_capacity);
  o.flow_level = run.flow_level;
  o.load_guard = run.load_guard;
  o.install_backend = run.install_backend;
  o.ranks_per_node = run.ranks_per_node;
  o.mapping = run.placement;
  return controller_routes(subnet, lfts, o, run.timing.adaptive,
                           static_cast<double>(run.timing.elephant_bytes));
}

/// The flow engine's classes: the scenario's, or with timing.qos false one plain class.
std::vector<TrafficClass> engine_classes(const TimingSettings& t) {
  if (!t.qos) return {TrafficClass{}};
  std::vector<TrafficClass> out;
  for (const ScenarioClass& c : t.classes) out.push_back({c.priority, c.cap, c.borrow});
  return out;
}

std::uint8_t class_of(const TimingSettings& t, std::size_t index) {
  return t.qos ? static_cast<std::uint8_t>(index) : 0;
}

/// timing.background as a job after the workload's (BackgroundTraffic): allocated after the
/// jobs that start at 0, holding its nodes to the end.
WorkloadJob background_job(const std::vector<WorkloadJob>& workload, const BackgroundSettings& b) {
  WorkloadJob w;
  for (const WorkloadJob& j : workload) w.id = std::max(w.id, j.id);
  ++w.id;
  w.nodes = b.nodes;
  w.start = 0;
  w.end = std::numeric_limits<double>::max();
  return w;
}

std::string background_text(const BackgroundSettings& b) {
  std::string text =
      "background:bytes=" + std::to_string(b.bytes) + ",load=" + format_number(b.load);
  if (b.duration > 0) text += ",duration=" + duration_to_string(b.duration);
  return text;
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
  const Subnet& subnet = fabric.subnet;
  const DefaultTables& tables = fabric.tables;
  out.topology = tables.topology;
  out.lft_routing = tables.algorithm;
  for (std::uint32_t l = 0; l < subnet.fabric.num_links(); ++l) {
    const Link& link = subnet.fabric.link(LinkId(l));
    out.link_names.push_back(link_name(subnet.fabric, link));
    out.link_bandwidth.push_back(link.gbps * kBytesPerGbps);
  }

  std::vector<WorkloadJob> workload = workload_jobs(run, out.counts);
  const TimingSettings& ts = run.timing;
  const std::size_t measured = workload.size();
  if (ts.background) workload.push_back(background_job(workload, *ts.background));
  const auto nodes = allocate_workload(run, subnet.fabric, workload);
  std::vector<TimingJob> jobs;
  for (std::size_t i = 0; i < workload.size(); ++i) {
    if (!nodes[i]) {
      if (i < measured) ++out.counts.not_placed;
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
    if (i >= measured) {
      const BackgroundSettings& b = *ts.background;
      fj.background = true;
      fj.ranks = w.nodes;
      fj.application = background_text(b);
      fj.traffic_class = ts.classes[b.traffic_class].name;
      t.ranks_per_node = 1;
      t.traffic_class = class_of(ts, b.traffic_class);
      t.background = BackgroundTraffic{.bytes = static_cast<double>(b.bytes),
                                       .load = b.load,
                                       .duration = b.duration,
                                       .seed = run.seed ^ kBackgroundSeed};
      fj.sim = jobs.size();
      jobs.push_back(std::move(t));
      out.jobs.push_back(std::move(fj));
      continue;
    }
    if (!w.traffic_class.empty()) fj.traffic_class = w.traffic_class;
    for (std::size_t c = 0; c < ts.classes.size(); ++c) {
      if (ts.classes[c].name == fj.traffic_class) t.traffic_class = class_of(ts, c);
    }
    if (ts.collectives) t.collective_class = class_of(ts, *ts.collectives);
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
  out.counts.placed = out.jobs.size() - (ts.background && nodes.back() ? 1 : 0);

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
  options.flow.classes = engine_classes(run.timing);

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
      if (!fj.sim || fj.background) continue;
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
