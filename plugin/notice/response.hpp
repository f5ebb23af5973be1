// The responses of the notice protocol (docs/notice-protocol.md, "Responses"): one builder per
// answer, and to_line(), the one way a response becomes the line the controller writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/types.hpp"
#include "plugin/notice/error_code.hpp"
#include "routing/patterns/traffic_matrix.hpp"

namespace ibsdn {

/// {"v":1,"ok":true}
nlohmann::json ok_response();
/// {"v":1,"ok":false,"error":{"code":..., "message":..., "at":...}} ("at" only when not empty).
nlohmann::json error_response(ErrorCode code, std::string_view message, std::string_view at = {});
nlohmann::json error_response(const RequestError& e);

/// What a job's traffic matrix gave: the rank pairs kept as flows and the pairs skipped. In the
/// responses as "matrix": {"pairs", "self_pairs", "intra_rank_bytes", "zero_pairs"}.
struct MatrixCounts {
  std::uint64_t pairs = 0;
  SkippedPairs skipped;
  bool operator==(const MatrixCounts&) const = default;
};

/// The answer to job_start and phase begin once the job's flow entries are installed.
struct JobReady {
  JobId job;
  std::string algorithm;
  /// Why the job has that algorithm: request, configuration, volumes, unit or fallback
  /// (docs/notice-protocol.md); empty: not known (a job reloaded from the store and not routed
  /// again since).
  std::string algorithm_reason{};
  /// What the load guard compares the job's routes in: "bytes" (its flows' byte volumes differ)
  /// or "flows" (seed 002's weights); empty when the guard is off.
  std::string guard_measure{};
  std::uint64_t flows = 0;             // fabric flows of the job
  std::uint64_t flows_on_default = 0;  // of which needed no entry: the LFT route was chosen
  std::uint64_t entries = 0;           // flow entries installed over all switches
  double max_link_load = 0;            // in flows on the busiest link, other jobs included
  double bound = 0;                    // the lower bound NL_D for the job's flows
  /// Utilisation as link time: how long the busiest link the job uses needs for the bytes on it
  /// (other jobs included), and the splittable lower bound for the job's own bytes.
  double max_link_ms = 0;
  double bound_ms = 0;
  bool degraded = false;  // some flows stay on the LFT (tables full, switch gone)
  std::vector<std::string> warnings;
  double route_ms = 0;
  double compile_ms = 0;
  double install_ms = 0;
  std::optional<MatrixCounts> matrix;  // the routed traffic's, when it is a matrix
  /// Where the entries went (install_backend): the backend in force for the job, and per
  /// backend the switches and entries; for the LFTs also the 64-entry blocks written.
  std::string backend;
  std::uint64_t table_switches = 0;
  std::uint64_t table_entries = 0;
  std::uint64_t lft_switches = 0;
  std::uint64_t lft_entries = 0;
  std::uint64_t lft_blocks = 0;
  /// The job's LID offset (path bits) with LMC > 0: its packets go to each host's base LID +
  /// this (0: the base LIDs).
  std::uint32_t lid_offset = 0;
};
nlohmann::json ready_response(const JobReady& r);

/// {"v":1,"ok":true,"pong":true,"version":"0.1.0","protocol":1,"sm_state":"MASTER"}: sm_state is
/// OpenSM's SM state (MASTER, STANDBY, DISCOVERING, NOT ACTIVE), left out when empty.
nlohmann::json pong_response(std::string_view server_version, std::string_view sm_state = {});

struct JobSummary {
  JobId job;
  std::string user;
  std::size_t nodes = 0;
  std::string pattern;  // the canonical pattern text, or "matrix"
  std::string algorithm;
  std::string phase;  // empty when the job has no active phase
  std::uint64_t entries = 0;
  std::int64_t started_unix_ms = 0;
  bool degraded = false;
  std::optional<MatrixCounts> matrix;  // the traffic `pattern` names, when it is a matrix
  std::uint64_t lft_entries = 0;       // of `entries`, those written into switches' LFTs
  std::string backend{};               // the install backend in force for the job (empty: unknown)
  std::string algorithm_reason{};      // as JobReady's; empty: not known
  std::uint32_t lid_offset = 0;        // as JobReady's
};
nlohmann::json jobs_response(std::span<const JobSummary> jobs);

struct SwitchFlows {
  Guid guid;
  Lid lid;
  std::string name;
  std::vector<FlowEntry> entries;
  /// Per entry (empty: none): written into the switch's LFT, not its flow table.
  std::vector<bool> in_lft{};
};
/// Entries in flowtable's JSON form (flow_to_json) plus their ovs-ofctl text.
nlohmann::json flows_response(std::span<const SwitchFlows> switches, bool from_switch);

struct LinkRow {
  std::string from;
  PortNum from_port;
  std::string to;
  PortNum to_port;
  std::int64_t flows = 0;
  double weight = 0;
};
nlohmann::json links_response(std::span<const LinkRow> links);

struct RouteHop {
  std::string node;
  Guid guid;
  PortNum out_port;
  bool by_flow_entry = false;  // false: the LFT's default route
  std::uint64_t cookie = 0;    // the job owning the entry, when by_flow_entry
  bool in_lft = false;         // the job's entry is in the switch's LFT, not its flow table
};
nlohmann::json route_response(std::string_view src, std::string_view dst,
                              std::span<const RouteHop> hops);

struct AuditFinding {
  Guid switch_guid;
  std::string switch_name;
  std::string kind;  // "missing", "unexpected", "differs", "unreachable"
  std::string detail;
};
nlohmann::json audit_response(std::size_t switches_checked, std::span<const AuditFinding> findings);

/// Counters by name ("jobs_active", "notices", "flow_mods_sent", ...); JSON objects list them
/// sorted.
nlohmann::json stats_response(std::span<const std::pair<std::string, std::uint64_t>> counters);

/// A quarantined job (the answer to `quarantine`).
struct QuarantineRow {
  JobId job;
  std::string reason;  // what the store could not read, and where
  std::int64_t quarantined_unix_ms = 0;
  std::uint64_t entries_stored = 0;  // flow entries kept with it in the quarantine
  /// Entries with its cookie on the switches and the switches holding them, as each switch's
  /// last audit found them; nullopt when no audit has read a switch since it was quarantined.
  std::optional<std::uint64_t> entries_on_switches;
  std::optional<std::uint64_t> switches;
};
nlohmann::json quarantine_response(std::span<const QuarantineRow> jobs);

/// What releasing a quarantined job did (the answer to `quarantine_release`).
struct QuarantineRelease {
  JobId job;
  /// True: its entries were deleted from the switches now (delete_entries). False: they were
  /// left there, no longer the controller's, for the next audit with repair to remove.
  bool entries_deleted = false;
  std::uint64_t entries_removed = 0;   // entries_deleted: as the switches counted them
  std::uint64_t switches_removed = 0;  // entries_deleted: switches that removed some
  /// Before the release, as each switch's last audit found them (see QuarantineRow).
  std::optional<std::uint64_t> entries_on_switches;
  std::optional<std::uint64_t> switches;
  std::vector<std::string> warnings;  // switches that did not confirm the deletion
};
nlohmann::json quarantine_release_response(const QuarantineRelease& r);

/// One response line: compact JSON, ASCII only (\uXXXX escapes), and '\n'. Invalid UTF-8 in
/// strings becomes U+FFFD instead of an exception.
std::string to_line(const nlohmann::json& response);

}  // namespace ibsdn
