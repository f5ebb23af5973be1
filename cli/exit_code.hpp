// ibsdnctl's exit statuses: scripts (and Slurm prologs) branch on them, so they are part of the
// interface and documented in README.md and the --help epilog.
#pragma once

namespace ibsdn::cli {

enum class ExitCode : int {
  kOk = 0,
  /// The controller answered with an error, or `audit` found differences.
  kFailure = 1,
  /// The command line was wrong: unknown option, missing or malformed value, unreadable --matrix.
  kUsage = 2,
  /// No usable answer: cannot connect, timeout, connection closed, malformed response.
  kNoAnswer = 3,
};

[[nodiscard]] constexpr int to_int(ExitCode c) {
  return static_cast<int>(c);
}

}  // namespace ibsdn::cli
