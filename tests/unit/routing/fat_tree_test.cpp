// Fat-trees as they are cabled (routing/fat_tree.hpp): recognition of degraded and irregular
// trees against their generators, the mod-k rule against the XGFT's, and every fat-tree
// algorithm on what remains after cables fail one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>

#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"
#include "routing/fat_tree_paths.hpp"
#include "routing/lft.hpp"
#include "routing/pod_tree.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "tests/support/all_pairs.hpp"
#include "tests/support/fat_tree_fabrics.hpp"
#include "tests/support/flow_sets.hpp"
#include "tests/support/throws_naming.hpp"

namespace ibsdn {
namespace {

using test::permutation;

using test::generate_pod_tree;
using test::PodTree;

Fabric recognised(Fabric f) {
  std::string why;
  EXPECT_TRUE(recognize_fat_tree(f, &why)) << why;
  return f;
}

std::vector<std::string> names(const Fabric& f, const std::vector<NodeIdx>& nodes) {
  std::vector<std::string> out;
  for (NodeIdx n : nodes) out.push_back(f.node(n).name);
  return out;
}

/// `count` flows between random distinct hosts of `hosts` that the layout joins.
std::vector<Flow> random_flows(const Fabric&, const std::vector<NodeIdx>& hosts, std::size_t count,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Flow> out;
  while (out.size() < count) {
    Flow fl;
    fl.src = hosts[rng() % hosts.size()];
    fl.dst = hosts[rng() % hosts.size()];
    if (fl.src != fl.dst) out.push_back(fl);
  }
  set_weights(out);
  return out;
}

TEST(FatTree, RecognisesACompleteXgftWithTheXgftHostOrder) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  ASSERT_NE(f.fat_tree(), nullptr);
  const FatTreeLayout& t = *f.fat_tree();
  EXPECT_EQ(t.height, 3);
  EXPECT_EQ(names(f, t.hosts), names(f, f.xgft()->hosts));
  EXPECT_EQ(t.max_up, (std::vector<std::uint32_t>{1, 4, 4, 0}));
  for (int l = 1; l <= 3; ++l) {
    EXPECT_EQ(t.switches[static_cast<std::size_t>(l) - 1].size(), 16u) << "level " << l;
  }
}

TEST(FatTree, RecognisesPodsWithEveryTopCabledToEveryAggregate) {
  PodTree s;
  s.pods = 3;
  s.tops = 5;
  Fabric f = generate_pod_tree(s);
  std::string why;
  const std::string label = fat_tree_label(f, &why);
  EXPECT_EQ(label, "fat-tree(3 levels, 29 switches, 48 hosts)") << why;
  EXPECT_EQ(f.xgft(), nullptr);
  const FatTreeLayout& t = *f.fat_tree();
  for (NodeIdx n : t.switches[0]) {
    EXPECT_EQ(t.up_ports[n.value()].size(), 4u) << f.node(n).name;
    EXPECT_EQ(t.down_ports[n.value()].size(), 4u) << f.node(n).name;
    EXPECT_EQ(f.node(n).name[2], 'l');
  }
  for (NodeIdx n : t.switches[1]) {
    EXPECT_EQ(t.up_ports[n.value()].size(), 5u) << f.node(n).name;
    EXPECT_EQ(f.node(n).name[2], 'a');
  }
  for (NodeIdx n : t.switches[2]) {
    EXPECT_EQ(t.down_ports[n.value()].size(), 12u) << f.node(n).name;
    EXPECT_EQ(f.node(n).name[0], 't');
  }
  // Hosts leaf by leaf in port order: the generator's n1, n2, ...
  for (std::size_t h = 0; h < t.hosts.size(); ++h)
    EXPECT_EQ(f.node(t.hosts[h]).name, "n" + std::to_string(h + 1));
}

TEST(FatTree, CountsParallelCablesAsSeparateUpAndDownPorts) {
  PodTree s;  // Quartz-like: doubled arcs between leaves and aggregates
  s.leaves = 8;
  s.aggregates = 8;
  s.leaf_cables = 2;
  s.hosts = 2;
  const Fabric f = recognised(generate_pod_tree(s));
  const FatTreeLayout& t = *f.fat_tree();
  for (NodeIdx n : t.switches[0]) EXPECT_EQ(t.up_ports[n.value()].size(), 16u);
  for (NodeIdx n : t.switches[1]) EXPECT_EQ(t.down_ports[n.value()].size(), 16u);
  EXPECT_EQ(t.max_up[1], 16u);
}

/// The thesis' 3:1 tree as TraceR-CODES builds it from 32-port switches (4.4.1: every port of the
/// aggregates and cores used): 64 leaves of 24 hosts and 8 up-links, 32 aggregates, 16 cores.
TEST(PodTree, BuildsCodesTaperedTreeOf32PortSwitches) {
  const Fabric f = generate_pod_tree(PodTreeParams::parse("pod-tree(4,16,24,8,16)"));
  EXPECT_EQ(f.kind_label, "pod-tree(4,16,24,8,16)");
  ASSERT_NE(f.fat_tree(), nullptr);
  const FatTreeLayout& t = *f.fat_tree();
  EXPECT_EQ(t.hosts.size(), 1536u);
  const std::vector<std::size_t> per_level{64, 32, 16};
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(t.switches[l].size(), per_level[l]) << "level " << l + 1;
    for (NodeIdx n : t.switches[l]) {
      EXPECT_EQ(t.up_ports[n.value()].size() + t.down_ports[n.value()].size(), 32u)
          << f.node(n).name;
    }
  }
  EXPECT_EQ(t.max_up, (std::vector<std::uint32_t>{1, 8, 16, 0}));
}

