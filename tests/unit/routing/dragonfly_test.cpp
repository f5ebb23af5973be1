// Proofs of the dragonfly / megafly generators and of minhop, df-minimal, df-valiant and
// df-global-adaptive: cabling as documented in routing/dragonfly.hpp, contiguous paths, hop
// limits, shortest and LFT-expressible minhop paths, adaptive never worse than the oblivious
// routings.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/link_load.hpp"
#include "routing/xgft.hpp"
#include "tests/support/throws_naming.hpp"

namespace ibsdn {
namespace {

// Demands are built here, not through routing/patterns, so that a bug there cannot hide one
// here. std::mt19937_64 is fully specified: same seeds, same demands.
std::vector<Flow> flows_of(const Fabric& f,
                           const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  std::vector<Flow> out;
  for (auto [s, d] : pairs) {
    Flow fl;
    fl.src = f.hcas()[s];
    fl.dst = f.hcas()[d];
    out.push_back(fl);
  }
  set_weights(out);
  return out;
}

std::vector<Flow> random_flows(const Fabric& f, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::size_t n = f.hcas().size();
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  while (pairs.size() < count) {
    const std::size_t s = rng() % n;
    const std::size_t d = rng() % n;
    if (s != d) pairs.emplace_back(s, d);
  }
  return flows_of(f, pairs);
}

std::vector<Flow> random_permutation(const Fabric& f, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> perm(f.hcas().size());
  std::iota(perm.begin(), perm.end(), std::size_t{0});
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != i) pairs.emplace_back(i, perm[i]);
  }
  return flows_of(f, pairs);
}

// Every host sends to the host at the same position `by` groups further on.
std::vector<Flow> group_shift(const Fabric& f, int by) {
  const DragonflyLayout& x = *f.dragonfly();
  const std::size_t per_group = x.hosts.size() / static_cast<std::size_t>(x.groups);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < x.hosts.size(); ++i) {
    pairs.emplace_back(i, (i + per_group * static_cast<std::size_t>(by)) % x.hosts.size());
  }
  return flows_of(f, pairs);
}

std::vector<Path> route(const Fabric& f, std::string_view algorithm, std::span<const Flow> flows,
                        std::uint64_t seed = 1, const LinkLoad* background = nullptr,
                        bool weighted = false) {
  RouteRequest req{f, flows};
  req.seed = seed;
  req.background = background;
  req.weighted = weighted;
  return make_algorithm(algorithm)->route(req);
}

std::int32_t max_load(const Fabric& f, const std::vector<Path>& paths) {
  LinkLoad load(f);
  for (const Path& p : paths) load.add(p);
  return load.max_flows();
}

// Group of a router, -1 for an HCA.
int group(const Fabric& f, NodeIdx n) {
  return f.dragonfly()->group_of_node[n.value()];
}

struct Hops {
  std::size_t routers = 0;  // router-to-router hops
  std::size_t global = 0;   // of which between groups
};

// Checks that `p` runs over cabled links from flow.src to flow.dst without revisiting a node.
::testing::AssertionResult contiguous(const Fabric& f, const Flow& flow, const Path& p) {
  if (p.size() < 2) return ::testing::AssertionFailure() << "path of " << p.size() << " links";
  if (f.link(p.front()).from != flow.src) return ::testing::AssertionFailure() << "wrong start";
  if (f.link(p.back()).to != flow.dst) return ::testing::AssertionFailure() << "wrong end";
  std::set<NodeIdx> seen{flow.src};
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Link& l = f.link(p[i]);
    const Port& port = f.port(l.from, l.from_port);
    if (port.out != p[i] || port.peer != l.to) {
      return ::testing::AssertionFailure() << "link " << i << " is not cabled as recorded";
    }
    if (i > 0 && f.link(p[i - 1]).to != l.from) {
      return ::testing::AssertionFailure() << "gap before link " << i;
    }
    if (i + 1 < p.size() && f.node(l.to).is_hca()) {
      return ::testing::AssertionFailure() << "transit through HCA " << f.node(l.to).name;
    }
    if (!seen.insert(l.to).second) {
      return ::testing::AssertionFailure() << "revisits " << f.node(l.to).name;
    }
  }
  return ::testing::AssertionSuccess();
}

