#include "plugin/controller/job_controller.hpp"

#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

#include "flowtable/flow_table.hpp"
#include "flowtable/flow_text.hpp"
#include "plugin/controller/switch_sync.hpp"
#include "plugin/notice/names.hpp"
#include "routing/algorithm.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn::plugin {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string guid_text(Guid g) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(g.value()));
  return buf;
}

/// A load or a bound: "3", or "2.5" when it is not whole.
std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string job_text(JobId id) {
  return "job " + std::to_string(id.value());
}

mad::ClientOptions client_options(const Config& c) {
  mad::ClientOptions o;
  o.timeout = std::chrono::milliseconds(c.mad.timeout_ms);
  o.retries = static_cast<int>(c.mad.retries);
  o.window = c.mad.window;
  o.tid_base = JobController::kTidBase;
  return o;
}

std::string traffic_text(const Traffic& t) {
  if (const auto* p = std::get_if<PatternSpec>(&t)) return p->to_string();
  return "matrix";
}

}  // namespace

std::optional<std::uint32_t> uid_of_user(const std::string& user) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(found->pw_uid);
}

JobController::JobController(Config config, std::optional<HostMap> hosts, StateStore* store,
                             mad::MadTransport& transport, Log log,
                             std::optional<std::uint32_t> slurm_uid)
    : config_(std::move(config)),
      hosts_(std::move(hosts)),
      store_(store),
      client_(transport, client_options(config_)),
      log_(std::move(log)),
      slurm_uid_(slurm_uid) {}

// ---- Fabric -------------------------------------------------------------------------------

void JobController::fabric_updated(FabricSnapshot snapshot) {
  const bool first = fabric_ == nullptr;
  fabric_ = std::make_unique<FabricSnapshot>(std::move(snapshot));
  net_ = std::make_unique<NetworkState>(fabric_->subnet.fabric);
  ++counters_["subnet_ups"];
  if (first && !reloaded_) {
    reload_from_store();
    reloaded_ = true;
  }
  revalidate(first);
  const AuditOutcome a = audit_switches(all_switches(), true);
  std::size_t unreachable = 0;
  for (const AuditFinding& f : a.findings) unreachable += f.kind == "unreachable";
  log(a.repaired > 0 || unreachable > 0 ? LogLevel::kWarn : LogLevel::kInfo,
      "audit after SUBNET UP: " + std::to_string(a.checked) + " switches, " +
          std::to_string(a.findings.size() - unreachable) + " differences (" +
          std::to_string(a.repaired) + " FlowMods to repair), " + std::to_string(unreachable) +
          " unreachable");
}

void JobController::reload_from_store() {
  if (store_ == nullptr) return;
  std::vector<StoredJob> stored;
  try {
    stored = store_->load_jobs();
  } catch (const std::exception& e) {
    log(LogLevel::kError, std::string("cannot reload jobs from the state store: ") + e.what());
    return;
  }
  for (StoredJob& s : stored) {
    const ParsedRequest parsed = parse_request(s.request);
    if (!parsed.ok() || !std::holds_alternative<JobStartRequest>(parsed.request())) {
      log(LogLevel::kError, job_text(s.id) + " in the state store has an unreadable request (" +
                                (parsed.ok() ? "not a job_start" : parsed.error().message) +
                                "); dropped, its entries go at the audit");
      unpersist(s.id);
      continue;
    }
    Job j;
    j.request = std::get<JobStartRequest>(parsed.request());
    j.owner_uid = s.uid;
    j.algorithm = s.algorithm;
    j.phase = s.phase;
    j.started_unix_ms = s.started_unix_ms;
    for (IntendedEntry& e : s.entries) j.entries[e.switch_guid].push_back(std::move(e.entry));
    jobs_.emplace(s.id, std::move(j));
  }
  if (!stored.empty()) {
    log(LogLevel::kInfo,
        "reloaded " + std::to_string(jobs_.size()) + " job(s) from " + store_->path());
  }
}