TEST(PodTree, RefusesBadListsNamingTheValue) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"4,16,24,8", "expected 'pods,leaves,hosts,aggregates,tops', got '4,16,24,8'"},
      {"4,16,24,8,16,1", "expected 5 values, got more"},
      {"4,16,x,8,16", "hosts 'x' is not an integer"},
      {"0,16,24,8,16", "pods must be >= 1, got 0"},
      {"4,16,24,8,-1", "tops must be >= 0, got -1"},
      {"4,16,250,8,16", "leaves would need 258 ports (max 254)"},
      {"32,16,24,8,16", "tops would need 256 ports (max 254)"},
      {"pod-tree(4,16,24,8,16", "missing ')'"},
  };
  for (const auto& [text, want] : cases) {
    EXPECT_TRUE(test::throws_naming([&spec = text] { (void)PodTreeParams::parse(spec); }, want))
        << text;
  }
}

TEST(FatTree, LeavesEmptyHostPortsOutOfAPartlyPopulatedTree) {
  const Fabric full = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  std::vector<CableEnd> empty;
  for (std::uint32_t h = 0; h < 64; h += 3) empty.push_back({full.xgft()->hosts[h], PortNum(1)});
  Fabric f = without_cables(full, empty);
  std::string why;
  ASSERT_TRUE(recognize_fat_tree(f, &why)) << why;
  EXPECT_EQ(f.xgft(), nullptr);
  EXPECT_EQ(f.fat_tree()->hosts.size(), 64u - empty.size());
  EXPECT_EQ(f.fat_tree()->height, 3);
}

TEST(FatTree, RefusesACableBetweenTwoSwitchesOfOneLevel) {
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kSwitch, "a", 4);
  const NodeIdx b = f.add_node(NodeKind::kSwitch, "b", 4);
  const NodeIdx h1 = f.add_node(NodeKind::kHca, "h1", 1);
  const NodeIdx h2 = f.add_node(NodeKind::kHca, "h2", 1);
  f.connect(h1, PortNum(1), a, PortNum(1), 100);
  f.connect(h2, PortNum(1), b, PortNum(1), 100);
  f.connect(a, PortNum(2), b, PortNum(2), 100);
  std::string why;
  EXPECT_FALSE(recognize_fat_tree(f, &why));
  EXPECT_NE(why.find("a[2] - b[2] joins two level-1 nodes"), std::string::npos) << why;
  EXPECT_EQ(f.fat_tree(), nullptr);
}

TEST(FatTree, ModKOnACompleteXgftIsDModKAndSModK) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,3;1,4,2"));
  UpDownPaths paths(f, *f.fat_tree());
  const auto dmodk = make_algorithm("dmodk");
  const auto smodk = make_algorithm("smodk");
  const std::vector<Flow> flows = test::all_pairs(f);
  const auto want_d = dmodk->route({f, flows});
  const auto want_s = smodk->route({f, flows});
  Path got;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const std::uint32_t s = f.fat_tree()->host_of_node[flows[i].src.value()];
    const std::uint32_t d = f.fat_tree()->host_of_node[flows[i].dst.value()];
    paths.modk_path(s, d, d, got);
    ASSERT_EQ(got, want_d[i]) << "dmodk " << s << " -> " << d;
    paths.modk_path(s, d, s, got);
    ASSERT_EQ(got, want_s[i]) << "smodk " << s << " -> " << d;
  }
}