Hops hops(const Fabric& f, const Path& p) {
  Hops h;
  for (LinkId id : p) {
    const Link& l = f.link(id);
    if (!f.node(l.from).is_switch() || !f.node(l.to).is_switch()) continue;
    ++h.routers;
    if (group(f, l.from) != group(f, l.to)) ++h.global;
  }
  return h;
}

// Hop distance between two nodes through switches only.
std::vector<int> bfs(const Fabric& f, NodeIdx from) {
  std::vector<int> dist(f.num_nodes(), -1);
  dist[from.value()] = 0;
  std::deque<NodeIdx> q{from};
  while (!q.empty()) {
    const NodeIdx n = q.front();
    q.pop_front();
    for (const Port& p : f.node(n).ports) {
      if (!p.connected() || dist[p.peer.value()] >= 0) continue;
      dist[p.peer.value()] = dist[n.value()] + 1;
      if (f.node(p.peer).is_switch()) q.push_back(p.peer);
    }
  }
  return dist;
}

// ---------------------------------------------------------------------------------------------
// Parameters

TEST(DragonflyParams, ParsesWithAndWithoutWrapper) {
  const auto a = DragonflyParams::parse("8,16,8,65");
  const auto b = DragonflyParams::parse(" dragonfly(8, 16, 8, 65) ");
  EXPECT_EQ(a.to_string(), "dragonfly(8,16,8,65)");
  EXPECT_EQ(b.to_string(), a.to_string());
  EXPECT_EQ(a.num_hosts(), 8320u);
  const auto m = MegaflyParams::parse("16,16,16,16,33");
  EXPECT_EQ(m.to_string(), "megafly(16,16,16,16,33)");
  EXPECT_EQ(MegaflyParams::parse("Megafly(16,16,16,16,33)").to_string(), m.to_string());
  EXPECT_EQ(m.num_hosts(), 8448u);
}

using test::throws_naming;

TEST(DragonflyParams, RejectsBadValuesNamingThem) {
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("8,x,8,65"); }, "a 'x'"));
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("8,16,8"); }, "expected 'p,a,h,g'"));
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("8,16,8,65,2"); }, "expected 4 values"));
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("8,16,8,130"); }, "a*h = 128"));
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("8,16,8,1"); }, "g=1"));
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("0,16,8,65"); }, "p (hosts per router)"));
  EXPECT_TRUE(throws_naming([] { DragonflyParams::parse("200,50,8,65"); }, "= 257 ports"));
  EXPECT_TRUE(throws_naming([] { generate_dragonfly(2, 2, 1, 4); }, "a*h = 2"));
  EXPECT_TRUE(throws_naming([] { MegaflyParams::parse("16,16,16,16,y"); }, "groups 'y'"));
  EXPECT_TRUE(
      throws_naming([] { MegaflyParams::parse("16,16,2,16,34"); }, "spines*global_per_spine = 32"));
  EXPECT_TRUE(throws_naming([] { MegaflyParams::parse("16,16,0,16,33"); }, "spines must be"));
  EXPECT_TRUE(throws_naming([] { MegaflyParams::parse("250,16,16,16,33"); }, "= 266 ports"));
  EXPECT_TRUE(throws_naming([] { generate_megafly(1, 1, 1, 1, 2, 65); }, "gpus per node"));
}

// ---------------------------------------------------------------------------------------------
// Generators

// Expected global cables of the documented arrangement: P global ports per group, D = g-1.
std::size_t expected_global_cables(int g, int ports) {
  const int d = g - 1;
  const int full = ports / d;
  const int rest = ports % d;
  return static_cast<std::size_t>(g) *
         static_cast<std::size_t>(full * d + std::max(0, 2 * rest - d)) / 2;
}

struct Expect {
  bool megafly = false;
  int hosts_per_router = 0, host_routers = 0, spines = 0, global_per_router = 0, groups = 0;
};

