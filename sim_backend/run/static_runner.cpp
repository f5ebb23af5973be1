#include "sim_backend/run/static_runner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

#include "plugin/controller/load_guard.hpp"
#include "routing/default_tables.hpp"
#include "routing/lft.hpp"
#include "routing/patterns/traffic_matrix.hpp"
#include "sim_backend/scenario/topology_spec.hpp"
#include "sim_backend/workload/node_allocation.hpp"
#include "sim_backend/workload/replay_jobs.hpp"
#include "sim_backend/workload/swf.hpp"
#include "sim_backend/workload/swf_synthetic.hpp"

namespace ibsdn {
namespace {

/// Holds the hosts a scenario keeps out of use (beyond `topology.hosts`).
const JobId kReservedHosts(std::numeric_limits<std::uint64_t>::max());

std::vector<WorkloadJob> from_trace(const ScenarioRun& run, const SwfTrace& trace,
                                    std::size_t system_nodes, std::size_t cpus_per_node,
                                    std::optional<std::uint64_t> first, WorkloadCounts& counts) {
  ReplayFilter filter;
  filter.system_nodes = system_nodes;
  filter.cpus_per_node = cpus_per_node;
  filter.first = first ? static_cast<std::size_t>(*first) : 0;
  const ReplaySelection sel = select_replay_jobs(trace, filter);
  counts.read = sel.counts.read;
  counts.selected = sel.jobs.size();
  std::vector<WorkloadJob> out;
  out.reserve(sel.jobs.size());
  for (std::size_t i = 0; i < sel.jobs.size(); ++i) {
    const TraceJob& t = sel.jobs[i];
    WorkloadJob j;
    j.id = t.id.value();
    j.nodes = static_cast<std::uint32_t>(t.nodes);
    j.start = t.start_s;
    j.end = t.end_s;
    j.pattern = job_pattern(run.pattern, run.seed, i);
    out.push_back(std::move(j));
  }
  return out;
}

/// Events of the replay's order (static_replay.hpp): at one time the ends of jobs that ran, then
/// the starts by job id, then the ends of jobs that start and end then.
struct AllocationEvent {
  double time = 0;
  int kind = 0;  // 0 end, 1 start, 2 instant end
  std::size_t job = 0;
};

std::vector<AllocationEvent> allocation_events(const std::vector<WorkloadJob>& jobs) {
  std::vector<AllocationEvent> ev;
  ev.reserve(jobs.size() * 2);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ev.push_back({jobs[i].start, 1, i});
    ev.push_back({jobs[i].end, jobs[i].end == jobs[i].start ? 2 : 0, i});
  }
  std::sort(ev.begin(), ev.end(), [&](const AllocationEvent& a, const AllocationEvent& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return jobs[a.job].id < jobs[b.job].id;
  });
  return ev;
}

bool cabled(const Fabric& f, NodeIdx h) {
  const auto& ports = f.node(h).ports;
  return std::any_of(ports.begin(), ports.end(), [](const Port& p) { return p.connected(); });
}

}  // namespace

std::vector<std::optional<std::vector<NodeIdx>>> allocate_workload(
    const ScenarioRun& run, const Fabric& f, const std::vector<WorkloadJob>& jobs) {
  NodeAllocationOptions opts;
  opts.seed = run.seed;
  const std::unique_ptr<NodeAllocator> alloc = make_node_allocator(run.allocation, f, opts);
  std::vector<NodeIdx> reserved;
  std::size_t usable = 0;
  for (const NodeIdx h : f.hcas()) {
    if (!cabled(f, h)) continue;
    if (usable < run.topology.hosts) {
      ++usable;
    } else {
      reserved.push_back(h);
    }
  }
  if (!reserved.empty()) alloc->hold(kReservedHosts, reserved);
  std::vector<std::optional<std::vector<NodeIdx>>> out(jobs.size());
  for (const AllocationEvent& e : allocation_events(jobs)) {
    const WorkloadJob& j = jobs[e.job];
    if (e.kind == 1) {
      if (j.id == kReservedHosts.value()) {
        throw std::invalid_argument("job " + std::to_string(j.id) + ": the id is reserved");
      }
      out[e.job] = alloc->allocate(JobId(j.id), j.nodes);
    } else if (out[e.job]) {
      alloc->release(JobId(j.id));
    }
  }
  return out;
}