/// Host i to host (i + k) mod N, in the layout's host order.
std::vector<Flow> shift(const FatTreeLayout& t, std::size_t k) {
  std::vector<Flow> out;
  for (std::size_t i = 0; i < t.hosts.size(); ++i) {
    Flow fl;
    fl.src = t.hosts[i];
    fl.dst = t.hosts[(i + k) % t.hosts.size()];
    out.push_back(fl);
  }
  set_weights(out);
  return out;
}

/// Tops cabled to every aggregate of every pod, as CODES builds the thesis' trees (4.4): D-mod-K
/// comes down to a host along the reverse of the host's own up path, so a shift by one pod is
/// contention-free as on the XGFT of that size. With the top's own digit picking the aggregate,
/// every host of a leaf came down through one aggregate: L_D 4, one leaf's hosts on one link.
TEST(FatTreeModK, DModKShiftByAPodIsContentionFreeWhereTopsReachEveryAggregate) {
  const Fabric f = recognised(generate_pod_tree(PodTree{}));  // 2 pods of 4 x 4 hosts, 4 tops
  ASSERT_EQ(f.xgft(), nullptr);
  const std::vector<Flow> flows = shift(*f.fat_tree(), 16);
  const RouteQuality q = evaluate(f, flows, make_algorithm("dmodk")->route({f, flows}));
  EXPECT_EQ(q.max_link_load, 1);
  EXPECT_EQ(q.bound.value, 1u);
}

/// The same on CODES' 3:1 form for radix 8 (leaves of 6 hosts and 2 up-links, 2 aggregates per
/// pod, 4 tops): a shift by one pod meets the leaf-level bound, 6 flows over 2 up-links: 3. The
/// top's own digit put the 6 hosts of a leaf on one aggregate-to-leaf link: 6.
TEST(FatTreeModK, DModKShiftByAPodMeetsTheBoundOnATaperedPodTree) {
  PodTree s;
  s.hosts = 6;
  s.aggregates = 2;
  const Fabric f = recognised(generate_pod_tree(s));
  const std::vector<Flow> flows = shift(*f.fat_tree(), 24);
  const RouteQuality q = evaluate(f, flows, make_algorithm("dmodk")->route({f, flows}));
  EXPECT_EQ(q.max_link_load, 3);
  EXPECT_EQ(q.bound.value, 3u);
}

/// From a level-2 switch of XGFT(3;4,4,4;1,4,4) to a host of another pod: the rest of a shortest
/// up*/down* path (host 0's route from that switch on), over the least costly top, never through a
/// forbidden link, and no path at all when every way up is forbidden.
TEST(FatTreeBestPath, FromASwitchGoesOnToTheHostAvoidingForbiddenLinks) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  const FatTreeLayout& t = *f.fat_tree();
  UpDownPaths paths(f, t);
  const std::uint32_t dst = 40;  // pod 2
  const NodeIdx leaf = t.leaf_of_host[0];
  const NodeIdx from = f.port(leaf, t.up_ports[leaf.value()][1]).peer;
  const auto ups = t.up_ports[from.value()];
  ASSERT_EQ(ups.size(), 4u);
  const LinkId cheap = f.port(from, ups[2]).out;
  const LinkCost prefer = [&](LinkId l) { return l == cheap ? 0.0 : 1.0; };
  Path rest;
  paths.best_path_from(from, dst, prefer, rest);
  ASSERT_EQ(rest.size(), 4u);  // up to a top, down to the pod, the leaf, the host
  EXPECT_EQ(rest.front(), cheap);
  EXPECT_EQ(f.link(rest.back()).to, t.hosts[dst]);
  Path whole{t.host_up_link(f, 0), f.port(leaf, t.up_ports[leaf.value()][1]).out};
  whole.insert(whole.end(), rest.begin(), rest.end());
  EXPECT_EQ(check_up_down_path(f, t, whole), "");

  const LinkCost only_last = [&](LinkId l) {
    const Link& k = f.link(l);
    return k.from == from && k.from_port != ups[3] ? std::numeric_limits<double>::infinity() : 5.0;
  };
  rest.clear();  // best_path_from appends
  paths.best_path_from(from, dst, only_last, rest);
  EXPECT_EQ(rest.front(), f.port(from, ups[3]).out);
  const LinkCost none = [&](LinkId l) {
    return f.link(l).from == from ? std::numeric_limits<double>::infinity() : 0.0;
  };
  EXPECT_TRUE(test::throws_naming([&] { paths.best_path_from(from, dst, none, rest); },
                                  "no up*/down* path from " + f.node(from).name));
  // From the destination's own leaf only the host's cable is left.
  rest.clear();
  paths.best_path_from(t.leaf_of_host[dst], dst, prefer, rest);
  EXPECT_EQ(rest, Path{t.host_down_link(f, dst)});
}