// Checks the cabling of a generated fabric port by port against the documented layout, and
// returns the number of router pairs joined by more than one cable.
std::size_t check_cabling(const Fabric& f, const Expect& e) {
  const DragonflyLayout& x = *f.dragonfly();
  const int rpg = e.host_routers + e.spines;
  const std::size_t hosts =
      static_cast<std::size_t>(e.groups * e.host_routers * e.hosts_per_router);
  EXPECT_EQ(x.groups, e.groups);
  EXPECT_EQ(f.hcas().size(), hosts);
  EXPECT_EQ(x.hosts, f.hcas());
  EXPECT_EQ(f.switches().size(), static_cast<std::size_t>(e.groups * rpg));
  const int global_routers = e.megafly ? e.spines : e.host_routers;
  const std::size_t local =
      static_cast<std::size_t>(e.groups) *
      (e.megafly ? static_cast<std::size_t>(e.host_routers * e.spines)
                 : static_cast<std::size_t>(e.host_routers * (e.host_routers - 1) / 2));
  const std::size_t global = expected_global_cables(e.groups, global_routers * e.global_per_router);
  EXPECT_EQ(f.num_links(), 2 * (hosts + local + global));

  std::set<std::pair<NodeIdx, NodeIdx>> router_pairs;
  std::size_t parallel = 0;
  std::size_t host = 0;
  std::size_t globals_seen = 0;
  for (int g = 0; g < e.groups; ++g) {
    const auto& rs = x.routers[static_cast<std::size_t>(g)];
    EXPECT_EQ(rs.size(), static_cast<std::size_t>(rpg));
    for (int r = 0; r < rpg; ++r) {
      const Node& n = f.node(rs[r]);
      const bool spine = r >= e.host_routers;
      int port = 0;
      const auto peer = [&](int p) { return n.ports[static_cast<std::size_t>(p)]; };
      if (!spine) {
        for (int k = 0; k < e.hosts_per_router; ++k, ++port) {
          EXPECT_EQ(peer(port).peer, x.hosts[host++]) << n.name << " port " << port + 1;
        }
        const int locals = e.megafly ? e.spines : e.host_routers - 1;
        for (int k = 0; k < locals; ++k, ++port) {
          const int other = e.megafly ? e.host_routers + k : (k < r ? k : k + 1);
          EXPECT_EQ(peer(port).peer, rs[other]) << n.name << " port " << port + 1;
        }
      } else {
        for (int k = 0; k < e.host_routers; ++k, ++port) {
          EXPECT_EQ(peer(port).peer, rs[k]) << n.name << " port " << port + 1;
        }
      }
      if (e.megafly && !spine) {
        EXPECT_EQ(static_cast<std::size_t>(port), n.ports.size()) << n.name;
        continue;
      }
      EXPECT_EQ(n.ports.size(), static_cast<std::size_t>(port + e.global_per_router)) << n.name;
      for (int k = 0; k < e.global_per_router; ++k, ++port) {
        const Port& p = peer(port);
        if (!p.connected()) continue;
        ++globals_seen;
        const int index = (e.megafly ? r - e.host_routers : r) * e.global_per_router + k;
        const int d = e.groups - 1;
        EXPECT_EQ(group(f, p.peer), (g + 1 + index % d) % e.groups) << n.name << " port " << port;
        const Node& other = f.node(p.peer);
        const Port& back = other.ports[p.peer_port.value() - 1u];
        EXPECT_EQ(back.peer, rs[r]);
        EXPECT_EQ(back.peer_port, p.num);
        // The partner is the same copy's port pointing back.
        const int partner = (index / d) * d + (d - 1 - index % d);
        const int other_index = x.index_in_group[p.peer.value()] - (e.megafly ? e.host_routers : 0);
        const int other_k = static_cast<int>(p.peer_port.value()) - 1 -
                            (static_cast<int>(other.ports.size()) - e.global_per_router);
        EXPECT_EQ(other_index * e.global_per_router + other_k, partner);
        if (!router_pairs.insert({rs[r], p.peer}).second) ++parallel;
      }
    }
  }
  EXPECT_EQ(globals_seen, 2 * global);
  for (int i = 0; i < e.groups; ++i) {
    for (int j = 0; j < e.groups; ++j) {
      if (i == j) continue;
      const auto links = x.global_links(i, j);
      EXPECT_GE(links.size(), 1u) << i << "->" << j;
      EXPECT_EQ(links.size(), x.global_links(j, i).size());
      for (const auto& l : links) {
        EXPECT_EQ(f.link(l.id).from, l.from);
        EXPECT_EQ(f.link(l.id).to, l.to);
        EXPECT_EQ(group(f, l.from), i);
        EXPECT_EQ(group(f, l.to), j);
      }
    }
  }
  return parallel;
}

