// One run of a scenario under the flow-level timing model (`model: flow`,
// docs/simulation-timing.md): the fabric and its default LFTs, the workload's jobs and their
// allocation as the static model has them (static_runner.hpp), each job's application program,
// then simulate_timing() (timing_sim.hpp) with the run's routing; with another routing the same
// jobs on the same nodes once more with the baseline routing (timing.baseline: the speedup column),
// and with timing.alone every job once by itself (the slowdown column).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim_backend/run/static_runner.hpp"
#include "sim_backend/scenario/scenario.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

/// A placed job of a flow run.
struct FlowJob {
  std::uint64_t id = 0;
  std::string application;  // the application's canonical text
  std::uint32_t nodes = 0;
  std::uint32_t ranks = 0;
  /// Its index in FlowOutcome::result.jobs (and baseline's), or none when it could not run (its
  /// program does not fit its ranks): `status` says why.
  std::optional<std::size_t> sim;
  std::string status;                     // when not simulated: "not run: why"
  std::optional<double> alone_total;      // timing.alone: its total time by itself
  std::string traffic_class = "default";  // its class's name (timing.classes)
  bool background = false;                // timing.background's job: never run alone
};

struct FlowOutcome {
  ScenarioRun run;
  std::string topology;       // as recognize_topology() describes the built fabric
  std::string lft_routing;    // what the default LFTs are: dmodk, minhop
  WorkloadCounts counts;      // no_traffic: placed jobs whose program could not be built
  std::vector<FlowJob> jobs;  // placed jobs, in workload order
  TimingResult result;        // the run's routing
  /// timing.baseline's run on the same jobs and nodes, when it is not the run's routing.
  std::optional<TimingResult> baseline;
  /// Per network link (LinkId order): "FROM:PORT->TO:PORT" and bytes per second.
  std::vector<std::string> link_names;
  std::vector<double> link_bandwidth;

  /// The baseline's result (the run's own when its routing is the baseline).
  [[nodiscard]] const TimingResult& reference() const { return baseline ? *baseline : result; }
  /// Job j's speedup: the baseline's communication time over the routing's (1 when both are 0,
  /// inf when only the routing's is 0); nullopt for a job that did not run.
  [[nodiscard]] std::optional<double> speedup(const FlowJob& j) const;
  /// Job j's slowdown: its total time over its total time alone; nullopt without timing.alone.
  [[nodiscard]] std::optional<double> slowdown(const FlowJob& j) const;
};

/// Runs one flow run. Throws std::invalid_argument / std::runtime_error saying what failed (a
/// fabric that cannot be built or routed, an unreadable trace, more than kMaxAloneJobs jobs with
/// timing.alone, a routing the fabric cannot do adaptively).
FlowOutcome run_flow_scenario(const ScenarioRun& run, const RunHooks& hooks = {});

}  // namespace ibsdn
