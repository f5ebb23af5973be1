// The check of a refusal by std::invalid_argument: thrown, and its message names what was wrong.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace ibsdn::test {

/// Succeeds when `fn` throws std::invalid_argument whose message contains `needle`.
template <typename Fn>
::testing::AssertionResult throws_naming(Fn fn, const std::string& needle) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "message '" << e.what() << "' lacks '" << needle << "'";
  }
  return ::testing::AssertionFailure() << "no std::invalid_argument";
}

}  // namespace ibsdn::test