namespace {

Traffic job_traffic(const PatternSpec& p, std::map<std::string, Traffic>& matrices) {
  if (p.name != "matrix") return p;
  auto it = matrices.find(p.file);
  if (it == matrices.end()) {
    it = matrices.emplace(p.file, Traffic{read_traffic_matrix(p.file, std::nullopt)}).first;
  }
  return it->second;
}

double average_pjml(const ReplayResult& r) {
  if (r.jobs.empty()) return 0;
  double sum = 0;
  for (const ReplayedJob& j : r.jobs) sum += j.pjml;
  return sum / static_cast<double>(r.jobs.size());
}

double max_pjml(const ReplayResult& r) {
  double m = 0;
  for (const ReplayedJob& j : r.jobs) m = std::max(m, j.pjml);
  return m;
}

LinkStats switch_link_stats(const Fabric& f, const ReplayResult& r) {
  std::vector<double> mean;
  const double span = r.span();
  for (std::uint32_t l = 0; l < f.num_links(); ++l) {
    const Link& link = f.link(LinkId(l));
    if (!f.node(link.from).is_switch() || !f.node(link.to).is_switch()) continue;
    mean.push_back(span > 0 ? r.link_load_seconds[l] / span : 0.0);
  }
  return link_stats(std::move(mean));
}

std::vector<SwmlExcess> excess(const ReplayResult& r, const ReplayResult& dmodk) {
  if (r.swml.size() != dmodk.swml.size()) {
    throw std::logic_error("the baseline has " + std::to_string(dmodk.swml.size()) +
                           " SWML steps, the routing " + std::to_string(r.swml.size()));
  }
  // In the load guard's measures (plugin/controller/load_guard.hpp): weights for the jobs whose
  // flows weigh alike, the busiest link's time for the bytes of the others.
  std::vector<SwmlExcess> out;
  for (std::size_t i = 0; i < r.swml.size(); ++i) {
    const double a = r.swml[i].guard_swml;
    const double b = dmodk.swml[i].guard_swml;
    const double sa = r.swml[i].guard_seconds;
    const double sb = dmodk.swml[i].guard_seconds;
    if (a > b + 1e-9 * std::max(1.0, b)) {
      out.push_back({r.swml[i].time, a, b, std::string(to_string(plugin::GuardMeasure::kFlows))});
    } else if (sa > sb * (1 + 1e-9)) {
      out.push_back({r.swml[i].time, sa, sb, std::string(to_string(plugin::GuardMeasure::kBytes))});
    }
  }
  return out;
}

}  // namespace

double delta_percent(double dmodk, double sdn) {
  if (sdn == 0) return dmodk == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return (dmodk - sdn) / sdn * 100.0;
}

