// Name generators for INSTANTIATE_TEST_SUITE_P: `ctest -N` and --gtest_filter list these names, so
// they must be stable across builds and readable (letters, digits and '_' only; GoogleTest's
// default for a struct parameter is its bytes, pointers included).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace ibsdn::testing_names {

/// `text` with every run of other characters turned into one '_' ("sdn-greedy" -> "sdn_greedy").
inline std::string identifier(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

/// For parameters that are names themselves (algorithm names, pattern texts).
struct ByText {
  template <typename T>
  std::string operator()(const ::testing::TestParamInfo<T>& info) const {
    return identifier(info.param);
  }
};

/// For table-driven cases that carry their own `name` (a CamelCase phrase saying what is wrong).
struct ByCaseName {
  template <typename T>
  std::string operator()(const ::testing::TestParamInfo<T>& info) const {
    return identifier(info.param.name);
  }
};

}  // namespace ibsdn::testing_names
