// LFTs built one destination at a time (lfts_per_destination) are the tables that tracing every
// HCA pair gives (lfts_from_destination_routes), entry for entry, for DmodK and minhop; and
// complete_lfts, which fills the entries no route writes, is the one-search-per-LID rule it
// replaced.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/lft.hpp"
#include "routing/xgft.hpp"
#include "tests/support/fat_tree_fabrics.hpp"

namespace ibsdn {
namespace {

PortNum port(int p) {
  return PortNum(static_cast<std::uint8_t>(p));
}

/// Every entry of every switch's table (LIDs 0 .. max + 1) and which switches have tables.
void expect_same_tables(const Fabric& f, const LftSet& want, const LftSet& got,
                        const std::string& what) {
  std::size_t differ = 0;
  for (const NodeIdx s : f.switches()) {
    ASSERT_EQ(got.has_table(s), want.has_table(s)) << what << " " << f.node(s).name;
    if (!want.has_table(s)) continue;
    EXPECT_EQ(got.table(s).size(), want.table(s).size()) << what << " " << f.node(s).name;
    for (std::uint32_t l = 0; l <= want.lids.max_lid().value() + 1u; ++l) {
      const Lid lid(static_cast<std::uint16_t>(l));
      if (got.table(s).out(lid) != want.table(s).out(lid) && ++differ <= 5) {
        ADD_FAILURE() << what << ": " << f.node(s).name << " LID " << l << ": "
                      << int{got.table(s).out(lid).value()} << ", all pairs give "
                      << int{want.table(s).out(lid).value()};
      }
    }
  }
  EXPECT_EQ(differ, 0u) << what;
}

void expect_same_as_all_pairs(const Fabric& f, const LidMap& lids, const std::string& algorithm,
                              const std::string& what) {
  const auto alg = make_algorithm(algorithm);
  const LftSet old = lfts_from_destination_routes(f, lids, *alg);
  const LftSet now = lfts_per_destination(f, lids, *alg);
  expect_same_tables(f, old, now, what + " " + algorithm);
}

/// LIDs in a random order (as a subnet manager's discovery gives them), with gaps, and none for
/// every `skip`-th HCA (0: none skipped).
LidMap shuffled_lids(const Fabric& f, std::uint32_t seed, std::size_t skip) {
  struct Endpoint {
    NodeIdx node;
    PortNum port;
  };
  std::vector<Endpoint> ends;
  for (std::size_t i = 0; i < f.hcas().size(); ++i) {
    if (skip != 0 && i % skip == skip - 1) continue;
    for (const Port& p : f.node(f.hcas()[i]).ports) {
      if (p.connected()) ends.push_back({f.hcas()[i], p.num});
    }
  }
  for (const NodeIdx s : f.switches()) ends.push_back({s, kSwitchPort0});
  std::mt19937 rng(seed);
  std::shuffle(ends.begin(), ends.end(), rng);
  LidMap m(f);
  std::uint16_t next = 1;
  for (const Endpoint& e : ends) {
    m.assign(e.node, e.port, Lid(next));
    next = static_cast<std::uint16_t>(next + 1 + rng() % 3);
  }
  return m;
}

/// The same fabric with every switch's ports renumbered at random, recognised as an XGFT again:
/// DmodK then goes through the layout's port maps, and completion sees another port order.
Fabric with_shuffled_switch_ports(const Fabric& f, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Fabric g;
  std::vector<std::vector<int>> perm(f.num_nodes());
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    const Node& n = f.nodes()[i];
    g.add_node(n.kind, n.name, n.ports.size(), n.guid);
    g.node(NodeIdx(i)).description = n.description;
    perm[i].resize(n.ports.size() + 1);
    for (std::size_t p = 0; p < perm[i].size(); ++p) perm[i][p] = static_cast<int>(p);
    if (n.is_switch()) std::shuffle(perm[i].begin() + 1, perm[i].end(), rng);
  }
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    for (const Port& p : f.nodes()[i].ports) {
      if (!p.connected() || p.peer.value() < i) continue;
      g.connect(NodeIdx(i), port(perm[i][p.num.value()]), p.peer,
                port(perm[p.peer.value()][p.peer_port.value()]), p.gbps);
    }
  }
  std::string why;
  EXPECT_TRUE(recognize_xgft(g, &why)) << why;
  return g;
}

