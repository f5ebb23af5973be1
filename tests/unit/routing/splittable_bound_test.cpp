// The splittable LP bound: hand-computed optima on small fabrics and trees, the limits that stop
// it with a message, and the bound staying below every single-path routing the registered
// algorithms produce.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/splittable_bound.hpp"
#include "routing/xgft.hpp"
#include "tests/support/param_names.hpp"

namespace ibsdn {
namespace {

constexpr double kGB = 1e9;  // bytes

/// seconds(l) written out, not through link_seconds(): the unit every expectation below uses.
double secs(double bytes, double gbps) {
  return bytes * 8 / (gbps * 1e9);
}

Flow flow(NodeIdx s, NodeIdx d, double bytes) {
  Flow f;
  f.src = s;
  f.dst = d;
  f.bytes = static_cast<std::uint64_t>(bytes);
  return f;
}

LpBound bound(const Fabric& f, const std::vector<Flow>& flows, const LinkFilter& allowed = nullptr,
              const LpLimits& lim = {}) {
  return splittable_lp_bound(f, flows, allowed, lim);
}

/// Two switches s1, s2 joined by `cables` cables of `trunk_gbps`, each with `hosts` HCAs on
/// 100 Gb/s links: a1..aN on s1, b1..bN on s2.
struct TwoSwitches {
  Fabric f;
  std::vector<NodeIdx> a, b;
};
TwoSwitches two_switches(int hosts, int cables, double trunk_gbps) {
  TwoSwitches t;
  const auto ports = static_cast<std::size_t>(hosts + cables);
  const NodeIdx s1 = t.f.add_node(NodeKind::kSwitch, "s1", ports);
  const NodeIdx s2 = t.f.add_node(NodeKind::kSwitch, "s2", ports);
  for (int i = 0; i < hosts; ++i) {
    const auto p = PortNum(static_cast<std::uint8_t>(i + 1));
    t.a.push_back(t.f.add_node(NodeKind::kHca, "a" + std::to_string(i + 1), 1));
    t.b.push_back(t.f.add_node(NodeKind::kHca, "b" + std::to_string(i + 1), 1));
    t.f.connect(t.a.back(), PortNum(1), s1, p, 100);
    t.f.connect(t.b.back(), PortNum(1), s2, p, 100);
  }
  for (int c = 0; c < cables; ++c) {
    const auto p = PortNum(static_cast<std::uint8_t>(hosts + c + 1));
    t.f.connect(s1, p, s2, p, trunk_gbps);
  }
  return t;
}

bool touches(const Fabric& f, LinkId l, NodeIdx n) {
  return f.link(l).from == n || f.link(l).to == n;
}

TEST(SplittableBound, OneFlowOnALine_IsItsBytesOverTheSlowestLink) {
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kHca, "a", 1);
  const NodeIdx s1 = f.add_node(NodeKind::kSwitch, "s1", 2);
  const NodeIdx s2 = f.add_node(NodeKind::kSwitch, "s2", 2);
  const NodeIdx b = f.add_node(NodeKind::kHca, "b", 1);
  f.connect(a, PortNum(1), s1, PortNum(1), 100);
  f.connect(s1, PortNum(2), s2, PortNum(1), 25);
  f.connect(s2, PortNum(2), b, PortNum(1), 50);
  const LpBound r = bound(f, {flow(a, b, 1 * kGB)});
  ASSERT_TRUE(r.computed) << r.why_not;
  EXPECT_NEAR(r.seconds, secs(1 * kGB, 25), 1e-12);
  // The three links toward b, s2 -> s1 (on a walk from a to b, so pruning keeps it), and T.
  EXPECT_EQ(r.variables, 5u);
}

TEST(SplittableBound, TwoFlowsOnOneTrunk_ShareIt) {
  const TwoSwitches t = two_switches(2, 1, 100);
  const std::vector<Flow> flows{flow(t.a[0], t.b[0], 1 * kGB), flow(t.a[1], t.b[1], 3 * kGB)};
  const LpBound r = bound(t.f, flows);
  ASSERT_TRUE(r.computed) << r.why_not;
  EXPECT_NEAR(r.seconds, secs(4 * kGB, 100), 1e-12);
}

TEST(SplittableBound, TwoTrunks_SplitTheFlowsUntilAHostLinkBinds) {
  const TwoSwitches t = two_switches(2, 2, 100);
  const std::vector<Flow> flows{flow(t.a[0], t.b[0], 1 * kGB), flow(t.a[1], t.b[1], 3 * kGB)};
  const LpBound r = bound(t.f, flows);
  ASSERT_TRUE(r.computed) << r.why_not;
  // 4 GB over two trunks is 2 GB each; a2's own 3 GB on its host link is more.
  EXPECT_NEAR(r.seconds, secs(3 * kGB, 100), 1e-12);
}

TEST(SplittableBound, OneFourXLink_BoundsLikeFourParallelOneXLinks) {
  std::vector<double> seconds;
  for (const auto& [cables, gbps] : {std::pair(1, 100.0), std::pair(4, 25.0), std::pair(1, 25.0)}) {
    const TwoSwitches t = two_switches(4, cables, gbps);
    std::vector<Flow> flows;
    for (int i = 0; i < 4; ++i) flows.push_back(flow(t.a[i], t.b[i], 1 * kGB));
    const LpBound r = bound(t.f, flows);
    ASSERT_TRUE(r.computed) << r.why_not;
    seconds.push_back(r.seconds);
  }
  EXPECT_NEAR(seconds[0], secs(4 * kGB, 100), 1e-12);
  EXPECT_NEAR(seconds[1], seconds[0], 1e-12);
  EXPECT_NEAR(seconds[2], 4 * seconds[0], 1e-12);  // one 1x link alone: four times slower
}

TEST(SplittableBound, TaperedXgftAllToAll_IsALeafsBytesOverItsUpCapacity) {
  // XGFT(2;4,4;1,2): 4 leaves of 4 hosts, 2 up links per leaf. Each host sends B to the 12 hosts
  // of other leaves: 48 B leave a leaf over 2 links (24 B each) while a host link carries 15 B.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,2"), 1, 100);
  const double b = 1e6;
  std::vector<Flow> flows;
  for (NodeIdx s : f.hcas()) {
    for (NodeIdx d : f.hcas()) {
      if (s != d) flows.push_back(flow(s, d, b));
    }
  }
  const LpBound r = bound(f, flows);
  ASSERT_TRUE(r.computed) << r.why_not;
  EXPECT_NEAR(r.seconds / secs(24 * b, 100), 1.0, 1e-9);
}

TEST(SplittableBound, UnevenLeafToLeafPermutation_BindsAtTheHostOrTheUpLinks) {
  // Hosts 0..3 (leaf 0) send 1, 2, 3, 4 B to hosts 4..7 (leaf 1): 10 B leave the leaf.
  const double b = 1e6;
  for (const auto& [params, expected] : {std::pair("2;4,4;1,4", 4 * b),     // host 3's 4 B bind
                                         std::pair("2;4,4;1,2", 5 * b)}) {  // 10 B over 2 links
    const Fabric f = generate_xgft(XgftParams::parse(params), 1, 100);
    std::vector<Flow> flows;
    for (int i = 0; i < 4; ++i) flows.push_back(flow(f.hcas()[i], f.hcas()[i + 4], (i + 1) * b));
    const LpBound r = bound(f, flows);
    ASSERT_TRUE(r.computed) << params << ": " << r.why_not;
    EXPECT_NEAR(r.seconds / secs(expected, 100), 1.0, 1e-9) << params;
  }
}

TEST(SplittableBound, ForbiddenTrunk_RaisesTheBound) {
  const TwoSwitches t = two_switches(2, 2, 100);
  const std::vector<Flow> flows{flow(t.a[0], t.b[0], 1 * kGB), flow(t.a[1], t.b[1], 3 * kGB)};
  const LinkId second_trunk = t.f.port(t.f.find("s1").value(), PortNum(4)).out;
  const LinkFilter no_second_trunk = [&](NodeIdx, LinkId l) {
    return l != second_trunk && l != t.f.reverse(second_trunk);
  };
  const LpBound r = bound(t.f, flows, no_second_trunk);
  ASSERT_TRUE(r.computed) << r.why_not;
  EXPECT_NEAR(r.seconds, secs(4 * kGB, 100), 1e-12);
}

TEST(SplittableBound, FilterPerDestination_AppliesToThatCommodityOnly) {
  // XGFT(2;4,4;1,2), hosts 0..3 send B each to hosts 4..7: 4 B over 2 up links, 2 B each. When
  // destinations 4, 5 and 6 may not use top switch 1, their 3 B all climb to top switch 0.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,2"), 1, 100);
  const double b = 1e6;
  std::vector<Flow> flows;
  for (int i = 0; i < 4; ++i) flows.push_back(flow(f.hcas()[i], f.hcas()[i + 4], b));
  const NodeIdx top1 = f.xgft()->switches[1][1];
  const LinkFilter avoid_top1 = [&](NodeIdx dst, LinkId l) {
    return dst == f.hcas()[7] || !touches(f, l, top1);
  };
  const LpBound free = bound(f, flows);
  const LpBound filtered = bound(f, flows, avoid_top1);
  ASSERT_TRUE(free.computed && filtered.computed) << free.why_not << filtered.why_not;
  EXPECT_NEAR(free.seconds / secs(2 * b, 100), 1.0, 1e-9);
  EXPECT_NEAR(filtered.seconds / secs(3 * b, 100), 1.0, 1e-9);
  EXPECT_LT(filtered.variables, free.variables);
}

TEST(SplittableBound, ShortestPathFilter_ForbidsTheDetourThatSplitsTheLoad) {
  // a on s1, b on s2; s1 - s2 directly, and s1 - s3 - s2 around. Over every link half the bytes
  // take the detour; on shortest paths all of them cross the direct cable.
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kHca, "a", 1);
  const NodeIdx b = f.add_node(NodeKind::kHca, "b", 1);
  const NodeIdx s1 = f.add_node(NodeKind::kSwitch, "s1", 3);
  const NodeIdx s2 = f.add_node(NodeKind::kSwitch, "s2", 3);
  const NodeIdx s3 = f.add_node(NodeKind::kSwitch, "s3", 2);
  f.connect(a, PortNum(1), s1, PortNum(1), 400);
  f.connect(b, PortNum(1), s2, PortNum(1), 400);
  f.connect(s1, PortNum(2), s2, PortNum(2), 100);
  f.connect(s1, PortNum(3), s3, PortNum(1), 100);
  f.connect(s3, PortNum(2), s2, PortNum(3), 100);
  const std::vector<Flow> flows{flow(a, b, 1 * kGB)};
  const LpBound any = bound(f, flows);
  const LpBound shortest = bound(f, flows, shortest_path_filter(f));
  ASSERT_TRUE(any.computed && shortest.computed) << any.why_not << shortest.why_not;
  EXPECT_NEAR(any.seconds, secs(0.5 * kGB, 100), 1e-12);
  EXPECT_NEAR(shortest.seconds, secs(1 * kGB, 100), 1e-12);
  EXPECT_EQ(shortest.variables, 4u);  // a -> s1 -> s2 -> b, and T
  // The LP starts on shortest paths; pricing had to bring the detour in.
  EXPECT_GT(any.rounds, 1);
  EXPECT_EQ(shortest.rounds, 1);
}

