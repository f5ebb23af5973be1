// The static load model of seed 002 IV.A.5-6 over a job trace: each communication (s, d) of a
// job carries w(s,d) = min(1/s_out, 1/d_in) on every link of its path, a link's load is the sum
// over the flows crossing it, and the network changes only when a job starts or ends (2M events
// for M jobs). SWML: the largest link load over the fabric after each event; PJML: per job, the
// largest load on any link its flows cross, over its lifetime (other jobs' load included).
//
// The events go through one ReplaySession (replay_session.hpp) in time order: routing `dmodk` is
// the fabric as it is without the controller, every flow following the LFTs; any other routing
// runs the real controller over an in-memory switchboard of the agents' logic. Either way the
// loads come from tracing every flow through the LFTs and the flow tables the switches hold, as
// packets go: what the fabric would carry, not what an algorithm intended.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "routing/lft.hpp"
#include "routing/subnet.hpp"
#include "sim_backend/replay/replay_session.hpp"

namespace ibsdn {

/// A session's options (routing, tables, the guard, rank placement), and how a replay reports.
struct ReplayConfig : ReplayOptions {
  /// Called after each event with how many are done and how many there are.
  std::function<void(std::size_t done, std::size_t total)> progress;
  /// Called whenever a job's flows are traced (at its start, and again when the controller
  /// re-routes it): the host-pair flows and the path each takes through LFTs and flow tables.
  std::function<void(std::uint64_t job, std::span<const Flow> flows, std::span<const Path> paths)>
      traced;
};

/// The SWML from `time` until the next step.
struct SwmlStep {
  double time = 0;
  double swml = 0;
  std::size_t active_jobs = 0;
  /// What the controller's load guard compares (plugin/controller/load_guard.hpp): the SWML of
  /// the jobs it measures in seed 002's weights, and the busiest link's time (seconds) for the
  /// bytes of the jobs whose flows' volumes differ.
  double guard_swml{};
  double guard_seconds{};
};

struct ReplayedJob {
  std::uint64_t id = 0;
  double start = 0;
  double end = 0;
  std::size_t nodes = 0;
  std::size_t flows = 0;    // host-pair flows traced
  std::size_t entries = 0;  // entries the controller installed for it (flow table and LFT)
  double pjml = 0;
  /// "ok"; "degraded" (some flows could not get entries and follow the LFTs); or why the
  /// controller refused it ("refused: ..."), the job then runs on the LFTs.
  std::string status = "ok";
  std::string algorithm{};  // what the controller routed it with (empty: none did)
};

struct ReplayResult {
  std::vector<SwmlStep> swml;     // one step per event time
  std::vector<ReplayedJob> jobs;  // in the order given
  double max_swml = 0;
  std::uint64_t mads = 0;        // MADs the controller sent
  std::size_t peak_entries = 0;  // the most flow entries the switches held at once
  /// The LFT backend: 64-entry blocks the controller wrote (job starts, ends and re-routes), and
  /// the most LFT entries that differed from the default tables at once.
  std::size_t lft_blocks = 0;
  std::size_t peak_lft_entries = 0;
  /// What the controller's load guard did (plugin/controller/job_guard.cpp): jobs re-routed,
  /// moved to the default routes, and given their own routes again.
  std::uint64_t guard_reroutes = 0;
  std::uint64_t guard_fallbacks = 0;
  std::uint64_t guard_restores = 0;
  /// Per directed link (LinkId order): its load integrated over time, in load x seconds, from
  /// the first event to the last. Divided by span(), the link's mean load over the replay.
  std::vector<double> link_load_seconds;
  [[nodiscard]] double span() const {
    return swml.empty() ? 0.0 : swml.back().time - swml.front().time;
  }
};

/// Replays `jobs` (any order; events at equal times: ends first, then starts, by job id) on
/// `subnet` whose switches hold `lfts`. Throws std::invalid_argument naming the job for a job
/// that ends before it starts, an id given twice, a node beyond the fabric or given twice, or a
/// routing the controller does not know; std::runtime_error when a flow cannot be traced (the
/// LFTs or entries do not deliver it). Also throws std::invalid_argument for a job's own
/// algorithm that the controller does not know, or any when the routing is dmodk.
ReplayResult replay_static(const Subnet& subnet, const LftSet& lfts,
                           std::span<const ReplayJob> jobs, const ReplayConfig& config);

}  // namespace ibsdn
