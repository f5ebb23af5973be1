// The SDN controller's job logic (seed 002 III.E): job notices in, flow entries on the switches
// out, state that survives restarts.
//
// job_start: hosts -> HCAs, traffic -> flows (bounded before anything is built), routing on top
// of every active job's load, the compiler's entries within each switch's capacity, recorded in
// the state store, then installed make-before-break with barriers. A switch that fails (no
// answer, table full) is excluded and the job recompiled without it, so its flows take default
// routes there instead of half-installed paths; the reply says so ("degraded"). job_end removes
// the job's entries by cookie. Phases and hints re-route the job and install only the difference.
//
// Jobs that overlap (Slurm's shared nodes, job steps, heterogeneous jobs) never fight over an
// entry (docs/routing.md, "Overlapping jobs"): the jobs are ordered by their start; a host pair
// that an earlier job carries is routed on that job's path (the later job adds its load, no
// entries); a job's destination-wide entry is used only where it diverts no other job's traffic
// and no other job holds the same one, otherwise per-pair entries; so the controller never
// intends two entries with the same match and priority on one switch, and a job's entries never
// move another job's traffic. When a job's entries go or change, the later jobs whose traffic
// moved are re-routed.
//
// Every placement is a transaction: routed, compiled and traced first; then the intent is
// stored and the switches changed; a failure at any step leaves the jobs, the store and the
// switches as they were before the notice.
//
// Every SUBNET UP re-validates the jobs on the new fabric (re-routing those whose paths changed
// or broke) and audits every switch, repairing what differs; the first one also reloads the jobs
// from the store (an opensm restart). A periodic TableInfo round finds switches whose entry
// count or table generation is not the one the controller left (an agent restarted empty, an
// entry rewritten in place) and repairs them.
//
// Not thread-safe: the controller thread calls everything. MAD exchanges block that thread (for
// at most the configured timeouts), never OpenSM's. What queries need is published after every
// change as an immutable ControllerView, which other threads read (controller_view.hpp).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mad/mad_client.hpp"
#include "plugin/controller/config.hpp"
#include "plugin/controller/controller_view.hpp"
#include "plugin/controller/host_map.hpp"
#include "plugin/controller/job_flows.hpp"
#include "plugin/controller/lft_access.hpp"
#include "plugin/controller/load_guard.hpp"
#include "plugin/controller/log_codes.hpp"
#include "plugin/controller/quarantined_cookies.hpp"
#include "plugin/controller/state_store.hpp"
#include "plugin/controller/switch_registry.hpp"
#include "plugin/notice/notice.hpp"
#include "routing/deadline.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/network_state.hpp"
#include "routing/subnet.hpp"

namespace ibsdn::plugin {

/// The uid of a local user (getpwnam_r); nullopt when there is none.
std::optional<std::uint32_t> uid_of_user(const std::string& user);

class JobController {
 public:
  using Log = std::function<void(LogLevel, const std::string&)>;
  /// OpenSM's vendor layer matches answers on the low 32 bits of the TID: ours stay apart.
  static constexpr std::uint32_t kTidBase = 0x5E000000u;

  /// `store` may be null (nothing persists); `slurm_uid` is the uid besides root allowed to
  /// start and end jobs (none: root only); `lft` reaches the switches' LFTs (null: no LFT
  /// backend, install_backend `lft` is refused and `auto` uses flow tables only).
  JobController(Config config, std::optional<HostMap> hosts, StateStore* store,
                mad::MadTransport& transport, Log log, std::optional<std::uint32_t> slurm_uid,
                LftAccess* lft = nullptr);

  /// A SUBNET UP (see the header comment).
  void fabric_updated(FabricSnapshot snapshot);
  /// One notice; the response to send back. Never throws.
  nlohmann::json handle(const Request& request, const Caller& caller) noexcept;
  /// The periodic TableInfo check and repair (config.audit_interval_ms).
  void periodic_check();

  /// The state queries read, as of the last completed change. Any thread.
  [[nodiscard]] std::shared_ptr<const ControllerView> view() const;
  /// Makes every running and later routing step stop at its next deadline check (shutdown).
  void cancel() { cancel_.store(true); }

