// Adaptive routing at flow granularity (sim_backend/timing/adaptive_routes.hpp): the fat-tree split
// over leaf up-ports, UGAL-L / UGAL-G / PAR on dragonflies and megaflies, the load view, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/pod_tree.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/timing/adaptive_routes.hpp"
#include "tests/support/throws_naming.hpp"

namespace ibsdn {
namespace {

// Host to host, each link starting where the previous one ended; and, by route_quality's
// validate_path, loop-free (and a shortest up*/down* path on a fat-tree).
void expect_route(const Fabric& f, NodeIdx src, NodeIdx dst, const Path& p) {
  ASSERT_GE(p.size(), 2u);
  EXPECT_EQ(f.link(p.front()).from, src);
  EXPECT_EQ(f.link(p.back()).to, dst);
  for (std::size_t i = 1; i < p.size(); ++i) {
    EXPECT_EQ(f.link(p[i - 1]).to, f.link(p[i]).from) << "link " << i;
  }
  EXPECT_EQ(validate_path(f, Flow{src, dst}, p), "");
}

using test::throws_naming;

std::vector<double> idle(const Fabric& f) {
  return std::vector<double>(f.num_links(), 0.0);
}

// ----------------------------------------------------------------------------------------------
// Fat-trees.

TEST(FatTreeAdaptive, SplitsOverEveryLeafUpPortOnAnIdleTree) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  const std::vector<double> loads = idle(f);
  std::vector<Path> out;
  const NodeIdx src = t.hosts[0];
  const NodeIdx src_leaf = t.leaf_of_host[0];
  for (const std::uint32_t d : {4u, 16u, 63u}) {  // NCA at levels 2, 3, 3
    SCOPED_TRACE("to host " + std::to_string(d));
    ASSERT_EQ(router.routes(src, t.hosts[d], loads, out), 4u);
    ASSERT_EQ(out.size(), 4u);
    std::set<LinkId> first_up;
    for (const Path& p : out) {
      expect_route(f, src, t.hosts[d], p);
      EXPECT_EQ(f.link(p[1]).from, src_leaf);
      first_up.insert(p[1]);
    }
    EXPECT_EQ(first_up.size(), 4u) << "one route per leaf up-port";
    // In leaf up-port order.
    for (std::size_t i = 1; i < out.size(); ++i) {
      EXPECT_LT(f.link(out[i - 1][1]).from_port, f.link(out[i][1]).from_port);
    }
  }
}

TEST(FatTreeAdaptive, HostsOnOneLeafGetTheOneRouteThroughIt) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  std::vector<Path> out(3, Path{LinkId(0u)});  // leftovers are replaced
  ASSERT_EQ(router.routes(t.hosts[1], t.hosts[2], idle(f), out), 1u);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].size(), 2u);
  expect_route(f, t.hosts[1], t.hosts[2], out[0]);
}

TEST(FatTreeAdaptive, TieAboveTheLeafGoesToTheFirstUpPortAndIsRepeatable) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  const std::vector<double> loads = idle(f);
  std::vector<Path> a;
  std::vector<Path> b;
  router.routes(t.hosts[0], t.hosts[63], loads, a);
  router.routes(t.hosts[0], t.hosts[63], loads, b);
  EXPECT_EQ(a, b);
  for (const Path& p : a) {
    const NodeIdx l2 = f.link(p[2]).from;
    EXPECT_EQ(f.link(p[2]).from_port, t.up_ports[l2.value()].front());
  }
}

