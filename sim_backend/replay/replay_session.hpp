// The replay's fabric driven online: jobs start and end one call at a time, at times the caller
// gives, and after every call each running job's flows are traced as the fabric carries them.
// replay_static (static_replay.hpp) runs a whole trace through one session; the flow-level timing
// model (controller_routes.hpp) drives one itself, as job end times are known only while it
// simulates.
//
// Routing `dmodk` is the fabric without the controller: every flow follows the LFTs. Any other
// routing runs the real controller (plugin/controller JobController, the code inside opensm)
// over an in-memory switchboard of the agents' logic (switchboard.hpp): start_job sends job_start
// (routing on top of the running jobs' load, entries within each switch's table capacity,
// FlowMods and barriers), end_job sends job_end. Where the controller puts a job's entries is the
// install backend (ReplayOptions::install_backend): the switches' flow tables, or their LFTs
// (replay_lfts.hpp), which it writes block by block. Either way a job's paths come from tracing
// its host-pair flows through the LFTs as written and the flow tables the switches hold, as
// packets go.
//
// The controller moves running jobs of its own accord: its load guard (plugin/controller/
// job_guard.cpp) re-routes a job, falls back to its default routes or restores its own routes
// when another job's start or end changed the load. Such a job's published view changes; the
// session traces it again and lists it in take_changed(), so that a timing model can move the
// job's running flows onto its new paths. Entries match packet headers (SLID / DLID ...), not
// jobs: when running jobs share nodes, one job's entries can steer another's flows between the
// same hosts, whose view does not change, and that job's paths go stale until it is traced again.
// Give running jobs distinct nodes, as a scheduler does (replay_static keeps this behaviour,
// `ibsdn-sim paths` accepts jobs that share nodes).
//
// Contract:
// - Times never go back: a start or end before the latest time given is refused.
// - Bad input is std::invalid_argument naming the job, thrown before anything changes: the
//   session stays usable. std::runtime_error (a flow the LFTs and entries do not deliver: a
//   broken fabric or controller) leaves the session inconsistent: drop it.
// - Work per call: building and tracing the job's flows (flows x hops), the controller's
//   job_start / job_end (its own bounds: job_start_timeout_ms), tracing again the jobs the
//   controller moved, and one look per running job at whether its view changed.
// - `subnet` and `lfts` must outlive the session; references to a running job (job(),
//   start_job()) stay valid until it ends, their paths change only as take_changed() reports.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "flowtable/install_backend.hpp"
#include "flowtable/match.hpp"
#include "plugin/controller/load_guard.hpp"
#include "plugin/notice/request.hpp"
#include "routing/lft.hpp"
#include "routing/link_load.hpp"
#include "routing/subnet.hpp"

namespace ibsdn {

namespace plugin {
class JobController;
struct JobView;
}  // namespace plugin
class Switchboard;
class ReplayLfts;

struct ReplayJob {
  std::uint64_t id = 0;        // the controller's job id: distinct over the trace
  double start = 0;            // seconds
  double end = 0;              // seconds, >= start (replay_static only: a session is told)
  std::vector<NodeIdx> nodes;  // its HCAs in rank-placement order, distinct
  Traffic traffic;             // a pattern (seeded by the job id) or a traffic matrix
  /// The job's routing algorithm when not the replay's (ReplayOptions::routing), as an operator
  /// overrides it for one job (job_start's `algorithm`); needs a routing other than dmodk.
  std::string algorithm;
};

/// How the fabric routes jobs: the controller's configuration and how ranks become flows.
struct ReplayOptions {
  /// "dmodk": the LFTs alone; "auto": the controller's default (the notices name no algorithm:
  /// on fat-trees sdn-volume or sdn-optimal by each job's traffic); otherwise an algorithm the
  /// controller knows (sdn-greedy, ...).
  std::string routing = "dmodk";
  std::uint32_t table_capacity = 4096;
  /// What a flow entry matches (the controller's flow_definition_level).
  FlowDefinitionLevel flow_level = FlowDefinitionLevel::kSlidDlid;
  /// The controller's load_guard: its SWML at most the LFTs' for the same jobs at every step.
  bool load_guard = true;
  /// Where the controller installs a job's routes (its install_backend): `flow_table`, per-flow
  /// entries in the switches' flow tables (table_capacity each, misses fall back to the LFT);
  /// `lft`, destination entries in the switches' LFTs (routed with RouteRequest::per_destination
  /// where the algorithm honours it; no capacity; fat-trees only); `auto`, flow tables where an
  /// agent answers, which every switch of the switchboard does. Not `dry_run`, which installs
  /// nothing (routing dmodk replays the LFTs' routes).
  InstallBackend install_backend = InstallBackend::kAuto;
  std::optional<std::uint32_t> ranks_per_node;  // default: the nodes' GPU count, or 1
  Mapping mapping = Mapping::kBlock;
};

/// A running job as the fabric carries it.
struct SessionJob {
  std::uint64_t id = 0;
  double start = 0;
  /// "ok"; "degraded" (some flows could not get entries and follow the LFTs); why the controller
  /// refused it ("refused: ...", the job then runs on the LFTs); or "no traffic: ..." when its
  /// traffic does not fit its nodes (it has no flows). Set at its start.
  std::string status = "ok";
  std::size_t entries = 0;    // flow entries the controller installed for it at its start
  std::vector<Flow> flows;    // host-pair flows
  std::vector<Path> paths;    // per flow, as traced now
  std::vector<LinkId> links;  // every link its flows cross, once, ascending
  std::string algorithm{};    // what the controller routed it with (empty: none did)
};

/// The controller's load guard so far (0 without a controller): jobs re-routed, moved to the
/// default routes, and given their own routes again.
struct GuardCounts {
  std::uint64_t reroutes = 0;
  std::uint64_t fallbacks = 0;
  std::uint64_t restores = 0;
};

/// Throws std::invalid_argument naming the job when it cannot run under `routing`: id 0, an
/// own algorithm with dmodk or one the controller does not know, an id in `taken`, a node beyond
/// the fabric, not an HCA or given twice. `seen` has a flag per fabric node, all false, and is
/// left so.
void check_replay_job(const Fabric& f, const ReplayJob& job, const std::string& routing,
                      const std::set<std::uint64_t>& taken, std::vector<bool>& seen);

class ReplaySession {
 public:
  /// Throws std::invalid_argument for a routing the controller does not know, install backend
  /// dry_run, and install backend lft on a fabric that is not a fat-tree (the controller would
  /// refuse every job: its LFT entries keep routes shortest up*/down* paths, deadlock-free).
  ReplaySession(const Subnet& subnet, const LftSet& lfts, const ReplayOptions& options);
  ~ReplaySession();
  ReplaySession(const ReplaySession&) = delete;
  ReplaySession& operator=(const ReplaySession&) = delete;

