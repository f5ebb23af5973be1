// The notice protocol: JSON lines over the controller's Unix socket (docs/notice-protocol.md).
//
// A client writes one request per line and reads one response per line. Every message carries
// "v": 1. parse_request() turns a line into a typed Request or a RequestError whose message says
// what was wrong and where (a JSON pointer such as /nodes/3); it never throws. The response
// builders produce the JSON the controller writes back; to_line() serialises one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/types.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

inline constexpr std::int64_t kNoticeProtocolVersion = 1;

// Limits that keep one notice from exhausting the controller (a prolog must not be able to stall
// OpenSM). Checked before the values are looked at.
inline constexpr std::size_t kMaxNoticeLineBytes = std::size_t{1} << 20;  // without the '\n'
inline constexpr std::size_t kMaxNoticeDepth = 8;  // nesting of arrays and objects
inline constexpr std::size_t kMaxJobNodes = 100'000;
inline constexpr std::size_t kMaxMatrixEntries = 1'000'000;
inline constexpr std::size_t kMaxElephants = 1'000'000;
inline constexpr std::size_t kMaxPhases = 256;
inline constexpr std::uint32_t kMaxRanksPerNode = 4096;
inline constexpr std::uint32_t kMaxLinksTop = 1'000'000;
/// Job ids are 1..2^63-1: they are SQLite INTEGER keys in the state store (signed 64 bits).
inline constexpr std::uint64_t kMaxJobId = (std::uint64_t{1} << 63) - 1;
/// uid 4294967295 is (uid_t)-1, "no user": refused.
inline constexpr std::uint64_t kMaxUid = 4'294'967'294;

enum class ErrorCode : std::uint8_t {
  // Request errors (parse_request).
  kParseError,          // not JSON, not one JSON object, or nested too deep
  kUnsupportedVersion,  // "v" is not 1
  kUnknownOp,           // "op" names no request
  kInvalid,             // a field is missing, unknown, of the wrong type or out of range
  kTooLarge,            // the line or an array exceeds its limit
  // Controller errors (the request was well formed).
  kForbidden,      // the peer may not send this request
  kUnknownJob,     // no active job with that id
  kUnknownHost,    // a host name the fabric has no HCA for
  kUnknownPhase,   // phase begin / end of a phase the job has not declared or begun
  kUnroutable,     // the algorithm cannot route this job on this fabric
  kTimeout,        // job_start_timeout_ms elapsed
  kInstallFailed,  // switches did not accept the flow entries (traffic stays on the LFT)
  kBusy,           // the fabric is being re-swept; retry
  kInternal,       // a bug: the controller logged the details
};
std::string_view to_string(ErrorCode code);
std::optional<ErrorCode> parse_error_code(std::string_view text);

/// A job's traffic: a registered pattern (never `matrix`, which would read a file as root) or an
/// explicit traffic matrix, normalised like a matrix file (ordered by source then destination,
/// repeated pairs summed, zero totals dropped).
using Traffic = std::variant<PatternSpec, std::vector<RankFlow>>;

/// An elephant flow (thesis 4.1: user hints): the pair carries most of the job's bytes.
struct RankPair {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  bool operator==(const RankPair&) const = default;
};

struct PhaseDecl {
  std::string name;
  Traffic traffic;
  bool operator==(const PhaseDecl&) const = default;
};

struct JobStartRequest {
  JobId job;
  std::string user;
  std::optional<std::uint32_t> uid;
  std::vector<std::string> nodes;  // Slurm host names, in rank-placement order, distinct
  Traffic traffic;
  std::optional<std::uint32_t> ranks_per_node;  // default: the nodes' GPU count (or 1)
  Mapping mapping = Mapping::kBlock;
  std::vector<RankPair> elephants;
  std::vector<PhaseDecl> phases;  // names distinct
  /// Operator override of config.algorithms. Only its syntax is checked here: the controller
  /// refuses a name it has no algorithm for (kInvalid at /algorithm).
  std::optional<std::string> algorithm;
  bool operator==(const JobStartRequest&) const = default;
};

struct JobEndRequest {
  JobId job;
  bool operator==(const JobEndRequest&) const = default;
};

enum class PhaseAction : std::uint8_t { kBegin, kEnd };

struct PhaseRequest {
  JobId job;
  PhaseAction action = PhaseAction::kBegin;
  std::string name;
  /// begin: the phase's traffic, or none for a phase declared in job_start. end: always none.
  std::optional<Traffic> traffic;
  bool operator==(const PhaseRequest&) const = default;
};

struct HintRequest {
  JobId job;
  std::vector<RankPair> elephants;
  bool operator==(const HintRequest&) const = default;
};

