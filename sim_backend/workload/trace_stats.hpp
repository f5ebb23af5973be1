// What a replay's job list looks like as a workload: sizes, span, utilisation and the busiest
// moment (`ibsdn-sim trace summary`; the tests use peak_busy to prove a trace never asks for more
// nodes than the machine has).
#pragma once

#include <cstddef>
#include <vector>

#include "sim_backend/workload/replay_jobs.hpp"

namespace ibsdn {

struct BusyPeak {
  std::size_t nodes = 0;  // most nodes held at once
  double at_s = 0;        // first time that many were held
};

/// Sweeps start and end events in time order, ends before starts at equal times (a job holds
/// its nodes over [start, end)).
BusyPeak peak_busy(const std::vector<TraceJob>& jobs);

struct TraceStats {
  std::size_t jobs = 0;
  std::size_t min_nodes = 0;
  std::size_t median_nodes = 0;  // the lower median
  std::size_t max_nodes = 0;
  double single_node_share = 0;  // share of 1-node jobs
  double first_submit_s = 0;
  double last_submit_s = 0;
  double first_start_s = 0;
  double last_end_s = 0;
  double node_seconds = 0;  // sum of nodes * run time
  /// node_seconds / (system nodes * (last submit - first submit)): the load the jobs bring per
  /// unit of time, what Table I's utilisation measures over a long log (0 when all submit at once).
  double offered_utilisation = 0;
  /// node_seconds / (system nodes * (last end - first start)): how busy the machine is over the
  /// replay, lower than offered on a short trace (the last jobs' tail) or a saturated machine.
  double busy_utilisation = 0;
  BusyPeak peak;
};

/// Statistics of `jobs` on a machine of `system_nodes` nodes (> 0). All zero for no jobs.
TraceStats trace_stats(const std::vector<TraceJob>& jobs, std::size_t system_nodes);

}  // namespace ibsdn