TEST(SplittableBound, ShortestPathFilterOnAnXgft_KeepsTheBoundAndShrinksTheLp) {
  // All-to-all on XGFT(2;4,4;1,2): detours through other leaves never help, so the bound is the
  // same 24 B per up link, from a smaller LP.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,2"), 1, 100);
  std::vector<Flow> flows;
  for (NodeIdx s : f.hcas()) {
    for (NodeIdx d : f.hcas()) {
      if (s != d) flows.push_back(flow(s, d, 1e6));
    }
  }
  const LpBound any = bound(f, flows);
  const LpBound shortest = bound(f, flows, shortest_path_filter(f));
  ASSERT_TRUE(any.computed && shortest.computed) << any.why_not << shortest.why_not;
  EXPECT_NEAR(shortest.seconds / any.seconds, 1.0, 1e-9);
  EXPECT_LT(shortest.variables, any.variables);  // no link down toward another leaf
  // Over every link, the detours were priced out without being handed to GLPK.
  EXPECT_EQ(any.rounds, 1);
  EXPECT_EQ(any.solved_columns, shortest.solved_columns);
}

TEST(SplittableBound, SourceCutOffByTheFilter_NamesTheSourceAndDestination) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,2"), 1, 100);
  const NodeIdx s = f.hcas()[0], d = f.hcas()[5];
  const LinkFilter no_way_in = [&](NodeIdx dst, LinkId l) {
    return !(dst == d && f.link(l).to == d);
  };
  const LpBound r = bound(f, {flow(f.hcas()[1], f.hcas()[4], 1e6), flow(s, d, 1e6)}, no_way_in);
  EXPECT_FALSE(r.computed);
  EXPECT_EQ(r.why_not, "no allowed path from 'n0001' to 'n0006'");
}

