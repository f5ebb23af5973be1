// A flow scenario with two swept keys (three trees, two routings) and one job of 16 ranks, for
// the tests of zip, reference and ranks (scenario_sweeps_test.cpp, scenario_flow_test.cpp).
#pragma once

namespace ibsdn::test {

// Lines 1-6; tests append from line 7.
inline constexpr const char* kSweptHead = R"(name: z
topology: {xgft: ["3;4,4,4;1,4,4", "3;4,4,2;1,4,4", "2;4,4;1,4"]}
routing: [dmodk, sdn-optimal]
model: flow
application: "stencil4d:iter=1"
workload: {jobs: [{ranks: 16, start: 0, end: 1}]}
)";

}  // namespace ibsdn::test