struct JobsQuery {
  bool operator==(const JobsQuery&) const = default;
};

/// A switch as an operator names it: LID, GUID or node name / NodeDescription.
using SwitchRef = std::variant<Lid, Guid, std::string>;

struct FlowsQuery {
  std::optional<SwitchRef> switch_ref;
  std::optional<JobId> job;
  bool from_switch = false;  // read the tables back from the switches instead of the intent
  bool operator==(const FlowsQuery&) const = default;
};

struct LinksQuery {
  std::optional<std::uint32_t> top;  // the N most loaded links; default all loaded links
  bool operator==(const LinksQuery&) const = default;
};

struct RouteQuery {
  std::string src;  // host names
  std::string dst;
  bool operator==(const RouteQuery&) const = default;
};

struct AuditQuery {
  bool repair = false;  // also re-install missing entries and remove stale ones (scheduler only)
  bool operator==(const AuditQuery&) const = default;
};
struct StatsQuery {
  bool operator==(const StatsQuery&) const = default;
};
struct PingQuery {
  bool operator==(const PingQuery&) const = default;
};

using Request = std::variant<JobStartRequest, JobEndRequest, PhaseRequest, HintRequest, JobsQuery,
                             FlowsQuery, LinksQuery, RouteQuery, AuditQuery, StatsQuery, PingQuery>;

/// The "op" string of a request ("job_start", "flows", ...).
std::string_view op_name(const Request& r);

/// Who may send a request: job changes come from Slurm (root or config.slurm_user); phase and
/// hint also from the job's own user (the application announces its phases); queries from
/// anyone who can open the socket (its mode already limits that).
enum class Privilege : std::uint8_t { kAnyone, kJobOwnerOrScheduler, kScheduler };
Privilege required_privilege(const Request& r);

struct RequestError {
  ErrorCode code = ErrorCode::kInvalid;
  std::string at;       // JSON pointer of the offending value ("" for the whole line)
  std::string message;  // says what and where; printable ASCII
};

class ParsedRequest {
 public:
  explicit ParsedRequest(Request r) : result_(std::move(r)) {}
  explicit ParsedRequest(RequestError e) : result_(std::move(e)) {}
  [[nodiscard]] bool ok() const { return result_.index() == 0; }
  [[nodiscard]] const Request& request() const { return std::get<Request>(result_); }
  [[nodiscard]] const RequestError& error() const { return std::get<RequestError>(result_); }

 private:
  std::variant<Request, RequestError> result_;
};

/// Parses one request line (a trailing "\n" or "\r\n" is allowed). Never throws.
ParsedRequest parse_request(std::string_view line) noexcept;

/// The request as JSON in the canonical form parse_request() reads (patterns as their canonical
/// text). parse_request(request_to_json(r).dump()) gives r back. Clients use it to build lines.
nlohmann::json request_to_json(const Request& r);

// ---- Responses ----------------------------------------------------------------------------

/// {"v":1,"ok":true}
nlohmann::json ok_response();
/// {"v":1,"ok":false,"error":{"code":..., "message":..., "at":...}} ("at" only when not empty).
nlohmann::json error_response(ErrorCode code, std::string_view message, std::string_view at = {});
nlohmann::json error_response(const RequestError& e);

/// The answer to job_start and phase begin once the job's flow entries are installed.
struct JobReady {
  JobId job;
  std::string algorithm;
  std::uint64_t flows = 0;             // fabric flows of the job
  std::uint64_t flows_on_default = 0;  // of which needed no entry: the LFT route was chosen
  std::uint64_t entries = 0;           // flow entries installed over all switches
  double max_link_load = 0;            // in flows on the busiest link, other jobs included
  double bound = 0;                    // the lower bound NL_D for the job's flows
  bool degraded = false;               // some flows stay on the LFT (tables full, switch gone)
  std::vector<std::string> warnings;
  double route_ms = 0;
  double compile_ms = 0;
  double install_ms = 0;
};
nlohmann::json ready_response(const JobReady& r);

/// {"v":1,"ok":true,"pong":true,"version":"0.1.0","protocol":1}
nlohmann::json pong_response(std::string_view server_version);

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
};
nlohmann::json jobs_response(std::span<const JobSummary> jobs);

struct SwitchFlows {
  Guid guid;
  Lid lid;
  std::string name;
  std::vector<FlowEntry> entries;
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

/// One response line: compact JSON, ASCII only (\uXXXX escapes), and '\n'. Invalid UTF-8 in
/// strings becomes U+FFFD instead of an exception.
std::string to_line(const nlohmann::json& response);

}  // namespace ibsdn