const char* const kXgfts[] = {"1;8;1",         "2;4,4;1,4",        "2;8,8;1,8",     "2;8,4;1,2",
                              "3;4,4,4;1,4,4", "3;4,4,2;1,4,2",    "3;2,3,4;1,2,3", "3;6,4,3;1,3,2",
                              "3;5,5,6;1,5,5", "4;2,2,2,2;1,2,2,2"};

TEST(LftPerDestination, DmodkTables_EqualTheAllPairsBuilders_OnXgfts) {
  for (const char* spec : kXgfts) {
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    expect_same_as_all_pairs(f, sequential_lids(f), "dmodk", std::string(spec) + " sequential");
    expect_same_as_all_pairs(f, shuffled_lids(f, 7, 0), "dmodk", std::string(spec) + " shuffled");
  }
}

TEST(LftPerDestination,
     DmodkTables_EqualTheAllPairsBuilders_WithRenumberedPortsAndHostsWithoutLids) {
  for (const char* spec : {"2;4,4;1,4", "3;4,4,3;1,2,2", "3;2,3,4;1,2,3", "3;6,4,3;1,3,2"}) {
    const Fabric f = with_shuffled_switch_ports(generate_xgft(XgftParams::parse(spec)), 11);
    ASSERT_NE(f.xgft(), nullptr) << spec;
    for (const std::size_t skip : {0u, 2u, 5u}) {
      expect_same_as_all_pairs(f, shuffled_lids(f, 3, skip), "dmodk",
                               std::string(spec) + " renumbered, skip " + std::to_string(skip));
    }
  }
}

/// Four switches in a ring with one chord and one without hosts; a host on two switches, a host
/// with two cables to one switch, a host cabled to nothing: what minhop meets off fat-trees.
Fabric irregular_fabric() {
  Fabric f;
  std::vector<NodeIdx> sw;
  for (int i = 0; i < 5; ++i) {
    sw.push_back(f.add_node(NodeKind::kSwitch, "s" + std::to_string(i), 8,
                            Guid(0x100u + static_cast<unsigned>(i))));
  }
  for (int i = 0; i < 4; ++i) {
    f.connect(sw[static_cast<std::size_t>(i)], port(7), sw[static_cast<std::size_t>((i + 1) % 4)],
              port(8), 100.0);
  }
  f.connect(sw[0], port(6), sw[2], port(6), 100.0);
  f.connect(sw[4], port(7), sw[1], port(6), 100.0);  // s4 has no hosts
  f.connect(sw[4], port(8), sw[3], port(6), 100.0);
  unsigned guid = 0x1000;
  const auto host = [&](const std::string& name, std::size_t ports) {
    const NodeIdx h = f.add_node(NodeKind::kHca, name, ports, Guid(guid += 0x10));
    f.node(h).description = name + " HCA-1";
    return h;
  };
  for (int i = 0; i < 4; ++i) {
    for (int k = 1; k <= 3; ++k) {
      f.connect(host("h" + std::to_string(i) + std::to_string(k), 1), port(1),
                sw[static_cast<std::size_t>(i)], port(k), 100.0);
    }
  }
  const NodeIdx dual = host("dual", 2);  // on s0 and s2
  f.connect(dual, port(1), sw[0], port(4), 100.0);
  f.connect(dual, port(2), sw[2], port(4), 100.0);
  const NodeIdx twice = host("twice", 2);  // two cables to s1
  f.connect(twice, port(1), sw[1], port(4), 100.0);
  f.connect(twice, port(2), sw[1], port(5), 100.0);
  (void)host("loose", 1);
  f.compute_levels();
  return f;
}