TEST(SplittableBound, DisconnectedHosts_AreReportedUnreachable) {
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kHca, "a", 1);
  const NodeIdx s = f.add_node(NodeKind::kSwitch, "s", 2);
  const NodeIdx b = f.add_node(NodeKind::kHca, "b", 1);
  f.connect(a, PortNum(1), s, PortNum(1), 100);
  const LpBound r = bound(f, {flow(a, b, 1e6)});
  EXPECT_FALSE(r.computed);
  EXPECT_EQ(r.why_not, "no allowed path from 'a' to 'b'");
}

TEST(SplittableBound, HcaNeverCarriesTransit) {
  // a - s1 - h - s2 - b, where h is an HCA with two cables: the only path crosses h, which flow
  // may not do, so b is unreachable from a.
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kHca, "a", 1);
  const NodeIdx s1 = f.add_node(NodeKind::kSwitch, "s1", 2);
  const NodeIdx h = f.add_node(NodeKind::kHca, "h", 2);
  const NodeIdx s2 = f.add_node(NodeKind::kSwitch, "s2", 2);
  const NodeIdx b = f.add_node(NodeKind::kHca, "b", 1);
  f.connect(a, PortNum(1), s1, PortNum(1), 100);
  f.connect(s1, PortNum(2), h, PortNum(1), 100);
  f.connect(h, PortNum(2), s2, PortNum(1), 100);
  f.connect(s2, PortNum(2), b, PortNum(1), 100);
  const LpBound r = bound(f, {flow(a, b, 1e6)});
  EXPECT_FALSE(r.computed);
  EXPECT_EQ(r.why_not, "no allowed path from 'a' to 'b'");
  // h itself may still send and receive.
  const LpBound own = bound(f, {flow(a, h, 1e6), flow(h, b, 2e6)});
  ASSERT_TRUE(own.computed) << own.why_not;
  EXPECT_NEAR(own.seconds, secs(2e6, 100), 1e-15);
}

