#include "sim_backend/static_replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>

#include "plugin/controller/config.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_flows.hpp"
#include "routing/algorithm.hpp"
#include "routing/default_tables.hpp"
#include "routing/link_load.hpp"
#include "sim_backend/switchboard.hpp"

namespace ibsdn {
namespace {

using plugin::JobController;

constexpr std::uint64_t kSwitchKey = 0x5eed;

std::string job_text(std::uint64_t id) {
  return "job " + std::to_string(id);
}

void check_jobs(const Fabric& f, std::span<const ReplayJob> jobs, const std::string& routing) {
  std::set<std::uint64_t> ids;
  std::vector<bool> seen(f.num_nodes(), false);
  for (const ReplayJob& j : jobs) {
    if (!std::isfinite(j.start) || !std::isfinite(j.end) || j.end < j.start) {
      throw std::invalid_argument(job_text(j.id) + ": ends (" + std::to_string(j.end) +
                                  ") before it starts (" + std::to_string(j.start) + ")");
    }
    if (j.id == 0) throw std::invalid_argument("job 0: job ids start at 1");
    if (!j.algorithm.empty() && routing == "dmodk") {
      throw std::invalid_argument(job_text(j.id) + ": algorithm '" + j.algorithm +
                                  "' needs the controller, but the routing is dmodk");
    }
    if (!j.algorithm.empty() && !is_algorithm(j.algorithm)) {
      throw std::invalid_argument(job_text(j.id) + ": algorithm '" + j.algorithm +
                                  "': no such algorithm");
    }
    if (!ids.insert(j.id).second) {
      throw std::invalid_argument(job_text(j.id) + ": the id is given twice");
    }
    for (const NodeIdx n : j.nodes) {
      if (n.value() >= f.num_nodes() || !f.node(n).is_hca()) {
        throw std::invalid_argument(job_text(j.id) + ": node " + std::to_string(n.value()) +
                                    " is not an HCA of the fabric");
      }
      if (seen[n.value()]) {
        throw std::invalid_argument(job_text(j.id) + ": node " + f.node(n).name +
                                    " is given twice");
      }
      seen[n.value()] = true;
    }
    for (const NodeIdx n : j.nodes) seen[n.value()] = false;
  }
}

/// At one time: the ends of jobs that ran, then the starts, then the ends of jobs that start and
/// end then (a job's own start always comes first).
enum class EventKind : std::uint8_t { kEnd, kStart, kInstantEnd };

struct Event {
  double time = 0;
  EventKind kind = EventKind::kEnd;
  std::size_t job = 0;  // index into the jobs
};

/// One running job's traffic as the fabric carries it.
struct Active {
  std::vector<Flow> flows;
  std::vector<Path> paths;                      // per flow, as traced
  std::vector<LinkId> links;                    // every link its flows cross, once
  std::shared_ptr<const plugin::JobView> view;  // the controller's, when it knows the job
};

class Replay {
 public:
  Replay(const plugin::Subnet& subnet, const LftSet& lfts, const ReplayConfig& config)
      : subnet_(subnet), lfts_(lfts), config_(config), load_(subnet.fabric) {
    if (config.routing != "dmodk") {
      if (!is_algorithm(config.routing)) {
        throw std::invalid_argument("routing '" + config.routing +
                                    "': no such algorithm (dmodk, or one of the controller's)");
      }
      FlowTableConfig table;
      table.capacity = config.table_capacity;
      table.level = config.flow_level;
      board_ = std::make_unique<Switchboard>(subnet.fabric, subnet.lids, kSwitchKey, table);
      Config cfg;
      cfg.switch_key = kSwitchKey;
      cfg.table_capacity = config.table_capacity;
      cfg.flow_definition_level = config.flow_level;
      cfg.load_guard = config.load_guard;
      cfg.job_start_timeout_ms = kMaxJobStartTimeoutMs;
      cfg.audit_interval_ms = 0;
      JobController::Log dbg;
      if (std::getenv("IBSDN_REPLAY_LOG")) {
        dbg = [](LogLevel, const std::string& m) { std::fprintf(stderr, "ctl: %s\n", m.c_str()); };
      }
      controller_ =
          std::make_unique<JobController>(cfg, std::nullopt, nullptr, *board_, dbg, std::nullopt);
      // The controller keeps a fabric of its own, recognised as the plugin's engine does.
      plugin::Subnet copy{without_cables(subnet.fabric, {}), subnet.lids, subnet.lmc_aliases,
                          subnet.sm_lid};
      recognize_topology(copy.fabric);
      controller_->fabric_updated(plugin::FabricSnapshot{std::move(copy), lfts, "sdn"});
      forwarding_ = board_->forwarding();
    }
  }