  /// OpenSM's SM state, given before every event (the plugin asks the glue): only a master's
  /// controller acts on the switches. `other_master_seen`: OpenSM was STANDBY or NOT ACTIVE since
  /// the last call, so another SM may have changed the switches (job_takeover.cpp).
  void set_sm_state(bool master, bool other_master_seen, const std::string& state);
  [[nodiscard]] bool is_master() const { return master_; }

  /// The algorithm and user name an adopted job is stored with.
  static constexpr const char* kAdoptedAlgorithm = "adopted";
  static constexpr const char* kAdoptedUser = "adopted";

  [[nodiscard]] bool has_fabric() const { return fabric_ != nullptr; }
  /// Before OpenSM's first sweep: reloads the stored jobs and hands their LFT entries to the
  /// routing engine, so that a restarted opensm writes them with its first tables instead of the
  /// defaults (the engine leaves out an entry that no longer delivers; the jobs are re-routed at
  /// the first SUBNET UP, which then reloads nothing).
  void reload_before_first_sweep();
  [[nodiscard]] std::size_t active_jobs() const { return jobs_.size(); }

 private:
  /// Why a flow is not on the path its job's algorithm chose.
  enum class OffPath : std::uint8_t {
    kNone,
    kShared,     // an earlier job carries the same host pair: it follows that job's path
    kFlowLimit,  // beyond max_flows_per_job / max_flows_total: default route
    kNoEntry,    // no room in a table, another job's entry, or a failed switch
    kGuard,      // the load guard keeps the job on the default routes (job_guard.cpp)
    /// Another job's LFT entry for this flow's destination decides a hop: an LFT has one port
    /// per destination LID, so the flow follows that job's tree there (shared nodes, no LMC).
    kSharedDestination,
  };
  struct Job {
    JobStartRequest request;  // phases and elephants grow with phase / hint notices
    std::optional<std::uint32_t> owner_uid;
    std::string algorithm;
    std::string phase;  // the active phase, empty for none
    std::int64_t started_unix_ms = 0;
    /// Its place in the order of starts (1, 2, ...; reloaded jobs first, by started_unix_ms
    /// then id): what OrderKey compares, not the clock, so that jobs started within one
    /// millisecond keep their order and a replay decides the same way every time.
    std::uint64_t start_seq = 0;
    /// Its LID offset (path bits) with LMC > 0: its packets go to base LID + offset, so a job
    /// sharing nodes with another has its own destination LIDs, and LFT entries (job_lft.cpp).
    /// Chosen at its start, fixed for its life (its tasks were told).
    std::uint8_t lid_offset = 0;
    std::vector<NodeIdx> nodes;
    std::vector<Flow> flows;
    std::vector<Path> effective;    // per flow, traced through the LFTs and all entries
    std::vector<OffPath> off_path;  // per flow
    /// Per flow: the job whose path it follows (kShared, kSharedDestination).
    std::vector<JobId> shared_with;
    /// Signature of each effective path (node GUID, output port per hop): comparable across
    /// fabrics, to notice a change that moved the job's traffic.
    std::vector<std::vector<std::pair<std::uint64_t, std::uint8_t>>> signature;
    std::map<Guid, std::vector<FlowEntry>> entries;  // intended, by switch
    /// The switches of `entries` that hold them in their LFT (the others: in their flow table).
    std::set<Guid> lft_switches;
    bool routed = false;  // false: its hosts are gone from the fabric; it holds no load
    /// Taken over from the switches without its request (job_takeover.cpp): it keeps the entries
    /// found, carries no load and is never re-routed; only job_end applies.
    bool adopted = false;
    /// The load guard moved it to the default routes (job_guard.cpp): no entries until its own
    /// routes fit under the default routes' load again.
    bool guarded = false;
    /// Per flow, its path through the LFTs alone (empty: the LFTs do not deliver it); computed
    /// when needed, cleared when the fabric changes.
    std::vector<Path> lft;
    JobReady ready;
    std::size_t rank_flows = 0;
    /// Bumped by every change queries can see, so that publish() reuses unchanged job views.
    std::uint64_t version = 0;
  };
  /// The order jobs own host pairs in: the earlier start first (then the smaller id, for jobs
  /// without a sequence number).
  using OrderKey = std::pair<std::uint64_t, std::uint64_t>;
  static OrderKey order_of(JobId id, const Job& j) { return {j.start_seq, id.value()}; }

