// Running another program (gnuplot for the plots) from ibsdn-sim: an argument vector, never a
// shell command line, a working directory, a deadline after which the child is killed, and what
// it wrote on stderr for the error message.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

/// How a program run ended.
struct ProgramResult {
  bool started = false;    // false: it could not be run at all (`error` says why)
  bool timed_out = false;  // killed at the deadline
  int exit_code = -1;      // when it exited by itself
  int signal = 0;          // when a signal ended it
  std::string error;       // why it did not start
  std::string err_output;  // its stderr, at most the cap given to run_program()
  [[nodiscard]] bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  /// "exit status 1", "killed by signal 11", "no answer within 60 s", "cannot run: ...".
  [[nodiscard]] std::string describe() const;
};

/// `name` as execvp would find it: itself when it holds a '/', else the first executable regular
/// file of that name in $PATH's directories. nullopt when there is none.
std::optional<std::filesystem::path> find_program(std::string_view name);

/// Runs `program` (a path, not looked up) with `args` (argv[1..]) in directory `cwd`, stdin and
/// stdout on /dev/null, and waits for it until `timeout` has passed, then kills it (SIGKILL).
/// Keeps the first `stderr_cap` bytes of its stderr. Never throws for the child's failures.
ProgramResult run_program(const std::filesystem::path& program,
                          const std::vector<std::string>& args, const std::filesystem::path& cwd,
                          std::chrono::milliseconds timeout, std::size_t stderr_cap = 64 * 1024);

}  // namespace ibsdn