TEST(FatTreeAdaptive, LoadsSteerTheClimbAndDropBusyLeafPorts) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  std::vector<double> loads = idle(f);
  std::vector<Path> out;
  router.routes(t.hosts[0], t.hosts[63], loads, out);
  const Path idle_first = out[0];

  // Above the leaf: the first route's level-2 switch has its first two up-ports loaded.
  const NodeIdx l2 = f.link(idle_first[2]).from;
  const auto& ups = t.up_ports[l2.value()];
  loads[f.port(l2, ups[0]).out.value()] = 2.0;
  loads[f.port(l2, ups[1]).out.value()] = 0.5;
  loads[f.port(l2, ups[3]).out.value()] = 0.25;
  router.routes(t.hosts[0], t.hosts[63], loads, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0][2], f.port(l2, ups[2]).out) << "the least loaded up-port";
  expect_route(f, t.hosts[0], t.hosts[63], out[0]);

  // At the leaf: a port more than split_slack (1 flow) above the least loaded one is dropped,
  // one within it kept.
  const NodeIdx leaf = t.leaf_of_host[0];
  const auto& leaf_ups = t.up_ports[leaf.value()];
  loads[f.port(leaf, leaf_ups[0]).out.value()] = 1.5;
  loads[f.port(leaf, leaf_ups[1]).out.value()] = 0.5;
  loads[f.port(leaf, leaf_ups[2]).out.value()] = 1.0;
  router.routes(t.hosts[0], t.hosts[63], loads, out);
  std::set<PortNum> used;
  for (const Path& p : out) used.insert(f.link(p[1]).from_port);
  EXPECT_EQ(used, (std::set<PortNum>{leaf_ups[1], leaf_ups[2], leaf_ups[3]}));

  FatTreeAdaptiveRoutes oblivious(
      f, FatTreeAdaptiveOptions{.split_slack = std::numeric_limits<double>::infinity()});
  EXPECT_EQ(oblivious.routes(t.hosts[0], t.hosts[63], loads, out), 4u);

  FatTreeAdaptiveRoutes two(f, FatTreeAdaptiveOptions{.split_slack = 10, .max_routes = 2});
  ASSERT_EQ(two.routes(t.hosts[0], t.hosts[63], loads, out), 2u);
  EXPECT_EQ(f.link(out[0][1]).from_port, leaf_ups[1]);
  EXPECT_EQ(f.link(out[1][1]).from_port, leaf_ups[3]);
}

TEST(FatTreeAdaptive, TaperedTreesSplitOverTheirFewerUpPorts) {
  for (const char* spec : {"2;4,4;1,2", "3;4,4,3;1,4,2", "3;4,4,4;1,2,2"}) {
    SCOPED_TRACE(spec);
    const XgftParams params = XgftParams::parse(spec);
    const Fabric f = generate_xgft(params);
    const FatTreeLayout& t = *f.fat_tree();
    FatTreeAdaptiveRoutes router(f);
    const std::vector<double> loads = idle(f);
    std::vector<Path> out;
    const auto n = static_cast<std::uint32_t>(t.hosts.size());
    for (std::uint32_t d = 1; d < n; ++d) {
      const std::size_t k = router.routes(t.hosts[0], t.hosts[d], loads, out);
      const bool same_leaf = t.leaf_of_host[d] == t.leaf_of_host[0];
      EXPECT_EQ(k, same_leaf ? 1u : static_cast<std::size_t>(params.w[1])) << "host " << d;
      for (const Path& p : out) expect_route(f, t.hosts[0], t.hosts[d], p);
    }
  }
}

/// Tops cabled to every aggregate of every pod (CODES' trees, routing/pod_tree.hpp): a shift by
/// one pod, each message routed on the loads of those before it, spreads over the aggregates'
/// links into each leaf. Judged by the top's own link alone, every top took the first aggregate
/// of the destination pod: the 4 messages into a leaf all on one aggregate-to-leaf link.
TEST(FatTreeAdaptive, TopsChooseTheAggregateWhoseLinkIntoTheLeafIsFree) {
  const Fabric f = generate_pod_tree(PodTreeParams{});  // 2 pods of 4 x 4 hosts, 4 tops
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  LinkFlowLoads loads(f);
  std::vector<Path> out;
  for (std::uint32_t s = 0; s < 32; ++s) {
    const NodeIdx dst = t.hosts[(s + 16) % 32];
    const std::size_t k = router.routes(t.hosts[s], dst, loads.view(), out);
    for (std::size_t i = 0; i < k; ++i) {
      expect_route(f, t.hosts[s], dst, out[i]);
      loads.add(out[i], 1.0 / static_cast<double>(k));
    }
  }
  double busiest = 0;
  for (NodeIdx leaf : t.switches[0]) {
    for (PortNum p : t.up_ports[leaf.value()]) {
      const Port& up = f.port(leaf, p);
      busiest = std::max(busiest, loads.view()[f.port(up.peer, up.peer_port).out.value()]);
    }
  }
  EXPECT_DOUBLE_EQ(busiest, 1.0);
}