void JobController::revalidate(bool first) {
  const Fabric& f = fabric_->subnet.fabric;
  // Every job's traffic traced through the new LFTs and all intended entries, as they stand.
  TraceOptions to;
  std::vector<JobId> reroute;
  try {
    to.override_port = flow_table_override(all_tables());
  } catch (const std::exception& e) {
    log(LogLevel::kError, std::string("intended entries do not load into tables: ") + e.what());
    for (const auto& [id, j] : jobs_) reroute.push_back(id);
  }
  for (auto& [id, j] : jobs_) {
    if (!reroute.empty() && reroute.back() == id) continue;
    j.routed = false;
    try {
      j.nodes = resolve_hosts(fabric_->subnet, hosts_ ? &*hosts_ : nullptr, j.request.nodes);
      JobTraffic t = build_job_traffic(f, j.nodes, current_traffic(j), j.request.ranks_per_node,
                                       j.request.mapping, j.request.elephants, id);
      j.flows = std::move(t.flows);
    } catch (const std::exception& e) {
      log(LogLevel::kError, job_text(id) + " cannot be placed on this fabric: " + e.what() +
                                "; it keeps its entries but carries no load until its hosts "
                                "return");
      j.ready.degraded = true;
      continue;
    }
    bool ok = true;
    for (const auto& [g, entries] : j.entries) ok = ok && switch_of(g).has_value();
    std::vector<Path> paths;
    decltype(j.signature) signature;
    for (std::size_t i = 0; ok && i < j.flows.size(); ++i) {
      Trace t = trace(f, fabric_->lfts, j.flows[i].src, j.flows[i].dst, to);
      ok = t.ok();
      if (!ok) break;
      std::vector<std::pair<std::uint64_t, std::uint8_t>> sig;
      for (const LinkId l : t.path) {
        const Link& link = f.link(l);
        sig.emplace_back(f.node(link.from).guid.value(), link.from_port.value());
      }
      signature.push_back(std::move(sig));
      paths.push_back(std::move(t.path));
    }
    if (ok && !first && signature != j.signature) ok = false;
    if (ok) {
      try {
        NetworkState::Job nj{id, j.algorithm, j.flows, paths, evaluate(f, j.flows, paths)};
        net_->restore_job(std::move(nj));
        j.effective = std::move(paths);
        j.signature = std::move(signature);
        j.routed = true;
        continue;
      } catch (const std::exception& e) {
        log(LogLevel::kInfo, job_text(id) + ": " + e.what());
      }
    }
    reroute.push_back(id);
  }
  for (const JobId id : reroute) {
    Job& j = jobs_.at(id);
    try {
      if (j.nodes.empty()) {
        j.nodes = resolve_hosts(fabric_->subnet, hosts_ ? &*hosts_ : nullptr, j.request.nodes);
      }
      // A fabric that lost a cable may no longer be the topology the job's algorithm needs (a
      // fat-tree with a missing up-link is not an XGFT): then the algorithm configured for what
      // the fabric is now takes over.
      const std::string fitting = choose_algorithm();
      if (j.algorithm != fitting &&
          !make_algorithm(j.algorithm)->unsupported_reason(fabric_->subnet.fabric).empty()) {
        log(LogLevel::kWarn, job_text(id) + ": " + j.algorithm +
                                 " cannot route the fabric any more; using " + fitting);
        j.algorithm = fitting;
      }
      place(id, j, Clock::now());
      ++counters_["reroutes"];
      log(LogLevel::kInfo, job_text(id) + " re-routed on the new fabric: L_D " +
                               number_text(j.ready.max_link_load) + ", " +
                               std::to_string(j.ready.entries) + " entries");
    } catch (const std::exception& e) {
      log(LogLevel::kError, job_text(id) + " could not be re-routed (" + e.what() +
                                "); its entries are removed, its traffic takes the default routes");
      withdraw(id, j);
    }
  }
}

void JobController::withdraw(JobId id, Job& j) {
  for (const auto& [g, why] : remove_entries(id, j)) {
    log(LogLevel::kWarn, job_text(id) + ": switch " + guid_text(g) + " did not remove the job's " +
                             "entries (" + why + "); the next audit will");
  }
  j.entries.clear();
  j.routed = false;
  j.ready.degraded = true;
  j.ready.entries = 0;
  try {
    persist(id, j);
  } catch (const std::exception& e) {
    log(LogLevel::kError, job_text(id) + ": cannot update the state store: " + e.what());
  }
}

// ---- Notices ------------------------------------------------------------------------------

json JobController::handle(const Request& request, const Caller& caller) noexcept {
  try {
    ++counters_["notices"];
    try {
      authorize(request, caller);
      if (!fabric_ && !std::holds_alternative<PingQuery>(request) &&
          !std::holds_alternative<StatsQuery>(request) &&
          !std::holds_alternative<JobsQuery>(request)) {
        throw NoticeFailure(ErrorCode::kBusy,
                            "the controller has no fabric yet (waiting for OpenSM's first SUBNET "
                            "UP); retry");
      }
      return std::visit(
          [&](const auto& r) -> json {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, JobStartRequest>) return job_start(r);
            if constexpr (std::is_same_v<T, JobEndRequest>) return job_end(r);
            if constexpr (std::is_same_v<T, PhaseRequest>) return phase(r);
            if constexpr (std::is_same_v<T, HintRequest>) return hint(r);
            if constexpr (std::is_same_v<T, JobsQuery>) return jobs();
            if constexpr (std::is_same_v<T, FlowsQuery>) return flows(r);
            if constexpr (std::is_same_v<T, LinksQuery>) return links(r);
            if constexpr (std::is_same_v<T, RouteQuery>) return route(r);
            if constexpr (std::is_same_v<T, AuditQuery>) return audit(r);
            if constexpr (std::is_same_v<T, StatsQuery>) return stats();
            if constexpr (std::is_same_v<T, PingQuery>) return pong_response(IBSDN_VERSION);
          },
          request);
    } catch (const NoticeFailure& f) {
      ++counters_["notices_refused"];
      log(f.code() == ErrorCode::kForbidden ? LogLevel::kWarn : LogLevel::kInfo,
          std::string(op_name(request)) + " from uid " + std::to_string(caller.uid) + " (pid " +
              std::to_string(caller.pid) + ") refused: " + std::string(to_string(f.code())) + ": " +
              f.what());
      return error_response(f.code(), f.what(), f.at());
    }
  } catch (const std::exception& e) {
    log(LogLevel::kError,
        std::string("internal error on ") + std::string(op_name(request)) + ": " + e.what());
    try {
      return error_response(ErrorCode::kInternal, std::string("internal error: ") + e.what());
    } catch (...) {
    }
  } catch (...) {
  }
  return json{{"v", 1}, {"ok", false}, {"error", {{"code", "internal"}, {"message", "?"}}}};
}