  void start(const ReplayJob& j, ReplayedJob& out) {
    Active a;
    try {
      plugin::JobTraffic t =
          plugin::build_job_traffic(subnet_.fabric, j.nodes, j.traffic, config_.ranks_per_node,
                                    config_.mapping, {}, JobId(j.id), Limits{}.max_rank_flows);
      a.flows = std::move(t.flows);
    } catch (const std::exception& e) {
      out.status = std::string("no traffic: ") + e.what();
    }
    if (controller_ && !a.flows.empty()) {
      JobStartRequest req;
      req.job = JobId(j.id);
      req.user = "replay";
      req.uid = plugin::Caller{}.uid;  // the caller's, as the scheduler hook sends the job's owner
      req.algorithm = j.algorithm.empty() ? config_.routing : j.algorithm;
      req.traffic = j.traffic;
      req.ranks_per_node = config_.ranks_per_node;
      req.mapping = config_.mapping;
      for (const NodeIdx n : j.nodes) req.nodes.push_back(subnet_.fabric.node(n).name);
      const nlohmann::json r = controller_->handle(Request{req}, plugin::Caller{});
      if (!r.value("ok", false)) {
        out.status =
            "refused: " + (r.contains("error") ? r["error"].value("message", r.dump()) : r.dump());
      } else {
        out.entries = r.value("entries", std::uint64_t{0});
        if (r.value("degraded", false)) out.status = "degraded";
      }
    }
    out.flows = a.flows.size();
    trace_job(j.id, a);
    active_.emplace(j.id, std::move(a));
    retrace_changed(j.id);
  }

  void end(const ReplayJob& j) {
    const auto it = active_.find(j.id);
    unload(it->second);
    const bool known = it->second.view != nullptr;
    active_.erase(it);
    if (controller_ && known) {
      const nlohmann::json r =
          controller_->handle(Request{JobEndRequest{JobId(j.id)}}, plugin::Caller{});
      if (!r.value("ok", false)) {
        throw std::runtime_error(job_text(j.id) + ": job_end failed: " + r.dump());
      }
      retrace_changed(std::nullopt);
    }
  }

  /// The largest load on any of the job's links now.
  [[nodiscard]] double job_max(std::uint64_t id) const {
    double m = 0;
    for (const LinkId l : active_.at(id).links) m = std::max(m, load_.weight(l));
    return m;
  }

  [[nodiscard]] const LinkLoad& load() const { return load_; }
  [[nodiscard]] std::size_t active() const { return active_.size(); }
  [[nodiscard]] std::uint64_t mads() const { return board_ ? board_->sent() : 0; }
  [[nodiscard]] std::size_t entries() const { return board_ ? board_->entries() : 0; }
  /// One of the controller's counters (0 without a controller).
  [[nodiscard]] std::uint64_t counter(std::string_view name) const {
    if (!controller_) return 0;
    for (const auto& [k, v] : controller_->view()->counters) {
      if (k == name) return v;
    }
    return 0;
  }

 private:
  void trace_job(std::uint64_t id, Active& a) {
    const Fabric& f = subnet_.fabric;
    TraceOptions opts;
    opts.override_port = forwarding_;
    a.paths.clear();
    a.paths.reserve(a.flows.size());
    std::vector<LinkId> links;
    for (const Flow& fl : a.flows) {
      Trace t = trace(f, lfts_, fl.src, fl.dst, opts);
      if (!t.ok()) {
        throw std::runtime_error(job_text(id) + ": flow " + f.node(fl.src).name + " -> " +
                                 f.node(fl.dst).name + " is not delivered: " + t.error);
      }
      load_.add(t.path, fl);
      links.insert(links.end(), t.path.begin(), t.path.end());
      a.paths.push_back(std::move(t.path));
    }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    a.links = std::move(links);
    if (config_.traced) config_.traced(id, a.flows, a.paths);
    if (controller_) {
      const auto v = controller_->view();
      const auto it = v->jobs.find(JobId(id));
      a.view = it == v->jobs.end() ? nullptr : it->second;
    }
  }

