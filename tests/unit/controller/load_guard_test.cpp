#include "plugin/controller/load_guard.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn::plugin {
namespace {

using OrderKey = LoadGuard::OrderKey;

LinkId link(std::uint32_t l) {
  return LinkId(l);
}

/// A load of `weights`, one per link.
LinkLoad load_of(const std::vector<double>& weights) {
  LinkLoad out(weights.size());
  for (std::size_t l = 0; l < weights.size(); ++l) {
    const Path path{link(static_cast<std::uint32_t>(l))};
    if (weights[l] > 0) out.add(path, weights[l]);
  }
  return out;
}

TEST(LoadGuard, Gap_ListsTheLinksAboveTheDefaultRoutesSwml_TheBusiestFirst_WithTheirExcess) {
  const LinkLoad sdn = load_of({3.0, 1.0, 2.5, 0.0, 2.5});
  const LinkLoad lft = load_of({1.0, 1.0, 1.0, 2.0, 1.0});
  const LoadGap g = LoadGuard::gap(sdn, lft);
  EXPECT_EQ(g.sdn_max, 3.0);
  EXPECT_EQ(g.lft_max, 2.0);
  EXPECT_EQ(g.excess, 1.0 + 0.5 + 0.5);
  // Equal loads keep the links' order.
  EXPECT_EQ(g.above, (std::vector<LinkId>{link(0), link(2), link(4)}));
}

TEST(LoadGuard, Gap_IsEmptyWhenNoLinkExceedsTheDefaultRoutesSwmlBeyondRounding) {
  const LinkLoad sdn = load_of({2.0 + 1e-12, 1.0});
  const LinkLoad lft = load_of({1.0, 2.0});
  const LoadGap g = LoadGuard::gap(sdn, lft);
  EXPECT_TRUE(g.above.empty());
  EXPECT_EQ(g.excess, 0.0);
  EXPECT_EQ(g.lft_max, 2.0);
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
  [[nodiscard]] Flow flow(double weight) const {
    Flow fl;
    fl.src = h1;
    fl.dst = h2;
    fl.weight = weight;
    return fl;
  }
};

TEST(LoadGuard, ExcessWith_MovesTheJobsLoadOffItsCurrentPaths_WithoutChangingTheState) {
  const TwoCables t;
  NetworkState net(t.f);
  net.restore_job(NetworkState::Job{JobId(1), "x", {t.flow(1.0)}, {t.via_a}, {}});
  net.restore_job(NetworkState::Job{JobId(2), "x", {t.flow(0.5)}, {t.via_a}, {}});
  // As it is: 1.5 on h1's link, cable a and h2's link; 0.5 above 1.0 on each.
  EXPECT_EQ(LoadGuard::excess_with(net, JobId(2), {t.flow(0.5)}, {t.via_a}, 1.0), 1.5);
  // Job 2 on cable b: cable a carries 1.0, cable b 0.5; the hosts' links stay at 1.5.
  EXPECT_EQ(LoadGuard::excess_with(net, JobId(2), {t.flow(0.5)}, {t.via_b}, 1.0), 1.0);
  // A job the state does not hold adds its load: 1.75 on three links.
  EXPECT_EQ(LoadGuard::excess_with(net, JobId(3), {t.flow(0.25)}, {t.via_a}, 1.0), 2.25);
  EXPECT_EQ(net.load().weight(t.via_a[1]), 1.5);
  EXPECT_EQ(net.load().weight(t.via_b[1]), 0.0);
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