void JobController::authorize(const Request& r, const Caller& c) const {
  const Privilege p = required_privilege(r);
  if (p == Privilege::kAnyone) return;
  const bool scheduler = c.uid == 0 || (slurm_uid_ && c.uid == *slurm_uid_);
  if (scheduler) return;
  if (p == Privilege::kJobOwnerOrScheduler) {
    const JobId id = std::visit(
        [](const auto& q) -> JobId {
          if constexpr (requires { q.job; }) {
            if constexpr (std::is_same_v<std::decay_t<decltype(q.job)>, JobId>) return q.job;
          }
          return JobId(0);
        },
        r);
    const auto it = jobs_.find(id);
    if (it != jobs_.end() && it->second.owner_uid && *it->second.owner_uid == c.uid) return;
    throw NoticeFailure(ErrorCode::kForbidden,
                        std::string(op_name(r)) + " for " + job_text(id) +
                            " is for the job's owner, root or the Slurm user (" +
                            config_.slurm_user + "); uid " + std::to_string(c.uid) +
                            " is none of them");
  }
  throw NoticeFailure(ErrorCode::kForbidden,
                      std::string(op_name(r)) + " is for root or the Slurm user (" +
                          config_.slurm_user + "); uid " + std::to_string(c.uid) + " is neither");
}

std::string JobController::choose_algorithm() const {
  const Fabric& f = fabric_->subnet.fabric;
  if (f.xgft() != nullptr) return config_.algorithms.fat_tree;
  if (f.dragonfly() != nullptr) return config_.algorithms.dragonfly;
  return config_.algorithms.other;
}

const Traffic& JobController::current_traffic(const Job& j) const {
  if (!j.phase.empty()) {
    for (const PhaseDecl& p : j.request.phases) {
      if (p.name == j.phase) return p.traffic;
    }
  }
  return j.request.traffic;
}

json JobController::job_start(const JobStartRequest& r) {
  const auto started = Clock::now();
  if (r.algorithm) {
    try {
      (void)make_algorithm(*r.algorithm);
    } catch (const std::invalid_argument& e) {
      throw NoticeFailure(ErrorCode::kInvalid, std::string("at /algorithm: ") + e.what(),
                          "/algorithm");
    }
  }
  if (const auto it = jobs_.find(r.job); it != jobs_.end()) {
    // Slurm may run a prolog twice (requeue, retry): the same notice gets the same answer.
    if (it->second.request.nodes == r.nodes && it->second.request.traffic == r.traffic) {
      return ready_response(it->second.ready);
    }
    throw NoticeFailure(ErrorCode::kInvalid,
                        job_text(r.job) +
                            " is already active with other nodes or traffic; end "
                            "it first",
                        "/job");
  }
  Job j;
  j.request = r;
  j.owner_uid = r.uid ? r.uid : uid_of_user(r.user);
  j.algorithm = r.algorithm ? *r.algorithm : choose_algorithm();
  j.started_unix_ms = unix_ms_now();
  j.nodes = resolve_hosts(fabric_->subnet, hosts_ ? &*hosts_ : nullptr, r.nodes);
  place(r.job, j, started);
  ++counters_["jobs_started"];
  auto [it, fresh] = jobs_.emplace(r.job, std::move(j));
  log(LogLevel::kInfo, job_text(r.job) + " (" + r.user + ", " + std::to_string(r.nodes.size()) +
                           " nodes, " + traffic_text(r.traffic) + ", " + it->second.algorithm +
                           "): " + std::to_string(it->second.ready.flows) + " flows, " +
                           std::to_string(it->second.ready.entries) + " entries, L_D " +
                           std::to_string(it->second.ready.max_link_load) + " bound " +
                           std::to_string(it->second.ready.bound) +
                           (it->second.ready.degraded ? ", DEGRADED" : "") + " in " +
                           std::to_string(ms_since(started)) + " ms");
  return ready_response(it->second.ready);
}

