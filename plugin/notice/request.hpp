// The requests of the notice protocol as typed values (docs/notice-protocol.md, "Requests"), read
// from a line by parse_request() and written by request_to_json(). Both are the only code that
// knows the JSON form, so the controller, ibsdnctl and the Slurm hook cannot disagree on it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "flowtable/install_backend.hpp"
#include "flowtable/types.hpp"
#include "plugin/notice/error_code.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "routing/patterns/pattern_spec.hpp"
#include "routing/patterns/traffic_matrix.hpp"

namespace ibsdn {

/// A job's traffic: a registered pattern (never `matrix`, which would read a file as root) or an
/// explicit traffic matrix, normalised like a matrix file (ordered by source then destination,
/// repeated pairs summed; self pairs and zero totals skipped and counted, with the pairs the
/// sender says it skipped, "matrix_skipped", so that the counts survive request_to_json).
using Traffic = std::variant<PatternSpec, TrafficMatrix>;

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
  /// Operator override of config.install_backend for this job (`dry_run`: what would change).
  std::optional<InstallBackend> backend;
  /// The job's tasks send with the path bits the controller gives the job (its LID offset, which
  /// the SPANK plugin exports): with LMC, a job on nodes other jobs use then gets LIDs of its own.
  /// False: the job is routed on the base LIDs (its tasks would not know another offset).
  bool path_bits = false;
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
  std::optional<JobId> job;  // only this job (unknown_job when it is not active)
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
  /// The path of this job's packets: to the destination's LID at the job's LID offset (LMC).
  std::optional<JobId> job;
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

/// The jobs the state store quarantined because it could not read them back; their entries stay
/// on the switches, untouched by audits, until an operator releases them.
struct QuarantineQuery {
  bool operator==(const QuarantineQuery&) const = default;
};

/// An operator's release of a quarantined job (root only): its kept rows are dropped, its id is
/// usable again and its cookie no longer hands-off. Its entries on the switches are deleted now
/// with `delete_entries`; otherwise the next audit with repair removes them as unexpected.
struct QuarantineReleaseRequest {
  JobId job;
  bool delete_entries = false;
  bool operator==(const QuarantineReleaseRequest&) const = default;
};

using Request = std::variant<JobStartRequest, JobEndRequest, PhaseRequest, HintRequest, JobsQuery,
                             FlowsQuery, LinksQuery, RouteQuery, AuditQuery, StatsQuery, PingQuery,
                             QuarantineQuery, QuarantineReleaseRequest>;

/// The "op" string of a request ("job_start", "flows", ...).
std::string_view op_name(const Request& r);

/// Who may send a request: job changes come from Slurm (root or config.slurm_user); phase and
/// hint also from the job's own user (the application announces its phases); queries from
/// anyone who can open the socket (its mode already limits that); releasing a quarantined job,
/// an operator's decision Slurm has no part in, from root only.
enum class Privilege : std::uint8_t { kAnyone, kJobOwnerOrScheduler, kScheduler, kRoot };
Privilege required_privilege(const Request& r);

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

}  // namespace ibsdn