  /// A switch a MAD can reach (switch_registry.hpp).
  using Switch = SwitchRegistry::Switch;
  /// A job's routes before anything is applied.
  struct Plan {
    std::vector<Flow> flows;
    std::vector<Path> effective;
    std::vector<OffPath> off_path;
    std::vector<JobId> shared_with;
    std::map<Guid, std::vector<FlowEntry>> entries;
    std::set<Guid> lft_switches;  // the switches of `entries` that take them into their LFT
    JobReady ready;
    std::size_t rank_flows = 0;
    std::vector<Path> lft;  // per flow, through the LFTs alone (Job::lft)
  };
  /// Where a job's entries are: by switch, and which of those switches hold them in the LFT.
  struct Placement {
    const std::map<Guid, std::vector<FlowEntry>>& entries;
    const std::set<Guid>& lft;
  };
  /// What moving a job's entries between two placements did.
  struct Installed {
    std::map<Guid, std::string> failed;  // switches that did not take the change, with why
    std::map<Guid, bool> full;           // of those, flow tables that were full
    std::map<Guid, std::uint64_t> generation;
    std::size_t flow_mods = 0;
    std::size_t barriers = 0;
    std::size_t lft_blocks = 0;  // LFT blocks written
  };

  // Notices.
  nlohmann::json job_start(const JobStartRequest& r);
  nlohmann::json job_end(const JobEndRequest& r);
  nlohmann::json phase(const PhaseRequest& r);
  nlohmann::json hint(const HintRequest& r);
  nlohmann::json flows_from_switches(const FlowsQuery& q);
  nlohmann::json audit(const AuditQuery& q);
  void authorize(const Request& r, const Caller& c) const;
  nlohmann::json ready_answer(const Job& j) const;

  // Placement (job_placement.cpp).
  /// Routes, compiles and installs `j`'s traffic (its phase's or its own), replacing what it
  /// had; fills j.ready. Throws NoticeFailure; the job, the store and the switches are then as
  /// they were.
  void place(JobId id, Job& j, Deadline deadline);
  /// Route, compile and trace, changing nothing. `excluded` switches get no entries; with
  /// `no_entries` the whole job takes default routes.
  Plan plan(JobId id, const Job& j, const std::set<Guid>& excluded, bool no_entries,
            const Deadline& deadline);
  const Traffic& current_traffic(const Job& j) const;
  /// The active job `id`; throws NoticeFailure(kUnknownJob).
  Job& active_job(JobId id);
  /// The same, for a phase or hint: an adopted job is refused (kInvalid).
  Job& changeable_job(JobId id);
  /// Deletes the job's entries by cookie on every switch that has some and removes its load;
  /// the switches that did not confirm, with why.
  std::map<Guid, std::string> remove_entries(JobId id, const Job& j);
  /// Removes the job's entries from the switches and its load: its traffic takes the default
  /// routes. The job stays active (degraded) until job_end.
  void withdraw(JobId id, Job& j);
  /// Re-traces every routed job ordered after `after` (all jobs: nullopt) and re-routes those
  /// whose traffic no longer takes its recorded paths. With `accept_unknown`, a job without
  /// recorded paths (reloaded from the store) takes what it finds when that is deliverable.
  void reconcile(std::optional<OrderKey> after, bool accept_unknown);
  /// Jobs by OrderKey.
  std::vector<std::pair<JobId, Job*>> ordered_jobs();
  /// Entries of every job but `except` at each switch, by node.
  std::vector<std::uint32_t> usage(std::optional<JobId> except) const;
  /// All intended entries by switch node (`replace` stands in for one job's).
  std::map<NodeIdx, std::vector<FlowEntry>> all_tables(
      std::optional<std::pair<JobId, const std::map<Guid, std::vector<FlowEntry>>*>> replace =
          std::nullopt) const;
  std::vector<FlowEntry> intended(Guid sw) const;
  Deadline deadline_from(std::chrono::steady_clock::time_point start) const;