// As in every volume measure (flow_volume), a flow without a byte count weighs one byte; a flow
// to itself never reaches the fabric.
TEST(SplittableBound, FlowWithoutBytes_WeighsOneByte_SelfFlowIsLeftOut) {
  const TwoSwitches t = two_switches(2, 1, 100);
  const LpBound r = bound(t.f, {flow(t.a[0], t.b[0], 0), flow(t.a[1], t.a[1], 1e6)});
  ASSERT_TRUE(r.computed) << r.why_not;
  EXPECT_NEAR(r.seconds, secs(1, 100), 1e-18);
  const LpBound self = bound(t.f, {flow(t.a[1], t.a[1], 1e6)});
  ASSERT_TRUE(self.computed) << self.why_not;
  EXPECT_EQ(self.seconds, 0);
  EXPECT_EQ(self.variables, 0u);
}

TEST(SplittableBound, EndpointThatIsNotAnHca_IsReported) {
  const TwoSwitches t = two_switches(2, 1, 100);
  const NodeIdx s1 = t.f.find("s1").value();
  const LpBound r = bound(t.f, {flow(t.a[0], t.b[0], 1e6), flow(t.a[1], s1, 1e6)});
  EXPECT_FALSE(r.computed);
  EXPECT_EQ(r.why_not, "flow 1: destination is not an HCA of the fabric");
}

TEST(SplittableBound, SizeLimit_RefusesWithTheCountAndTheLimit) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,2"), 1, 100);
  std::vector<Flow> flows;
  for (int i = 0; i < 8; ++i) flows.push_back(flow(f.hcas()[i], f.hcas()[15 - i], 1e6));
  const LpBound full = bound(f, flows);
  ASSERT_TRUE(full.computed) << full.why_not;
  const std::size_t n = full.variables;

  LpLimits exact;
  exact.max_variables = n;
  EXPECT_TRUE(bound(f, flows, nullptr, exact).computed);

  LpLimits one_less;
  one_less.max_variables = n - 1;
  const LpBound refused = bound(f, flows, nullptr, one_less);
  EXPECT_FALSE(refused.computed);
  EXPECT_EQ(refused.why_not,
            "LP would have " + std::to_string(n) + " variables, limit " + std::to_string(n - 1));

  LpLimits tiny;
  tiny.max_variables = 10;
  const LpBound early = bound(f, flows, nullptr, tiny);
  EXPECT_FALSE(early.computed);
  EXPECT_NE(early.why_not.find("LP would have over "), std::string::npos) << early.why_not;
  EXPECT_NE(early.why_not.find("(1 of 8 destinations counted), limit 10"), std::string::npos)
      << early.why_not;
}

