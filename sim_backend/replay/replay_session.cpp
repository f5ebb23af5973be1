#include "sim_backend/replay/replay_session.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "plugin/controller/config.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_flows.hpp"
#include "routing/algorithm.hpp"
#include "routing/default_tables.hpp"
#include "sim_backend/replay/replay_lfts.hpp"
#include "sim_backend/replay/switchboard.hpp"

namespace ibsdn {
namespace {

using plugin::JobController;

constexpr std::uint64_t kSwitchKey = 0x5eed;

std::string job_text(std::uint64_t id) {
  return "job " + std::to_string(id);
}

}  // namespace

void check_replay_job(const Fabric& f, const ReplayJob& j, const std::string& routing,
                      const std::set<std::uint64_t>& taken, std::vector<bool>& seen) {
  if (j.id == 0) throw std::invalid_argument("job 0: job ids start at 1");
  if (!j.algorithm.empty() && routing == "dmodk") {
    throw std::invalid_argument(job_text(j.id) + ": algorithm '" + j.algorithm +
                                "' needs the controller, but the routing is dmodk");
  }
  if (!j.algorithm.empty() && !is_algorithm(j.algorithm)) {
    throw std::invalid_argument(job_text(j.id) + ": algorithm '" + j.algorithm +
                                "': no such algorithm");
  }
  if (taken.contains(j.id)) {
    throw std::invalid_argument(job_text(j.id) + ": the id is given twice");
  }
  // The flags this job set are cleared on every way out: `seen` serves the next job as it came.
  std::size_t marked = 0;
  const auto unmark = [&] {
    for (std::size_t k = 0; k < marked; ++k) seen[j.nodes[k].value()] = false;
  };
  for (; marked < j.nodes.size(); ++marked) {
    const NodeIdx n = j.nodes[marked];
    if (n.value() >= f.num_nodes() || !f.node(n).is_hca()) {
      unmark();
      throw std::invalid_argument(job_text(j.id) + ": node " + std::to_string(n.value()) +
                                  " is not an HCA of the fabric");
    }
    if (seen[n.value()]) {
      unmark();
      throw std::invalid_argument(job_text(j.id) + ": node " + f.node(n).name + " is given twice");
    }
    seen[n.value()] = true;
  }
  unmark();
}

ReplaySession::ReplaySession(const Subnet& subnet, const LftSet& lfts, const ReplayOptions& options)
    : subnet_(subnet),
      lfts_(lfts),
      options_(options),
      load_(subnet.fabric),
      guard_loads_{LinkLoad(subnet.fabric), LinkLoad(subnet.fabric)},
      seen_(subnet.fabric.num_nodes(), false) {
  if (options.routing == "dmodk") return;
  if (options.routing != kAutoAlgorithm && !is_algorithm(options.routing)) {
    throw std::invalid_argument("routing '" + options.routing +
                                "': no such algorithm (dmodk, auto, or one of the controller's)");
  }
  if (options.install_backend == InstallBackend::kDryRun) {
    throw std::invalid_argument(
        "install backend dry_run installs nothing: routing dmodk replays the LFTs' routes");
  }
  // The controller keeps a fabric of its own, recognised as the plugin's engine does.
  Subnet copy{without_cables(subnet.fabric, {}), subnet.lids, subnet.lmc_aliases, subnet.sm_lid};
  recognize_topology(copy.fabric);
  if (options.install_backend == InstallBackend::kLft && copy.fabric.fat_tree() == nullptr) {
    throw std::invalid_argument(
        "install backend lft: the fabric is not a fat-tree (LFT entries are written only where "
        "every route stays a shortest up*/down* path)");
  }
  FlowTableConfig table;
  table.capacity = options.table_capacity;
  table.level = options.flow_level;
  board_ = std::make_unique<Switchboard>(subnet.fabric, subnet.lids, kSwitchKey, table);
  Config cfg;
  cfg.switch_key = kSwitchKey;
  cfg.table_capacity = options.table_capacity;
  cfg.flow_definition_level = options.flow_level;
  cfg.load_guard = options.load_guard;
  cfg.install_backend = options.install_backend;
  cfg.job_start_timeout_ms = kMaxJobStartTimeoutMs;
  cfg.audit_interval_ms = 0;
  JobController::Log dbg;
  if (std::getenv("IBSDN_REPLAY_LOG")) {
    dbg = [](LogLevel, const std::string& m) { std::fprintf(stderr, "ctl: %s\n", m.c_str()); };
  }
  lft_ = std::make_unique<ReplayLfts>(subnet.fabric, lfts);
  controller_ = std::make_unique<JobController>(cfg, std::nullopt, nullptr, *board_, dbg,
                                                std::nullopt, lft_.get());
  controller_->fabric_updated(plugin::FabricSnapshot{std::move(copy), lfts, "sdn"});
  // A switch looks up its flow table first, its LFT on a miss.
  forwarding_ = [tables = board_->forwarding(), written = lft_.get()](
                    NodeIdx sw, const PacketHeader& h) -> std::optional<PortNum> {
    if (std::optional<PortNum> p = tables(sw, h)) return p;
    return written->changed_port(sw, h.dlid);
  };
}

ReplaySession::~ReplaySession() = default;

const SessionJob& ReplaySession::start_job(const ReplayJob& j) {
  check_replay_job(subnet_.fabric, j, options_.routing, started_, seen_);
  if (!std::isfinite(j.start) || j.start < now_) {
    throw std::invalid_argument(job_text(j.id) + ": starts at " + std::to_string(j.start) +
                                ", before the session's time " + std::to_string(now_));
  }
  now_ = j.start;
  started_.insert(j.id);
  Running r;
  SessionJob& s = r.job;
  s.id = j.id;
  s.start = j.start;
  try {
    plugin::JobTraffic t =
        plugin::build_job_traffic(subnet_.fabric, j.nodes, j.traffic, options_.ranks_per_node,
                                  options_.mapping, {}, JobId(j.id), Limits{}.max_rank_flows);
    s.flows = std::move(t.flows);
  } catch (const std::exception& e) {
    s.status = std::string("no traffic: ") + e.what();
  }
  if (controller_ && !s.flows.empty()) {
    JobStartRequest req;
    req.job = JobId(j.id);
    req.user = "replay";
    req.uid = plugin::Caller{}.uid;  // the caller's, as the scheduler hook sends the job's owner
    if (!j.algorithm.empty()) {
      req.algorithm = j.algorithm;
    } else if (options_.routing != kAutoAlgorithm) {
      req.algorithm = options_.routing;
    }
    req.traffic = j.traffic;
    req.ranks_per_node = options_.ranks_per_node;
    req.mapping = options_.mapping;
    for (const NodeIdx n : j.nodes) req.nodes.push_back(subnet_.fabric.node(n).name);
    const nlohmann::json a = controller_->handle(Request{req}, plugin::Caller{});
    if (!a.value("ok", false)) {
      s.status =
          "refused: " + (a.contains("error") ? a["error"].value("message", a.dump()) : a.dump());
    } else {
      s.entries = a.value("entries", std::uint64_t{0});
      s.algorithm = a.value("algorithm", std::string());
      if (a.value("degraded", false)) s.status = "degraded";
    }
  }
  trace_job(r);
  Running& in = running_.emplace(j.id, std::move(r)).first->second;
  retrace_moved(j.id);
  return in.job;
}

void ReplaySession::end_job(std::uint64_t id, double time) {
  const auto it = running_.find(id);
  if (it == running_.end()) {
    throw std::invalid_argument(job_text(id) + ": is not running" +
                                (started_.contains(id) ? " (it ended)" : ""));
  }
  if (!std::isfinite(time) || time < it->second.job.start) {
    throw std::invalid_argument(job_text(id) + ": ends (" + std::to_string(time) +
                                ") before it starts (" + std::to_string(it->second.job.start) +
                                ")");
  }
  if (time < now_) {
    throw std::invalid_argument(job_text(id) + ": ends at " + std::to_string(time) +
                                ", before the session's time " + std::to_string(now_));
  }
  now_ = time;
  unload(it->second.job);
  const bool known = it->second.view != nullptr;
  running_.erase(it);
  changed_.erase(id);
  if (controller_ && known) {
    const nlohmann::json r =
        controller_->handle(Request{JobEndRequest{JobId(id)}}, plugin::Caller{});
    if (!r.value("ok", false)) {
      throw std::runtime_error(job_text(id) + ": job_end failed: " + r.dump());
    }
    retrace_moved(std::nullopt);
  }
}

std::vector<std::uint64_t> ReplaySession::take_changed() {
  std::vector<std::uint64_t> out(changed_.begin(), changed_.end());
  changed_.clear();
  return out;
}

const SessionJob& ReplaySession::job(std::uint64_t id) const {
  const auto it = running_.find(id);
  if (it == running_.end()) throw std::invalid_argument(job_text(id) + ": is not running");
  return it->second.job;
}

double ReplaySession::job_max_load(std::uint64_t id) const {
  double m = 0;
  for (const LinkId l : job(id).links) m = std::max(m, load_.weight(l));
  return m;
}

std::uint64_t ReplaySession::mads() const {
  return board_ ? board_->sent() : 0;
}

std::size_t ReplaySession::entries() const {
  return board_ ? board_->entries() : 0;
}

std::size_t ReplaySession::lft_blocks() const {
  return lft_ ? lft_->blocks_written() : 0;
}

std::size_t ReplaySession::lft_entries() const {
  return lft_ ? lft_->changed_entries() : 0;
}

GuardCounts ReplaySession::guard() const {
  return {counter("guard_reroutes"), counter("guard_fallbacks"), counter("guard_restores")};
}

std::uint64_t ReplaySession::counter(std::string_view name) const {
  if (!controller_) return 0;
  for (const auto& [k, v] : controller_->view()->counters) {
    if (k == name) return v;
  }
  return 0;
}

void ReplaySession::trace_job(Running& r) {
  const Fabric& f = subnet_.fabric;
  SessionJob& s = r.job;
  TraceOptions opts;
  opts.override_port = forwarding_;
  s.paths.clear();
  s.paths.reserve(s.flows.size());
  std::vector<LinkId> links;
  LinkLoad& guarded = guard_loads_[static_cast<std::size_t>(plugin::guard_measure(s.flows))];
  for (const Flow& fl : s.flows) {
    Trace t = trace(f, lfts_, fl.src, fl.dst, opts);
    if (!t.ok()) {
      throw std::runtime_error(job_text(s.id) + ": flow " + f.node(fl.src).name + " -> " +
                               f.node(fl.dst).name + " is not delivered: " + t.error);
    }
    load_.add(t.path, fl);
    guarded.add(t.path, fl);
    links.insert(links.end(), t.path.begin(), t.path.end());
    s.paths.push_back(std::move(t.path));
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  s.links = std::move(links);
  if (controller_) {
    const auto v = controller_->view();
    const auto it = v->jobs.find(JobId(s.id));
    r.view = it == v->jobs.end() ? nullptr : it->second;
  }
}

void ReplaySession::unload(const SessionJob& j) {
  LinkLoad& guarded = guard_loads_[static_cast<std::size_t>(plugin::guard_measure(j.flows))];
  for (std::size_t i = 0; i < j.flows.size(); ++i) {
    load_.remove(j.paths[i], j.flows[i]);
    guarded.remove(j.paths[i], j.flows[i]);
  }
}

// The controller re-routes jobs whose traffic another job's change moved: their views change,
// and their flows are traced again.
void ReplaySession::retrace_moved(std::optional<std::uint64_t> except) {
  if (!controller_) return;
  const auto v = controller_->view();
  for (auto& [id, r] : running_) {
    if (except && id == *except) continue;
    const auto it = v->jobs.find(JobId(id));
    const std::shared_ptr<const plugin::JobView> now = it == v->jobs.end() ? nullptr : it->second;
    if (now == r.view) continue;
    unload(r.job);
    trace_job(r);
    changed_.insert(id);
  }
}

}  // namespace ibsdn
