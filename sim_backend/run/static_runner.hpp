// One run of a scenario under seed 002's static load model (docs/simulation.md, "Running a
// scenario"): the fabric and its default LFTs, the workload's jobs (an SWF trace, a synthetic trace
// or explicit jobs), node allocation at the jobs' start times, each job's pattern, then
// replay_static() for the run's routing, and for any routing but DmodK the same jobs on the same
// nodes again with DmodK: the baseline its SWML and PJML are held against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/subnet.hpp"
#include "sim_backend/replay/static_replay.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

/// The jobs of a workload as the run replays them, before allocation.
struct WorkloadJob {
  std::uint64_t id = 0;  // the trace's job number, or the position in `jobs:` from 1
  std::uint32_t nodes = 0;
  std::uint32_t ranks = 0;  // an explicit job's `ranks`; 0: nodes x the run's ranks_per_node
  double start = 0;
  double end = 0;
  PatternSpec pattern;       // job_pattern() of the run's pattern, or the job's own
  bool own_pattern = false;  // an explicit job's own `pattern`
  /// An explicit job's own `application` (model flow).
  std::optional<ScenarioApplication> application;
  /// An explicit job's own traffic class (model flow); empty: `default`.
  std::string traffic_class;
};

/// What the workload gave, and what became of it.
struct WorkloadCounts {
  std::size_t read = 0;        // jobs in the trace / generated / listed
  std::size_t selected = 0;    // passed seed 002's filters (all of them for explicit jobs)
  std::size_t placed = 0;      // got their nodes at their start time
  std::size_t not_placed = 0;  // too few free nodes then (the trace oversubscribes the hosts)
  std::size_t no_traffic = 0;  // placed, but their traffic could not be built (the status says)
};

/// A step where the routing's SWML exceeds the DmodK baseline's at the same time.
/// A step where the routing is above the baseline in one of the load guard's measures: `swml`
/// and `dmodk` are in that measure (weights, or the busiest link's seconds for its bytes).
struct SwmlExcess {
  double time = 0;
  double swml = 0;
  double dmodk = 0;
  std::string measure{};  // "flows" or "bytes" (plugin::to_string(GuardMeasure))
};

/// Link-load statistics over a set of links (seed 001 Fig. 3's box plots): each link's mean load
/// over the replay (ReplayResult::link_load_seconds / span()).
struct LinkStats {
  std::size_t links = 0;
  double min = 0, q1 = 0, median = 0, mean = 0, q3 = 0, max = 0;
};

struct RunOutcome {
  ScenarioRun run;
  std::string topology;  // as recognize_topology() describes the built fabric
  /// What the LFTs hold (default_tables()): "dmodk" on a fat-tree, "minhop" elsewhere. The
  /// baseline (called DmodK throughout, as in seed 002) is these LFTs.
  std::string lft_routing;
  WorkloadCounts counts;
  std::vector<std::string> job_patterns;  // per replayed job (replay.jobs order), the pattern
  ReplayResult replay;                    // the run's routing
  std::optional<ReplayResult> dmodk;      // the baseline, when the routing is not dmodk
  /// Per job (replay.jobs order): PJML average (jobs with no flows count 0, as in seed 002's
  /// Table II) and maximum, for the routing and the baseline (the routing's own for dmodk).
  double avg_pjml = 0, max_pjml = 0, dmodk_avg_pjml = 0, dmodk_max_pjml = 0;
  /// Switch-to-switch links' mean loads, for the routing and the baseline.
  LinkStats links, dmodk_links;
  /// Where the routing's SWML exceeds the baseline's. The SWML check: must be empty when the
  /// LFTs are DmodK (seed 002's claim on fat-trees); on other fabrics it is reported only.
  std::vector<SwmlExcess> above_dmodk;
};

/// seed 002's delta: how much higher DmodK's figure is than the routing's, in percent of the
/// routing's ((dmodk - sdn) / sdn x 100); 0 when both are 0.
double delta_percent(double dmodk, double sdn);

/// Quartiles by linear interpolation between order statistics (R's type 7), of `values` (sorted
/// here). All zero for no values.
LinkStats link_stats(std::vector<double> values);

/// The workload's jobs for `run`, in workload order, with their patterns; counts.read and
/// counts.selected are filled. Throws std::runtime_error / SwfError for an unreadable trace.
std::vector<WorkloadJob> workload_jobs(const ScenarioRun& run, WorkloadCounts& counts);

/// Each job's nodes at its start time (the run's allocation policy, ends before starts at one
/// time, starts by job id; hosts beyond `topology.hosts` never given out), or nullopt when too
/// few were free.
std::vector<std::optional<std::vector<NodeIdx>>> allocate_workload(
    const ScenarioRun& run, const Fabric& f, const std::vector<WorkloadJob>& jobs);

/// The parts of a run, in the order they run.
enum class RunPart : std::uint8_t {
  kPrepare,   // the fabric, its default LFTs, the workload's jobs and their allocation
  kReplay,    // replay_static() with the run's routing
  kBaseline,  // the baseline replay over the default LFTs (runs whose routing is not dmodk)
  kSummary,   // PJML, link statistics, the SWML check
};

struct RunHooks {
  /// Called after every replayed event of either replay with the events done so far and the
  /// run's total (both replays together); from the thread running the run.
  std::function<void(std::size_t done, std::size_t total)> progress;
  /// Called as each part starts, from the thread running the run: what a benchmark times and
  /// measures the memory of (bench/replay_bench.cpp).
  std::function<void(RunPart)> part;
};

/// Runs one scenario run. Throws std::invalid_argument / std::runtime_error saying what failed
/// (a fabric that cannot be built or routed, an unreadable trace).
/// A run's fabric as the simulated subnet manager holds it: the topology, LIDs in node order, and
/// the default LFTs (default_tables.hpp). Both models start from it.
struct RunFabric {
  Subnet subnet;
  DefaultTables tables;
};
RunFabric build_run_fabric(const ScenarioRun& run);

RunOutcome run_scenario(const ScenarioRun& run, const RunHooks& hooks = {});

}  // namespace ibsdn