TEST(LftPerDestination, MinhopTables_EqualTheAllPairsBuilders_OnXgftDragonflyAndIrregularFabrics) {
  const Fabric x = generate_xgft(XgftParams::parse("3;4,4,2;1,4,2"));
  expect_same_as_all_pairs(x, sequential_lids(x), "minhop", "xgft");
  expect_same_as_all_pairs(x, shuffled_lids(x, 5, 3), "minhop", "xgft shuffled");
  const Fabric d = generate_dragonfly(2, 4, 2, 9);
  expect_same_as_all_pairs(d, sequential_lids(d), "minhop", "dragonfly");
  expect_same_as_all_pairs(d, shuffled_lids(d, 9, 4), "minhop", "dragonfly shuffled");
  const Fabric i = irregular_fabric();
  expect_same_as_all_pairs(i, sequential_lids(i), "minhop", "irregular");
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    expect_same_as_all_pairs(i, shuffled_lids(i, seed, seed), "minhop",
                             "irregular shuffled " + std::to_string(seed));
  }
}

/// route_by_destination's contract: following the columns from any HCA gives route()'s path
/// (an HCA with one cable, to a switch, leaves through it; any other as its column says).
void expect_columns_follow_the_paths(const Fabric& f, const std::string& algorithm) {
  const auto alg = make_algorithm(algorithm);
  std::vector<NodeIdx> cabled;
  for (const NodeIdx h : f.hcas()) {
    if (std::any_of(f.node(h).ports.begin(), f.node(h).ports.end(),
                    [](const Port& p) { return p.connected(); })) {
      cabled.push_back(h);
    }
  }
  std::vector<Flow> flows;
  for (const NodeIdx s : cabled) {
    for (const NodeIdx d : cabled) {
      if (s == d) continue;
      Flow fl;
      fl.src = s;
      fl.dst = d;
      flows.push_back(fl);
    }
  }
  const std::vector<Path> paths = alg->route(RouteRequest{f, flows});
  std::vector<std::vector<std::size_t>> by_dst(f.num_nodes());
  for (std::size_t i = 0; i < flows.size(); ++i) by_dst[flows[i].dst.value()].push_back(i);
  std::size_t columns = 0;
  const bool by_destination =
      alg->route_by_destination(f, Deadline{}, [&](const DestinationColumn& c) {
        ++columns;
        for (const std::size_t i : by_dst[c.dst.value()]) {
          Path p;
          NodeIdx at = flows[i].src;
          std::size_t cables = 0;
          PortNum out;
          for (const Port& q : f.node(at).ports) {
            if (q.connected() && ++cables == 1) out = q.num;
          }
          if (cables != 1 || !f.node(f.port(at, out).peer).is_switch()) out = c.out[at.value()];
          while (p.size() <= f.switches().size() && out.value() != 0) {
            const Port& q = f.port(at, out);
            p.push_back(q.out);
            at = q.peer;
            if (at == c.dst) break;
            out = c.out[at.value()];
          }
          EXPECT_EQ(p, paths[i]) << algorithm << " " << f.kind_label << ": "
                                 << f.node(flows[i].src).name << " -> " << f.node(c.dst).name;
        }
      });
  EXPECT_TRUE(by_destination) << algorithm;
  EXPECT_EQ(columns, f.hcas().size()) << algorithm;
}

