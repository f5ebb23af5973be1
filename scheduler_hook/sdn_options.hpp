// The job options users give sbatch / srun / salloc (spank_ibsdn.so) and how they travel to
// PrologSlurmctld: spank_job_control_setenv("SDN_PATTERN", ...) becomes SPANK_SDN_PATTERN in the
// hook's environment. Both ends check the values with this code, which checks them with the
// controller's own parser (plugin/notice), so a job refused by the controller is refused when
// it is submitted, with the same message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/notice/request.hpp"

namespace ibsdn::slurm_hook {

/// The job-control variable names (without the SPANK_ prefix Slurm adds).
inline constexpr const char* kVarPattern = "SDN_PATTERN";
inline constexpr const char* kVarMatrix = "SDN_MATRIX";
inline constexpr const char* kVarMatrixSkipped = "SDN_MATRIX_SKIPPED";
inline constexpr const char* kVarHints = "SDN_HINTS";
inline constexpr const char* kVarRanksPerNode = "SDN_RANKS_PER_NODE";
inline constexpr const char* kVarMapping = "SDN_MAPPING";

/// An environment string above 128 KiB (MAX_ARG_STRLEN) makes execve() of the prolog fail, and
/// a prolog that cannot start requeues the job: matrix and hints are refused beyond this when
/// the job is submitted.
inline constexpr std::size_t kMaxVariableBytes = 64 * 1024;

/// What is wrong with an option value, in words for the user (the option is named by the caller).
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The options of one job as job-control variables (values as they travel).
struct SdnVariables {
  std::optional<std::string> pattern;         // canonical pattern text
  std::optional<std::string> matrix;          // "SRC DST BYTES;..." (kept pairs)
  std::optional<std::string> matrix_skipped;  // "SELF_PAIRS INTRA_RANK_BYTES ZERO_PAIRS"
  std::optional<std::string> hints;           // "SRC:DST,..."
  std::optional<std::string> ranks_per_node;  // "1".."4096"
  std::optional<std::string> mapping;         // "block" | "cyclic"
};

/// --sdn-pattern=NAME[:OPT=VALUE,...]: the canonical text. --sdn-pattern=@FILE: a traffic-matrix
/// file (routing/patterns/traffic_matrix.hpp), read now, as the submitting user.
void set_pattern_option(SdnVariables& v, std::string_view value);
/// --sdn-hints=@FILE: elephant pairs, one "SRC DST" per line, '#' comments.
void set_hints_option(SdnVariables& v, std::string_view value);
void set_ranks_per_node_option(SdnVariables& v, std::string_view value);
void set_mapping_option(SdnVariables& v, std::string_view value);

/// The job's traffic and options decoded from the variables into `request` (whose job, user and
/// nodes the caller sets). Returns false when neither a pattern nor a matrix is given.
/// OptionError names the variable at fault.
bool apply_variables(const SdnVariables& v, JobStartRequest& request);

/// The whole request checked by parse_request(request_to_json(r)), the controller's parser: the
/// empty string, or its message.
std::string request_problem(const JobStartRequest& request);

/// The options checked together as at submit time: decoded, put into a request with a
/// placeholder job, user and node, and parsed. Empty string or the problem.
std::string submit_problem(const SdnVariables& v);

}  // namespace ibsdn::slurm_hook