TEST(FatTreeAdaptive, DegradedTreeSplitsOverTheSurvivingUpPorts) {
  const Fabric full = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  const NodeIdx leaf = full.fat_tree()->leaf_of_host[0];
  const PortNum cut = full.fat_tree()->up_ports[leaf.value()][1];
  const std::vector<CableEnd> removed{CableEnd{leaf, cut}};
  Fabric f = without_cables(full, removed);
  std::string why;
  ASSERT_TRUE(recognize_fat_tree(f, &why)) << why;
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  std::vector<Path> out;
  const NodeIdx src = *f.find("n0001");
  const NodeIdx dst = *f.find("n0064");
  ASSERT_EQ(router.routes(src, dst, idle(f), out), 3u);
  for (const Path& p : out) {
    expect_route(f, src, dst, p);
    EXPECT_NE(f.link(p[1]).from_port, cut);
  }
  EXPECT_EQ(t.up_ports[t.leaf_of_host[t.host_of_node[src.value()]].value()].size(), 3u);
}

TEST(FatTreeAdaptive, RefusesBadInputNamingIt) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const FatTreeLayout& t = *f.fat_tree();
  FatTreeAdaptiveRoutes router(f);
  std::vector<double> loads = idle(f);
  std::vector<Path> out;
  const NodeIdx a = t.hosts[0];
  const NodeIdx b = t.hosts[5];
  EXPECT_TRUE(throws_naming([&] { router.routes(a, a, loads, out); }, "both n0001"));
  EXPECT_TRUE(throws_naming([&] { router.routes(NodeIdx(100000u), b, loads, out); },
                            "source node 100000 (the fabric has"));
  EXPECT_TRUE(throws_naming([&] { router.routes(a, NodeIdx{}, loads, out); }, "destination node"));
  EXPECT_TRUE(throws_naming([&] { router.routes(a, t.leaf_of_host[5], loads, out); },
                            "is not a host of the fat-tree"));
  const std::vector<double> short_loads(f.num_links() - 1, 0.0);
  EXPECT_TRUE(throws_naming([&] { router.routes(a, b, short_loads, out); },
                            std::to_string(f.num_links() - 1) + " values for a fabric of " +
                                std::to_string(f.num_links()) + " directed links"));
  const NodeIdx leaf = t.leaf_of_host[0];
  loads[f.port(leaf, t.up_ports[leaf.value()][0]).out.value()] = -1;
  EXPECT_TRUE(throws_naming([&] { router.routes(a, b, loads, out); }, "has load -1"));
  loads[f.port(leaf, t.up_ports[leaf.value()][0]).out.value()] =
      std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(throws_naming([&] { router.routes(a, b, loads, out); }, "not a finite number"));
  EXPECT_TRUE(throws_naming([&] { FatTreeAdaptiveRoutes(f, {.split_slack = -1}); },
                            "split_slack must be >= 0"));
  const Fabric df = generate_dragonfly(2, 4, 2, 9);
  EXPECT_TRUE(throws_naming([&] { FatTreeAdaptiveRoutes{df}; }, "has no fat-tree layout"));
}

// ----------------------------------------------------------------------------------------------
// Dragonflies and megaflies.

struct PairInfo {
  NodeIdx src{};
  NodeIdx dst{};
  Path minimal;
  std::size_t global = 0;  // index of the global link in `minimal`
};

// The first inter-group pair (from host 0's group) whose only minimal path leaves its group
// from the source router itself (`from_source`) or from another router of the group.
PairInfo find_pair(const Fabric& f, bool from_source) {
  const DragonflyLayout& x = *f.dragonfly();
  const NodeIdx src = x.hosts[0];
  for (const NodeIdx dst : x.hosts) {
    if (x.group_of(dst) == x.group_of(src) || x.minimal_path_count(src, dst) != 1) continue;
    PairInfo info{src, dst, {}, 0};
    x.minimal_path(src, dst, 0, info.minimal);
    for (std::size_t i = 1; i + 1 < info.minimal.size(); ++i) {
      const Link& l = f.link(info.minimal[i]);
      if (x.group_of_node[l.from.value()] != x.group_of_node[l.to.value()]) info.global = i;
    }
    const bool at_source = f.link(info.minimal[info.global]).from == x.edge_router[src.value()];
    if (at_source == from_source) return info;
  }
  ADD_FAILURE() << "no such pair";
  return {};
}

std::size_t global_hops(const Fabric& f, const Path& p) {
  const DragonflyLayout& x = *f.dragonfly();
  std::size_t n = 0;
  for (std::size_t i = 1; i + 1 < p.size(); ++i) {
    const Link& l = f.link(p[i]);
    n += x.group_of_node[l.from.value()] != x.group_of_node[l.to.value()] ? 1u : 0u;
  }
  return n;
}

