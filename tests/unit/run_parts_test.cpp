// RunHooks::part: the parts of a scenario run reported in the order they run, what
// bench/replay_bench.cpp times and measures the memory of.
#include <gtest/gtest.h>

#include <vector>

#include "sim_backend/scenario.hpp"
#include "sim_backend/scenario_runner.hpp"

namespace ibsdn {
namespace {

constexpr const char* kTwoJobs = R"(name: parts
topology:
  xgft: "2;4,4;1,4"
routing: [dmodk, sdn-greedy]
pattern: ring
workload:
  jobs:
    - {nodes: 8, start: 0, end: 100}
    - {nodes: 4, start: 50, end: 150}
)";

std::vector<RunPart> parts_of(const ScenarioRun& run) {
  std::vector<RunPart> parts;
  RunHooks hooks;
  hooks.part = [&parts](RunPart p) { parts.push_back(p); };
  (void)run_scenario(run, hooks);
  return parts;
}

TEST(RunParts, SdnRoutingRunsItsReplayThenTheDmodkBaseline) {
  const std::vector<ScenarioRun> runs = expand(parse_scenario(kTwoJobs, "parts.yaml", "."));
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_EQ(runs[1].routing, "sdn-greedy");
  EXPECT_EQ(parts_of(runs[1]), (std::vector<RunPart>{RunPart::kPrepare, RunPart::kReplay,
                                                     RunPart::kBaseline, RunPart::kSummary}));
}

TEST(RunParts, DmodkRoutingHasNoBaselinePart) {
  const std::vector<ScenarioRun> runs = expand(parse_scenario(kTwoJobs, "parts.yaml", "."));
  ASSERT_EQ(runs[0].routing, "dmodk");
  EXPECT_EQ(parts_of(runs[0]),
            (std::vector<RunPart>{RunPart::kPrepare, RunPart::kReplay, RunPart::kSummary}));
}

}  // namespace
}  // namespace ibsdn
