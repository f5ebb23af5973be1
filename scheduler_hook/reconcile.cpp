#include "scheduler_hook/reconcile.hpp"

#include <algorithm>
#include <iterator>

#include "plugin/notice/client/notice_client.hpp"
#include "plugin/notice/request.hpp"
#include "scheduler_hook/job_records.hpp"

namespace ibsdn::slurm_hook {
namespace {

// Reconcile reads at most this many notes: the directory holds one per running job.
constexpr std::size_t kMaxRecords = 1'000'000;

std::string join(const std::vector<std::uint64_t>& ids, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < max; ++i) {
    out += (i == 0 ? "" : " ") + std::to_string(ids[i]);
  }
  if (ids.size() > max) out += " ...";
  return out;
}

}  // namespace

ReconcilePlan plan_reconcile(const std::set<std::uint64_t>& controller,
                             const std::set<std::uint64_t>& slurm,
                             const std::set<std::uint64_t>& records) {
  ReconcilePlan p;
  std::set_difference(controller.begin(), controller.end(), slurm.begin(), slurm.end(),
                      std::back_inserter(p.end));
  std::vector<std::uint64_t> wanted;
  std::set_intersection(records.begin(), records.end(), slurm.begin(), slurm.end(),
                        std::back_inserter(wanted));
  std::set_difference(wanted.begin(), wanted.end(), controller.begin(), controller.end(),
                      std::back_inserter(p.missing));
  std::set_difference(records.begin(), records.end(), slurm.begin(), slurm.end(),
                      std::back_inserter(p.stale_records));
  return p;
}

int run_reconcile(const HookConfig& config, const SlurmJobsSource& slurm_jobs, HookLog& log) {
  const Reply listed =
      call_controller(config.socket, request_to_json(JobsQuery{}).dump(), call_limits(config));
  if (listed.status != Reply::Status::kOk) {
    log.error("reconcile: cannot list the controller's jobs: " +
              (listed.status == Reply::Status::kControllerError
                   ? listed.error_code + ": " + listed.message
                   : listed.message));
    return 1;
  }
  std::set<std::uint64_t> controller;
  const auto jobs = listed.response.find("jobs");
  if (jobs == listed.response.end() || !jobs->is_array()) {
    log.error("reconcile: the controller's jobs answer has no \"jobs\" array");
    return 1;
  }
  for (const auto& j : *jobs) {
    const auto id = j.find("job");
    if (!j.is_object() || id == j.end() || !id->is_number_unsigned()) {
      log.error("reconcile: the controller's jobs answer lists a job without an id: " + j.dump());
      return 1;
    }
    controller.insert(id->get<std::uint64_t>());
  }

  const SlurmJobs slurm = slurm_jobs();  // after the controller's list: see plan_reconcile()
  if (!slurm.jobs) {
    log.error("reconcile: cannot list Slurm's jobs: " + slurm.error + "; nothing ended");
    return 1;
  }
  std::set<std::uint64_t> records;
  for (const auto& [job, traffic] : read_job_records(config.state_dir, kMaxRecords)) {
    records.insert(job);
  }

  const ReconcilePlan plan = plan_reconcile(controller, *slurm.jobs, records);
  int status = 0;
  std::size_t sent = 0;
  for (const std::uint64_t job : plan.end) {
    if (sent == config.reconcile_max_ends) {
      log.warning("reconcile: " + std::to_string(plan.end.size() - sent) +
                  " more jobs to end, left for the next run (ReconcileMaxEnds=" +
                  std::to_string(config.reconcile_max_ends) + ")");
      break;
    }
    ++sent;
    const Reply r = call_controller(
        config.socket, request_to_json(JobEndRequest{JobId(job)}).dump(), call_limits(config));
    if (r.status == Reply::Status::kOk) {
      log.warning("reconcile: job " + std::to_string(job) + " no longer runs in Slurm: ended, " +
                  r.response.value("entries_removed", nlohmann::json(0)).dump() +
                  " entries removed (its epilog did not end it)");
    } else if (r.status == Reply::Status::kControllerError && r.error_code == "unknown_job") {
      log.info("reconcile: job " + std::to_string(job) + " ended meanwhile");
    } else {
      log.error("reconcile: job " + std::to_string(job) + " no longer runs in Slurm: job_end: " +
                (r.status == Reply::Status::kControllerError ? r.error_code + ": " + r.message
                                                             : r.message));
      status = 1;
    }
  }
  if (!plan.missing.empty()) {
    log.warning("reconcile: " + std::to_string(plan.missing.size()) +
                " running jobs asked for SDN routes the controller does not have (their prolog "
                "failed open, or the controller lost them); they run on the default routes: " +
                join(plan.missing, 32));
  }
  for (const std::uint64_t job : plan.stale_records) {
    if (const std::string why = remove_job_record(config.state_dir, job); !why.empty()) {
      log.warning("reconcile: " + why);
    }
  }
  // Every minute: a run that changed nothing is only worth a debug line.
  log.log(sent == 0 && plan.missing.empty() && status == 0 ? LogLevel::kDebug : LogLevel::kInfo,
          "reconcile: " + std::to_string(controller.size()) + " controller jobs, " +
              std::to_string(slurm.jobs->size()) + " Slurm jobs, " + std::to_string(sent) +
              " ended, " + std::to_string(plan.missing.size()) + " missing");
  return status;
}

}  // namespace ibsdn::slurm_hook