  void unload(const Active& a) {
    for (std::size_t i = 0; i < a.flows.size(); ++i) load_.remove(a.paths[i], a.flows[i]);
  }

  /// The controller re-routes jobs whose traffic another job's change moved: their views
  /// change, and their flows are traced again.
  void retrace_changed(std::optional<std::uint64_t> except) {
    if (!controller_) return;
    const auto v = controller_->view();
    for (auto& [id, a] : active_) {
      if (except && id == *except) continue;
      const auto it = v->jobs.find(JobId(id));
      const std::shared_ptr<const plugin::JobView> now = it == v->jobs.end() ? nullptr : it->second;
      if (now == a.view) continue;
      unload(a);
      trace_job(id, a);
    }
  }

  const plugin::Subnet& subnet_;
  const LftSet& lfts_;
  const ReplayConfig& config_;
  LinkLoad load_;
  std::unique_ptr<Switchboard> board_;
  std::unique_ptr<JobController> controller_;
  ForwardingOverride forwarding_;
  std::map<std::uint64_t, Active> active_;
};

}  // namespace

ReplayResult replay_static(const plugin::Subnet& subnet, const LftSet& lfts,
                           std::span<const ReplayJob> jobs, const ReplayConfig& config) {
  check_jobs(subnet.fabric, jobs, config.routing);
  std::vector<Event> events;
  events.reserve(jobs.size() * 2);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    events.push_back({jobs[i].start, EventKind::kStart, i});
    events.push_back(
        {jobs[i].end, jobs[i].end == jobs[i].start ? EventKind::kInstantEnd : EventKind::kEnd, i});
  }
  std::sort(events.begin(), events.end(), [&](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return jobs[a.job].id < jobs[b.job].id;
  });

  Replay replay(subnet, lfts, config);
  ReplayResult result;
  result.jobs.resize(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ReplayedJob& r = result.jobs[i];
    r.id = jobs[i].id;
    r.start = jobs[i].start;
    r.end = jobs[i].end;
    r.nodes = jobs[i].nodes.size();
  }
  std::vector<std::size_t> running;  // job indices
  const std::size_t num_links = subnet.fabric.num_links();
  result.link_load_seconds.assign(num_links, 0.0);
  double since = events.empty() ? 0.0 : events.front().time;  // the current step's start
  for (std::size_t e = 0; e < events.size(); ++e) {
    const Event& ev = events[e];
    if (e > 0 && events[e - 1].time != ev.time) {
      // The load of the last step held from its time until this one.
      const double dt = ev.time - since;
      for (std::size_t l = 0; l < num_links; ++l) {
        result.link_load_seconds[l] +=
            replay.load().weight(LinkId(static_cast<std::uint32_t>(l))) * dt;
      }
      since = ev.time;
    }
    if (ev.kind == EventKind::kStart) {
      replay.start(jobs[ev.job], result.jobs[ev.job]);
      running.push_back(ev.job);
    } else {
      replay.end(jobs[ev.job]);
      running.erase(std::find(running.begin(), running.end(), ev.job));
    }
    if (config.progress) config.progress(e + 1, events.size());
    // The network state of a time is the one after all its events.
    if (e + 1 < events.size() && events[e + 1].time == ev.time) continue;
    for (const std::size_t j : running) {
      ReplayedJob& r = result.jobs[j];
      r.pjml = std::max(r.pjml, replay.job_max(r.id));
    }
    const double swml = replay.load().max_weight();
    result.swml.push_back({ev.time, swml, replay.active()});
    result.max_swml = std::max(result.max_swml, swml);
    result.peak_entries = std::max(result.peak_entries, replay.entries());
  }
  result.mads = replay.mads();
  result.guard_reroutes = replay.counter("guard_reroutes");
  result.guard_fallbacks = replay.counter("guard_fallbacks");
  result.guard_restores = replay.counter("guard_restores");
  return result;
}

}  // namespace ibsdn