TEST(FatTree, PathCheckRefusesAPathThatTurnsAboveACommonAncestor) {
  const Fabric f = recognised(generate_pod_tree(PodTree{}));
  const auto link = [&f](const char* from, const char* to) {
    const NodeIdx a = *f.find(from);
    for (const Port& p : f.node(a).ports)
      if (p.connected() && f.node(p.peer).name == to) return p.out;
    ADD_FAILURE() << "no cable " << from << " - " << to;
    return LinkId{};
  };
  Flow fl;
  fl.src = *f.find("n1");  // on p1l1
  fl.dst = *f.find("n5");  // on p1l2: the two leaves share every aggregate of pod 1
  const Path shortest{link("n1", "p1l1"), link("p1l1", "p1a1"), link("p1a1", "p1l2"),
                      link("p1l2", "n5")};
  EXPECT_EQ(validate_path(f, fl, shortest), "");
  const Path over_the_top{link("n1", "p1l1"), link("p1l1", "p1a1"), link("p1a1", "t1"),
                          link("t1", "p1a2"), link("p1a2", "p1l2"), link("p1l2", "n5")};
  const std::string why = validate_path(f, fl, over_the_top);
  EXPECT_NE(why.find("turns at level 3, but p1a1 (level 2) is above both p1l1 and p1l2"),
            std::string::npos)
      << why;
  const Path down_up{link("n1", "p1l1"),   link("p1l1", "p1a1"), link("p1a1", "p1l3"),
                     link("p1l3", "p1a2"), link("p1a2", "p1l2"), link("p1l2", "n5")};
  EXPECT_NE(validate_path(f, fl, down_up).find("hop 2 (p1a1"), std::string::npos)
      << validate_path(f, fl, down_up);
}

const char* const kTreeAlgorithms[] = {"dmodk",       "smodk",      "sdn-greedy",
                                       "sdn-optimal", "sdn-volume", "sdn-optimal-tapered",
                                       "sdn-adaptive"};

/// Cables fail one at a time; after each failure the fabric stays a fat-tree, every algorithm
/// routes every pair the surviving graph still joins on a shortest up*/down* path of that graph,
/// and DmodK's per-destination LFTs carry exactly its routes.
void remove_cables_one_by_one(const std::string& spec, std::size_t how_many, std::uint64_t seed) {
  const Fabric full = generate_xgft(XgftParams::parse(spec));
  const std::vector<CableEnd> order = test::switch_cables(full, seed);
  ASSERT_GE(order.size(), how_many);
  const std::vector<Flow> all = random_flows(full, full.hcas(), 160, seed + 1);
  for (std::size_t k = 1; k <= how_many; ++k) {
    Fabric f = without_cables(full, std::span(order).first(k));
    std::string why;
    ASSERT_TRUE(recognize_fat_tree(f, &why)) << spec << " without " << k << " cables: " << why;
    ASSERT_EQ(f.xgft(), nullptr);
    const FatTreeLayout& t = *f.fat_tree();
    UpDownPaths reach(f, t);
    std::vector<Flow> flows;
    for (const Flow& fl : all) {
      const NodeIdx src_leaf = t.leaf_of_host[t.host_of_node[fl.src.value()]];
      const NodeIdx dst_leaf = t.leaf_of_host[t.host_of_node[fl.dst.value()]];
      if (reach.toward(dst_leaf).turn(src_leaf) != 0) flows.push_back(fl);
    }
    for (const char* name : kTreeAlgorithms) {
      const auto alg = make_algorithm(name);
      ASSERT_EQ(alg->unsupported_reason(f), "") << name;
      const auto paths = alg->route({f, flows});
      for (std::size_t i = 0; i < flows.size(); ++i) {
        const std::string bad = validate_path(f, flows[i], paths[i]);
        ASSERT_EQ(bad, "") << name << " on " << spec << " without " << k << " cables, flow "
                           << f.node(flows[i].src).name << " -> " << f.node(flows[i].dst).name;
      }
    }
    if (k % 8 != 1) continue;  // the tables are slower to build: every eighth step
    const LidMap lids = sequential_lids(f);
    const auto dmodk = make_algorithm("dmodk");
    const LftSet lfts = lfts_per_destination(f, lids, *dmodk);
    const auto routes = dmodk->route({f, flows});
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const Trace tr = trace(f, lfts, flows[i].src, flows[i].dst);
      ASSERT_TRUE(tr.ok()) << tr.error;
      ASSERT_EQ(tr.path, routes[i]) << "without " << k << " cables";
    }
  }
}