  // The LFT backend (job_lft.cpp).
  /// How long an LFT write or read may wait for the switches.
  std::chrono::milliseconds lft_timeout() const;
  /// The backend the job asked for, or the configuration's.
  InstallBackend backend_of(const Job& j) const;
  /// Why no LFT entry can be written on this fabric now (empty when they can).
  std::string lft_unavailable() const;
  /// Per switch node: whether `j`'s entries there go into the LFT (for `auto`: the switches
  /// without an SDN agent). Throws NoticeFailure for `lft` where the LFT cannot be written.
  std::vector<bool> lft_switch_mask(const Job& j) const;
  /// Every job's LFT entries as overrides, `replace` standing in for one job's.
  LftOverrides lft_overrides(std::optional<std::pair<JobId, Placement>> replace) const;
  /// The blocks whose contents (default routes with `after`'s overrides) differ from those with
  /// `before`'s, with `after`'s contents; on switches outside `skip` only.
  std::vector<LftBlock> lft_blocks_between(const LftOverrides& before, const LftOverrides& after,
                                           const std::set<Guid>& skip) const;
  /// The contents of one block: the default routes with `overrides` written over them.
  LftBlock lft_block(const LftOverrides& overrides, Guid sw, std::uint16_t block) const;
  /// Moves job `id`'s entries on the switches (flow tables and LFTs) from `from` to `to`,
  /// leaving the switches in `skip` alone.
  Installed install(JobId id, Placement from, Placement to, const std::set<Guid>& skip);
  /// Hands the LFT overrides of all jobs to the routing engine (after a change).
  void keep_lft_overrides();
  /// After a SUBNET UP: rewrites the blocks where the sweep wrote overrides that the jobs no
  /// longer have (a job dropped at the take-over, moved or gone with the fabric); returns them.
  std::size_t rewrite_swept_lft_blocks(const std::shared_ptr<const LftOverrides>& swept);
  /// The LID offset a new job gets: 0 without LMC or when its tasks would not be told
  /// (request.path_bits false); otherwise the offset fewest of its nodes
  /// share with running jobs on that offset (one no running job on its nodes uses, if any; the
  /// lowest on a tie), within the LIDs every one of its hosts answers.
  std::uint8_t pick_lid_offset(JobId id, const Job& j) const;
  /// The LID offset `j` is routed on: its own, or 0 when the fabric no longer gives every host
  /// of the job that many LIDs (LMC lowered since it started). O(its nodes).
  std::uint8_t offset_in_effect(const Job& j) const;
  /// The LIDs `j` addresses the hosts by: fabric_->lfts.lids at offset 0, else a map in `holder`
  /// (every host at base LID + offset; O(nodes + aliases), the tables are not copied). When its
  /// offset is not in effect (offset_in_effect), the base LIDs, and `why` says so.
  const LidMap& lids_of(const Job& j, std::optional<LidMap>& holder, std::string* why) const;
  /// The LID a packet to node `n` carries from a job on offset `offset` (in effect).
  Lid dlid_at(std::uint8_t offset, NodeIdx n) const;

  // The load guard (job_guard.cpp).
  /// The routed jobs' load (not the adopted ones'), by the measure each is guarded in
  /// (GuardMeasure as index): as the switches carry them, and on their default routes.
  struct GuardLoads {
    std::array<LinkLoad, 2> sdn;
    std::array<LinkLoad, 2> lft;
  };
  GuardLoads guard_loads();
  /// The gap in `m` between the two loads.
  LoadGap load_gap(const GuardLoads& loads, GuardMeasure m) const;
  /// The first measure's gap with links above the default routes', else the gap in flows.
  LoadGap load_gap(const GuardLoads& loads) const;
  /// Fills j.lft when the flows changed or the fabric did.
  void ensure_lft_paths(Job& j) const;
  /// Brings the SWML back under the default routes' when a change raised it above (see the file's
  /// comment); `occasion` names the change in the log.
  void guard_load(const std::string& occasion);
  /// Routes guarded jobs again (a few per call, in turn) where that keeps the SWML under the
  /// default routes'.
  void restore_guarded();

  // Fail-over (job_takeover.cpp).
  /// Throws NoticeFailure unless this controller may act on the switches now.
  void refuse_unless_master(const Request& request) const;
  /// Reads every switch and reconciles the jobs with the cookies found (see the file's comment).
  void take_over(bool switches_are_truth);