TEST(SplittableBound, ExpiredOrCancelledDeadline_StopsWithAMessage) {
  const TwoSwitches t = two_switches(2, 1, 100);
  const std::vector<Flow> flows{flow(t.a[0], t.b[0], 1e6)};
  LpLimits past;
  past.deadline = Deadline(Deadline::Clock::now() - std::chrono::seconds(1));
  const LpBound late = bound(t.f, flows, nullptr, past);
  EXPECT_FALSE(late.computed);
  EXPECT_NE(late.why_not.find("deadline passed while "), std::string::npos) << late.why_not;

  const std::atomic<bool> cancel{true};
  LpLimits cancelled;
  cancelled.deadline = Deadline(Deadline::Clock::now() + std::chrono::hours(1), &cancel);
  const LpBound stopped = bound(t.f, flows, nullptr, cancelled);
  EXPECT_FALSE(stopped.computed);
  EXPECT_NE(stopped.why_not.find("cancelled while "), std::string::npos) << stopped.why_not;

  LpLimits ample;
  ample.deadline = Deadline(Deadline::Clock::now() + std::chrono::hours(1));
  EXPECT_TRUE(bound(t.f, flows, nullptr, ample).computed);
}

TEST(SplittableBound, SolvingPrintsNothing) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,2"), 1, 100);
  std::vector<Flow> flows;
  for (int i = 0; i < 16; ++i) flows.push_back(flow(f.hcas()[i], f.hcas()[(i + 5) % 16], 1e6));
  ::testing::internal::CaptureStdout();
  const LpBound r = bound(f, flows);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_TRUE(r.computed) << r.why_not;
}

/// Random demands with volumes over three orders of magnitude; repeated pairs allowed.
std::vector<Flow> random_flows(const Fabric& f, std::size_t count, std::mt19937_64& rng) {
  const auto n = f.hcas().size();
  std::vector<Flow> out;
  while (out.size() < count) {
    const NodeIdx s = f.hcas()[rng() % n], d = f.hcas()[rng() % n];
    if (s == d) continue;
    const double exponent = std::uniform_real_distribution<double>(3, 6)(rng);
    out.push_back(flow(s, d, std::pow(10.0, exponent)));
  }
  return out;
}

/// The largest host-link utilisation: what every routing, split or not, must carry.
double host_link_seconds(const Fabric& f, const std::vector<Flow>& flows) {
  std::vector<double> out(f.num_nodes(), 0), in(f.num_nodes(), 0);
  for (const Flow& fl : flows) {
    out[fl.src.value()] += static_cast<double>(fl.bytes);
    in[fl.dst.value()] += static_cast<double>(fl.bytes);
  }
  double worst = 0;
  for (NodeIdx h : f.hcas()) {
    const double gbps = f.node(h).ports[0].gbps;
    worst = std::max({worst, secs(out[h.value()], gbps), secs(in[h.value()], gbps)});
  }
  return worst;
}

class SplittableBoundBelowRouting : public ::testing::TestWithParam<std::string> {};

TEST_P(SplittableBoundBelowRouting, OnRandomVolumesOnSmallXgfts) {
  const auto alg = make_algorithm(GetParam());
  int routed = 0;
  for (const char* params : {"2;4,4;1,2", "2;4,4;1,4", "3;3,3,2;1,3,3", "3;4,2,2;1,2,2"}) {
    const Fabric f = generate_xgft(XgftParams::parse(params), 1, 100);
    if (!alg->unsupported_reason(f).empty()) continue;
    std::mt19937_64 rng(2024);
    for (int round = 0; round < 6; ++round) {
      const std::vector<Flow> flows = random_flows(f, 10 + 8 * round, rng);
      const LpBound lp = bound(f, flows);
      const LpBound shortest = bound(f, flows, shortest_path_filter(f));
      ASSERT_TRUE(lp.computed && shortest.computed) << lp.why_not << shortest.why_not;
      EXPECT_GE(lp.seconds, host_link_seconds(f, flows) * (1 - 1e-9)) << params;
      EXPECT_GE(shortest.seconds, lp.seconds * (1 - 1e-9)) << params;
      // Every fat-tree algorithm routes on shortest paths: both bounds hold for it.
      const std::vector<Path> paths = alg->route(RouteRequest{f, flows});
      EXPECT_GE(max_link_seconds(f, flows, paths), shortest.seconds * (1 - 1e-9))
          << params << " round " << round;
      ++routed;
    }
  }
  EXPECT_GT(routed, 0) << GetParam() << " routed none of these XGFTs";
}

/// Every registered algorithm that routes a small XGFT (the dragonfly ones do not).
std::vector<std::string> xgft_algorithms() {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"), 1, 100);
  std::vector<std::string> out;
  for (const std::string& name : algorithm_names()) {
    if (make_algorithm(name)->unsupported_reason(f).empty()) out.push_back(name);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SplittableBoundBelowRouting,
                         ::testing::ValuesIn(xgft_algorithms()), testing_names::ByText{});

}  // namespace
}  // namespace ibsdn
