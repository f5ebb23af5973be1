// ibsdnctl from argument list to exit status: parse the command line, send the request, print
// the answer. main() only supplies argv, $IBSDN_SOCKET and the standard streams, so the whole
// tool runs inside unit tests.
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>

namespace ibsdn::cli {

/// `args` is argv without the program name; `socket_env` is $IBSDN_SOCKET if set. Returns the
/// exit status (exit_code.hpp).
int run_ibsdnctl(std::span<const std::string> args, const std::optional<std::string>& socket_env,
                 std::ostream& out, std::ostream& err);

}  // namespace ibsdn::cli