void JobController::place(JobId id, Job& j, Clock::time_point started) {
  const Fabric& f = fabric_->subnet.fabric;
  std::unique_ptr<RoutingAlgorithm> alg;
  try {
    alg = make_algorithm(j.algorithm);
  } catch (const std::exception& e) {
    throw NoticeFailure(ErrorCode::kUnroutable, e.what(), "/algorithm");
  }
  if (const std::string why = alg->unsupported_reason(f); !why.empty()) {
    throw NoticeFailure(ErrorCode::kUnroutable, j.algorithm + " cannot route this fabric: " + why);
  }
  const auto route_start = Clock::now();
  JobTraffic traffic = build_job_traffic(f, j.nodes, current_traffic(j), j.request.ranks_per_node,
                                         j.request.mapping, j.request.elephants, id);
  std::vector<Flow> flows = std::move(traffic.flows);

  // Route on top of every other job's load.
  std::optional<NetworkState::Job> previous;
  if (const NetworkState::Job* old = net_->job(id)) {
    previous = *old;
    net_->remove_job(id);
  }
  std::vector<Path> paths;
  try {
    paths = alg->route(RouteRequest{f, flows, &net_->load(), false, id.value()});
  } catch (const std::exception& e) {
    if (previous) net_->restore_job(*previous);
    throw NoticeFailure(ErrorCode::kUnroutable, j.algorithm + ": " + e.what());
  }
  JobReady ready;
  ready.job = id;
  ready.algorithm = j.algorithm;
  ready.flows = flows.size();
  ready.route_ms = ms_since(route_start);
  if (ms_since(started) > config_.job_start_timeout_ms) {
    if (previous) net_->restore_job(*previous);
    throw NoticeFailure(ErrorCode::kTimeout,
                        "routing took " + std::to_string(ready.route_ms) + " ms, over " +
                            "job_start_timeout_ms; the job runs on default routes");
  }

  // Compile and install; a switch that fails is excluded and the job recompiled without it.
  // compile_ms: the compiler and the trace of the effective paths; install_ms: storing the
  // intent, the FlowMods and the barriers.
  CompileOptions opt;
  opt.level = config_.flow_definition_level;
  opt.capacity = static_cast<std::uint32_t>(config_.table_capacity);
  std::vector<std::uint32_t> used = usage(id);
  opt.used = &used;
  std::set<Guid> excluded;
  CompiledFlows compiled;
  std::map<Guid, std::vector<FlowEntry>> believed = j.entries;
  double install_ms = 0;
  for (int attempt = 0;; ++attempt) {
    const auto compile_start = Clock::now();
    compiled = compile_flows(f, fabric_->lfts, flows, paths, id, opt);
    std::map<Guid, std::vector<FlowEntry>> next;
    for (auto& [sw, entries] : compiled.tables) next[f.node(sw).guid] = std::move(entries);
    ready.compile_ms += ms_since(compile_start);

    const auto install_start = Clock::now();
    j.entries = next;
    persist(id, j);  // the intent first: a crash mid-install is repaired by the next audit
    std::vector<SwitchChange> changes;
    std::set<Guid> touched;
    for (const auto& [g, e] : believed) touched.insert(g);
    for (const auto& [g, e] : next) touched.insert(g);
    for (const Guid g : touched) {
      if (excluded.contains(g)) continue;
      const auto sw = switch_of(g);
      if (!sw) continue;  // gone from the fabric: nothing to send
      SwitchChange c{g, sw->lid, sw->name, {}, {}};
      if (const auto b = believed.find(g); b != believed.end()) c.before = b->second;
      if (const auto a = next.find(g); a != next.end()) c.after = a->second;
      changes.push_back(std::move(c));
    }
    const SyncResult res = apply_changes(client_, config_.switch_key, changes);
    install_ms += ms_since(install_start);
    counters_["flow_mods_sent"] += res.flow_mods;
    counters_["barriers_sent"] += res.barriers;
    believed = next;
    if (res.failed.empty()) break;
    for (const auto& [g, why] : res.failed) {
      excluded.insert(g);
      const NodeIdx sw = fabric_->subnet.node_of(g);
      used[sw.value()] = opt.capacity;  // nothing of this job may rely on that switch
      believed.erase(g);
      ready.warnings.push_back(f.node(sw).name +
                               (res.full.contains(g) ? " (table full): "
                                                     : " did not take the "
                                                       "entries: ") +
                               why);
      log(LogLevel::kWarn, job_text(id) + ": switch " + f.node(sw).name + " excluded: " + why);
    }
    if (attempt >= 2) {
      // Give up on flow entries altogether: everything on default routes.
      opt.capacity = 0;
    }
    if (attempt >= 3) break;
  }
  ready.install_ms = install_ms;

  // What the fabric will carry: every flow traced through the LFTs and all jobs' entries.
  const auto trace_start = Clock::now();
  TraceOptions to;
  to.override_port = flow_table_override(all_tables(std::make_pair(id, &j.entries)));
  std::vector<Path> effective;
  decltype(j.signature) signature;
  std::size_t on_lft = 0;
  for (const Flow& fl : flows) {
    Trace t = trace(f, fabric_->lfts, fl.src, fl.dst, to);
    if (!t.ok()) throw std::runtime_error("a flow is not delivered with the entries: " + t.error);
    const Trace plain = trace(f, fabric_->lfts, fl.src, fl.dst);
    if (plain.ok() && plain.path == t.path) ++on_lft;
    std::vector<std::pair<std::uint64_t, std::uint8_t>> sig;
    for (const LinkId l : t.path) {
      sig.emplace_back(f.node(f.link(l).from).guid.value(), f.link(l).from_port.value());
    }
    signature.push_back(std::move(sig));
    effective.push_back(std::move(t.path));
  }
  net_->restore_job(
      NetworkState::Job{id, j.algorithm, flows, effective, evaluate(f, flows, effective)});
  std::int32_t busiest = 0;
  for (const Path& p : effective) {
    for (const LinkId l : p) busiest = std::max(busiest, net_->load().flows(l));
  }
  ready.max_link_load = busiest;
  ready.bound = lower_bound(f, flows).value;
  ready.flows_on_default = on_lft;
  ready.entries = compiled.entries;
  if (compiled.flows_on_default > 0) {
    ready.warnings.push_back(std::to_string(compiled.flows_on_default) +
                             " flow(s) left on default routes: no room in the switches' tables" +
                             (excluded.empty() ? "" : " or a switch failed"));
  }
  ready.degraded = !excluded.empty() || compiled.flows_on_default > 0;
  ready.compile_ms += ms_since(trace_start);
  j.flows = std::move(flows);
  j.effective = std::move(effective);
  j.signature = std::move(signature);
  j.routed = true;
  const auto store_start = Clock::now();
  persist(id, j);  // the ready answer, for a repeated job_start after a restart
  ready.install_ms += ms_since(store_start);
  j.ready = std::move(ready);
}