TEST(Dragonfly, TableOneDragonflyIsFullyCabledWithTwoLinksPerGroupPair) {
  const Fabric f = generate_dragonfly(8, 16, 8, 65);
  EXPECT_EQ(f.kind_label, "dragonfly(8,16,8,65)");
  EXPECT_EQ(f.hcas().size(), 8320u);
  EXPECT_EQ(f.switches().size(), 1040u);
  EXPECT_EQ(f.num_links(), 2u * (8320 + 65 * 120 + 65 * 128 / 2));
  EXPECT_EQ(check_cabling(f, {false, 8, 16, 0, 8, 65}), 0u);
  const DragonflyLayout& x = *f.dragonfly();
  for (int i = 0; i < 65; ++i) {
    for (int j = 0; j < 65; ++j) {
      if (i != j) {
        EXPECT_EQ(x.global_links(i, j).size(), 2u);  // a*h = 128 ports over 64 other groups
      }
    }
  }
  for (NodeIdx s : f.switches()) {
    ASSERT_EQ(f.node(s).ports.size(), 31u);
    for (const Port& p : f.node(s).ports) EXPECT_TRUE(p.connected()) << f.node(s).name;
  }
  EXPECT_EQ(f.node(f.switches().front()).name, "g01r01");
  EXPECT_EQ(f.node(f.switches().back()).name, "g65r16");
  EXPECT_EQ(f.node(f.hcas()[8319]).name, "n8320");
  EXPECT_EQ(f.node(f.hcas()[0]).description, "n0001 HCA-1");
}

TEST(Dragonfly, TableOneMegaflyHasEightLinksPerGroupPair) {
  const Fabric f = generate_megafly(16, 16, 16, 16, 33);
  EXPECT_EQ(f.kind_label, "megafly(16,16,16,16,33)");
  EXPECT_EQ(f.hcas().size(), 8448u);
  EXPECT_EQ(f.switches().size(), 1056u);
  EXPECT_EQ(f.num_links(), 2u * (8448 + 33 * 256 + 33 * 256 / 2));
  EXPECT_EQ(check_cabling(f, {true, 16, 16, 16, 16, 33}), 0u);
  const DragonflyLayout& x = *f.dragonfly();
  for (int i = 0; i < 33; ++i) {
    for (int j = 0; j < 33; ++j) {
      if (i != j) {
        EXPECT_EQ(x.global_links(i, j).size(), 8u);
      }
    }
  }
  for (NodeIdx s : f.switches()) {
    ASSERT_EQ(f.node(s).ports.size(), 32u);
    for (const Port& p : f.node(s).ports) EXPECT_TRUE(p.connected()) << f.node(s).name;
    const RouterRole role = x.role[s.value()];
    EXPECT_EQ(f.level(s), role == RouterRole::kLeaf ? 1 : 2) << f.node(s).name;
    EXPECT_EQ(f.node(s).name.substr(3, 1), role == RouterRole::kLeaf ? "l" : "s");
  }
  EXPECT_EQ(f.node(x.routers[32][31]).name, "g33s16");
}

