#include "plugin/controller/load_guard.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/link_load.hpp"

namespace ibsdn::plugin {
namespace {

using OrderKey = LoadGuard::OrderKey;

LinkId link(std::uint32_t l) {
  return LinkId(l);
}

TEST(LoadGuard, Gap_ListsTheLinksAboveTheDefaultRoutesMaximum_TheBusiestFirst_WithTheirExcess) {
  const std::vector<double> sdn = {3.0, 1.0, 2.5, 0.0, 2.5};
  const std::vector<double> lft = {1.0, 1.0, 1.0, 2.0, 1.0};
  const LoadGap g = LoadGuard::gap(GuardMeasure::kFlows, sdn, lft);
  EXPECT_EQ(g.sdn_max, 3.0);
  EXPECT_EQ(g.lft_max, 2.0);
  EXPECT_EQ(g.excess, 1.0 + 0.5 + 0.5);
  // Equal loads keep the links' order.
  EXPECT_EQ(g.above, (std::vector<LinkId>{link(0), link(2), link(4)}));
}

TEST(LoadGuard, Gap_IsEmptyWhenNoLinkExceedsTheDefaultRoutesMaximumBeyondRounding) {
  const LoadGap g = LoadGuard::gap(GuardMeasure::kFlows, std::vector<double>{2.0 + 1e-12, 1.0},
                                   std::vector<double>{1.0, 2.0});
  EXPECT_TRUE(g.above.empty());
  EXPECT_EQ(g.excess, 0.0);
  EXPECT_EQ(g.lft_max, 2.0);
  // In bytes the rounding is relative: link times of microseconds differ by far less than 1e-9
  // and still count, while the same relative residue does not.
  const LoadGap bytes = LoadGuard::gap(GuardMeasure::kBytes, std::vector<double>{2.5e-6, 1e-6},
                                       std::vector<double>{2e-6, 1e-6});
  EXPECT_EQ(bytes.above, (std::vector<LinkId>{link(0)}));
  EXPECT_TRUE(LoadGuard::gap(GuardMeasure::kBytes, std::vector<double>{2e-6 * (1 + 1e-12)},
                             std::vector<double>{2e-6})
                  .above.empty());
}

/// h1 - sw1 = sw2 - h2, the switches joined by two cables (a: ports 2, b: ports 3).
struct TwoCables {
  Fabric f;
  Path via_a, via_b;
  NodeIdx h1, h2;
  TwoCables() {
    h1 = f.add_node(NodeKind::kHca, "h1", 1, Guid(0x1000));
    h2 = f.add_node(NodeKind::kHca, "h2", 1, Guid(0x1010));
    const NodeIdx s1 = f.add_node(NodeKind::kSwitch, "sw1", 3, Guid(0x100));
    const NodeIdx s2 = f.add_node(NodeKind::kSwitch, "sw2", 3, Guid(0x200));
    f.connect(h1, PortNum(1), s1, PortNum(1), 100.0);
    f.connect(h2, PortNum(1), s2, PortNum(1), 100.0);
    f.connect(s1, PortNum(2), s2, PortNum(2), 100.0);
    f.connect(s1, PortNum(3), s2, PortNum(3), 100.0);
    const auto out = [&](NodeIdx n, int port) {
      return f.node(n).ports[static_cast<std::size_t>(port - 1)].out;
    };
    via_a = {out(h1, 1), out(s1, 2), out(s2, 1)};
    via_b = {out(h1, 1), out(s1, 3), out(s2, 1)};
  }
  [[nodiscard]] Flow flow(double weight, std::uint64_t bytes = 0) const {
    Flow fl;
    fl.src = h1;
    fl.dst = h2;
    fl.weight = weight;
    fl.bytes = bytes;
    return fl;
  }
};

/// `flows`, each on its path, as one load.
LinkLoad load_of(const Fabric& f, const std::vector<Flow>& flows, const std::vector<Path>& paths) {
  LinkLoad out(f);
  for (std::size_t i = 0; i < flows.size(); ++i) out.add(paths[i], flows[i]);
  return out;
}

TEST(LoadGuard, ExcessWith_MovesTheJobsLoadOffItsCurrentPaths_WithoutChangingTheLoad) {
  const TwoCables t;
  const std::vector<Flow> job2 = {t.flow(0.5)};
  const std::vector<Path> on_a = {t.via_a};
  const std::vector<Path> on_b = {t.via_b};
  const LinkLoad load = load_of(t.f, {t.flow(1.0), t.flow(0.5)}, {t.via_a, t.via_a});
  const auto excess = [&](FlowsOnPaths now, FlowsOnPaths next) {
    return LoadGuard::excess_with(t.f, GuardMeasure::kFlows, load, now, next, 1.0);
  };
  // As it is: 1.5 on h1's link, cable a and h2's link; 0.5 above 1.0 on each.
  EXPECT_EQ(excess({job2, on_a}, {job2, on_a}), 1.5);
  // Job 2 on cable b: cable a carries 1.0, cable b 0.5; the hosts' links stay at 1.5.
  EXPECT_EQ(excess({job2, on_a}, {job2, on_b}), 1.0);
  // A job the load does not hold adds its load: 1.75 on three links.
  const std::vector<Flow> job3 = {t.flow(0.25)};
  EXPECT_EQ(excess({}, {job3, on_a}), 2.25);
  EXPECT_EQ(load.weight(t.via_a[1]), 1.5);
  EXPECT_EQ(load.weight(t.via_b[1]), 0.0);
}

TEST(LoadGuard, ExcessWith_InBytesCountsTheTimeALinkNeedsForItsBytes_NotTheFlowsWeights) {
  const TwoCables t;
  // Two heavy flows: sharing cable a needs twice the time on it that splitting them does.
  const std::vector<Flow> heavy = {t.flow(1.0, 1'000'000), t.flow(1.0, 1'000'000)};
  const std::vector<Path> split = {t.via_a, t.via_b};
  const std::vector<Path> shared = {t.via_a, t.via_a};
  const LinkLoad load = load_of(t.f, heavy, split);
  const double one = link_seconds(1'000'000, 100.0);  // a heavy flow's time on a cable
  // The hosts' links carry both anyway: the default routes' maximum is theirs, 2 flows' time.
  EXPECT_EQ(LoadGuard::excess_with(t.f, GuardMeasure::kBytes, load, {heavy, split}, {heavy, shared},
                                   2 * one),
            0.0);
  // Against one flow's time on the cables (the hosts' links aside), sharing cable a is above.
  EXPECT_GT(
      LoadGuard::excess_with(t.f, GuardMeasure::kBytes, load, {heavy, split}, {heavy, shared}, one),
      LoadGuard::excess_with(t.f, GuardMeasure::kBytes, load, {heavy, split}, {heavy, split}, one));
  // Jobs whose volumes differ are measured in bytes; equal volumes weigh as flows do.
  EXPECT_EQ(guard_measure(std::vector<Flow>{t.flow(1.0, 1'000'000), t.flow(1.0, 8)}),
            GuardMeasure::kBytes);
  EXPECT_EQ(guard_measure(heavy), GuardMeasure::kFlows);
  EXPECT_EQ(guard_measure(std::vector<Flow>{t.flow(1.0)}), GuardMeasure::kFlows);
  EXPECT_EQ(to_string(GuardMeasure::kBytes), "bytes");
  EXPECT_EQ(to_string(GuardMeasure::kFlows), "flows");
}

std::vector<OrderKey> keys(std::initializer_list<std::uint64_t> seqs) {
  std::vector<OrderKey> out;
  for (const std::uint64_t s : seqs) out.emplace_back(s, s * 10);
  return out;
}

std::vector<OrderKey> turns(const LoadGuard& g, std::vector<OrderKey> guarded) {
  g.take_turns(guarded, [](const OrderKey& k) { return k; });
  return guarded;
}

TEST(LoadGuard, TakeTurns_AtMostFourPerCall_BeginningAfterTheJobThatHadTheLastTurn) {
  LoadGuard g;
  const std::vector<OrderKey> all = keys({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(turns(g, all), keys({1, 2, 3, 4}));
  g.had_turn(all[3]);
  EXPECT_EQ(turns(g, all), keys({5, 6, 1, 2}));
  g.had_turn(all[5]);  // the last one: round again from the first
  EXPECT_EQ(turns(g, all), keys({1, 2, 3, 4}));
  g.had_turn(all[2]);  // 3 had its turn and left the default routes since
  EXPECT_EQ(turns(g, keys({1, 2, 5})), keys({5, 1, 2}));
  EXPECT_TRUE(turns(g, {}).empty());
}

}  // namespace
}  // namespace ibsdn::plugin