DragonflyAdaptiveRoutes router_for(const Fabric& f, DragonflyAdaptiveRule rule) {
  DragonflyAdaptiveOptions o;
  o.rule = rule;
  o.seed = 11;
  return DragonflyAdaptiveRoutes(f, o);
}

constexpr DragonflyAdaptiveRule kRules[] = {DragonflyAdaptiveRule::kUgalLocal,
                                            DragonflyAdaptiveRule::kUgalGlobal,
                                            DragonflyAdaptiveRule::kProgressive};

TEST(DragonflyAdaptive, IdleFabricRoutesMinimallyUnderEveryRule) {
  std::vector<Fabric> fabrics;
  fabrics.push_back(generate_dragonfly(2, 4, 2, 9));
  fabrics.push_back(generate_megafly(2, 4, 3, 2, 4));
  for (const Fabric& f : fabrics) {
    const DragonflyLayout& x = *f.dragonfly();
    const std::vector<double> loads = idle(f);
    for (const DragonflyAdaptiveRule rule : kRules) {
      SCOPED_TRACE(f.kind_label + " " + std::string(to_string(rule)));
      DragonflyAdaptiveRoutes router = router_for(f, rule);
      Path p;
      for (const NodeIdx dst : x.hosts) {
        if (dst == x.hosts[0]) continue;
        EXPECT_EQ(router.route(x.hosts[0], dst, 1, loads, p), DragonflyDecision::kMinimal);
        expect_route(f, x.hosts[0], dst, p);
        EXPECT_EQ(global_hops(f, p), x.group_of(dst) == x.group_of(x.hosts[0]) ? 0u : 1u);
        EXPECT_LE(p.size() - 2, 3u);
      }
    }
  }
}

TEST(DragonflyAdaptive, UgalGoesValiantWhenTheFirstHopIsLoadedBeyondTheBias) {
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const PairInfo pair = find_pair(f, /*from_source=*/true);
  ASSERT_EQ(pair.global, 1u) << "the source router's own global link";
  const auto hm = static_cast<double>(pair.minimal.size() - 2);
  for (const DragonflyAdaptiveRule rule : kRules) {
    SCOPED_TRACE(to_string(rule));
    DragonflyAdaptiveRoutes router = router_for(f, rule);
    std::vector<double> loads = idle(f);
    Path p;
    // q_m x H_m <= 0 x H_nm + bias (3) keeps the minimal path; just above it does not.
    loads[pair.minimal[1].value()] = 3.0 / hm;
    EXPECT_EQ(router.route(pair.src, pair.dst, 5, loads, p), DragonflyDecision::kMinimal);
    EXPECT_EQ(p, pair.minimal);
    loads[pair.minimal[1].value()] = 3.0 / hm + 0.01;
    EXPECT_EQ(router.route(pair.src, pair.dst, 5, loads, p), DragonflyDecision::kValiant);
    expect_route(f, pair.src, pair.dst, p);
    EXPECT_EQ(global_hops(f, p), 2u);
    EXPECT_LE(p.size() - 2, 5u);
  }
}

TEST(DragonflyAdaptive, ParDivertsAtTheSecondRouterWhereUgalLocalCannotSee) {
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const DragonflyLayout& x = *f.dragonfly();
  const PairInfo pair = find_pair(f, /*from_source=*/false);
  ASSERT_EQ(pair.global, 2u) << "a local hop to the gateway first";
  std::vector<double> loads = idle(f);
  loads[pair.minimal[pair.global].value()] = 10;
  Path p;

  DragonflyAdaptiveRoutes local = router_for(f, DragonflyAdaptiveRule::kUgalLocal);
  EXPECT_EQ(local.route(pair.src, pair.dst, 5, loads, p), DragonflyDecision::kMinimal);
  EXPECT_EQ(p, pair.minimal);

  DragonflyAdaptiveRoutes global = router_for(f, DragonflyAdaptiveRule::kUgalGlobal);
  EXPECT_EQ(global.route(pair.src, pair.dst, 5, loads, p), DragonflyDecision::kValiant);
  expect_route(f, pair.src, pair.dst, p);

  DragonflyAdaptiveRoutes par = router_for(f, DragonflyAdaptiveRule::kProgressive);
  EXPECT_EQ(par.route(pair.src, pair.dst, 5, loads, p), DragonflyDecision::kDivertedByPar);
  expect_route(f, pair.src, pair.dst, p);
  EXPECT_EQ(global_hops(f, p), 2u);
  // The same hop to the gateway, then one of the gateway's own global links to a third group.
  const NodeIdx gw = f.link(pair.minimal[2]).from;
  ASSERT_GE(p.size(), 4u);
  EXPECT_EQ(p[1], pair.minimal[1]);
  EXPECT_EQ(f.link(p[2]).from, gw);
  const int mid = x.group_of_node[f.link(p[2]).to.value()];
  EXPECT_NE(mid, x.group_of(pair.src));
  EXPECT_NE(mid, x.group_of(pair.dst));

  // Below the bias at the gateway (q'_m x 2 hops <= 3) PAR stays minimal.
  loads[pair.minimal[pair.global].value()] = 1.5;
  EXPECT_EQ(par.route(pair.src, pair.dst, 5, loads, p), DragonflyDecision::kMinimal);
  EXPECT_EQ(p, pair.minimal);
}

