#include "plugin/controller/algorithm_pick.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "routing/dragonfly.hpp"
#include "routing/xgft.hpp"

namespace ibsdn::plugin {
namespace {

/// Flows between the first hosts of `f`, one per entry of `bytes`.
std::vector<Flow> flows_of(const Fabric& f, const std::vector<std::uint64_t>& bytes) {
  const std::vector<NodeIdx>& hosts = f.hcas();
  std::vector<Flow> out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    Flow fl;
    fl.src = hosts[i];
    fl.dst = hosts[i + 1];
    fl.bytes = bytes[i];
    out.push_back(fl);
  }
  return out;
}

struct Pick : ::testing::Test {
  Fabric tree = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  AlgorithmChoice defaults;
  const std::optional<std::string> none;
};

TEST_F(Pick, AutoIsTheFatTreesDefault_AndRoutesDifferingVolumesWithSdnVolume) {
  EXPECT_EQ(defaults.fat_tree, kAutoAlgorithm);
  const AlgorithmPick p = pick_algorithm(defaults, tree, none, flows_of(tree, {1 << 20, 8, 8}));
  EXPECT_EQ(p.name, "sdn-volume");
  EXPECT_EQ(p.reason, AlgorithmReason::kVolumes);
  EXPECT_EQ(to_string(p.reason), "volumes");
}

TEST_F(Pick, AutoKeepsSdnOptimalForUnitFlowsAndForFlowsOfEqualBytes) {
  for (const std::vector<std::uint64_t>& bytes :
       {std::vector<std::uint64_t>{0, 0, 0}, std::vector<std::uint64_t>{4096, 4096, 4096},
        std::vector<std::uint64_t>{}}) {
    const AlgorithmPick p = pick_algorithm(defaults, tree, none, flows_of(tree, bytes));
    EXPECT_EQ(p.name, "sdn-optimal") << bytes.size();
    EXPECT_EQ(p.reason, AlgorithmReason::kUnit);
  }
  // A flow without bytes weighs 1 (flow_volume): beside a flow of 1 byte they are equal.
  EXPECT_FALSE(volumes_differ(flows_of(tree, {0, 1})));
  EXPECT_TRUE(volumes_differ(flows_of(tree, {0, 2})));
}

TEST_F(Pick, AConfiguredAlgorithmWinsOverTheTraffic) {
  AlgorithmChoice c;
  c.fat_tree = "sdn-optimal";
  const AlgorithmPick p = pick_algorithm(c, tree, none, flows_of(tree, {1 << 20, 8}));
  EXPECT_EQ(p.name, "sdn-optimal");
  EXPECT_EQ(p.reason, AlgorithmReason::kConfiguration);
}

TEST_F(Pick, TheNoticesAlgorithmWins_UnlessItCannotRouteTheFabric) {
  const std::optional<std::string> dmodk = "dmodk";
  AlgorithmPick p = pick_algorithm(defaults, tree, dmodk, flows_of(tree, {1 << 20, 8}));
  EXPECT_EQ(p.name, "dmodk");
  EXPECT_EQ(p.reason, AlgorithmReason::kRequest);
  // A dragonfly algorithm on a fat-tree (the fabric was recabled under a running job): the
  // configuration's choice, auto included, and the reason says why.
  const std::optional<std::string> df = "df-minimal";
  p = pick_algorithm(defaults, tree, df, flows_of(tree, {1 << 20, 8}));
  EXPECT_EQ(p.name, "sdn-volume");
  EXPECT_EQ(p.reason, AlgorithmReason::kFallback);
}

TEST_F(Pick, AutoIsForFatTreesOnly_OtherTopologiesKeepTheirAlgorithm) {
  const Fabric df = generate_dragonfly(2, 4, 2, 9);
  const AlgorithmPick p = pick_algorithm(defaults, df, none, flows_of(df, {1 << 20, 8}));
  EXPECT_EQ(p.name, defaults.dragonfly);
  EXPECT_EQ(p.reason, AlgorithmReason::kConfiguration);
}

}  // namespace
}  // namespace ibsdn::plugin