TEST(Dragonfly, PartialCopyLeavesExactlyTheUnpairedPortsUncabled) {
  // a*h = 8 global ports per group, D = 5: ports 5..7 form a partial copy; only port 7
  // (offset 2, its own partner's offset) is cabled, ports 5 (router 2, k=1) and 6 (router 3,
  // k=0) stay free.
  const Fabric f = generate_dragonfly(2, 4, 2, 6);
  EXPECT_EQ(check_cabling(f, {false, 2, 4, 0, 2, 6}), 0u);
  const DragonflyLayout& x = *f.dragonfly();
  for (int g = 0; g < 6; ++g) {
    for (int r = 0; r < 4; ++r) {
      const Node& n = f.node(x.routers[static_cast<std::size_t>(g)][r]);
      for (int k = 0; k < 2; ++k) {
        const bool free = (r == 2 && k == 1) || (r == 3 && k == 0);
        EXPECT_EQ(n.ports[static_cast<std::size_t>(2 + 3 + k)].connected(), !free)
            << n.name << " k=" << k;
      }
    }
  }
  EXPECT_EQ(x.global_links(0, 3).size(), 2u);  // offset 2 in both copies
  EXPECT_EQ(x.global_links(0, 1).size(), 1u);
}

TEST(Dragonfly, SmallConfigurationsFollowTheArrangement) {
  EXPECT_EQ(check_cabling(generate_dragonfly(2, 4, 2, 9), {false, 2, 4, 0, 2, 9}), 0u);
  // Two groups, three copies: router r's three global ports all lead to router r of the other
  // group, so each of the 4 routers sees 2 cables parallel to its first.
  EXPECT_EQ(check_cabling(generate_dragonfly(1, 2, 3, 2), {false, 1, 2, 0, 3, 2}), 8u);
  EXPECT_EQ(check_cabling(generate_megafly(2, 4, 3, 2, 4), {true, 2, 4, 3, 2, 4}), 0u);
  EXPECT_EQ(check_cabling(generate_megafly(3, 2, 2, 3, 6), {true, 3, 2, 2, 3, 6}), 0u);
}