TEST(DragonflyAdaptive, MegaflyParDivertsAtTheSpineAndLeavesPickIdleSpines) {
  const Fabric f = generate_megafly(2, 4, 3, 2, 4);
  const DragonflyLayout& x = *f.dragonfly();
  const NodeIdx src = x.hosts[0];
  // Inter-group: load every minimal global link; the leaf sees only its spine links.
  NodeIdx dst{};
  for (const NodeIdx h : x.hosts) {
    if (x.group_of(h) != x.group_of(src)) {
      dst = h;
      break;
    }
  }
  std::vector<double> loads = idle(f);
  for (const auto& g : x.global_links(x.group_of(src), x.group_of(dst))) loads[g.id.value()] = 10;
  Path p;
  DragonflyAdaptiveRoutes local = router_for(f, DragonflyAdaptiveRule::kUgalLocal);
  EXPECT_EQ(local.route(src, dst, 3, loads, p), DragonflyDecision::kMinimal);
  DragonflyAdaptiveRoutes par = router_for(f, DragonflyAdaptiveRule::kProgressive);
  EXPECT_EQ(par.route(src, dst, 3, loads, p), DragonflyDecision::kDivertedByPar);
  expect_route(f, src, dst, p);
  EXPECT_EQ(global_hops(f, p), 2u);
  EXPECT_LE(p.size() - 2, 6u);
  EXPECT_EQ(x.role[f.link(p[2]).from.value()], RouterRole::kSpine);

  // Two leaves of one group: one minimal path per spine; busy spine links steer the choice.
  const NodeIdx peer = x.hosts[static_cast<std::size_t>(x.hosts_per_router)];  // the next leaf
  ASSERT_EQ(x.group_of(peer), x.group_of(src));
  const NodeIdx leaf = x.edge_router[src.value()];
  loads = idle(f);
  for (int s = 0; s < x.spines - 1; ++s) {
    loads[x.local_link[leaf.value()][static_cast<std::size_t>(x.host_routers + s)].value()] = 1;
  }
  for (const DragonflyAdaptiveRule rule : kRules) {
    DragonflyAdaptiveRoutes router = router_for(f, rule);
    EXPECT_EQ(router.route(src, peer, 3, loads, p), DragonflyDecision::kMinimal);
    expect_route(f, src, peer, p);
    EXPECT_EQ(f.link(p[1]).to,
              x.routers[0][static_cast<std::size_t>(x.host_routers + x.spines - 1)])
        << to_string(rule);
  }
}

TEST(DragonflyAdaptive, DrawsFollowSeedAndKeyAndAvoidTheEndpointGroups) {
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const DragonflyLayout& x = *f.dragonfly();
  const PairInfo pair = find_pair(f, /*from_source=*/true);
  std::vector<double> loads = idle(f);
  loads[pair.minimal[1].value()] = 100;
  DragonflyAdaptiveRoutes a = router_for(f, DragonflyAdaptiveRule::kUgalLocal);
  DragonflyAdaptiveRoutes b = router_for(f, DragonflyAdaptiveRule::kUgalLocal);
  std::set<int> mids;
  Path pa;
  Path pb;
  for (std::uint64_t key = 0; key < 200; ++key) {
    ASSERT_EQ(a.route(pair.src, pair.dst, key, loads, pa), DragonflyDecision::kValiant);
    b.route(pair.src, pair.dst, key, loads, pb);
    EXPECT_EQ(pa, pb) << "key " << key;
    for (std::size_t i = 1; i + 1 < pa.size(); ++i) {
      const Link& l = f.link(pa[i]);
      if (x.group_of_node[l.from.value()] != x.group_of_node[l.to.value()]) {
        mids.insert(x.group_of_node[l.to.value()]);
        break;
      }
    }
  }
  EXPECT_FALSE(mids.contains(x.group_of(pair.src)));
  EXPECT_FALSE(mids.contains(x.group_of(pair.dst)));
  EXPECT_EQ(mids.size(), 7u) << "every other group drawn over 200 keys";
}

