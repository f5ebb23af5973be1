// The jobs of an SWF trace that a replay runs, chosen as seed 002 IV.A.1 does, with their node
// counts and start / end times.
//
// Seed 002 removes "jobs that had run times of 0, were canceled while waiting in the queue (status
// value of -1), or requested more than the number of nodes in the system", then takes the first
// 1000 jobs. Implemented as written: status -1 is dropped. In SWF 2.2, -1 means "unknown" and 5
// means "cancelled"; a job cancelled while waiting has run time 0 or -1 and is dropped by the
// run-time filter whatever its status, while a job cancelled while running (status 5 with a run
// time) did occupy its nodes and is kept. Two more filters drop what a replay cannot place: a job
// with no processor count, and one with an unknown submit or wait time (no start time).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "flowtable/types.hpp"
#include "sim_backend/workload/swf.hpp"

namespace ibsdn {

struct ReplayFilter {
  std::size_t system_nodes = 0;   // jobs needing more are dropped; > 0
  std::size_t cpus_per_node = 0;  // processors per node, to turn processors into nodes; > 0
  std::size_t first = 0;          // keep only the first N jobs that pass (0: all)
};

/// A job as the replay sees it. It holds its nodes over [start_s, end_s): a job ending at t and
/// one starting at t never overlap.
struct TraceJob {
  JobId id{};
  std::size_t nodes = 0;  // ceil(allocated processors / CPUs per node), >= 1
  double submit_s = 0;
  double start_s = 0;    // submit + wait
  double end_s = 0;      // start + run time
  std::size_t line = 0;  // the trace line
};

/// How many jobs each filter dropped, counted under the first filter a job fails in the order
/// listed; `read` = every dropped count + `beyond_first` + `kept`.
struct ReplayCounts {
  std::size_t read = 0;
  std::size_t no_run_time = 0;     // run time 0 or -1
  std::size_t status_unknown = 0;  // status -1 (seed 002's "cancelled while waiting")
  std::size_t no_size = 0;         // allocated and requested processors both -1, or 0
  std::size_t too_large = 0;       // more nodes than the system
  std::size_t no_start = 0;        // submit or wait time -1
  std::size_t beyond_first = 0;    // passed every filter after the first N were taken
  std::size_t kept = 0;
};

struct ReplaySelection {
  std::vector<TraceJob> jobs;  // in trace order (by submit time), not by start time
  ReplayCounts counts;
};

/// Nodes a job holds: ceil(allocated processors / CPUs per node), or the requested processors
/// when the allocation is unknown (-1); nullopt when both are unknown or zero.
std::optional<std::size_t> job_nodes(const SwfJob& job, std::size_t cpus_per_node);

/// Applies seed 002's filters and the first-N cut. Throws std::invalid_argument when the
/// filter's system_nodes or cpus_per_node is 0.
ReplaySelection select_replay_jobs(const SwfTrace& trace, const ReplayFilter& filter);

/// CPUs per node from the header, MaxProcs / MaxNodes, when both are known and divide evenly.
std::optional<std::size_t> header_cpus_per_node(const SwfHeader& header);

}  // namespace ibsdn