TEST(Dragonfly, GuidsAreDistinctAndOutsideTheXgftPrefixes) {
  const Fabric d = generate_dragonfly(2, 4, 2, 9);
  const Fabric m = generate_megafly(2, 4, 3, 2, 4);
  std::set<Guid> seen;
  for (const Fabric* f : {&d, &m}) {
    for (const Node& n : f->nodes()) {
      EXPECT_TRUE(seen.insert(n.guid).second) << n.name;
      const std::uint64_t prefix = n.guid.value() >> 32;
      EXPECT_NE(prefix, 0x0002c902u);
      EXPECT_NE(prefix, 0x0002c903u);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Routing

struct Case {
  const char* label;
  Fabric fabric;
};

std::vector<Case> small_fabrics() {
  std::vector<Case> out;
  out.push_back({"dragonfly(2,4,2,9)", generate_dragonfly(2, 4, 2, 9)});
  out.push_back({"dragonfly(2,4,2,6)", generate_dragonfly(2, 4, 2, 6)});
  out.push_back({"megafly(2,4,3,2,4)", generate_megafly(2, 4, 3, 2, 4)});
  out.push_back({"megafly(3,2,2,3,6)", generate_megafly(3, 2, 2, 3, 6)});
  return out;
}

TEST(DragonflyRouting, EveryAlgorithmGivesContiguousPathsWithinItsHopLimits) {
  for (const Case& c : small_fabrics()) {
    const Fabric& f = c.fabric;
    const bool megafly = f.dragonfly()->megafly();
    std::vector<Flow> flows = random_flows(f, 300, 7);
    const auto permutation = random_permutation(f, 8);
    flows.insert(flows.end(), permutation.begin(), permutation.end());
    for (const char* algorithm : {"minhop", "df-minimal", "df-valiant", "df-global-adaptive"}) {
      SCOPED_TRACE(std::string(c.label) + " " + algorithm);
      const auto paths = route(f, algorithm, flows, 3);
      ASSERT_EQ(paths.size(), flows.size());
      std::size_t max_routers = 0;
      for (std::size_t i = 0; i < flows.size(); ++i) {
        ASSERT_TRUE(contiguous(f, flows[i], paths[i])) << "flow " << i;
        const Hops h = hops(f, paths[i]);
        const int gs = f.dragonfly()->group_of(flows[i].src);
        const int gd = f.dragonfly()->group_of(flows[i].dst);
        const std::string a = algorithm;
        max_routers = std::max(max_routers, h.routers);
        if (a == "df-minimal") {
          EXPECT_LE(h.routers, 3u);
          EXPECT_EQ(h.global, gs == gd ? 0u : 1u);
        } else if (a == "df-valiant") {
          EXPECT_LE(h.routers, megafly ? 6u : 5u);
          EXPECT_EQ(h.global, gs == gd ? 0u : 2u);
          if (gs == gd) {
            EXPECT_LE(h.routers, megafly ? 2u : 1u);
          }
        } else if (a == "df-global-adaptive") {
          EXPECT_LE(h.global, 2u);
          if (gs == gd) {
            EXPECT_EQ(h.global, 0u);
          }
          EXPECT_LE(h.routers, h.global == 2 ? (megafly ? 6u : 5u) : 3u);
        }
      }
      const std::string a = algorithm;
      if (a == "df-minimal") {
        EXPECT_EQ(max_routers, 3u);
      }
      if (a == "df-valiant") {
        EXPECT_EQ(max_routers, megafly ? 6u : 5u);
      }
    }
  }
}

TEST(DragonflyRouting, MinimalUsesTheOnlyGlobalLinkAndSpreadsOverSpines) {
  // dragonfly(2,4,2,9) has exactly one cable between two groups: every inter-group path crosses
  // it, with a local hop only where the gateway is not the end router.
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const DragonflyLayout& x = *f.dragonfly();
  std::vector<std::pair<std::size_t, std::size_t>> all;
  for (std::size_t s = 0; s < 72; ++s) {
    for (std::size_t d = 0; d < 72; ++d) {
      if (s != d) all.emplace_back(s, d);
    }
  }
  const auto flows = flows_of(f, all);
  const auto paths = route(f, "df-minimal", flows);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const NodeIdx rs = x.edge_router[flows[i].src.value()];
    const NodeIdx rd = x.edge_router[flows[i].dst.value()];
    const int gs = group(f, rs);
    const int gd = group(f, rd);
    std::size_t expected = rs == rd ? 0 : 1;
    if (gs != gd) {
      const auto& g = x.global_links(gs, gd)[0];
      expected = (rs != g.from) + 1 + (g.to != rd);
      EXPECT_NE(std::find(paths[i].begin(), paths[i].end(), g.id), paths[i].end());
    }
    EXPECT_EQ(hops(f, paths[i]).routers, expected);
  }

  // megafly(2,4,3,2,4): leaf-to-leaf flows of one group use all 3 spines, and flows between two
  // groups all 2 global links.
  const Fabric m = generate_megafly(2, 4, 3, 2, 4);
  const DragonflyLayout& mx = *m.dragonfly();
  std::vector<std::pair<std::size_t, std::size_t>> group0, across;
  for (std::size_t s = 0; s < 8; ++s) {
    for (std::size_t d = 0; d < 8; ++d) {
      if (s / 2 != d / 2) group0.emplace_back(s, d);
      across.emplace_back(s, 8 + d);
    }
  }
  std::set<NodeIdx> spines;
  for (const Path& p : route(m, "df-minimal", flows_of(m, group0))) {
    ASSERT_EQ(p.size(), 4u);
    spines.insert(m.link(p[1]).to);
  }
  EXPECT_EQ(spines.size(), 3u);
  std::set<LinkId> globals;
  for (const Path& p : route(m, "df-minimal", flows_of(m, across))) {
    ASSERT_EQ(p.size(), 5u);
    globals.insert(p[2]);
  }
  EXPECT_EQ(globals.size(), mx.global_links(0, 1).size());
  EXPECT_EQ(globals.size(), 2u);
}

TEST(DragonflyRouting, ValiantIsSeededAndAvoidsTheEndpointGroups) {
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const auto flows = random_flows(f, 200, 11);
  const auto a = route(f, "df-valiant", flows, 5);
  EXPECT_EQ(a, route(f, "df-valiant", flows, 5));
  EXPECT_NE(a, route(f, "df-valiant", flows, 6));
  std::set<int> mids;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const int gs = f.dragonfly()->group_of(flows[i].src);
    const int gd = f.dragonfly()->group_of(flows[i].dst);
    if (gs == gd) continue;
    for (LinkId id : a[i]) {
      const Link& l = f.link(id);
      if (f.node(l.from).is_switch() && f.node(l.to).is_switch() &&
          group(f, l.from) != group(f, l.to) && group(f, l.from) == gs) {
        EXPECT_NE(group(f, l.to), gd);
        mids.insert(group(f, l.to));
      }
    }
  }
  EXPECT_EQ(mids.size(), 9u);  // every group serves as an intermediate for some flow
}

// Checks minhop on `f` against BFS distances and for destination consistency.
void expect_minhop_is_shortest_and_lft_expressible(const Fabric& f) {
  std::vector<std::pair<std::size_t, std::size_t>> all;
  const std::size_t n = f.hcas().size();
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t d = 0; d < n; ++d) {
      if (s != d) all.emplace_back(s, d);
    }
  }
  const auto flows = flows_of(f, all);
  const auto paths = route(f, "minhop", flows);
  std::map<std::pair<NodeIdx, NodeIdx>, LinkId> lft;  // (switch, destination) -> out link
  std::vector<std::vector<int>> dist(f.num_nodes());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    ASSERT_TRUE(contiguous(f, flows[i], paths[i]));
    auto& d = dist[flows[i].src.value()];
    if (d.empty()) d = bfs(f, flows[i].src);
    EXPECT_EQ(paths[i].size(), static_cast<std::size_t>(d[flows[i].dst.value()]));
    for (LinkId id : paths[i]) {
      const Link& l = f.link(id);
      if (!f.node(l.from).is_switch()) continue;
      const auto [it, fresh] = lft.emplace(std::pair{l.from, flows[i].dst}, id);
      EXPECT_TRUE(fresh || it->second == id)
          << f.node(l.from).name << " -> " << f.node(flows[i].dst).name;
    }
  }
}

