// The prolog's notes of the jobs it asked routes for: one file per job in StateDir, named by the
// job id and holding the traffic text, removed by the epilog. Reconcile reports a running job
// with a note the controller does not know (the prolog failed open, or the controller lost it),
// which it cannot learn from Slurm: slurm_load_jobs() does not carry the SPANK variables.
// Best effort: a note that cannot be written is logged, never a reason to hold a job.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ibsdn::slurm_hook {

/// Writes StateDir/JOB (creating StateDir, mode 0750, when missing). Empty string or why not.
std::string write_job_record(const std::string& state_dir, std::uint64_t job,
                             const std::string& traffic);
/// Removes StateDir/JOB; a missing file is not an error. Empty string or why not.
std::string remove_job_record(const std::string& state_dir, std::uint64_t job);
/// The notes: job id -> traffic text (at most `max` of them; files not named by a job id are
/// ignored). A missing StateDir has none.
std::map<std::uint64_t, std::string> read_job_records(const std::string& state_dir,
                                                      std::size_t max);

}  // namespace ibsdn::slurm_hook
