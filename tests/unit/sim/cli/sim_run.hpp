// Runs ibsdn-sim's own main in-process and captures what it prints, for the tests of its
// subcommands.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim_backend/cli/sim_main.hpp"

namespace ibsdn::test {

struct SimRun {
  int status = 0;
  std::string out;
  std::string err;
};

/// What `ibsdn-sim ARGS...` prints and returns.
inline SimRun sim(std::vector<std::string> args) {
  args.insert(args.begin(), "ibsdn-sim");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  SimRun r;
  r.status = sim_main(static_cast<int>(argv.size()), argv.data());
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

}  // namespace ibsdn::test
