// JobController: construction, the dispatch of notices with their authorisation, and the view
// that queries read. Placement, audit and persistence have files of their own.
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"

#include <pwd.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "common/names.hpp"

namespace ibsdn::plugin {
namespace {

using nlohmann::json;

mad::ClientOptions client_options(const Config& c) {
  mad::ClientOptions o;
  o.timeout = std::chrono::milliseconds(c.mad.timeout_ms);
  o.retries = static_cast<int>(c.mad.retries);
  o.window = c.mad.window;
  o.tid_base = JobController::kTidBase;
  return o;
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
                             std::optional<std::uint32_t> slurm_uid, LftAccess* lft)
    : config_(std::move(config)),
      lft_(lft),
      hosts_(std::move(hosts)),
      store_(store),
      client_(transport, client_options(config_)),
      log_(std::move(log)),
      slurm_uid_(slurm_uid),
      switches_(std::chrono::milliseconds(config_.audit_interval_ms)) {
  if (hosts_) host_view_ = std::make_shared<const HostMap>(*hosts_);
  publish();
}

// ---- Notices ------------------------------------------------------------------------------

json JobController::handle(const Request& request, const Caller& caller) noexcept {
  json out;
  try {
    ++counters_["notices"];
    try {
      authorize(request, caller);
      if (const auto answer = answer_from_view(*view(), request)) {
        out = *answer;
      } else if (refuse_unless_master(request); !fabric_) {
        throw NoticeFailure(ErrorCode::kBusy,
                            "the controller has no fabric yet (waiting for OpenSM's first SUBNET "
                            "UP); retry");
      } else {
        out = std::visit(
            [&](const auto& r) -> json {
              using T = std::decay_t<decltype(r)>;
              if constexpr (std::is_same_v<T, JobStartRequest>) return job_start(r);
              if constexpr (std::is_same_v<T, JobEndRequest>) return job_end(r);
              if constexpr (std::is_same_v<T, PhaseRequest>) return phase(r);
              if constexpr (std::is_same_v<T, HintRequest>) return hint(r);
              if constexpr (std::is_same_v<T, FlowsQuery>) return flows_from_switches(r);
              if constexpr (std::is_same_v<T, AuditQuery>) return audit(r);
              if constexpr (std::is_same_v<T, QuarantineQuery>) return quarantine_list(r);
              if constexpr (std::is_same_v<T, QuarantineReleaseRequest>) {
                return quarantine_release(r, caller);
              }
              return error_response(ErrorCode::kInternal, "a query the view did not answer");
            },
            request);
      }
    } catch (const NoticeFailure& f) {
      ++counters_["notices_refused"];
      log(f.code() == ErrorCode::kForbidden ? LogLevel::kWarn : LogLevel::kInfo,
          std::string(op_name(request)) + " from uid " + std::to_string(caller.uid) + " (pid " +
              std::to_string(caller.pid) + ") refused: " + std::string(to_string(f.code())) + ": " +
              f.what());
      out = error_response(f.code(), f.what(), f.at());
    }
  } catch (const std::exception& e) {
    log(LogCode::kNoticeFailed,
        std::string("internal error on ") + std::string(op_name(request)) + ": " + e.what());
    try {
      out = error_response(ErrorCode::kInternal, std::string("internal error: ") + e.what());
    } catch (...) {
    }
  } catch (...) {
  }
  try {
    publish();
  } catch (const std::exception& e) {
    log(LogCode::kPublishFailed, std::string("cannot publish the controller's state: ") + e.what());
  } catch (...) {
  }
  if (out.is_null()) {
    return json{{"v", 1}, {"ok", false}, {"error", {{"code", "internal"}, {"message", "?"}}}};
  }
  return out;
}

void JobController::authorize(const Request& r, const Caller& c) const {
  const Privilege p = required_privilege(r);
  if (p == Privilege::kAnyone) return;
  if (p == Privilege::kRoot) {
    if (c.uid == 0) return;
    throw NoticeFailure(ErrorCode::kForbidden, std::string(op_name(r)) + " is for root; uid " +
                                                   std::to_string(c.uid) + " is not root");
  }
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
    // Which jobs are active is no secret (the jobs query lists them with their users), so a
    // user who mistyped the id hears that it is not active rather than that it is not theirs.
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) {
      throw NoticeFailure(ErrorCode::kUnknownJob,
                          "job " + std::to_string(id.value()) + " is not active", "/job");
    }
    const Job& j = it->second;
    if (j.owner_uid && *j.owner_uid == c.uid) return;
    std::string owner = "its owner";
    if (j.adopted) {
      owner += " (unknown: the controller adopted the job from the switches' entries)";
    } else if (j.owner_uid) {
      owner += " " + j.request.user + " (uid " + std::to_string(*j.owner_uid) + ")";
    } else {
      owner += " " + j.request.user +
               " (whose uid the controller does not know: job_start gave none, and the "
               "controller's host has no such user)";
    }
    throw NoticeFailure(ErrorCode::kForbidden,
                        std::string(op_name(r)) + " for job " + std::to_string(id.value()) +
                            " is for " + owner + ", root or the Slurm user (" + config_.slurm_user +
                            "); uid " + std::to_string(c.uid) + " is none of them",
                        "/job");
  }
  throw NoticeFailure(ErrorCode::kForbidden,
                      std::string(op_name(r)) + " is for root or the Slurm user (" +
                          config_.slurm_user + "); uid " + std::to_string(c.uid) + " is neither");
}