TEST(DragonflyRouting, MinhopIsShortestAndDestinationBasedOnAnyFabric) {
  expect_minhop_is_shortest_and_lft_expressible(generate_dragonfly(2, 4, 2, 9));
  expect_minhop_is_shortest_and_lft_expressible(generate_dragonfly(1, 2, 3, 2));
  expect_minhop_is_shortest_and_lft_expressible(generate_megafly(2, 4, 3, 2, 4));
  expect_minhop_is_shortest_and_lft_expressible(generate_xgft(XgftParams::parse("3;4,4,3;1,2,2")));
  EXPECT_EQ(
      make_algorithm("minhop")->unsupported_reason(generate_xgft(XgftParams::parse("2;2,2;1,2"))),
      "");
}

TEST(DragonflyRouting, MinhopSpreadsDestinationsOverEqualPorts) {
  // XGFT(2;4,4;1,4): from the first leaf, the 12 remote destinations take each of the 4 up
  // ports exactly 3 times.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t d = 4; d < 16; ++d) pairs.emplace_back(0, d);
  std::map<PortNum, int> per_port;
  for (const Path& p : route(f, "minhop", flows_of(f, pairs))) ++per_port[f.link(p[1]).from_port];
  EXPECT_EQ(per_port, (std::map<PortNum, int>{
                          {PortNum(5), 3}, {PortNum(6), 3}, {PortNum(7), 3}, {PortNum(8), 3}}));
}

TEST(DragonflyRouting, GlobalAdaptiveIsNeverWorseThanMinimalOrValiant) {
  int strictly_better_than_minimal = 0;
  int strictly_better_than_valiant = 0;
  int runs = 0;
  for (const Case& c : small_fabrics()) {
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
      SCOPED_TRACE(std::string(c.label) + " seed " + std::to_string(seed));
      const Fabric& f = c.fabric;
      const auto flows =
          seed % 2 ? random_permutation(f, seed) : random_flows(f, f.hcas().size() * 2, seed);
      const std::int32_t adaptive = max_load(f, route(f, "df-global-adaptive", flows, seed));
      const std::int32_t minimal = max_load(f, route(f, "df-minimal", flows, seed));
      const std::int32_t valiant = max_load(f, route(f, "df-valiant", flows, seed));
      EXPECT_LE(adaptive, minimal);
      EXPECT_LE(adaptive, valiant);
      strictly_better_than_minimal += adaptive < minimal;
      strictly_better_than_valiant += adaptive < valiant;
      ++runs;
    }
  }
  EXPECT_GT(strictly_better_than_minimal, runs / 2);
  EXPECT_GT(strictly_better_than_valiant, runs / 2);
}

