#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"
#include "routing/netlist.hpp"
#include "routing/xgft.hpp"
#include "tests/support/fabric_specs.hpp"
#include "tests/support/file_line_error_expect.hpp"

namespace ibsdn {
namespace {

using test::build;
using test::cables_of;
using test::CableSpec;
using test::nodes_of;
using test::NodeSpec;

/// Every cable as (name, port, name, port), smaller end first, sorted: the graph without ids.
std::set<std::tuple<std::string, int, std::string, int>> cable_set(const Fabric& f) {
  std::set<std::tuple<std::string, int, std::string, int>> out;
  for (const CableSpec& c : cables_of(f)) {
    auto a = std::make_pair(c.a, c.pa);
    auto b = std::make_pair(c.b, c.pb);
    if (b < a) std::swap(a, b);
    out.emplace(a.first, a.second, b.first, b.second);
  }
  return out;
}

std::vector<std::string> names(const Fabric& f, const std::vector<NodeIdx>& v) {
  std::vector<std::string> out;
  for (NodeIdx n : v) out.push_back(f.node(n).name);
  return out;
}

/// Hop distance between two nodes, by BFS.
int distance(const Fabric& f, NodeIdx a, NodeIdx b) {
  std::vector<int> d(f.num_nodes(), -1);
  std::deque<NodeIdx> q{a};
  d[a.value()] = 0;
  while (!q.empty()) {
    const NodeIdx n = q.front();
    q.pop_front();
    for (const Port& p : f.node(n).ports) {
      if (p.connected() && d[p.peer.value()] < 0) {
        d[p.peer.value()] = d[n.value()] + 1;
        q.push_back(p.peer);
      }
    }
  }
  return d[b.value()];
}

/// Checks every up*/down* path of a recognised XGFT between some host pairs.
void expect_valid_paths(const Fabric& f) {
  ASSERT_NE(f.xgft(), nullptr);
  const XgftLayout& x = *f.xgft();
  const auto hosts = static_cast<std::uint32_t>(x.hosts.size());
  for (std::uint32_t s = 0; s < hosts; s += 3) {
    for (std::uint32_t d = 0; d < hosts; d += 5) {
      if (s == d) continue;
      const int k = x.nca_level(s, d);
      ASSERT_EQ(distance(f, x.hosts[s], x.hosts[d]), 2 * k) << s << "->" << d;
      std::set<std::vector<LinkId>> distinct;
      for (std::uint64_t y = 0; y < x.paths_at_level(k); ++y) {
        std::vector<LinkId> p;
        xgft_path(f, x, s, d, y, p);
        ASSERT_EQ(p.size(), static_cast<std::size_t>(2 * k));
        EXPECT_EQ(f.link(p.front()).from, x.hosts[s]);
        EXPECT_EQ(f.link(p.back()).to, x.hosts[d]);
        for (std::size_t i = 1; i < p.size(); ++i)
          EXPECT_EQ(f.link(p[i - 1]).to, f.link(p[i]).from);
        EXPECT_EQ(xgft_path_y_index(f, x, p), y);
        distinct.insert(p);
      }
      EXPECT_EQ(distinct.size(), x.paths_at_level(k));
    }
  }
}

const char* const kXgfts[] = {"2;4,4;1,4", "3;4,4,3;1,2,2", "3;4,4,2;1,4,4",    "3;6,4,2;1,3,2",
                              "2;8,4;1,2", "1;8;1",         "4;2,2,2,2;1,2,2,2"};

TEST(Netlist, ExportedXgftParsesBackToTheSameGraphAndHostOrder) {
  for (const char* spec : kXgfts) {
    SCOPED_TRACE(spec);
    const XgftParams p = XgftParams::parse(spec);
    const Fabric f = generate_xgft(p);
    const Fabric g = parse_netlist(export_ibsim_netlist(f), "gen.net");
    ASSERT_EQ(g.num_nodes(), f.num_nodes());
    for (std::size_t i = 0; i < f.num_nodes(); ++i) {
      const Node& a = f.nodes()[i];
      const Node& b = g.nodes()[i];
      EXPECT_EQ(b.name, a.name);
      EXPECT_EQ(b.kind, a.kind);
      EXPECT_EQ(b.guid, a.guid);
      EXPECT_EQ(b.description, a.description);
      EXPECT_EQ(b.ports.size(), a.ports.size());
    }
    EXPECT_EQ(cable_set(g), cable_set(f));
    EXPECT_EQ(g.num_links(), f.num_links());
    EXPECT_EQ(g.kind_label, p.to_string());
    ASSERT_NE(g.xgft(), nullptr);
    EXPECT_EQ(names(g, g.xgft()->hosts), names(f, f.xgft()->hosts));
    for (int l = 1; l <= p.h; ++l) {
      EXPECT_EQ(names(g, g.xgft()->switches[l - 1]), names(f, f.xgft()->switches[l - 1]));
    }
  }
}

TEST(Netlist, RecognisesXgftCabledInShuffledPortAndRecordOrder) {
  std::mt19937 rng(20240611);
  for (const char* spec : {"3;4,4,3;1,2,2", "3;4,4,2;1,4,4", "2;8,4;1,2"}) {
    SCOPED_TRACE(spec);
    const XgftParams p = XgftParams::parse(spec);
    const Fabric f = generate_xgft(p);
    std::vector<NodeSpec> nodes = nodes_of(f);
    std::shuffle(nodes.begin(), nodes.end(), rng);
    // A random permutation of every switch's port numbers.
    std::vector<std::vector<int>> perm(f.num_nodes());
    for (std::size_t i = 0; i < f.num_nodes(); ++i) {
      perm[i].resize(f.nodes()[i].ports.size() + 1);
      std::iota(perm[i].begin(), perm[i].end(), 0);
      if (f.nodes()[i].is_switch()) std::shuffle(perm[i].begin() + 1, perm[i].end(), rng);
    }
    std::vector<CableSpec> cables = cables_of(f);
    for (CableSpec& c : cables) {
      c.pa = perm[f.find(c.a)->value()][c.pa];
      c.pb = perm[f.find(c.b)->value()][c.pb];
    }
    std::shuffle(cables.begin(), cables.end(), rng);
    const Fabric shuffled = build(nodes, cables);
    Fabric g = parse_netlist(export_ibsim_netlist(shuffled), "shuffled.net");
    std::string why;
    EXPECT_EQ(g.kind_label, p.to_string()) << (recognize_xgft(g, &why), why);
    EXPECT_EQ(cable_set(g), cable_set(shuffled));
    expect_valid_paths(g);
  }
}

// A netlist in any record order, put in subnet order, is the fabric the plugin builds from
// OpenSM's view: HCAs by node GUID, then switches by node GUID, every cable kept, its cables
// numbered alike (the generator's order is already that order).
TEST(Netlist, InSubnetOrder_IsTheGeneratorsOrderWhateverTheRecordOrder) {
  std::mt19937 rng(7);
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  std::vector<NodeSpec> nodes = nodes_of(f);
  std::shuffle(nodes.begin(), nodes.end(), rng);
  std::vector<CableSpec> cables = cables_of(f);
  std::shuffle(cables.begin(), cables.end(), rng);
  const Fabric g = in_subnet_order(parse_netlist(export_ibsim_netlist(build(nodes, cables)), "s"));
  ASSERT_EQ(g.num_nodes(), f.num_nodes());
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    EXPECT_EQ(g.nodes()[i].name, f.nodes()[i].name) << i;
    EXPECT_EQ(g.nodes()[i].guid, f.nodes()[i].guid) << i;
  }
  ASSERT_EQ(g.num_links(), f.num_links());
  const Fabric h = in_subnet_order(f);
  for (std::size_t l = 0; l < f.num_links(); ++l) {
    const Link& a = h.links()[l];
    const Link& b = g.links()[l];
    EXPECT_EQ(std::tie(a.from, a.from_port, a.to, a.to_port),
              std::tie(b.from, b.from_port, b.to, b.to_port))
        << l;
  }
  EXPECT_EQ(cable_set(g), cable_set(f));
  EXPECT_EQ(g.level(*g.find("l2s001")), 2);
}

TEST(Netlist, RejectsARingOfSwitchesWithAReason) {
  std::vector<NodeSpec> nodes;
  std::vector<CableSpec> cables;
  for (int s = 0; s < 4; ++s) {
    const std::string sw = "sw" + std::to_string(s);
    nodes.push_back({NodeKind::kSwitch, sw, 4, Guid(0x100u + s), sw});
    for (int h = 0; h < 2; ++h) {
      const std::string host = "h" + std::to_string(2 * s + h);
      nodes.push_back({NodeKind::kHca, host, 1, Guid(0x200u + 2 * s + h), host + " HCA-1"});
      cables.push_back({sw, h + 1, host, 1});
    }
    cables.push_back({sw, 3, "sw" + std::to_string((s + 1) % 4), 4});
  }
  const Fabric ring = build(nodes, cables);
  Fabric g = parse_netlist(export_ibsim_netlist(ring), "ring.net");
  EXPECT_EQ(g.kind_label, "netlist");
  EXPECT_EQ(g.xgft(), nullptr);
  std::string why;
  EXPECT_FALSE(recognize_xgft(g, &why));
  EXPECT_NE(why.find("joins a level-1 and a level-1 node"), std::string::npos) << why;
}

/// One missing cable makes the fabric no complete XGFT, but it stays a fat-tree: the fat-tree
/// algorithms keep routing it (tests/unit/routing/fat_tree_test.cpp), instead of the whole fabric
/// falling back to minhop.
TEST(Netlist, XgftWithOneCableMissing_IsAFatTreeNotAnXgft) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,2;1,4,4"));
  std::vector<CableSpec> cables = cables_of(f);
  cables.erase(cables.begin() + 40);
  Fabric g = build(nodes_of(f), cables);
  std::string why;
  EXPECT_FALSE(recognize_xgft(g, &why));
  EXPECT_NE(why.find("up-links"), std::string::npos) << why;
  EXPECT_EQ(g.xgft(), nullptr);
  EXPECT_EQ(fat_tree_label(g, &why), "fat-tree(3 levels, 32 switches, 32 hosts)") << why;
  ASSERT_NE(g.fat_tree(), nullptr);
  EXPECT_EQ(make_algorithm("sdn-optimal")->unsupported_reason(g), "");
  const Fabric parsed = parse_netlist(export_ibsim_netlist(g), "degraded.net");
  EXPECT_EQ(parsed.kind_label, "fat-tree(3 levels, 32 switches, 32 hosts)");
}