LinkStats link_stats(std::vector<double> v) {
  LinkStats s;
  s.links = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  s.min = v.front();
  s.max = v.back();
  s.q1 = quantile(0.25);
  s.median = quantile(0.5);
  s.q3 = quantile(0.75);
  double sum = 0;
  for (const double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

std::vector<WorkloadJob> workload_jobs(const ScenarioRun& run, WorkloadCounts& counts) {
  if (const auto* t = std::get_if<TraceWorkload>(&run.workload)) {
    const SwfTrace trace = read_swf_file(t->file.path);
    return from_trace(run, trace, t->system_nodes, t->cpus_per_node, t->first, counts);
  }
  if (const auto* s = std::get_if<SyntheticWorkload>(&run.workload)) {
    SyntheticTraceSpec spec = synthetic_preset(s->preset);
    if (s->utilisation) spec.utilisation = *s->utilisation;
    const SwfTrace trace =
        generate_synthetic_trace(spec, static_cast<std::size_t>(s->jobs), run.seed);
    return from_trace(run, trace, run.topology.hosts, spec.cpus_per_node, std::nullopt, counts);
  }
  const auto& listed = *std::get<ExplicitJobs>(run.workload).jobs;
  std::vector<WorkloadJob> out;
  out.reserve(listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const ScenarioJob& s = listed[i];
    WorkloadJob j;
    j.id = i + 1;
    j.ranks = s.ranks;
    j.nodes = s.ranks == 0 ? s.nodes : (s.ranks + run.ranks_per_node - 1) / run.ranks_per_node;
    j.start = s.start;
    j.end = s.end;
    j.pattern = job_pattern(s.pattern ? *s.pattern : run.pattern, run.seed, i);
    j.own_pattern = s.pattern.has_value();
    j.application = s.application;
    j.traffic_class = s.traffic_class;
    out.push_back(std::move(j));
  }
  counts.read = counts.selected = out.size();
  return out;
}

RunFabric build_run_fabric(const ScenarioRun& run) {
  RunFabric f;
  f.subnet.fabric = build_topology(topology_spec(run));
  f.subnet.lids = sequential_lids(f.subnet.fabric);
  f.tables = default_tables(f.subnet.fabric, f.subnet.lids);
  return f;
}

RunOutcome run_scenario(const ScenarioRun& run, const RunHooks& hooks) {
  const auto enter = [&hooks](RunPart p) {
    if (hooks.part) hooks.part(p);
  };
  enter(RunPart::kPrepare);
  RunOutcome out;
  out.run = run;
  RunFabric fabric = build_run_fabric(run);
  const Subnet& subnet = fabric.subnet;
  const DefaultTables& tables = fabric.tables;
  out.topology = tables.topology;
  out.lft_routing = tables.algorithm;

  const std::vector<WorkloadJob> jobs = workload_jobs(run, out.counts);
  const auto nodes = allocate_workload(run, subnet.fabric, jobs);
  std::map<std::string, Traffic> matrices;
  std::vector<ReplayJob> replay_jobs;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!nodes[i]) {
      ++out.counts.not_placed;
      continue;
    }
    ReplayJob r;
    r.id = jobs[i].id;
    r.start = jobs[i].start;
    r.end = jobs[i].end;
    r.nodes = *nodes[i];
    r.traffic = job_traffic(jobs[i].pattern, matrices);
    replay_jobs.push_back(std::move(r));
    out.job_patterns.push_back(jobs[i].pattern.to_string());
  }
  out.counts.placed = replay_jobs.size();

  const bool baseline = run.routing != "dmodk";
  const std::size_t events = replay_jobs.size() * 2;
  const std::size_t total = baseline ? 2 * events : events;
  ReplayConfig cfg;
  cfg.routing = run.routing;
  cfg.table_capacity = static_cast<std::uint32_t>(run.table_capacity);
  cfg.flow_level = run.flow_level;
  cfg.load_guard = run.load_guard;
  cfg.install_backend = run.install_backend;
  cfg.ranks_per_node = run.ranks_per_node;
  cfg.mapping = run.placement;
  if (hooks.progress)
    cfg.progress = [&](std::size_t done, std::size_t) { hooks.progress(done, total); };
  enter(RunPart::kReplay);
  out.replay = replay_static(subnet, tables.lfts, replay_jobs, cfg);
  if (baseline) {
    enter(RunPart::kBaseline);
    ReplayConfig base = cfg;
    base.routing = "dmodk";
    if (hooks.progress) {
      base.progress = [&](std::size_t done, std::size_t) { hooks.progress(events + done, total); };
    }
    out.dmodk = replay_static(subnet, tables.lfts, replay_jobs, base);
  }
  enter(RunPart::kSummary);
  const ReplayResult& ref = out.dmodk ? *out.dmodk : out.replay;
  for (const ReplayedJob& j : out.replay.jobs) {
    if (j.status.starts_with("no traffic")) ++out.counts.no_traffic;
  }
  out.avg_pjml = average_pjml(out.replay);
  out.max_pjml = max_pjml(out.replay);
  out.dmodk_avg_pjml = average_pjml(ref);
  out.dmodk_max_pjml = max_pjml(ref);
  out.links = switch_link_stats(subnet.fabric, out.replay);
  out.dmodk_links = switch_link_stats(subnet.fabric, ref);
  if (out.dmodk) out.above_dmodk = excess(out.replay, *out.dmodk);
  return out;
}

}  // namespace ibsdn
