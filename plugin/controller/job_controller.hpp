// The SDN controller's job logic (seed 002 III.E): job notices in, flow entries on the switches
// out, state that survives restarts.
//
// job_start: hosts -> HCAs, traffic -> flows, routing on top of every active job's load, the
// compiler's entries within each switch's capacity, installed make-before-break with barriers,
// recorded in the state store first. A switch that fails (no answer, table full) is excluded and
// the job recompiled without it, so its flows take default routes there instead of half-installed
// paths; the reply says so ("degraded"). job_end removes the job's entries by cookie. Phases and
// hints re-route the job and install only the difference.
//
// Every SUBNET UP re-validates the jobs on the new fabric (re-routing those whose paths changed
// or broke) and audits every switch, repairing what differs; the first one also reloads the jobs
// from the store (an opensm restart). A periodic TableInfo round finds switches whose entry
// count is not the intended one (an agent restarted empty) and repairs them.
//
// Not thread-safe: the controller thread calls everything. MAD exchanges block that thread (for
// at most the configured timeouts), never OpenSM's.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mad/mad_client.hpp"
#include "plugin/controller/config.hpp"
#include "plugin/controller/host_map.hpp"
#include "plugin/controller/job_flows.hpp"
#include "plugin/controller/state_store.hpp"
#include "plugin/controller/subnet.hpp"
#include "plugin/notice/notice.hpp"
#include "routing/network_state.hpp"

namespace ibsdn::plugin {

/// The uid of a local user (getpwnam_r); nullopt when there is none.
std::optional<std::uint32_t> uid_of_user(const std::string& user);

/// Who sent a notice (SO_PEERCRED).
struct Caller {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::int32_t pid = 0;
};

/// A SUBNET UP: the fabric and the LFTs now on the switches.
struct FabricSnapshot {
  Subnet subnet;
  LftSet lfts;
  std::string engine;
};

class JobController {
 public:
  using Log = std::function<void(LogLevel, const std::string&)>;
  /// OpenSM's vendor layer matches answers on the low 32 bits of the TID: ours stay apart.
  static constexpr std::uint32_t kTidBase = 0x5E000000u;

  /// `store` may be null (nothing persists); `slurm_uid` is the uid besides root allowed to
  /// start and end jobs (none: root only).
  JobController(Config config, std::optional<HostMap> hosts, StateStore* store,
                mad::MadTransport& transport, Log log, std::optional<std::uint32_t> slurm_uid);

  /// A SUBNET UP (see the header comment).
  void fabric_updated(FabricSnapshot snapshot);
  /// One notice; the response to send back. Never throws.
  nlohmann::json handle(const Request& request, const Caller& caller) noexcept;
  /// The periodic TableInfo check and repair (config.audit_interval_ms).
  void periodic_check();

  [[nodiscard]] bool has_fabric() const { return fabric_ != nullptr; }
  [[nodiscard]] std::size_t active_jobs() const { return jobs_.size(); }

 private:
  struct Job {
    JobStartRequest request;  // phases and elephants grow with phase / hint notices
    std::optional<std::uint32_t> owner_uid;
    std::string algorithm;
    std::string phase;  // the active phase, empty for none
    std::int64_t started_unix_ms = 0;
    std::vector<NodeIdx> nodes;
    std::vector<Flow> flows;
    std::vector<Path> effective;  // per flow, traced through the LFTs and all entries
    /// Signature of each effective path (node GUID, output port per hop): comparable across
    /// fabrics, to notice a SUBNET UP that moved the job's traffic.
    std::vector<std::vector<std::pair<std::uint64_t, std::uint8_t>>> signature;
    std::map<Guid, std::vector<FlowEntry>> entries;  // intended, by switch
    bool routed = false;  // false: its hosts are gone from the fabric; it holds no load
    JobReady ready;
  };
  struct Switch {
    NodeIdx node;
    Guid guid;
    Lid lid;
    std::string name;
  };

  // Notices.
  nlohmann::json job_start(const JobStartRequest& r);
  nlohmann::json job_end(const JobEndRequest& r);
  nlohmann::json phase(const PhaseRequest& r);
  nlohmann::json hint(const HintRequest& r);
  nlohmann::json jobs() const;
  nlohmann::json flows(const FlowsQuery& q);
  nlohmann::json links(const LinksQuery& q) const;
  nlohmann::json route(const RouteQuery& q) const;
  nlohmann::json audit(const AuditQuery& q);
  nlohmann::json stats() const;
  void authorize(const Request& r, const Caller& c) const;

  // Placement.
  /// Routes, compiles and installs `j`'s traffic (its phase's or its own), replacing what it
  /// had; fills j.ready. Throws NoticeFailure; the job's previous placement is then kept.
  void place(JobId id, Job& j, std::chrono::steady_clock::time_point started);
  const Traffic& current_traffic(const Job& j) const;
  /// The active job `id`; throws NoticeFailure(kUnknownJob).
  Job& active_job(JobId id);
  /// Deletes the job's entries by cookie on every switch that has some and removes its load;
  /// the switches that did not confirm, with why.
  std::map<Guid, std::string> remove_entries(JobId id, const Job& j);
  /// Removes the job's entries from the switches and its load: its traffic takes the default
  /// routes. The job stays active (degraded) until job_end.
  void withdraw(JobId id, Job& j);
  std::string choose_algorithm() const;
  /// Entries of every job but `except` at each switch, by node.
  std::vector<std::uint32_t> usage(std::optional<JobId> except) const;
  /// All intended entries by switch node (`replace` stands in for one job's).
  std::map<NodeIdx, std::vector<FlowEntry>> all_tables(
      std::optional<std::pair<JobId, const std::map<Guid, std::vector<FlowEntry>>*>> replace =
          std::nullopt) const;
  std::vector<FlowEntry> intended(Guid sw) const;
  void persist(JobId id, const Job& j);
  void unpersist(JobId id);
  void reload_from_store();
  void revalidate(bool first);

  // Switches.
  std::optional<Switch> switch_of(Guid g) const;
  std::vector<Switch> all_switches() const;
  Switch resolve_switch(const SwitchRef& ref) const;
  struct AuditOutcome {
    std::vector<AuditFinding> findings;
    std::size_t checked = 0;
    std::size_t repaired = 0;  // FlowMods sent to repair
  };
  AuditOutcome audit_switches(const std::vector<Switch>& switches, bool repair);

  void log(LogLevel level, const std::string& message) const {
    if (log_) log_(level, message);
  }

  Config config_;
  std::optional<HostMap> hosts_;
  StateStore* store_;
  mad::MadClient client_;
  Log log_;
  std::optional<std::uint32_t> slurm_uid_;

  std::unique_ptr<FabricSnapshot> fabric_;
  std::unique_ptr<NetworkState> net_;
  std::map<JobId, Job> jobs_;
  bool reloaded_ = false;
  std::set<Guid> unreachable_;  // switches the last check could not reach
  std::map<std::string, std::uint64_t> counters_;
};

}  // namespace ibsdn::plugin