TEST(Netlist, RejectsXgftWithTwoUpLinksCrossed) {
  // Same degrees and levels as XGFT(3;2,2,2;1,2,2), but two level-2 switches of one subtree trade
  // a parent, so one top switch has children in different positions.
  const Fabric f = generate_xgft(XgftParams::parse("3;2,2,2;1,2,2"));
  const XgftLayout& x = *f.xgft();
  const std::string a = f.node(x.switches[1][0]).name;   // (x3=0; y2=0)
  const std::string b = f.node(x.switches[1][1]).name;   // (x3=0; y2=1)
  const std::string pa = f.node(x.switches[2][0]).name;  // (; y3=0, y2=0)
  const std::string pb = f.node(x.switches[2][1]).name;  // (; y3=0, y2=1)
  // Both use down port 1 of their parent (x3 = 0), so swapping the parents keeps ports free.
  std::vector<CableSpec> cables = cables_of(f);
  int swapped = 0;
  for (CableSpec& c : cables) {
    if (c.a == a && c.b == pa) {
      c.b = pb;
      ++swapped;
    } else if (c.a == b && c.b == pb) {
      c.b = pa;
      ++swapped;
    }
  }
  ASSERT_EQ(swapped, 2);
  Fabric g = build(nodes_of(f), cables);
  std::string why;
  EXPECT_FALSE(recognize_xgft(g, &why));
  EXPECT_NE(why.find("same position"), std::string::npos) << why;
}