JobController::Job& JobController::active_job(JobId id) {
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    throw NoticeFailure(ErrorCode::kUnknownJob, job_text(id) + " is not active", "/job");
  }
  return it->second;
}

std::map<Guid, std::string> JobController::remove_entries(JobId id, const Job& j) {
  std::vector<SwitchChange> switches;
  for (const auto& [g, e] : j.entries) {
    if (const auto sw = switch_of(g)) {
      switches.push_back(SwitchChange{g, sw->lid, sw->name, {}, {}});
    }
  }
  auto failed = delete_cookie(client_, config_.switch_key, switches, id.value());
  counters_["flow_mods_sent"] += switches.size();
  if (net_->job(id)) net_->remove_job(id);
  return failed;
}

json JobController::job_end(const JobEndRequest& r) {
  const Job& j = active_job(r.job);
  std::size_t entries = 0;
  for (const auto& [g, e] : j.entries) entries += e.size();
  const std::size_t switches = j.entries.size();
  const auto failed = remove_entries(r.job, j);
  unpersist(r.job);
  jobs_.erase(r.job);
  ++counters_["jobs_ended"];
  json out = ok_response();
  out["job"] = r.job.value();
  out["entries_removed"] = entries;
  json warnings = json::array();
  for (const auto& [g, why] : failed) {
    warnings.push_back("switch " + guid_text(g) + ": " + why +
                       " (its stale entries go at its next audit)");
  }
  out["warnings"] = warnings;
  log(LogLevel::kInfo,
      job_text(r.job) + " ended: " + std::to_string(entries) + " entries on " +
          std::to_string(switches) + " switches removed" +
          (failed.empty() ? ""
                          : ", " + std::to_string(failed.size()) + " switches did not answer"));
  return out;
}