// ---- The view -----------------------------------------------------------------------------

std::shared_ptr<const ControllerView> JobController::view() const {
  std::lock_guard lock(view_mu_);
  return view_;
}

void JobController::publish() {
  auto v = std::make_shared<ControllerView>();
  v->fabric = fabric_;
  v->hosts = host_view_;
  v->sm_state = sm_state_;
  std::uint64_t entries = 0;
  std::erase_if(job_views_, [&](const auto& kv) { return !jobs_.contains(kv.first); });
  for (const auto& [id, j] : jobs_) {
    auto& [version, cached] = job_views_[id];
    if (cached && version == j.version) {
      entries += cached->summary.entries;
      v->jobs.emplace(id, cached);
      continue;
    }
    auto jv = std::make_shared<JobView>();
    JobSummary& s = jv->summary;
    s.job = id;
    s.user = j.request.user;
    s.nodes = j.request.nodes.size();
    s.pattern = j.adopted ? "unknown" : traffic_text(j.request.traffic);
    s.algorithm = j.algorithm;
    s.algorithm_reason = j.ready.algorithm_reason;
    s.phase = j.phase;
    for (const auto& [g, e] : j.entries) {
      s.entries += e.size();
      if (j.lft_switches.contains(g)) s.lft_entries += e.size();
    }
    s.backend = j.adopted ? "flow_table" : std::string(to_string(backend_of(j)));
    s.started_unix_ms = j.started_unix_ms;
    s.lid_offset = j.lid_offset;
    s.degraded = !j.adopted && (j.ready.degraded || !j.routed);
    if (!j.adopted) s.matrix = matrix_counts(j.request.traffic);
    entries += s.entries;
    jv->owner_uid = j.owner_uid;
    jv->entries = j.entries;
    jv->lft_switches = j.lft_switches;
    version = j.version;
    cached = jv;
    v->jobs.emplace(id, std::move(jv));
  }
  if (net_) {
    v->load = net_->load();
    v->swml_flows = net_->swml_flows();
  }
  std::vector<std::pair<std::string, std::uint64_t>> c(counters_.begin(), counters_.end());
  c.emplace_back("jobs_active", jobs_.size());
  c.emplace_back("entries_intended", entries);
  c.emplace_back("switches", fabric_ ? fabric_->subnet.fabric.switches().size() : 0);
  c.emplace_back("switches_unreachable", switches_.unreachable_count());
  c.emplace_back("switches_not_sdn_capable", switches_.incapable().size());
  c.emplace_back("mads_sent", client_.stats().sent);
  c.emplace_back("mads_retransmitted", client_.stats().retransmits);
  c.emplace_back("mads_stray", client_.stats().strays);
  if (net_) c.emplace_back("swml_flows", static_cast<std::uint64_t>(net_->swml_flows()));
  std::sort(c.begin(), c.end());
  v->counters = std::move(c);
  v->version = IBSDN_VERSION;
  std::lock_guard lock(view_mu_);
  view_ = std::move(v);
}

// ---- Helpers ------------------------------------------------------------------------------

const Traffic& JobController::current_traffic(const Job& j) const {
  if (!j.phase.empty()) {
    for (const PhaseDecl& p : j.request.phases) {
      if (p.name == j.phase) return p.traffic;
    }
  }
  return j.request.traffic;
}

JobController::Job& JobController::active_job(JobId id) {
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) {
    throw NoticeFailure(ErrorCode::kUnknownJob,
                        "job " + std::to_string(id.value()) + " is not active", "/job");
  }
  return it->second;
}

JobController::Job& JobController::changeable_job(JobId id) {
  Job& j = active_job(id);
  if (j.adopted) {
    throw NoticeFailure(ErrorCode::kInvalid,
                        "job " + std::to_string(id.value()) +
                            " was adopted from the switches without its traffic; only job_end "
                            "applies to it",
                        "/job");
  }
  return j;
}

std::vector<std::pair<JobId, JobController::Job*>> JobController::ordered_jobs() {
  std::vector<std::pair<JobId, Job*>> out;
  out.reserve(jobs_.size());
  for (auto& [id, j] : jobs_) out.emplace_back(id, &j);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return order_of(a.first, *a.second) < order_of(b.first, *b.second);
  });
  return out;
}

std::vector<std::uint32_t> JobController::usage(std::optional<JobId> except) const {
  std::vector<std::uint32_t> used(fabric_->subnet.fabric.num_nodes(), 0);
  for (const auto& [id, j] : jobs_) {
    if (except && id == *except) continue;
    for (const auto& [g, e] : j.entries) {
      if (j.lft_switches.contains(g)) continue;  // in the LFT: no room taken in a flow table
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
  if (replace && replace->second != nullptr) add(*replace->second);
  return out;
}

std::vector<FlowEntry> JobController::intended(Guid sw) const {
  std::vector<FlowEntry> out;
  for (const auto& [id, j] : jobs_) {
    if (j.lft_switches.contains(sw)) continue;  // in its LFT, not its flow table
    if (const auto it = j.entries.find(sw); it != j.entries.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

Deadline JobController::deadline_from(std::chrono::steady_clock::time_point start) const {
  return Deadline(start + std::chrono::milliseconds(config_.job_start_timeout_ms), &cancel_);
}

}  // namespace ibsdn::plugin
