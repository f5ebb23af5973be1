// JobController: the jobs and their intended entries in the state store, and their reload after
// a restart.
#include <exception>

#include "plugin/controller/job_controller.hpp"

namespace ibsdn::plugin {
namespace {

std::string job_text(JobId id) {
  return "job " + std::to_string(id.value());
}

}  // namespace

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

}  // namespace ibsdn::plugin
