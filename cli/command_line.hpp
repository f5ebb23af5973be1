// ibsdnctl's command line (CLI11): global options, one command, and the notice request it stands
// for. The request is built as the typed Request of plugin/notice/notice.hpp and checked with
// the controller's own parser (parse_request(request_to_json(r))), so a value the controller
// would refuse is a usage error here, named by its option, before any socket is opened.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "cli/exit_code.hpp"
#include "plugin/notice/client/notice_client.hpp"
#include "plugin/notice/notice.hpp"

namespace ibsdn::cli {

inline constexpr std::string_view kDefaultSocketPath = kDefaultNoticeSocket;
inline constexpr std::string_view kSocketEnvVar = kNoticeSocketEnvVar;
/// Inside a Slurm job: the default of `job phase` and `job hint`'s --job.
inline constexpr std::string_view kSlurmJobEnvVar = "SLURM_JOB_ID";
/// Requests that route and install a job's entries wait for the switches; the controller gives up
/// after its job_start_timeout_ms (5 s by default), so the client waits longer than that.
inline constexpr std::chrono::milliseconds kRoutingTimeout{30'000};
inline constexpr std::chrono::milliseconds kQueryTimeout{10'000};
inline constexpr std::uint64_t kMaxTimeoutMs = 3'600'000;

/// What ibsdnctl reads from its environment (main() fills it in; tests give their own).
struct Environment {
  std::optional<std::string> socket;        // $IBSDN_SOCKET
  std::optional<std::string> slurm_job_id;  // $SLURM_JOB_ID
};

struct Invocation {
  std::string socket_path;
  std::chrono::milliseconds timeout{};
  bool json_output = false;  // --json: print the response line itself
  Request request;
};

struct CommandLine {
  /// Absent after --help / --version (exit_code kOk) or a usage error (kUsage, already reported).
  std::optional<Invocation> invocation;
  ExitCode exit_code = ExitCode::kOk;
};

/// Parses `args` (argv without the program name) in environment `env`. Help and version text go
/// to `out`; usage errors, naming the option at fault, to `err`.
CommandLine parse_command_line(std::span<const std::string> args, const Environment& env,
                               std::ostream& out, std::ostream& err);

/// The request line ibsdnctl writes for `request` (without the '\n').
std::string request_line(const Request& request);

}  // namespace ibsdn::cli