// Shaped like `ibnetdiscover` output from a small two-level fabric (FDR, a dual-port HCA with one
// cable, one HCA declared only from the switch side).
constexpr const char* kIbnetdiscover = R"(#
# Topology file: generated on Tue Jun 11 10:12:01 2024
#
# Initiated from node 0002c9030045f1a0 port 0002c9030045f1a1

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c903008e4a83
switchguid=0x2c903008e4a80(2c903008e4a80)
Switch	36 "S-0002c903008e4a80"		# "MF0;spine:SX6036/U1" enhanced port 0 lid 1 lmc 0
[1]	"S-0002c903008e4b00"[35]		# "MF0;leaf1:SX6036/U1" lid 2 4xFDR
[2]	"S-0002c903008e4c00"[35]		# "MF0;leaf2:SX6036/U1" lid 6 4xFDR

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c903008e4b03
switchguid=0x2c903008e4b00(2c903008e4b00)
Switch	36 "S-0002c903008e4b00"		# "MF0;leaf1:SX6036/U1" enhanced port 0 lid 2 lmc 0
[1]	"H-0002c9030045f1a0"[1](2c9030045f1a1) 		# "node01 mlx4_0" lid 3 4xFDR
[2]	"H-0002c9030045f2b0"[2](2c9030045f2b2) 		# "node02 mlx4_0" lid 4 4xFDR
[35]	"S-0002c903008e4a80"[1]		# "MF0;spine:SX6036/U1" lid 1 4xFDR