  /// Starts `job` at job.start (job.end is not read): job_start through the controller, then its
  /// flows traced. Throws std::invalid_argument naming the job for what check_replay_job refuses,
  /// an id started before in this session (running or ended), or a start before now(). A job the
  /// controller refuses, or whose entries did not all fit, runs all the same: its traffic takes
  /// the default routes where it has no entries. Jobs the controller moved meanwhile: take_changed.
  const SessionJob& start_job(const ReplayJob& job);
  /// Ends running job `id` at `time`: its load leaves the fabric, job_end through the
  /// controller. Throws std::invalid_argument naming the job when it is not running, or for a
  /// time before its start or before now().
  void end_job(std::uint64_t id, double time);

  /// The running jobs whose paths changed since the last call (a job's own start is no change),
  /// ascending; jobs that ended meanwhile are left out. At most one entry per running job.
  [[nodiscard]] std::vector<std::uint64_t> take_changed();

  /// Running job `id`; throws std::invalid_argument naming the job when it is not running.
  [[nodiscard]] const SessionJob& job(std::uint64_t id) const;
  [[nodiscard]] bool running(std::uint64_t id) const { return running_.contains(id); }
  [[nodiscard]] std::size_t running_count() const { return running_.size(); }
  /// The latest time given (-infinity before any call).
  [[nodiscard]] double now() const { return now_; }

  /// Every running job's static load per directed link (seed 002's weights, flows, volumes).
  [[nodiscard]] const LinkLoad& load() const { return load_; }
  /// The load of the running jobs the controller's load guard compares in `m`
  /// (plugin/controller/load_guard.hpp: bytes for jobs whose flows' volumes differ, seed 002's
  /// weights for the others).
  [[nodiscard]] const LinkLoad& guard_load(plugin::GuardMeasure m) const {
    return guard_loads_[static_cast<std::size_t>(m)];
  }
  /// The largest load (weight) on any link running job `id`'s flows cross.
  [[nodiscard]] double job_max_load(std::uint64_t id) const;
  /// The data plane: at a switch, the port of the flow entry a packet matches, else the port of
  /// the LFT entry the controller wrote for its DLID; none where the default LFT decides (always
  /// none for dmodk). For tracing further flows through the default LFTs as the fabric would
  /// carry them; valid while the session lives.
  [[nodiscard]] ForwardingOverride forwarding() const { return forwarding_; }

  /// MADs the controller sent, flow entries the switches hold now, LFT blocks the controller
  /// wrote so far and LFT entries that differ from the default tables now, the load guard's moves.
  [[nodiscard]] std::uint64_t mads() const;
  [[nodiscard]] std::size_t entries() const;
  [[nodiscard]] std::size_t lft_blocks() const;
  [[nodiscard]] std::size_t lft_entries() const;
  [[nodiscard]] GuardCounts guard() const;

 private:
  struct Running {
    SessionJob job;
    std::shared_ptr<const plugin::JobView> view;  // the controller's, when it knows the job
  };

  void trace_job(Running& r);
  void unload(const SessionJob& j);
  void retrace_moved(std::optional<std::uint64_t> except);
  [[nodiscard]] std::uint64_t counter(std::string_view name) const;

  const Subnet& subnet_;
  const LftSet& lfts_;
  ReplayOptions options_;
  LinkLoad load_;
  std::array<LinkLoad, 2> guard_loads_;  // by plugin::GuardMeasure
  std::unique_ptr<Switchboard> board_;
  std::unique_ptr<ReplayLfts> lft_;
  std::unique_ptr<plugin::JobController> controller_;
  ForwardingOverride forwarding_;
  std::map<std::uint64_t, Running> running_;
  std::set<std::uint64_t> started_;  // every id started: ids are distinct over a session
  std::set<std::uint64_t> changed_;
  std::vector<bool> seen_;  // per fabric node, for check_replay_job
  double now_ = -std::numeric_limits<double>::infinity();
};

}  // namespace ibsdn