TEST(DragonflyAdaptive, RefusesBadInputNamingIt) {
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const DragonflyLayout& x = *f.dragonfly();
  DragonflyAdaptiveRoutes router(f);
  std::vector<double> loads = idle(f);
  Path p;
  EXPECT_TRUE(throws_naming([&] { router.route(x.hosts[3], x.hosts[3], 0, loads, p); }, "both"));
  EXPECT_TRUE(throws_naming([&] { router.route(x.hosts[0], NodeIdx(999999u), 0, loads, p); },
                            "destination node 999999"));
  EXPECT_TRUE(throws_naming([&] { router.route(x.routers[0][0], x.hosts[0], 0, loads, p); },
                            "is not a host of the dragonfly"));
  EXPECT_TRUE(throws_naming(
      [&] { router.route(x.hosts[0], x.hosts[9], 0, std::vector<double>(3, 0.0), p); },
      "3 values for a fabric of"));
  EXPECT_TRUE(throws_naming([&] { DragonflyAdaptiveRoutes(f, {.bias = -1}); },
                            "bias must be a finite number >= 0"));
  EXPECT_TRUE(throws_naming([&] { DragonflyAdaptiveRoutes(f, {.valiant_candidates = 0}); },
                            "valiant_candidates"));
  const Fabric tree = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  EXPECT_TRUE(throws_naming([&] { DragonflyAdaptiveRoutes{tree}; }, "has no dragonfly layout"));
  EXPECT_TRUE(
      throws_naming([] { parse_dragonfly_adaptive_rule("ugal"); }, "known: ugal-l, ugal-g, par"));
  EXPECT_EQ(parse_dragonfly_adaptive_rule("par"), DragonflyAdaptiveRule::kProgressive);
}

// ----------------------------------------------------------------------------------------------
// The load view and the single entry point.

TEST(LinkFlowLoads, CountsFlowsPerReferenceCapacityAndReturnsToZero) {
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kHca, "a", 2);
  const NodeIdx b = f.add_node(NodeKind::kSwitch, "b", 2);
  f.connect(a, PortNum(1), b, PortNum(1), 100);
  f.connect(a, PortNum(2), b, PortNum(2), 50);
  LinkFlowLoads loads(f);
  const LinkId fast = f.port(a, PortNum(1)).out;
  const LinkId slow = f.port(a, PortNum(2)).out;
  const std::vector<LinkId> both{fast, slow};
  loads.add(both, 1.0 / 3);
  loads.add(std::span(both).first(1), 1.0);
  EXPECT_DOUBLE_EQ(loads.view()[fast.value()], 1.0 / 3 + 1.0);
  EXPECT_DOUBLE_EQ(loads.view()[slow.value()], 2.0 / 3) << "half the capacity: twice the load";
  loads.remove(both, 1.0 / 3);
  loads.remove(std::span(both).first(1), 1.0);
  EXPECT_EQ(loads.view()[fast.value()], 0.0);
  EXPECT_EQ(loads.view()[slow.value()], 0.0);
  ASSERT_EQ(loads.view().size(), f.num_links());
}

TEST(AdaptiveRoutes, PicksTheRuleOfTheFabricsTopology) {
  const Fabric tree = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  AdaptiveRoutes on_tree(tree);
  std::vector<Path> out;
  EXPECT_EQ(on_tree.routes(tree.hcas()[0], tree.hcas()[15], 0, idle(tree), out), 4u);
  const Fabric df = generate_megafly(2, 4, 3, 2, 4);
  AdaptiveRoutes on_df(df);
  EXPECT_EQ(on_df.routes(df.hcas()[0], df.hcas()[20], 0, idle(df), out), 1u);
  expect_route(df, df.hcas()[0], df.hcas()[20], out[0]);
  Fabric plain;
  plain.add_node(NodeKind::kHca, "x", 1);
  EXPECT_TRUE(throws_naming([&] { AdaptiveRoutes{plain}; }, "neither a fat-tree nor"));
}

}  // namespace
}  // namespace ibsdn