json JobController::phase(const PhaseRequest& r) {
  Job& j = active_job(r.job);
  const Job saved = j;
  if (r.action == PhaseAction::kEnd) {
    if (j.phase != r.name) {
      throw NoticeFailure(ErrorCode::kUnknownPhase,
                          "phase " + quote_for_message(r.name) + " of " + job_text(r.job) +
                              " is not active" +
                              (j.phase.empty() ? "" : " (the active one is " + j.phase + ")"),
                          "/name");
    }
    j.phase.clear();
  } else {
    auto decl = std::find_if(j.request.phases.begin(), j.request.phases.end(),
                             [&](const PhaseDecl& p) { return p.name == r.name; });
    if (r.traffic) {
      if (decl != j.request.phases.end()) {
        decl->traffic = *r.traffic;
      } else if (j.request.phases.size() >= kMaxPhases) {
        throw NoticeFailure(ErrorCode::kTooLarge,
                            job_text(r.job) + " has " + std::to_string(kMaxPhases) + " phases",
                            "/name");
      } else {
        j.request.phases.push_back(PhaseDecl{r.name, *r.traffic});
      }
    } else if (decl == j.request.phases.end()) {
      throw NoticeFailure(ErrorCode::kUnknownPhase,
                          "phase " + quote_for_message(r.name) + " was not declared in " +
                              job_text(r.job) + "'s job_start; give its pattern or matrix",
                          "/name");
    }
    j.phase = r.name;
  }
  try {
    place(r.job, j, Clock::now());
  } catch (...) {
    j = saved;
    throw;
  }
  ++counters_["phase_changes"];
  return ready_response(j.ready);
}

json JobController::hint(const HintRequest& r) {
  Job& j = active_job(r.job);
  const Job saved = j;
  // The notice replaces the job's elephant pairs (docs/notice-protocol.md); [] clears them.
  j.request.elephants = r.elephants;
  try {
    place(r.job, j, Clock::now());
  } catch (...) {
    j = saved;
    throw;
  }
  ++counters_["hints"];
  return ready_response(j.ready);
}

// ---- Queries ------------------------------------------------------------------------------

json JobController::jobs() const {
  std::vector<JobSummary> list;
  for (const auto& [id, j] : jobs_) {
    JobSummary s;
    s.job = id;
    s.user = j.request.user;
    s.nodes = j.request.nodes.size();
    s.pattern = traffic_text(j.request.traffic);
    s.algorithm = j.algorithm;
    s.phase = j.phase;
    for (const auto& [g, e] : j.entries) s.entries += e.size();
    s.started_unix_ms = j.started_unix_ms;
    s.degraded = j.ready.degraded || !j.routed;
    list.push_back(std::move(s));
  }
  return jobs_response(list);
}

json JobController::flows(const FlowsQuery& q) {
  std::vector<Switch> selected;
  if (q.switch_ref) {
    selected.push_back(resolve_switch(*q.switch_ref));
  } else {
    selected = all_switches();
  }
  if (q.job && !q.from_switch && !jobs_.contains(*q.job)) {
    throw NoticeFailure(ErrorCode::kUnknownJob, job_text(*q.job) + " is not active", "/job");
  }
  std::vector<SwitchFlows> out;
  json warnings = json::array();
  for (const Switch& sw : selected) {
    SwitchFlows sf{sw.guid, sw.lid, sw.name, {}};
    if (q.from_switch) {
      mad::Result<mad::TableRead> read = client_.read_table(sw.lid, config_.switch_key);
      if (!read) {
        warnings.push_back(sw.name + ": " + read.error().message);
        continue;
      }
      sf.entries = std::move(read.value().entries);
    } else {
      sf.entries = intended(sw.guid);
    }
    if (q.job) {
      std::erase_if(sf.entries, [&](const FlowEntry& e) { return e.cookie != q.job->value(); });
    }
    if (!sf.entries.empty() || q.switch_ref) out.push_back(std::move(sf));
  }
  json r = flows_response(out, q.from_switch);
  r["warnings"] = std::move(warnings);
  return r;
}