TEST(DragonflyRouting, GlobalAdaptiveBeatsMinimalOnAGroupShift) {
  // dragonfly(2,4,2,9): the 8 hosts of a group all send to the next group over its single
  // cable under minimal routing; Valiant and the adaptive routing spread them.
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const auto flows = group_shift(f, 1);
  EXPECT_EQ(max_load(f, route(f, "df-minimal", flows)), 8);
  const std::int32_t adaptive = max_load(f, route(f, "df-global-adaptive", flows));
  EXPECT_EQ(adaptive, 2);
  EXPECT_LE(adaptive, max_load(f, route(f, "df-valiant", flows)));

  const Fabric m = generate_megafly(2, 4, 3, 2, 4);
  const auto mflows = group_shift(m, 1);
  // 8 flows over the 2 cables between two groups: at least 4 on one of them.
  const std::int32_t minimal = max_load(m, route(m, "df-minimal", mflows));
  EXPECT_GE(minimal, 4);
  const std::int32_t spread = max_load(m, route(m, "df-global-adaptive", mflows));
  EXPECT_LE(spread, 3);
  EXPECT_LT(spread, minimal);
}

TEST(DragonflyRouting, GlobalAdaptiveWeighsBackgroundInTheChosenMeasure) {
  // Source on g01r01 (which owns the cable to group 2), destination on group 2. Background: two
  // light flows (0.1 each) on that cable, one heavy flow (0.5) on every other link leaving
  // g01r01. Counting flows the detour wins (1 < 2); counting weights the cable does (0.2 < 0.5).
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  const DragonflyLayout& x = *f.dragonfly();
  const Flow flow = flows_of(f, {{0, 8 + 5}})[0];
  const NodeIdx router = x.routers[0][0];
  ASSERT_EQ(x.edge_router[flow.src.value()], router);
  const auto& cable = x.global_links(0, 1)[0];
  ASSERT_EQ(cable.from, router);
  LinkLoad background(f);
  for (const Port& p : f.node(router).ports) {
    if (f.node(p.peer).is_hca()) continue;
    if (p.out == cable.id) {
      background.add(std::vector<LinkId>{p.out}, 0.1);
      background.add(std::vector<LinkId>{p.out}, 0.1);
    } else {
      background.add(std::vector<LinkId>{p.out}, 0.5);
    }
  }
  const std::vector<Flow> one{flow};
  EXPECT_EQ(hops(f, route(f, "df-global-adaptive", one, 1, &background, false)[0]).global, 2u);
  const Path weighted = route(f, "df-global-adaptive", one, 1, &background, true)[0];
  EXPECT_EQ(hops(f, weighted).global, 1u);
  EXPECT_NE(std::find(weighted.begin(), weighted.end(), cable.id), weighted.end());
}

TEST(DragonflyRouting, DragonflyAlgorithmsExplainOtherTopologiesAndCheckFlows) {
  const Fabric xgft = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const auto flows = flows_of(xgft, {{0, 5}});
  for (const char* a : {"df-minimal", "df-valiant", "df-global-adaptive"}) {
    EXPECT_NE(make_algorithm(a)->unsupported_reason(xgft), "") << a;
    EXPECT_THROW(route(xgft, a, flows), std::invalid_argument) << a;
  }
  const Fabric f = generate_dragonfly(2, 4, 2, 9);
  Flow self;
  self.src = self.dst = f.hcas()[3];
  const std::vector<Flow> bad{self};
  for (const char* a : {"minhop", "df-minimal", "df-valiant", "df-global-adaptive"}) {
    EXPECT_EQ(make_algorithm(a)->unsupported_reason(f), "") << a;
    EXPECT_THROW(route(f, a, bad), std::invalid_argument) << a;
  }
}

}  // namespace
}  // namespace ibsdn
