// Column generation solves the splittable LP exactly: on random irregular fabrics (where detours
// pay) and on XGFTs, starting from the shortest paths and pricing reaches the optimum of the LP
// given every column at once.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "routing/splittable_commodities.hpp"
#include "routing/splittable_lp.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

/// `switches` switches on a ring plus `chords` random extra cables, 1 or 2 hosts per switch;
/// capacities drawn from 25, 50, 100 and 200 Gb/s.
Fabric random_fabric(int switches, int chords, std::mt19937_64& rng) {
  Fabric f;
  const double speeds[] = {25, 50, 100, 200};
  const auto speed = [&] { return speeds[rng() % 4]; };
  const std::size_t ports = 2 + 2 + static_cast<std::size_t>(chords) * 2;
  std::vector<NodeIdx> sw;
  std::vector<std::uint8_t> next_port;
  for (int i = 0; i < switches; ++i) {
    sw.push_back(f.add_node(NodeKind::kSwitch, "s" + std::to_string(i), ports));
    next_port.push_back(1);
  }
  const auto cable = [&](int a, int b) {
    f.connect(sw[a], PortNum(next_port[a]++), sw[b], PortNum(next_port[b]++), speed());
  };
  for (int i = 0; i < switches; ++i) cable(i, (i + 1) % switches);
  for (int k = 0; k < chords; ++k) {
    const int a = static_cast<int>(rng() % switches);
    const int b = static_cast<int>(rng() % switches);
    if (a != b) cable(a, b);
  }
  int hosts = 0;
  for (int i = 0; i < switches; ++i) {
    for (int h = 0; h < 1 + static_cast<int>(rng() % 2); ++h) {
      const NodeIdx n = f.add_node(NodeKind::kHca, "h" + std::to_string(hosts++), 1);
      f.connect(n, PortNum(1), sw[i], PortNum(next_port[i]++), speed());
    }
  }
  return f;
}

std::vector<Flow> random_flows(const Fabric& f, std::size_t count, std::mt19937_64& rng) {
  std::vector<Flow> out;
  const auto n = f.hcas().size();
  while (out.size() < count) {
    Flow fl;
    fl.src = f.hcas()[rng() % n];
    fl.dst = f.hcas()[rng() % n];
    if (fl.src == fl.dst) continue;
    fl.bytes = static_cast<std::uint64_t>(
        std::pow(10.0, std::uniform_real_distribution<double>(3, 7)(rng)));
    out.push_back(fl);
  }
  return out;
}

std::vector<Commodity> commodities(const Fabric& f, const std::vector<Flow>& flows) {
  std::vector<Commodity> cs;
  EXPECT_EQ(collect_commodities(f, flows, cs), "");
  CommodityPruner pruner(f, nullptr);
  for (Commodity& c : cs) EXPECT_EQ(pruner.prune(c), "");
  return cs;
}

void expect_same_optimum(const Fabric& f, const std::vector<Flow>& flows, const std::string& what,
                         int* priced_rounds) {
  const std::vector<Commodity> cs = commodities(f, flows);
  const SplittableLpResult priced = solve_splittable_lp(f, cs, Deadline{});
  const SplittableLpResult all = solve_splittable_lp(f, cs, Deadline{}, FirstColumns::kAll);
  ASSERT_TRUE(priced.solved && all.solved) << what << ": " << priced.why_not << all.why_not;
  EXPECT_NEAR(priced.seconds / all.seconds, 1.0, 1e-8) << what;
  EXPECT_LE(priced.seconds, all.seconds * (1 + 1e-12)) << what << ": a lower bound";
  EXPECT_EQ(all.rounds, 1) << what;
  EXPECT_LE(priced.columns, all.columns) << what;
  *priced_rounds += priced.rounds - 1;
}

TEST(SplittableLp, PricingReachesTheFullOptimum_OnRandomIrregularFabrics) {
  std::mt19937_64 rng(99);
  int extra_rounds = 0;
  for (int round = 0; round < 12; ++round) {
    const Fabric f = random_fabric(6 + round % 5, 3 + round % 4, rng);
    const std::vector<Flow> flows = random_flows(f, 6 + 3 * round, rng);
    expect_same_optimum(f, flows, "fabric " + std::to_string(round), &extra_rounds);
  }
  // Detours paid somewhere, so the pricing was exercised, not only the first solve.
  EXPECT_GT(extra_rounds, 0);
}

TEST(SplittableLp, PricingReachesTheFullOptimum_OnXgfts) {
  std::mt19937_64 rng(5);
  int extra_rounds = 0;
  for (const char* params : {"2;4,4;1,2", "3;3,3,2;1,3,3", "3;4,2,2;1,2,2"}) {
    const Fabric f = generate_xgft(XgftParams::parse(params), 1, 100);
    expect_same_optimum(f, random_flows(f, 40, rng), params, &extra_rounds);
  }
}

}  // namespace
}  // namespace ibsdn