TEST(FatTreeDegraded, TwoLevelTreeKeepsValidShortestPathsAsCablesFailOneByOne) {
  remove_cables_one_by_one("2;8,8;1,8", 40, 11);
}

TEST(FatTreeDegraded, ThreeLevelTreeKeepsValidShortestPathsAsCablesFailOneByOne) {
  remove_cables_one_by_one("3;4,4,4;1,4,4", 60, 21);
}

/// Cables fail in the first pod only; jobs whose hosts are elsewhere still get L_D = NL_D from
/// SDN-optimal and SDN-volume, since everything their shortest paths may use is intact.
TEST(FatTreeDegraded, SdnOptimalStaysExactWhereTheTreeStaysFullBisection) {
  const Fabric full = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  const XgftLayout& x = *full.xgft();
  std::vector<CableEnd> pod0;
  for (std::uint64_t leaf = 0; leaf < 4; ++leaf) {
    pod0.push_back({x.switches[0][leaf], x.up_port[x.switches[0][leaf].value()][leaf % 4]});
  }
  pod0.push_back({x.switches[1][1], x.up_port[x.switches[1][1].value()][2]});
  const Fabric f = recognised(without_cables(full, pod0));
  ASSERT_EQ(f.xgft(), nullptr);
  std::vector<NodeIdx> in_pod1(x.hosts.begin() + 16, x.hosts.begin() + 32);
  std::vector<NodeIdx> outside(x.hosts.begin() + 16, x.hosts.end());
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const auto* hosts : {&in_pod1, &outside}) {
      for (const auto& flows :
           {permutation(*hosts, seed), random_flows(f, *hosts, hosts->size() * 3, seed)}) {
        for (const char* name : {"sdn-optimal", "sdn-volume"}) {
          const auto paths = make_algorithm(name)->route({f, flows});
          const RouteQuality q = evaluate(f, flows, paths);
          EXPECT_EQ(static_cast<std::uint32_t>(q.max_link_load), q.bound.node_load)
              << name << " seed " << seed << " over " << hosts->size() << " hosts";
        }
      }
    }
  }
}

/// Links of four lanes carry four times what one-lane links carry: a tree whose leaves have one
/// 4x cable up is routed like one whose leaves have four parallel 1x cables, which SDN-volume
/// fills evenly.
TEST(FatTreeCapacity, FourLaneUpLinksCountLikeFourParallelOneLaneLinks) {
  PodTree wide;
  wide.pods = 1;
  wide.aggregates = 1;
  wide.tops = 0;
  wide.leaves = 4;
  wide.hosts = 4;
  wide.host_gbps = 25;
  wide.leaf_gbps = 100;
  PodTree parallel = wide;
  parallel.leaf_cables = 4;
  parallel.leaf_gbps = 25;
  const Fabric a = recognised(generate_pod_tree(wide));
  const Fabric b = recognised(generate_pod_tree(parallel));
  ASSERT_NE(a.xgft(), nullptr);  // XGFT(2;4,4;1,1)
  ASSERT_EQ(b.xgft(), nullptr);
  const auto volume = make_algorithm("sdn-volume");
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    // Same node indexes on both: the generator adds nodes in the same order.
    const std::vector<Flow> perm = permutation(a.hcas(), seed);
    const RouteQuality pa = evaluate(a, perm, volume->route({a, perm}));
    const RouteQuality pb = evaluate(b, perm, volume->route({b, perm}));
    EXPECT_DOUBLE_EQ(pa.volume_bound.seconds, pb.volume_bound.seconds) << seed;
    EXPECT_DOUBLE_EQ(pa.max_seconds, pb.max_seconds) << seed;
    EXPECT_DOUBLE_EQ(pb.max_seconds, pb.volume_bound.seconds) << seed;

    const std::vector<Flow> dense = random_flows(a, a.hcas(), 40, seed);
    const RouteQuality da = evaluate(a, dense, volume->route({a, dense}));
    const RouteQuality db = evaluate(b, dense, volume->route({b, dense}));
    EXPECT_DOUBLE_EQ(da.volume_bound.seconds, db.volume_bound.seconds) << seed;
    // Four cables of a quarter of the capacity: flows out of a leaf spread evenly over them.
    EXPECT_EQ(static_cast<std::uint32_t>(db.max_link_load), db.bound.value) << seed;
  }
}

}  // namespace
}  // namespace ibsdn
