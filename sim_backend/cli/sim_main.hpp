// ibsdn-sim's command line as a function, so that tests run exactly what the program runs (its
// exit status included).
#pragma once

namespace ibsdn {

/// Parses `argv` and runs the subcommand. Returns the exit status: 0 success; 2 a usage error:
/// the command line does not parse, or a command refused one of its inputs as an InputError
/// (`paths` does for every input); a command's own status where it ends with CLI::RuntimeError
/// (`run`: 1 a run failed, 2 a bad scenario); 1 anything else that failed. Messages go to
/// stderr.
int sim_main(int argc, const char* const* argv);

}  // namespace ibsdn
