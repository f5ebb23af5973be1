// The jobs Slurm runs, read with libslurm's slurm_load_jobs() in a child process that is killed
// at a deadline: libslurm's own waits (MessageTimeout, retries to a backup slurmctld) are not
// bounded by the caller, and reconcile must end.
#pragma once

#include <chrono>

#include "scheduler_hook/reconcile.hpp"

namespace ibsdn::slurm_hook {

/// Jobs that may hold routes: running, suspended, configuring (in their prolog) or completing
/// (their epilog is pending). A pending job has none, nor has a finished one.
SlurmJobs load_slurm_jobs(std::chrono::milliseconds timeout);

}  // namespace ibsdn::slurm_hook