TEST(RouteByDestination, ColumnsLeadEverySourceAlongItsRoutePath) {
  for (const char* spec : {"2;4,4;1,4", "3;4,4,3;1,2,2", "3;6,4,3;1,3,2"}) {
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    expect_columns_follow_the_paths(f, "dmodk");
    expect_columns_follow_the_paths(with_shuffled_switch_ports(f, 2), "dmodk");
    expect_columns_follow_the_paths(f, "minhop");
  }
  // Tops cabled to every aggregate: DmodK chooses among several ports down (its mirrored path).
  test::PodTree tapered;
  tapered.hosts = 6;
  tapered.aggregates = 2;
  for (const test::PodTree& shape : {test::PodTree{}, tapered}) {
    Fabric f = test::generate_pod_tree(shape);
    std::string why;
    ASSERT_TRUE(recognize_fat_tree(f, &why)) << why;
    expect_columns_follow_the_paths(f, "dmodk");
  }
  expect_columns_follow_the_paths(generate_dragonfly(2, 4, 2, 9), "minhop");
  expect_columns_follow_the_paths(irregular_fabric(), "minhop");
}

TEST(LftPerDestination, MinhopTables_RouteEveryLidFromEveryHcaAndSwitch) {
  const Fabric f = irregular_fabric();
  const LftSet s = lfts_per_destination(f, sequential_lids(f), *make_algorithm("minhop"));
  for (const NodeIdx src : f.hcas()) {
    for (const NodeIdx dst : f.hcas()) {
      if (src == dst || s.lids.lid(src).value() == 0 || s.lids.lid(dst).value() == 0) continue;
      const Trace t = trace(f, s, src, dst);
      EXPECT_TRUE(t.ok()) << f.node(src).name << " -> " << f.node(dst).name << ": " << t.error;
    }
  }
  // Every LID, the second port of the two-port hosts too, has an entry on every switch, and
  // following the entries from any switch ends at the LID's node within a few hops.
  for (std::uint32_t l = 1; l <= s.lids.max_lid().value(); ++l) {
    const Lid lid(static_cast<std::uint16_t>(l));
    const NodeIdx owner = s.lids.owner(lid)->node;
    for (const NodeIdx sw : f.switches()) {
      NodeIdx at = sw;
      std::size_t hops = 0;
      while (at != owner && f.node(at).is_switch() && hops++ < f.switches().size()) {
        const PortNum p = s.table(at).out(lid);
        ASSERT_NE(p, kLftUnset) << f.node(at).name << " LID " << l;
        if (p == kSwitchPort0) break;
        at = f.port(at, p).peer;
      }
      EXPECT_EQ(at, owner) << "from " << f.node(sw).name << " LID " << l;
    }
  }
}

TEST(LftPerDestination, PairOnlyAlgorithms_AreRefused) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  for (const char* name : {"smodk", "sdn-greedy"}) {
    try {
      (void)lfts_per_destination(f, sequential_lids(f), *make_algorithm(name));
      ADD_FAILURE() << name << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not destination-based"), std::string::npos) << e.what();
    }
  }
}

/// A source the algorithm has no route from (a part cut off from the destination) gets no entry
/// toward it, and the rest of the tables are built: a degraded fabric keeps the routes it has.
/// The all-pairs builder, which has no way to tell, refuses.
TEST(LftPerDestination, UnreachableHost_GetsNoRoute_TheRestIsBuilt) {
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kSwitch, "a", 2, Guid(0x10));
  const NodeIdx b = f.add_node(NodeKind::kSwitch, "b", 2, Guid(0x20));
  const NodeIdx ha = f.add_node(NodeKind::kHca, "ha", 1, Guid(0x100));
  const NodeIdx hb = f.add_node(NodeKind::kHca, "hb", 1, Guid(0x200));
  f.connect(ha, port(1), a, port(1), 100.0);
  f.connect(hb, port(1), b, port(1), 100.0);
  f.compute_levels();
  const auto minhop = make_algorithm("minhop");
  EXPECT_THROW((void)lfts_from_destination_routes(f, sequential_lids(f), *minhop),
               std::invalid_argument);
  const LidMap lids = sequential_lids(f);
  const LftSet lfts = lfts_per_destination(f, lids, *minhop);
  EXPECT_EQ(lfts.table(a).out(lids.lid(ha)), port(1));
  EXPECT_EQ(lfts.table(b).out(lids.lid(hb)), port(1));
  EXPECT_FALSE(trace(f, lfts, hb, ha).ok());
}

