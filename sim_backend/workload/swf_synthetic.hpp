// Synthetic SWF job traces, for replays where the Parallel Workloads Archive's logs are not at
// hand; presets resemble the three systems of seed 002's Table I (README.md says how and why).
//
// Model (every draw from the seed, bit-identical for the same spec, job count and seed):
// - size: 1 node with probability single_node_share; otherwise log-uniform over
//   [2, max_job_nodes], rounded to the nearest power of two (in log scale, at most max_job_nodes)
//   with probability power_of_two_share, else to the nearest integer.
// - run time: log-normal, exp(ln(run_median_s) + run_sigma * Z), clamped to
//   [run_min_s, run_max_s], whole seconds.
// - submit times: a Poisson process conditioned on the job count (sorted uniform arrivals, the
//   first at 0) over a span T chosen so that the offered utilisation, sum(nodes * run time) /
//   (system_nodes * T), equals `utilisation`.
// - wait times: each job, in submit order, starts at the earliest time >= its submit time at
//   which its nodes are free for its whole run time, given the jobs placed before it
//   (first-come-first-served with conservative backfilling, as in a node-count-only scheduler).
//   So start = submit + wait never has more than system_nodes busy: a replay that allocates at
//   the trace's start times without rescheduling always finds the nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim_backend/workload/swf.hpp"

namespace ibsdn {

struct SyntheticTraceSpec {
  std::string preset;    // the name written into the Note ("" for a hand-made spec)
  std::string computer;  // the header's Computer
  std::size_t system_nodes = 0;
  std::size_t cpus_per_node = 1;  // processors written = nodes * cpus_per_node
  double utilisation = 0.5;       // target offered utilisation, in [0.01, 1]
  double single_node_share = 0.0;
  std::size_t max_job_nodes = 2;  // in [2, system_nodes]
  double power_of_two_share = 0.0;
  double run_median_s = 600;
  double run_sigma = 1.0;
  double run_min_s = 1;
  double run_max_s = 86'400;
};

/// The largest synthetic trace: generation and its schedule stay within seconds and memory.
inline constexpr std::size_t kMaxSyntheticJobs = 1'000'000;

/// The preset names: "curie", "thunder", "atlas".
std::vector<std::string> synthetic_preset_names();
/// A preset by name. Throws std::invalid_argument naming the known ones.
SyntheticTraceSpec synthetic_preset(std::string_view name);

/// Throws std::invalid_argument saying which parameter is out of range.
void validate_synthetic_spec(const SyntheticTraceSpec& spec);

/// A trace of `jobs` jobs (1..kMaxSyntheticJobs) numbered from 1, status 1 (completed), the
/// allocated and requested processors nodes * cpus_per_node, unmodelled fields -1; its header
/// has Version, Computer, MaxJobs, MaxRecords, MaxNodes, MaxProcs and a Note naming the preset,
/// the seed and the model. Throws std::invalid_argument for a bad spec or job count.
SwfTrace generate_synthetic_trace(const SyntheticTraceSpec& spec, std::size_t jobs,
                                  std::uint64_t seed);

}  // namespace ibsdn