json JobController::links(const LinksQuery& q) const {
  const Fabric& f = fabric_->subnet.fabric;
  std::vector<LinkRow> rows;
  for (std::uint32_t i = 0; i < f.num_links(); ++i) {
    const LinkId l(i);
    const std::int32_t n = net_->load().flows(l);
    if (n <= 0) continue;
    const Link& link = f.link(l);
    rows.push_back(LinkRow{f.node(link.from).name, link.from_port, f.node(link.to).name,
                           link.to_port, n, net_->load().weight(l)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const LinkRow& a, const LinkRow& b) {
    return a.flows != b.flows ? a.flows > b.flows : a.weight > b.weight;
  });
  if (q.top && rows.size() > *q.top) rows.resize(*q.top);
  json r = links_response(rows);
  r["swml_flows"] = net_->swml_flows();
  return r;
}

json JobController::route(const RouteQuery& q) const {
  const Fabric& f = fabric_->subnet.fabric;
  const HostMap* map = hosts_ ? &*hosts_ : nullptr;
  const auto host = [&](const std::string& name, const char* at) {
    try {
      return resolve_hosts(fabric_->subnet, map, std::span(&name, 1)).front();
    } catch (const NoticeFailure& e) {
      throw NoticeFailure(e.code(), e.what(), at);
    }
  };
  const NodeIdx src = host(q.src, "/src");
  const NodeIdx dst = host(q.dst, "/dst");
  const auto tables = std::make_shared<const FlowTables>(build_flow_tables(all_tables()));
  TraceOptions to;
  to.override_port = flow_table_override(tables);
  const Trace t = trace(f, fabric_->lfts, src, dst, to);
  if (!t.ok()) {
    throw NoticeFailure(ErrorCode::kUnroutable, q.src + " -> " + q.dst + ": " + t.error);
  }
  const PacketHeader h{fabric_->lfts.lids.lid(src), fabric_->lfts.lids.lid(dst)};
  std::vector<RouteHop> hops;
  for (const LinkId l : t.path) {
    const Link& link = f.link(l);
    RouteHop hop{f.node(link.from).name, f.node(link.from).guid, link.from_port, false, 0};
    if (const FlowEntry* e = winning_entry(*tables, link.from, h)) {
      hop.by_flow_entry = true;
      hop.cookie = e->cookie;
    }
    hops.push_back(std::move(hop));
  }
  json r = route_response(q.src, q.dst, hops);
  r["to"] = f.node(dst).name;
  return r;
}

json JobController::audit(const AuditQuery& q) {
  const AuditOutcome a = audit_switches(all_switches(), q.repair);
  json r = audit_response(a.checked, a.findings);
  r["repaired"] = a.repaired;
  return r;
}

json JobController::stats() const {
  std::vector<std::pair<std::string, std::uint64_t>> c(counters_.begin(), counters_.end());
  c.emplace_back("jobs_active", jobs_.size());
  std::uint64_t entries = 0;
  for (const auto& [id, j] : jobs_) {
    for (const auto& [g, e] : j.entries) entries += e.size();
  }
  c.emplace_back("entries_intended", entries);
  c.emplace_back("switches", fabric_ ? fabric_->subnet.fabric.switches().size() : 0);
  c.emplace_back("switches_unreachable", unreachable_.size());
  c.emplace_back("mads_sent", client_.stats().sent);
  c.emplace_back("mads_retransmitted", client_.stats().retransmits);
  c.emplace_back("mads_stray", client_.stats().strays);
  if (net_) c.emplace_back("swml_flows", static_cast<std::uint64_t>(net_->swml_flows()));
  std::sort(c.begin(), c.end());
  return stats_response(c);
}

// ---- Audit --------------------------------------------------------------------------------

JobController::AuditOutcome JobController::audit_switches(const std::vector<Switch>& switches,
                                                          bool repair) {
  AuditOutcome out;
  ++counters_["audits"];
  std::vector<SwitchChange> repairs;
  for (const Switch& sw : switches) {
    ++out.checked;
    mad::Result<mad::TableRead> read = client_.read_table(sw.lid, config_.switch_key);
    if (!read) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unreachable", read.error().message});
      if (unreachable_.insert(sw.guid).second) {
        log(LogLevel::kWarn, "switch " + sw.name + " unreachable: " + read.error().message);
      }
      continue;
    }
    if (unreachable_.erase(sw.guid) > 0)
      log(LogLevel::kInfo, "switch " + sw.name + " answers again");
    const std::vector<FlowEntry> want = intended(sw.guid);
    const TableComparison c = compare_tables(read.value().entries, want);
    for (const FlowEntry& e : c.missing) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "missing", format_flow(e)});
    }
    for (const FlowEntry& e : c.unexpected) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unexpected", format_flow(e)});
    }
    for (const auto& [have, should] : c.differs) {
      out.findings.push_back(
          AuditFinding{sw.guid, sw.name, "differs",
                       format_flow(have) + " (intended: " + format_flow(should) + ")"});
    }
    if (repair && !c.consistent()) {
      repairs.push_back(SwitchChange{sw.guid, sw.lid, sw.name, read.value().entries, want});
    }
  }
  if (!repairs.empty()) {
    const SyncResult res = apply_changes(client_, config_.switch_key, repairs);
    out.repaired = res.flow_mods;
    counters_["flow_mods_sent"] += res.flow_mods;
    counters_["repairs"] += res.flow_mods;
    for (const SwitchChange& c : repairs) {
      const auto failed = res.failed.find(c.guid);
      log(failed == res.failed.end() ? LogLevel::kInfo : LogLevel::kWarn,
          "switch " + c.name + " repaired to its " + std::to_string(c.after.size()) +
              " intended entries (it held " + std::to_string(c.before.size()) + ")" +
              (failed == res.failed.end() ? "" : ": failed: " + failed->second));
    }
  }
  return out;
}

