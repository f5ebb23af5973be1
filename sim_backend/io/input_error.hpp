// Input that ibsdn-sim cannot run with: a value on the command line or in a file it names that is
// malformed or does not fit the fabric. main() prints it and exits 2 (a usage error), apart from
// a run that fails (exit 1).
#pragma once

#include <stdexcept>

namespace ibsdn {

struct InputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace ibsdn
