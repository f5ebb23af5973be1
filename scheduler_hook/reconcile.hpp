// Reconciliation of the controller's jobs with Slurm's (systemd timer, every minute): a missed
// epilog (failed open, controller down or restarted during a job end) leaves a job's entries on
// the switches until this ends it. The decision is a pure function of three lists, so it is
// tested without Slurm or a controller.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scheduler_hook/hook_config.hpp"
#include "scheduler_hook/hook_log.hpp"

namespace ibsdn::slurm_hook {

struct ReconcilePlan {
  /// Controller jobs Slurm no longer runs: job_end each.
  std::vector<std::uint64_t> end;
  /// Jobs Slurm runs, the prolog asked routes for, and the controller does not know: reported.
  std::vector<std::uint64_t> missing;
  /// Prolog notes of jobs Slurm no longer runs (their epilog did not remove them): deleted.
  std::vector<std::uint64_t> stale_records;
};

/// `controller` must be read before `slurm`: a job the controller lists was started by a prolog,
/// so Slurm lists it unless it has ended since. Read the other way round, a job starting between
/// the two reads would be ended.
ReconcilePlan plan_reconcile(const std::set<std::uint64_t>& controller,
                             const std::set<std::uint64_t>& slurm,
                             const std::set<std::uint64_t>& records);

/// Slurm's running jobs, or none with a message (why) when Slurm could not be asked in time.
struct SlurmJobs {
  std::optional<std::set<std::uint64_t>> jobs;
  std::string error;
};
using SlurmJobsSource = std::function<SlurmJobs()>;

/// Runs one reconciliation: the controller's `jobs`, then `slurm_jobs()`, then job_end for each
/// job to end (at most ReconcileMaxEnds, each within TimeoutMs). Returns 0 when everything was
/// read and every job_end answered, 1 otherwise. Nothing is ended when either list is missing.
int run_reconcile(const HookConfig& config, const SlurmJobsSource& slurm_jobs, HookLog& log);

}  // namespace ibsdn::slurm_hook
