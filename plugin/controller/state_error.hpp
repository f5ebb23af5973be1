// The error of everything that keeps the controller's state on disk: the state directory, the
// state store and the switch key file's creation.
#pragma once

#include <stdexcept>

namespace ibsdn {

/// A failure of the state on disk. what() names the file, what is wrong with it and, where the
/// operator must act, what to do.
class StateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ibsdn