vendid=0x2c9
devid=0xc738
sysimgguid=0x2c903008e4c03
switchguid=0x2c903008e4c00(2c903008e4c00)
Switch	36 "S-0002c903008e4c00"		# "MF0;leaf2:SX6036/U1" enhanced port 0 lid 6 lmc 0
[3]	"H-0002c9030045f3c0"[1](2c9030045f3c1) 		# "node03 mlx4_0" lid 7 4xFDR
[4]	"H-0002c9030045f4d0"[1](2c9030045f4d1) 		# "node04 mlx5_0" lid 8 4xEDR
[35]	"S-0002c903008e4a80"[2]		# "MF0;spine:SX6036/U1" lid 1 4xFDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c9030045f1a3
caguid=0x2c9030045f1a0
Ca	2 "H-0002c9030045f1a0"		# "node01 mlx4_0"
[1](2c9030045f1a1) 	"S-0002c903008e4b00"[1]		# lid 3 lmc 0 "MF0;leaf1:SX6036/U1" lid 2 4xFDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c9030045f2b3
caguid=0x2c9030045f2b0
Ca	2 "H-0002c9030045f2b0"		# "node02 mlx4_0"
[2](2c9030045f2b2) 	"S-0002c903008e4b00"[2]		# lid 4 lmc 0 "MF0;leaf1:SX6036/U1" lid 2 4xFDR

vendid=0x2c9
devid=0x1003
sysimgguid=0x2c9030045f3c3
caguid=0x2c9030045f3c0
Ca	1 "H-0002c9030045f3c0"		# "node03 mlx4_0"
[1](2c9030045f3c1) 	"S-0002c903008e4c00"[3]		# lid 7 lmc 0 "MF0;leaf2:SX6036/U1" lid 6 4xFDR

vendid=0x15b3
devid=0x1017
sysimgguid=0x2c9030045f4d3
caguid=0x2c9030045f4d0
Ca	1 "H-0002c9030045f4d0"		# "node04 mlx5_0"
)";

TEST(Netlist, ParsesIbnetdiscoverOutputWithGuidsLidsAndSpeeds) {
  const Fabric f = parse_netlist(kIbnetdiscover, "ibnet.out");
  EXPECT_EQ(f.switches().size(), 3u);
  EXPECT_EQ(f.hcas().size(), 4u);
  EXPECT_EQ(f.num_links(), 12u);
  const Node& spine = f.node(*f.find("S-0002c903008e4a80"));
  EXPECT_EQ(spine.guid, Guid(0x2c903008e4a80ULL));
  EXPECT_EQ(spine.description, "MF0;spine:SX6036/U1");
  EXPECT_EQ(spine.lid, Lid(1));
  EXPECT_EQ(spine.ports.size(), 36u);
  const Node& n1 = f.node(*f.find("H-0002c9030045f1a0"));
  EXPECT_EQ(n1.description, "node01 mlx4_0");
  EXPECT_EQ(n1.guid, Guid(0x2c9030045f1a0ULL));
  EXPECT_EQ(n1.lid, Lid(3));
  EXPECT_EQ(n1.ports[0].gbps, 56.0);
  const Node& n2 = f.node(*f.find("H-0002c9030045f2b0"));
  EXPECT_FALSE(n2.ports[0].connected());
  EXPECT_TRUE(n2.ports[1].connected());
  // Declared only by its switch: the LID and speed come from the switch's port line.
  const Node& n4 = f.node(*f.find("H-0002c9030045f4d0"));
  EXPECT_EQ(n4.lid, Lid(8));
  EXPECT_EQ(n4.ports[0].gbps, 100.0);
  EXPECT_EQ(f.node(n4.ports[0].peer).name, "S-0002c903008e4c00");
  EXPECT_EQ(n4.ports[0].peer_port, PortNum(4));
  EXPECT_EQ(f.kind_label, "XGFT(2;2,2;1,1)");
}

