// JobController: the notices that start, end and change jobs (job_start, job_end, phase, hint)
// and the ready answer they give; planning and placing the routes is job_placement.cpp.
#include <algorithm>
#include <exception>
#include <utility>

#include "common/quote_for_message.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/controller/algorithm_pick.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"
#include "routing/algorithm.hpp"

namespace ibsdn::plugin {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

json JobController::ready_answer(const Job& j) const {
  json r = ready_response(j.ready);
  // Which flows do not take the path the algorithm chose, and why (at most 64 listed).
  constexpr std::size_t kListed = 64;
  const Fabric& f = fabric_->subnet.fabric;
  json list = json::array();
  std::map<std::string, std::uint64_t> counts;
  for (std::size_t i = 0; i < j.off_path.size() && i < j.flows.size(); ++i) {
    std::string why;
    switch (j.off_path[i]) {
      case OffPath::kNone:
        continue;
      case OffPath::kShared:
        why = "shared";
        break;
      case OffPath::kFlowLimit:
        why = "flow_limit";
        break;
      case OffPath::kNoEntry:
        why = "no_entry";
        break;
      case OffPath::kGuard:
        why = "load_guard";
        break;
      case OffPath::kSharedDestination:
        why = "shared_destination";
        break;
    }
    ++counts[why];
    if (list.size() >= kListed) continue;
    json e{{"src", f.node(j.flows[i].src).name},
           {"dst", f.node(j.flows[i].dst).name},
           {"reason", why}};
    if ((j.off_path[i] == OffPath::kShared || j.off_path[i] == OffPath::kSharedDestination) &&
        i < j.shared_with.size()) {
      e["job"] = j.shared_with[i].value();
    }
    list.push_back(std::move(e));
  }
  r["off_path"] = std::move(list);
  r["off_path_counts"] = counts;
  return r;
}

json JobController::job_start(const JobStartRequest& r) {
  const auto started = Clock::now();
  if (r.algorithm) {
    std::unique_ptr<RoutingAlgorithm> alg;
    try {
      alg = make_algorithm(*r.algorithm);
    } catch (const std::invalid_argument& e) {
      throw NoticeFailure(ErrorCode::kInvalid, std::string("at /algorithm: ") + e.what(),
                          "/algorithm");
    }
    // Refused here rather than replaced: the configuration's choice stands in only for a running
    // job whose fabric was recabled (pick_algorithm).
    if (const std::string why = alg->unsupported_reason(fabric_->subnet.fabric); !why.empty()) {
      throw NoticeFailure(ErrorCode::kUnroutable,
                          "at /algorithm: " + *r.algorithm + " cannot route this fabric: " + why,
                          "/algorithm");
    }
  }
  if (quarantined_.contains(r.job.value())) {
    throw NoticeFailure(ErrorCode::kInvalid,
                        job_text(r.job) +
                            " is quarantined in the state store (its stored rows "
                            "could not be read); an operator must release it first",
                        "/job");
  }
  if (const auto it = jobs_.find(r.job); it != jobs_.end()) {
    // Slurm may run a prolog twice (requeue, retry): the same notice gets the same answer.
    if (it->second.request.nodes == r.nodes && it->second.request.traffic == r.traffic) {
      return ready_answer(it->second);
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
  j.started_unix_ms = unix_ms_now();
  j.start_seq = ++start_seq_;
  j.nodes = resolve_hosts(fabric_->subnet, *hca_names_, hosts_ ? &*hosts_ : nullptr, r.nodes);
  j.lid_offset = pick_lid_offset(r.job, j);
  if (backend_of(j) == InstallBackend::kDryRun) {
    ++counters_["dry_runs"];
    return dry_run(r.job, j, deadline_from(started));
  }
  // The job joins the registry only once it is placed: a failure leaves no trace of it.
  place(r.job, j, deadline_from(started));
  ++counters_["jobs_started"];
  auto [it, fresh] = jobs_.emplace(r.job, std::move(j));
  guard_load("after " + job_text(r.job) + " started");
  const JobReady& ready = it->second.ready;
  log(LogLevel::kInfo, job_text(r.job) + " (" + r.user + ", " + std::to_string(r.nodes.size()) +
                           " nodes, " + traffic_text(r.traffic) + ", " + it->second.algorithm +
                           "): " + std::to_string(ready.flows) + " flows, " +
                           std::to_string(ready.entries) + " entries, L_D " +
                           std::to_string(ready.max_link_load) + " bound " +
                           std::to_string(ready.bound) + (ready.degraded ? ", DEGRADED" : "") +
                           " in " + std::to_string(ms_since(started)) + " ms");
  return ready_answer(it->second);
}

json JobController::job_end(const JobEndRequest& r) {
  Job& j = active_job(r.job);
  const OrderKey key = order_of(r.job, j);
  std::size_t entries = 0;
  for (const auto& [g, e] : j.entries) entries += e.size();
  const std::size_t switches = j.entries.size();
  const auto failed = remove_entries(r.job, j);
  unpersist(r.job);
  jobs_.erase(r.job);
  ++counters_["jobs_ended"];
  // Later jobs that shared its host pairs or relied on its entries take other paths now.
  reconcile(key, false);
  // Its load is gone: jobs the guard kept on the default routes may fit again.
  restore_guarded();
  guard_load("after " + job_text(r.job) + " ended");
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
  Job& j = changeable_job(r.job);
  Job next = j;
  if (r.action == PhaseAction::kEnd) {
    if (next.phase != r.name) {
      throw NoticeFailure(ErrorCode::kUnknownPhase,
                          "phase " + quote_for_message(r.name) + " of " + job_text(r.job) +
                              " is not active" +
                              (next.phase.empty() ? "" : " (the active one is " + next.phase + ")"),
                          "/name");
    }
    next.phase.clear();
  } else {
    auto decl = std::find_if(next.request.phases.begin(), next.request.phases.end(),
                             [&](const PhaseDecl& p) { return p.name == r.name; });
    if (r.traffic) {
      if (decl != next.request.phases.end()) {
        decl->traffic = *r.traffic;
      } else if (next.request.phases.size() >= kMaxPhases) {
        throw NoticeFailure(ErrorCode::kTooLarge,
                            job_text(r.job) + " has " + std::to_string(kMaxPhases) + " phases",
                            "/name");
      } else {
        next.request.phases.push_back(PhaseDecl{r.name, *r.traffic});
      }
    } else if (decl == next.request.phases.end()) {
      throw NoticeFailure(ErrorCode::kUnknownPhase,
                          "phase " + quote_for_message(r.name) + " was not declared in " +
                              job_text(r.job) + "'s job_start; give its pattern or matrix",
                          "/name");
    }
    next.phase = r.name;
  }
  place(r.job, next, deadline_from(Clock::now()));
  j = std::move(next);
  ++counters_["phase_changes"];
  reconcile(order_of(r.job, j), false);
  guard_load("after " + job_text(r.job) + "'s phase change");
  return ready_answer(j);
}

json JobController::hint(const HintRequest& r) {
  Job& j = changeable_job(r.job);
  Job next = j;
  // The notice replaces the job's elephant pairs (docs/notice-protocol.md); [] clears them.
  next.request.elephants = r.elephants;
  place(r.job, next, deadline_from(Clock::now()));
  j = std::move(next);
  ++counters_["hints"];
  reconcile(order_of(r.job, j), false);
  guard_load("after " + job_text(r.job) + "'s hint");
  return ready_answer(j);
}

}  // namespace ibsdn::plugin
