// PrologSlurmctld and EpilogSlurmctld: a job's environment to job_start / job_end, every wait
// bounded by the configuration, and the exit status Slurm acts on. Fail open by default: any
// failure is logged and the hook exits 0, so the job runs on the default (LFT) routes; with
// Strict=yes it exits 1, and Slurm requeues a batch job or cancels an interactive one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "plugin/notice/request.hpp"
#include "scheduler_hook/hook_config.hpp"
#include "scheduler_hook/hook_log.hpp"

namespace ibsdn::slurm_hook {

/// A variable of the hook's environment, or none (getenv in the program, a map in tests).
using Environment = std::function<std::optional<std::string>(const std::string& name)>;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // only with Strict=yes

/// The job_start request of the job the environment describes, or none when the job has no
/// --sdn-pattern and the configuration no DefaultPattern. Throws std::runtime_error saying
/// which variable is wrong (SLURM_JOB_ID, SLURM_JOB_NODELIST, SPANK_SDN_PATTERN, ...).
std::optional<JobStartRequest> job_start_from_environment(const Environment& env,
                                                          const HookConfig& config);

/// The job id of SLURM_JOB_ID; throws std::runtime_error when missing or malformed.
JobId job_id_from_environment(const Environment& env);

/// PrologSlurmctld: sends job_start and waits for "ready". Returns the exit status.
int run_prolog(const HookConfig& config, const Environment& env, HookLog& log);

/// EpilogSlurmctld: sends job_end for a job the prolog would have sent job_start for.
int run_epilog(const HookConfig& config, const Environment& env, HookLog& log);

}  // namespace ibsdn::slurm_hook