  // Persistence (job_persistence.cpp).
  void persist(JobId id, const Job& j);
  void unpersist(JobId id);
  void reload_from_store();

  // Quarantined jobs for operators (job_quarantine.cpp).
  nlohmann::json quarantine_list(const QuarantineQuery& q);
  nlohmann::json quarantine_release(const QuarantineReleaseRequest& r, const Caller& caller);

  // Switches (job_audit.cpp).
  /// Records that `sw` answered (true) or not; logs only on a change of state.
  void note_answer(const Switch& sw, bool answered, const std::string& why);
  struct AuditOutcome {
    std::vector<AuditFinding> findings;
    std::size_t checked = 0;
    std::size_t repaired = 0;      // FlowMods sent to repair
    std::size_t lft_switches = 0;  // switches whose LFT blocks holding jobs' entries were read
    std::size_t lft_blocks = 0;    // those blocks
    std::size_t lft_repaired = 0;  // blocks rewritten
  };
  AuditOutcome audit_switches(const std::vector<Switch>& switches, bool repair);
  /// The answer to a job_start with backend dry_run: what `auto` would install and what it
  /// would buy, changing nothing (job_lft.cpp).
  nlohmann::json dry_run(JobId id, const Job& j, const Deadline& deadline);
  /// Audits (and repairs) the LFT blocks that hold jobs' entries (job_lft.cpp).
  void audit_lft_blocks(AuditOutcome& out, bool repair);
  /// For `flows --from-switch`: the jobs' LFT entries (those `q` selects) whose switch's LFT,
  /// read now, holds their port, appended to `out` per switch; a block not read is a warning. An
  /// LFT has no cookies: an entry counts as its job's when the port is the one it intends.
  void lft_entries_held(const FlowsQuery& q, std::vector<SwitchFlows>& out,
                        nlohmann::json& warnings);

  /// Publishes the current state for queries.
  void publish();

  void log(LogLevel level, const std::string& message) const {
    if (log_) log_(level, message);
  }
  /// An error: "ERR 5Dxx: message" (log_codes.hpp).
  void log(LogCode code, const std::string& message) const {
    if (log_) log_(LogLevel::kError, error_line(code, message));
  }

  Config config_;
  LftAccess* lft_ = nullptr;
  std::optional<HostMap> hosts_;
  std::shared_ptr<const HostMap> host_view_;  // the same map, for the views
  StateStore* store_;
  mad::MadClient client_;
  Log log_;
  std::optional<std::uint32_t> slurm_uid_;
  std::atomic<bool> cancel_{false};

  std::shared_ptr<const FabricSnapshot> fabric_;
  std::unique_ptr<const HcaNames> hca_names_;  // of fabric_'s fabric, built with it
  std::unique_ptr<NetworkState> net_;
  std::map<JobId, Job> jobs_;
  bool reloaded_ = false;
  /// Per node of the current fabric: the LIDs its port answers (2^LMC).
  std::vector<unsigned> lids_per_node_;
  /// The LFT overrides last handed to the routing engine (LftAccess::keep): what its latest sweep
  /// wrote over the defaults.
  std::shared_ptr<const LftOverrides> handed_lft_;
  bool master_ = true;
  bool takeover_ = false;  // another SM was master since this one last read the switches
  std::string sm_state_ = "MASTER";
  /// The fabric's switches, their SDN agents and their table generations.
  SwitchRegistry switches_;
  /// The load guard's turns: restore_guarded() goes on after the job it tried last.
  LoadGuard load_guard_;
  std::uint64_t start_seq_ = 0;  // the last Job::start_seq given
  std::map<std::string, std::uint64_t> counters_;
  /// Cookies of jobs quarantined in the state store: their entries stay on the switches, no
  /// audit reports or removes them, no job may take their id.
  QuarantinedCookies quarantined_;

  mutable std::mutex view_mu_;
  std::shared_ptr<const ControllerView> view_;
  std::map<JobId, std::pair<std::uint64_t, std::shared_ptr<const JobView>>> job_views_;
};

}  // namespace ibsdn::plugin