TEST(LftPerDestination, DeadlinePassed_StopsTheTables) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const Deadline past(Deadline::Clock::now() - std::chrono::seconds(1));
  EXPECT_THROW((void)lfts_per_destination(f, sequential_lids(f), *make_algorithm("dmodk"), past),
               DeadlineExceeded);
}

/// complete_lfts as it was: one breadth-first search from each LID's node.
void complete_one_search_per_lid(const Fabric& f, LftSet& lfts) {
  std::vector<int> dist(f.num_nodes());
  std::deque<NodeIdx> queue;
  for (std::uint32_t raw = 1; raw <= lfts.lids.max_lid().value(); ++raw) {
    const Lid lid(static_cast<std::uint16_t>(raw));
    const auto owner = lfts.lids.owner(lid);
    if (!owner) continue;
    std::fill(dist.begin(), dist.end(), -1);
    dist[owner->node.value()] = 0;
    queue.assign(1, owner->node);
    while (!queue.empty()) {
      const NodeIdx at = queue.front();
      queue.pop_front();
      if (at != owner->node && f.node(at).is_hca()) continue;
      for (const Port& p : f.node(at).ports) {
        if (p.connected() && dist[p.peer.value()] < 0) {
          dist[p.peer.value()] = dist[at.value()] + 1;
          queue.push_back(p.peer);
        }
      }
    }
    for (const NodeIdx sw : f.switches()) {
      if (dist[sw.value()] <= 0) continue;
      Lft& t = lfts.table(sw);
      if (t.out(lid) != kLftUnset) continue;
      std::vector<PortNum> closer;
      for (const Port& p : f.node(sw).ports) {
        if (!p.connected() || dist[p.peer.value()] != dist[sw.value()] - 1) continue;
        if (f.node(p.peer).is_hca() && p.peer != owner->node) continue;
        closer.push_back(p.num);
      }
      if (!closer.empty()) t.set(lid, closer[raw % closer.size()]);
    }
  }
}

TEST(CompleteLfts, EqualsOneSearchPerLid_OnEmptyAndPartlyFilledTables) {
  std::vector<Fabric> fabrics;
  fabrics.push_back(irregular_fabric());
  fabrics.push_back(generate_dragonfly(2, 4, 2, 9));
  fabrics.push_back(
      with_shuffled_switch_ports(generate_xgft(XgftParams::parse("3;4,4,3;1,2,2")), 4));
  for (const Fabric& f : fabrics) {
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      const std::string what = f.kind_label + " seed " + std::to_string(seed);
      LftSet empty(f);
      empty.lids = shuffled_lids(f, seed, seed + 1);
      LftSet want = empty;
      complete_one_search_per_lid(f, want);
      LftSet got = empty;
      complete_lfts(f, got);
      expect_same_tables(f, want, got, what + " empty");

      // Partly filled: every third entry of a minhop table kept (they lie on shortest paths).
      LftSet partial = lfts_per_destination(f, empty.lids, *make_algorithm("minhop"));
      std::mt19937 rng(seed);
      LftSet sparse(f);
      sparse.lids = empty.lids;
      for (const NodeIdx s : f.switches()) {
        Lft& t = sparse.table(s);
        for (std::uint32_t l = 1; l <= empty.lids.max_lid().value(); ++l) {
          const Lid lid(static_cast<std::uint16_t>(l));
          if (rng() % 3 == 0 && partial.table(s).out(lid) != kLftUnset) {
            t.set(lid, partial.table(s).out(lid));
          }
        }
      }
      want = sparse;
      complete_one_search_per_lid(f, want);
      got = sparse;
      complete_lfts(f, got);
      expect_same_tables(f, want, got, what + " partial");
    }
  }
}

}  // namespace
}  // namespace ibsdn