void JobController::periodic_check() {
  if (!fabric_) return;
  const std::vector<Switch> switches = all_switches();
  std::vector<Lid> lids;
  for (const Switch& s : switches) lids.push_back(s.lid);
  const auto infos = client_.table_infos(lids, config_.switch_key);
  std::vector<Switch> suspicious;
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const Switch& sw = switches[i];
    if (!infos[i]) {
      if (unreachable_.insert(sw.guid).second) {
        log(LogLevel::kWarn, "switch " + sw.name + " unreachable: " + infos[i].error().message);
      }
      continue;
    }
    const bool was_unreachable = unreachable_.erase(sw.guid) > 0;
    if (was_unreachable || infos[i].value().used != intended(sw.guid).size()) {
      suspicious.push_back(sw);
    }
  }
  ++counters_["periodic_checks"];
  if (!suspicious.empty()) {
    const AuditOutcome a = audit_switches(suspicious, true);
    log(LogLevel::kInfo, "periodic check: " + std::to_string(suspicious.size()) +
                             " switch(es) audited, " + std::to_string(a.repaired) +
                             " FlowMods to repair");
  }
}

// ---- Helpers ------------------------------------------------------------------------------

std::vector<std::uint32_t> JobController::usage(std::optional<JobId> except) const {
  std::vector<std::uint32_t> used(fabric_->subnet.fabric.num_nodes(), 0);
  for (const auto& [id, j] : jobs_) {
    if (except && id == *except) continue;
    for (const auto& [g, e] : j.entries) {
      if (const auto n = fabric_->subnet.fabric.find_guid(g)) {
        used[n->value()] += static_cast<std::uint32_t>(e.size());
      }
    }
  }
  return used;
}

std::map<NodeIdx, std::vector<FlowEntry>> JobController::all_tables(
    std::optional<std::pair<JobId, const std::map<Guid, std::vector<FlowEntry>>*>> replace) const {
  std::map<NodeIdx, std::vector<FlowEntry>> out;
  const auto add = [&](const std::map<Guid, std::vector<FlowEntry>>& entries) {
    for (const auto& [g, e] : entries) {
      const auto n = fabric_->subnet.fabric.find_guid(g);
      if (!n) continue;
      auto& t = out[*n];
      t.insert(t.end(), e.begin(), e.end());
    }
  };
  for (const auto& [id, j] : jobs_) {
    if (replace && replace->first == id) continue;
    add(j.entries);
  }
  if (replace) add(*replace->second);
  return out;
}

std::vector<FlowEntry> JobController::intended(Guid sw) const {
  std::vector<FlowEntry> out;
  for (const auto& [id, j] : jobs_) {
    if (const auto it = j.entries.find(sw); it != j.entries.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

void JobController::persist(JobId id, const Job& j) {
  if (store_ == nullptr) return;
  StoredJob s;
  s.id = id;
  s.user = j.request.user;
  s.uid = j.owner_uid;
  s.request = request_to_json(Request{j.request}).dump();
  s.algorithm = j.algorithm;
  s.phase = j.phase;
  s.started_unix_ms = j.started_unix_ms;
  for (const auto& [g, entries] : j.entries) {
    for (const FlowEntry& e : entries) s.entries.push_back(IntendedEntry{g, e});
  }
  store_->put_job(s);
}

void JobController::unpersist(JobId id) {
  if (store_ == nullptr) return;
  try {
    store_->delete_job(id);
  } catch (const std::exception& e) {
    log(LogLevel::kError, job_text(id) + ": cannot remove it from the state store: " + e.what());
  }
}

std::optional<JobController::Switch> JobController::switch_of(Guid g) const {
  const auto found = fabric_->subnet.fabric.find_guid(g);
  if (!found) return std::nullopt;
  const Node& node = fabric_->subnet.fabric.node(*found);
  if (!node.is_switch()) return std::nullopt;
  const Lid lid = fabric_->subnet.lids.lid(*found, PortNum(0));
  if (lid.value() == 0) return std::nullopt;
  return Switch{*found, g, lid, node.name};
}

std::vector<JobController::Switch> JobController::all_switches() const {
  std::vector<Switch> out;
  for (const NodeIdx n : fabric_->subnet.fabric.switches()) {
    if (auto s = switch_of(fabric_->subnet.fabric.node(n).guid)) out.push_back(std::move(*s));
  }
  std::sort(out.begin(), out.end(),
            [](const Switch& a, const Switch& b) { return a.name < b.name; });
  return out;
}

JobController::Switch JobController::resolve_switch(const SwitchRef& ref) const {
  for (const Switch& s : all_switches()) {
    const Node& node = fabric_->subnet.fabric.node(s.node);
    const bool match = std::visit(
        [&](const auto& r) {
          using T = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<T, Lid>) return s.lid == r;
          if constexpr (std::is_same_v<T, Guid>) return s.guid == r;
          if constexpr (std::is_same_v<T, std::string>) {
            return node.name == r || node.description == r;
          }
        },
        ref);
    if (match) return s;
  }
  throw NoticeFailure(ErrorCode::kInvalid, "no switch with that LID, GUID or name in the fabric",
                      "/switch");
}

}  // namespace ibsdn::plugin