/// ibsim netlists name no rates: their cables run at the rate the caller gives (a scenario's
/// link_bandwidth, --gbps); ibnetdiscover's annotated cables keep theirs.
TEST(Netlist, CablesWithoutARateRunAtTheGivenOne) {
  const Fabric g = parse_netlist(
      export_ibsim_netlist(generate_xgft(XgftParams::parse("2;4,4;1,4"))), "gen.net", 95.2);
  for (const Link& l : g.links()) ASSERT_EQ(l.gbps, 95.2);
  const Fabric f = parse_netlist(kIbnetdiscover, "ibnet.out", 95.2);
  EXPECT_EQ(f.node(*f.find("H-0002c9030045f1a0")).ports[0].gbps, 56.0);
  EXPECT_EQ(f.node(*f.find("H-0002c9030045f4d0")).ports[0].gbps, 100.0);
  EXPECT_THROW((void)parse_netlist(kIbnetdiscover, "ibnet.out", 0.0), std::invalid_argument);
}

TEST(Netlist, FollowsIbsimGuidCountersWithoutGuidLines) {
  // The shape of ibsim's net-examples/net.2sw2path4hca, with one GUID line in the middle.
  const Fabric f = parse_netlist(
      "Switch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[2]\t\"Hca2\"[1]\n[3]\t\"Switch2\"[3]\n\n"
      "Switch 8 \"Switch2\"\n[3]\t\"Switch1\"[3]\n\n"
      "Hca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\n"
      "caguid=0x5000\nHca\t2 \"Hca2\"\n[1]\t\"Switch1\"[2]\n\n"
      "Hca\t2 \"Hca3\"\n[1]\t\"Switch2\"[1]\n",
      "net");
  EXPECT_EQ(f.node(*f.find("Switch1")).guid, Guid(0x100000));
  EXPECT_EQ(f.node(*f.find("Switch2")).guid, Guid(0x100001));
  EXPECT_EQ(f.node(*f.find("Hca1")).guid, Guid(0x200000));
  EXPECT_EQ(f.node(*f.find("Hca2")).guid, Guid(0x5000));
  EXPECT_EQ(f.node(*f.find("Hca3")).guid, Guid(0x5003));   // a 2-port CA reserves 3 GUIDs
  EXPECT_EQ(f.node(*f.find("Hca1")).description, "Hca1");  // ibsim's default NodeDescription
  EXPECT_EQ(f.num_links(), 8u);                            // Hca3 - Switch2 from one end only
  EXPECT_EQ(f.kind_label, "netlist");
}

TEST(Netlist, ReplacesWhitespaceInIdsAndKeepsTheOriginalAsDescription) {
  const Fabric f = parse_netlist(
      "Switch 2 \"leaf one\"\n[1] \"node 1 HCA-1\"[1]\n\nHca 1 \"node 1 HCA-1\"\n", "ws");
  EXPECT_EQ(f.node(*f.find("leaf_one")).description, "leaf one");
  EXPECT_EQ(f.node(*f.find("node_1_HCA-1")).description, "node 1 HCA-1");
}

TEST(Netlist, ExportRejectsWhatIbsimCannotRepresent) {
  Fabric f;
  f.add_node(NodeKind::kHca, "bad#id", 1, Guid(1));
  EXPECT_THROW(export_ibsim_netlist(f), std::invalid_argument);
  Fabric g;
  g.node(g.add_node(NodeKind::kHca, "n1", 1, Guid(1))).description = std::string(64, 'x');
  EXPECT_THROW(export_ibsim_netlist(g), std::invalid_argument);
  Fabric h;  // ibsim gives HCA port p the GUID node GUID + p: a's port 2 and b's port 1 get 3
  h.add_node(NodeKind::kHca, "a", 2, Guid(1));
  h.add_node(NodeKind::kHca, "b", 1, Guid(2));
  EXPECT_THROW(export_ibsim_netlist(h), std::invalid_argument);
}

struct Malformed {
  const char* text;
  std::size_t line;
  const char* message;
};

