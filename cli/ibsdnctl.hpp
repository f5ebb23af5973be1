// ibsdnctl from argument list to exit status: parse the command line, send the request, print
// the answer. main() only supplies argv, the environment ($IBSDN_SOCKET, $SLURM_JOB_ID) and the
// standard streams, so the whole tool runs inside unit tests.
#pragma once

#include <ostream>
#include <span>
#include <string>

#include "cli/command_line.hpp"

namespace ibsdn::cli {

/// `args` is argv without the program name. Returns the exit status (exit_code.hpp).
int run_ibsdnctl(std::span<const std::string> args, const Environment& env, std::ostream& out,
                 std::ostream& err);

}  // namespace ibsdn::cli
