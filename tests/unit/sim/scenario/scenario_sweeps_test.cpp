// Zipped sweeps, the reference run and jobs given by rank count (docs/simulation.md "Zipped
// sweeps", "The reference run", "Workloads"): the runs they make. Their bad uses are refused in
// scenario_flow_test.cpp's table (ScenarioFlowRejects).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim_backend/scenario/scenario.hpp"
#include "tests/unit/sim/scenario/scenario_swept_head.hpp"

namespace ibsdn {
namespace {

Scenario parse(const std::string& text) {
  return parse_scenario(text, "f.yaml", std::filesystem::temp_directory_path());
}

std::vector<std::string> labels(const Scenario& s) {
  std::vector<std::string> out;
  for (const ScenarioRun& r : expand(s)) out.push_back(r.label);
  return out;
}

TEST(ScenarioZip, ZippedKeysTakeTheirValuesTogether_TheOthersCross) {
  const Scenario s = parse(std::string(test::kSweptHead) +
                           "gpus_per_node: [1, 2, 4]\n"
                           "zip: [gpus_per_node, topology.xgft]\n");
  ASSERT_EQ(s.run_count(), 6u) << "3 zipped x 2 routings, not 3 x 2 x 3";
  EXPECT_EQ(labels(s), (std::vector<std::string>{
                           "topology.xgft=3;4,4,4;1,4,4 routing=dmodk gpus_per_node=1",
                           "topology.xgft=3;4,4,4;1,4,4 routing=sdn-optimal gpus_per_node=1",
                           "topology.xgft=3;4,4,2;1,4,4 routing=dmodk gpus_per_node=2",
                           "topology.xgft=3;4,4,2;1,4,4 routing=sdn-optimal gpus_per_node=2",
                           "topology.xgft=2;4,4;1,4 routing=dmodk gpus_per_node=4",
                           "topology.xgft=2;4,4;1,4 routing=sdn-optimal gpus_per_node=4"}));
  ASSERT_EQ(s.axes().size(), 3u);
  EXPECT_EQ(s.axes()[0].group, 0u);
  EXPECT_EQ(s.axes()[1].group, 1u);
  EXPECT_EQ(s.axes()[2].group, 0u) << "gpus_per_node turns with the tree";
  // The job keeps its 16 ranks: 16, 8, 4 nodes.
  const std::vector<ScenarioRun> runs = expand(s);
  EXPECT_EQ(runs[0].ranks_per_node, 1u);
  EXPECT_EQ(runs[4].ranks_per_node, 4u);
  EXPECT_EQ(runs[4].topology.fabric_hosts, 16u);
  const auto& jobs = *std::get<ExplicitJobs>(runs[4].workload).jobs;
  EXPECT_EQ(jobs[0].ranks, 16u);
  EXPECT_EQ(jobs[0].nodes, 0u);
}

TEST(ScenarioZip, ListsOfGroups_AndTheHashCoversThem) {
  const std::string three = std::string(test::kSweptHead) +
                            "gpus_per_node: [1, 2, 4]\n"
                            "timing: {nic: [fcfs, rr, rr-2]}\n";
  const Scenario crossed = parse(three);
  const Scenario zipped = parse(three + "zip: [[gpus_per_node, topology.xgft, timing.nic]]\n");
  EXPECT_EQ(crossed.run_count(), 54u);
  EXPECT_EQ(zipped.run_count(), 6u);
  EXPECT_NE(crossed.hash(), zipped.hash());
  EXPECT_EQ(zipped.run(5).label,
            "topology.xgft=2;4,4;1,4 routing=sdn-optimal gpus_per_node=4 timing.nic=rr-2");
}

TEST(ScenarioReference, EachRunIsComparedWithItsReferenceValuesAndItsOwnOthers) {
  const Scenario s = parse(std::string(test::kSweptHead) +
                           "gpus_per_node: [1, 2, 4]\n"
                           "zip: [gpus_per_node, topology.xgft]\n"
                           "reference: {gpus_per_node: 1}\n");
  EXPECT_EQ(s.reference_label(), "gpus_per_node=1");
  // Runs: (G1 dmodk) (G1 sdn) (G2 dmodk) (G2 sdn) (G4 dmodk) (G4 sdn).
  const std::vector<std::size_t> want = {0, 1, 0, 1, 0, 1};
  for (std::size_t i = 0; i < s.run_count(); ++i) {
    EXPECT_EQ(s.reference_run(i), want[i]) << s.run(i).label;
  }
  // Naming the zip partner instead selects the same runs; numbers match by value.
  const Scenario by_tree = parse(std::string(test::kSweptHead) +
                                 "gpus_per_node: [1, 2, 4]\n"
                                 "zip: [gpus_per_node, topology.xgft]\n"
                                 "reference: {topology.xgft: \"2;4,4;1,4\", routing: dmodk}\n");
  for (std::size_t i = 0; i < by_tree.run_count(); ++i) EXPECT_EQ(by_tree.reference_run(i), 4u);
  EXPECT_EQ(by_tree.reference_label(), "topology.xgft=2;4,4;1,4 routing=dmodk");
  const Scenario multiple = parse(std::string(test::kSweptHead) +
                                  "timing: {bandwidth_multiple: [0.5, 1, 2]}\n"
                                  "reference: {timing.bandwidth_multiple: 1.0}\n");
  EXPECT_EQ(multiple.reference_label(), "timing.bandwidth_multiple=1");
  EXPECT_FALSE(parse(test::kSweptHead).reference_run(0).has_value());
}

TEST(ScenarioRanks, AJobOfRanksGetsCeilRanksOverRanksPerNodeNodes) {
  const Scenario s = parse(R"(name: r
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
ranks_per_node: [3, 4]
application: "random-perm:iter=1"
workload: {jobs: [{ranks: 48, start: 0, end: 1}, {ranks: 7, start: 0, end: 1}]}
)");
  EXPECT_EQ(s.run_count(), 2u);
  // 48 ranks at 3 per node: 16 nodes, every host; at 4: 12.
  EXPECT_EQ(std::get<ExplicitJobs>(s.run(0).workload).jobs->at(1).ranks, 7u);
  try {
    (void)parse(R"(name: r
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
ranks_per_node: [2, 4]
application: "random-perm:iter=1"
workload: {jobs: [{ranks: 48, start: 0, end: 1}]}
)");
    FAIL() << "48 ranks at 2 per node need 24 of 16 hosts";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), 7u);
    EXPECT_NE(std::string(e.what()).find("48 ranks at 2 per node need 24 nodes; the topology "
                                         "gives 16 (run 1 of 2: ranks_per_node=2)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ibsdn