TEST(Netlist, MalformedInputsNameTheLine) {
  const Malformed cases[] = {
      {"Switch 4 \"s\"\n[5] \"h\"[1]\n", 2, "port 5 out of range for switch \"s\" with 4 ports"},
      {"Switch 4 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"g\"\n", 2, "unknown peer node \"h\""},
      {"Hca 1 \"h\"\n[1] \"s\"[9]\n\nSwitch 4 \"s\"\n", 2,
       "peer port 9 out of range for switch \"s\" with 4 ports"},
      {"Switch 4 \"s\"\n[1] \"h\"[1]\n[1] \"g\"[1]\n", 3, "declared twice (first at line 2)"},
      {"Switch 4 \"s\"\n[1] \"a\"[1]\n\nHca 1 \"a\"\n[1] \"s\"[2]\n", 5,
       "\"a\"[1] is declared cabled to \"s\"[2], but line 2 cables it to \"s\"[1]"},
      {"Switch 4 \"s\"\n[1] \"a\"[1]\n\nSwitch 4 \"t\"\n[1] \"a\"[1]\n\nHca 1 \"a\"\n", 5,
       "which line 2 cables to \"s\"[1]"},
      {"Switch 4 \"s\"\n[1] \"a\"[1]\n\n[2] \"b\"[1]\n", 4, "port line outside"},
      {"# header\n\nSwitch 4 \"s\n", 3, "unterminated quoted node id"},
      {"Hca 0 \"a\"\n", 1, "port count 0 out of range"},
      {"Switch 300 \"a\"\n", 1, "port count 300 out of range"},
      {"Hca 1 \"a\"\n\nHca 1 \"a\"\n", 3, "duplicate node id \"a\" (first at line 1)"},
      {"caguid=0x10\nHca 1 \"a\"\n\ncaguid=0x10\nHca 1 \"b\"\n", 5, "GUID 0x0000000000000010"},
      {"Hca 1 \"a\"\n\nRouter 4 \"r\"\n", 3, "unrecognised line"},
      {"switchguid 0x5\nSwitch 4 \"s\"\n", 1, "expected '=' after 'switchguid'"},
      {"Switch 4 \"s\"\n[1] \"a\"[1] junk\n", 2, "unexpected 'junk' after the peer port"},
      {"Switch 4 \"s\"\n[x] \"a\"[1]\n", 2, "expected '[port]'"},
      {"", 1, "no Switch, Hca or Ca record"},
      {"Switch 4 \"s\"\n[1] \"s\"[2]\n", 2, "cabled to its own node"},
      {"Hca 1 \"a\"\n[1](zz) \"s\"[1]\n", 2, "malformed '(guid)'"},
      {"Switch 4 \"s\"\n@[1] \"alias\"\n", 2, "aliases"},
      {"Hca 1 \"a\"\ninclude \"other.net\"\n", 2, "directive 'include'"},
      {"Switch 4 \"s\" junk\n", 1, "after the node id"},
      {"Switch 4 \"s\"\n[1] \"a\"[0]\n", 2, "peer port 0 out of range"},
  };
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.text);
    testing_errors::expect_file_line_error<NetlistError>(
        [&] { (void)parse_netlist(c.text, "bad.net"); }, "bad.net", c.line, c.message);
  }
}

// Seeded random byte edits of valid inputs: the parser must answer every one with a result or a
// NetlistError, never another exception or a crash (ASan / UBSan builds catch the rest).
TEST(Netlist, MutatedInputsOnlyEverRaiseNetlistError) {
  const std::string bases[] = {export_ibsim_netlist(generate_xgft(XgftParams::parse("2;4,4;1,4"))),
                               kIbnetdiscover};
  const std::string alphabet = "[]\"#()=\n\t 0123456789xabcdefSwitchHcaCaguid@-";
  std::mt19937_64 rng(0x1b5d);
  int parsed = 0;
  int rejected = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string s = bases[iter % 2];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 6) {
        case 0:  // overwrite with a format character
          s[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:  // overwrite with any byte
          s[at] = static_cast<char>(rng() & 0xFF);
          break;
        case 2:  // delete a run
          s.erase(at, 1 + rng() % 16);
          break;
        case 3:  // duplicate a run somewhere else (splices lines and records)
          s.insert(rng() % s.size(), s.substr(at, 1 + rng() % 64));
          break;
        case 4:  // truncate
          s.resize(at);
          break;
        default:  // insert a digit string (port numbers, counts, GUIDs)
          s.insert(at, std::to_string(rng() % 1000));
          break;
      }
    }
    try {
      Fabric f = parse_netlist(s, "mut.net");
      ++parsed;
      std::string why;
      (void)recognize_xgft(f, &why);
    } catch (const NetlistError&) {
      ++rejected;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "iteration " << iter << ": " << typeid(e).name() << ": " << e.what();
    }
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(rejected, 100);
}

}  // namespace
}  // namespace ibsdn
