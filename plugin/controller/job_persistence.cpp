// JobController: the jobs and their intended entries in the state store, and their reload after
// a restart.
#include <algorithm>
#include <exception>
#include <utility>
#include <vector>

#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"

namespace ibsdn::plugin {

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
  s.lid_offset = j.lid_offset;
  for (const auto& [g, entries] : j.entries) {
    for (const FlowEntry& e : entries)
      s.entries.push_back(IntendedEntry{g, e, j.lft_switches.contains(g)});
  }
  store_->put_job(s);
}

void JobController::unpersist(JobId id) {
  if (store_ == nullptr) return;
  try {
    store_->delete_job(id);
  } catch (const std::exception& e) {
    log(LogCode::kStoreRemoveFailed,
        job_text(id) + ": cannot remove it from the state store: " + e.what());
  }
}

void JobController::reload_before_first_sweep() {
  if (reloaded_ || fabric_ != nullptr) return;
  reload_from_store();
  reloaded_ = true;
  keep_lft_overrides();
  publish();
}

void JobController::reload_from_store() {
  if (store_ == nullptr) return;
  LoadedJobs loaded;
  try {
    loaded = store_->load();
  } catch (const std::exception& e) {
    log(LogCode::kReloadFailed,
        std::string("cannot reload jobs from the state store: ") + e.what());
    return;
  }
  // A job the store cannot read back is kept aside for an operator, and its entries stay on the
  // switches: no audit touches its cookie (docs/operations.md says how to resolve it).
  const auto keep_aside = [&](JobId id, const std::string& why, bool now) {
    quarantined_.add(id.value());
    log(now ? LogCode::kJobQuarantined : LogCode::kJobStaysQuarantined,
        job_text(id) + (now ? " is quarantined in " : " stays quarantined in ") + store_->path() +
            ": " + why + "; its entries stay on the switches until an operator releases it");
  };
  for (const QuarantinedJob& q : loaded.quarantined_now) keep_aside(q.id, q.reason, true);
  for (const QuarantinedJob& q : loaded.quarantined_before) keep_aside(q.id, q.reason, false);
  std::vector<StoredJob>& stored = loaded.jobs;
  for (StoredJob& s : stored) {
    const ParsedRequest parsed = parse_request(s.request);
    if (!parsed.ok() || !std::holds_alternative<JobStartRequest>(parsed.request())) {
      const std::string why =
          "its request is unreadable (" +
          (parsed.ok() ? std::string("not a job_start") : parsed.error().message) + ")";
      try {
        store_->quarantine(s.id, why);
      } catch (const std::exception& e) {
        log(LogCode::kQuarantineFailed, job_text(s.id) + ": cannot quarantine it: " + e.what());
      }
      keep_aside(s.id, why, true);
      continue;
    }
    Job j;
    j.request = std::get<JobStartRequest>(parsed.request());
    j.owner_uid = s.uid;
    j.algorithm = s.algorithm;
    j.adopted = s.algorithm == kAdoptedAlgorithm;
    j.phase = s.phase;
    j.started_unix_ms = s.started_unix_ms;
    j.lid_offset = s.lid_offset;
    for (IntendedEntry& e : s.entries) {
      if (e.in_lft) j.lft_switches.insert(e.switch_guid);
      j.entries[e.switch_guid].push_back(std::move(e.entry));
    }
    jobs_.emplace(s.id, std::move(j));
  }
  // Reloaded jobs take their start order from the clock they started by (then the id).
  std::vector<std::pair<std::pair<std::int64_t, std::uint64_t>, Job*>> by_start;
  for (auto& [id, j] : jobs_) by_start.push_back({{j.started_unix_ms, id.value()}, &j});
  std::sort(by_start.begin(), by_start.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, j] : by_start) j->start_seq = ++start_seq_;
  if (!stored.empty()) {
    log(LogLevel::kInfo,
        "reloaded " + std::to_string(jobs_.size()) + " job(s) from " + store_->path());
  }
}

}  // namespace ibsdn::plugin
