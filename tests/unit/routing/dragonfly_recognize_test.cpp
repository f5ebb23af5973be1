// Proofs of recognize_dragonfly: a generated dragonfly or megafly written as a netlist and read
// back gets the generator's layout field by field; with cables cut and hosts missing it still gets
// the generator's groups and order, and every dragonfly algorithm routes valid loop-free paths on
// it; fat-trees, random graphs and groups that cannot be told apart are refused with a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/netlist.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "tests/support/fabric_specs.hpp"
#include "tests/support/param_names.hpp"

namespace ibsdn {
namespace {

using test::build;
using test::cables_of;
using test::CableSpec;
using test::nodes_of;
using test::NodeSpec;

std::string node_name(const Fabric& f, NodeIdx n) {
  return n.valid() ? f.node(n).name : "-";
}

std::vector<std::string> names(const Fabric& f, const std::vector<NodeIdx>& v) {
  std::vector<std::string> out;
  for (NodeIdx n : v) out.push_back(f.node(n).name);
  return out;
}

// A directed link by its tail, "g01r01[7]": the same in two fabrics built from one cabling.
std::string link_name(const Fabric& f, LinkId l) {
  if (!l.valid()) return "-";
  const Link& k = f.link(l);
  return f.node(k.from).name + "[" + std::to_string(k.from_port.value()) + "]";
}

// The first field in which layout y of fabric b differs from layout x of fabric a, nodes matched
// by name and links by their tails; empty when they agree field by field.
std::string first_difference(const Fabric& a, const DragonflyLayout& x, const Fabric& b,
                             const DragonflyLayout& y) {
  const auto differ = [](const std::string& field, const auto& want, const auto& got) {
    std::ostringstream s;
    s << field << ": expected " << want << ", got " << got;
    return s.str();
  };
  if (x.kind != y.kind) return "kind";
  const char* fields[] = {"groups", "hosts_per_router", "host_routers", "spines",
                          "complete_groups"};
  const int xs[] = {x.groups, x.hosts_per_router, x.host_routers, x.spines, x.complete_groups};
  const int ys[] = {y.groups, y.hosts_per_router, y.host_routers, y.spines, y.complete_groups};
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    if (xs[i] != ys[i]) return differ(fields[i], xs[i], ys[i]);
  }
  for (std::size_t g = 0; g < x.routers.size(); ++g) {
    if (x.routers[g].size() != y.routers[g].size()) return "routers of group " + std::to_string(g);
    for (std::size_t r = 0; r < x.routers[g].size(); ++r) {
      const std::string want = node_name(a, x.routers[g][r]);
      const std::string got = node_name(b, y.routers[g][r]);
      if (want != got) return differ("routers[" + std::to_string(g) + "]", want, got);
    }
  }
  if (x.hosts.size() != y.hosts.size()) return differ("hosts", x.hosts.size(), y.hosts.size());
  for (std::size_t i = 0; i < x.hosts.size(); ++i) {
    const std::string want = node_name(a, x.hosts[i]);
    const std::string got = node_name(b, y.hosts[i]);
    if (want != got) return differ("hosts[" + std::to_string(i) + "]", want, got);
  }
  if (b.num_nodes() != a.num_nodes()) return "node count";
  for (const Node& n : b.nodes()) {
    const std::size_t j = b.find(n.name)->value();
    const std::size_t i = a.find(n.name)->value();
    const std::string at = " of " + n.name;
    if (x.group_of_node[i] != y.group_of_node[j]) return "group_of_node" + at;
    if (x.role[i] != y.role[j]) return "role" + at;
    if (x.index_in_group[i] != y.index_in_group[j]) return "index_in_group" + at;
    if (node_name(a, x.edge_router[i]) != node_name(b, y.edge_router[j])) return "edge_router" + at;
    if (link_name(a, x.host_up[i]) != link_name(b, y.host_up[j])) return "host_up" + at;
    if (link_name(a, x.host_down[i]) != link_name(b, y.host_down[j])) return "host_down" + at;
    if (x.local_link[i].size() != y.local_link[j].size()) return "local_link size" + at;
    for (std::size_t k = 0; k < x.local_link[i].size(); ++k) {
      const std::string want = link_name(a, x.local_link[i][k]);
      const std::string got = link_name(b, y.local_link[j][k]);
      if (want != got) return differ("local_link[" + std::to_string(k) + "]" + at, want, got);
    }
  }
  if (x.pair_links.size() != y.pair_links.size()) return "pair_links size";
  for (std::size_t p = 0; p < x.pair_links.size(); ++p) {
    const auto& want = x.pair_links[p];
    const auto& got = y.pair_links[p];
    if (want.size() != got.size())
      return differ("pair_links " + std::to_string(p), want.size(), got.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      if (link_name(a, want[k].id) != link_name(b, got[k].id) ||
          node_name(a, want[k].from) != node_name(b, got[k].from) ||
          node_name(a, want[k].to) != node_name(b, got[k].to)) {
        return differ("pair_links " + std::to_string(p) + "[" + std::to_string(k) + "]",
                      link_name(a, want[k].id), link_name(b, got[k].id));
      }
    }
  }
  return {};
}

struct Config {
  std::string name;
  bool megafly = false;
  std::string params;  // DragonflyParams / MegaflyParams text
};

// What a failing case prints instead of its bytes.
void PrintTo(const Config& c, std::ostream* os) {
  *os << c.params;
}

Fabric generate(const Config& c) {
  return c.megafly ? generate_megafly(MegaflyParams::parse(c.params))
                   : generate_dragonfly(DragonflyParams::parse(c.params));
}

// ---------------------------------------------------------------------------------------------
// Generated fabrics, read back

class RecogniseGenerated : public ::testing::TestWithParam<Config> {};

TEST_P(RecogniseGenerated, RecoversTheGeneratorsLayoutFromItsNetlist) {
  const Fabric f = generate(GetParam());
  ASSERT_NE(f.dragonfly(), nullptr);
  Fabric g = parse_netlist(export_ibsim_netlist(f), "generated.net");
  EXPECT_EQ(g.xgft(), nullptr);
  if (g.dragonfly() == nullptr) {
    std::string why;
    recognize_dragonfly(g, &why);
    FAIL() << why;
  }
  EXPECT_EQ(g.kind_label, f.kind_label);
  EXPECT_EQ(first_difference(f, *f.dragonfly(), g, *g.dragonfly()), "");
  std::string why = "not cleared";
  EXPECT_TRUE(recognize_dragonfly(g, &why));
  EXPECT_EQ(why, "") << "a generated fabric differs from nothing";
}

TEST_P(RecogniseGenerated, RecognisingTheGeneratedFabricKeepsItsLayout) {
  Fabric f = generate(GetParam());
  const DragonflyLayout generated = *f.dragonfly();
  const std::string label = f.kind_label;
  f.kind_label = "";
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(f, &why)) << why;
  EXPECT_EQ(f.kind_label, label);
  // Same fabric: equal link tails are equal link ids.
  EXPECT_EQ(first_difference(f, generated, f, *f.dragonfly()), "");
}

// Table-I sizes of seed 004, small ones, partial copies, and few groups (parallel global cables).
INSTANTIATE_TEST_SUITE_P(
    Dragonflies, RecogniseGenerated,
    ::testing::Values(Config{"TableOne_8_16_8_65", false, "8,16,8,65"},
                      Config{"ThreeRouterGroups_1_3_1_4", false, "1,3,1,4"},
                      Config{"SquareOfCliques_2_4_2_3", false, "2,4,2,3"},
                      Config{"TwoGroupsParallelCables_2_4_2_2", false, "2,4,2,2"},
                      Config{"PartialCopy_2_4_2_6", false, "2,4,2,6"},
                      Config{"TwoCopies_4_8_4_17", false, "4,8,4,17"},
                      Config{"ParallelCables_2_6_4_3", false, "2,6,4,3"},
                      Config{"MegaflyTableOne_16_16_16_16_33", true, "16,16,16,16,33"},
                      Config{"Megafly_2_4_3_2_4", true, "2,4,3,2,4"},
                      Config{"MegaflyFewSpines_3_2_2_3_6", true, "3,2,2,3,6"},
                      Config{"MegaflyTwoGroupsParallel_2_2_2_4_2", true, "2,2,2,4,2"},
                      Config{"MegaflyOneLeafOneSpine_1_1_1_1_2", true, "1,1,1,1,2"},
                      Config{"MegaflyPartialCopy_4_6_4_3_9", true, "4,6,4,3,9"}),
    testing_names::ByCaseName{});

TEST(RecogniseDragonfly, ConfigurationsWithFewGroupsHaveParallelGlobalCables) {
  // The cases above named "parallel" must be: otherwise they test nothing more.
  for (const Config& c : {Config{"", false, "2,4,2,2"}, Config{"", false, "2,6,4,3"},
                          Config{"", true, "2,2,2,4,2"}}) {
    const Fabric f = generate(c);
    std::size_t parallel = 0;
    for (NodeIdx s : f.switches()) {
      std::set<NodeIdx> peers;
      for (const Port& p : f.node(s).ports) {
        if (p.connected() && f.node(p.peer).is_switch()) parallel += !peers.insert(p.peer).second;
      }
    }
    EXPECT_GT(parallel, 0u) << c.params;
  }
}

// ---------------------------------------------------------------------------------------------
// Refused fabrics

::testing::AssertionResult refused_with(Fabric f, std::string_view needle) {
  const std::string label = f.kind_label;
  std::string why;
  if (recognize_dragonfly(f, &why)) {
    return ::testing::AssertionFailure() << "recognised as " << f.kind_label;
  }
  if (f.dragonfly() != nullptr || f.kind_label != label) {
    return ::testing::AssertionFailure() << "refused, but changed the fabric";
  }
  if (why.find(needle) == std::string::npos) {
    return ::testing::AssertionFailure() << "reason '" << why << "' lacks '" << needle << "'";
  }
  return ::testing::AssertionSuccess();
}

TEST(RecogniseDragonfly, RefusesFatTrees) {
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("2;4,4;1,4")), "two-level fat-tree"));
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("2;8,8;1,8")), "two-level fat-tree"));
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("2;4,4;1,2")), "two-level fat-tree"));
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("3;4,4,4;1,4,4")), "upper switch"));
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("3;2,2,2;1,2,2")), "upper switch"));
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("3;4,4,3;1,2,2")), "upper switch"));
  EXPECT_TRUE(refused_with(generate_xgft(XgftParams::parse("4;2,2,2,2;1,2,2,2")), "upper switch"));
}

// Switches with 0..3 hosts each and random cables between them: a graph with no dense blocks.
Fabric random_graph(std::uint64_t seed, bool hosts_on_half) {
  std::mt19937_64 rng(seed);
  const int switches = 8 + static_cast<int>(rng() % 40);
  std::vector<NodeSpec> nodes;
  std::vector<CableSpec> cables;
  std::vector<int> free_port(static_cast<std::size_t>(switches), 1);
  int host = 0;
  for (int s = 0; s < switches; ++s) {
    const std::string sw = "s" + std::to_string(s);
    nodes.push_back({NodeKind::kSwitch, sw, 36, Guid(0x1000u + static_cast<unsigned>(s)), sw});
    const int hosts = hosts_on_half && s % 2 == 1 ? 0 : 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < hosts; ++k, ++host) {
      const std::string h = "h" + std::to_string(host);
      nodes.push_back(
          {NodeKind::kHca, h, 1, Guid(0x100000u + 16u * static_cast<unsigned>(host)), h});
      cables.push_back({sw, free_port[static_cast<std::size_t>(s)]++, h, 1});
    }
  }
  const int degree = 3 + static_cast<int>(rng() % 6);
  for (int s = 0; s < switches; ++s) {
    for (int k = 0; k < degree / 2; ++k) {
      const int t = static_cast<int>(rng() % static_cast<std::uint64_t>(switches));
      auto& ps = free_port[static_cast<std::size_t>(s)];
      auto& pt = free_port[static_cast<std::size_t>(t)];
      if (t == s || ps > 36 || pt > 36) continue;
      cables.push_back({"s" + std::to_string(s), ps++, "s" + std::to_string(t), pt++});
    }
  }
  return build(nodes, cables);
}

TEST(RecogniseDragonfly, RefusesRandomGraphs) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    for (const bool half : {false, true}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + (half ? ", hosts on half" : ""));
      Fabric f = random_graph(seed, half);
      std::string why;
      EXPECT_FALSE(recognize_dragonfly(f, &why)) << f.kind_label;
      EXPECT_NE(why, "");
      EXPECT_EQ(f.dragonfly(), nullptr);
    }
  }
}

TEST(RecogniseDragonfly, RefusesGroupsThatTheWiringCannotTellApart) {
  // h = g-1 and a = g: the fabric is K4 x K4, and either factor could be the groups.
  const Fabric f = generate_dragonfly(2, 4, 3, 4);
  EXPECT_TRUE(refused_with(build(nodes_of(f), cables_of(f)), "all routers form one group"));
}

// ---------------------------------------------------------------------------------------------
// Damaged fabrics

// `f` without the nodes and cables named (and the cables of those nodes): the graph alone.
Fabric without(const Fabric& f, const std::function<bool(const std::string&)>& drop_node,
               const std::function<bool(const CableSpec&)>& drop_cable) {
  std::vector<NodeSpec> nodes;
  for (const NodeSpec& n : nodes_of(f)) {
    if (!drop_node(n.name)) nodes.push_back(n);
  }
  std::vector<CableSpec> cables;
  for (const CableSpec& c : cables_of(f)) {
    if (!drop_node(c.a) && !drop_node(c.b) && !drop_cable(c)) cables.push_back(c);
  }
  return build(nodes, cables);
}

bool no_node(const std::string&) {
  return false;
}
bool no_cable(const CableSpec&) {
  return false;
}

struct Damage {
  std::size_t local = 0;   // cables inside groups, at most one per router
  std::size_t global = 0;  // cables between groups, never the last of a group pair
  std::size_t hosts = 0;   // hosts left out, at most one per router and not a router's last
};

Fabric damage(const Fabric& f, std::uint64_t seed, const Damage& d) {
  const DragonflyLayout& x = *f.dragonfly();
  std::mt19937_64 rng(seed);
  std::vector<CableSpec> cables = cables_of(f);
  std::vector<std::size_t> order(cables.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::map<std::pair<int, int>, std::size_t> pair_cables;
  for (const CableSpec& c : cables) {
    const NodeIdx a = *f.find(c.a);
    const NodeIdx b = *f.find(c.b);
    if (f.node(a).is_switch() && f.node(b).is_switch()) {
      ++pair_cables[std::minmax(x.group_of(a), x.group_of(b))];
    }
  }
  std::set<std::string> touched;  // routers that lost a local cable
  std::set<std::string> dropped;  // hosts left out
  std::set<std::string> cut;      // cables by one end, "g01r01[3]"
  std::size_t local = 0;
  std::size_t global = 0;
  std::size_t hosts = 0;
  for (std::size_t i : order) {
    const CableSpec& c = cables[i];
    const NodeIdx a = *f.find(c.a);
    const NodeIdx b = *f.find(c.b);
    if (f.node(a).is_hca() || f.node(b).is_hca()) {
      const NodeIdx h = f.node(a).is_hca() ? a : b;
      const NodeIdx r = x.edge_router[h.value()];
      if (hosts < d.hosts && x.hosts_per_router > 1 &&
          touched.insert("h" + f.node(r).name).second) {
        dropped.insert(f.node(h).name);
        ++hosts;
      }
      continue;
    }
    const int ga = x.group_of(a);
    const int gb = x.group_of(b);
    if (ga == gb) {
      if (local < d.local && !touched.contains(c.a) && !touched.contains(c.b)) {
        touched.insert(c.a);
        touched.insert(c.b);
        cut.insert(c.a + "[" + std::to_string(c.pa) + "]");
        ++local;
      }
    } else if (global < d.global && pair_cables[std::minmax(ga, gb)] > 1) {
      --pair_cables[std::minmax(ga, gb)];
      cut.insert(c.a + "[" + std::to_string(c.pa) + "]");
      ++global;
    }
  }
  EXPECT_EQ(local, d.local) << "not enough cables to cut";
  EXPECT_EQ(global, d.global) << "not enough cables to cut";
  EXPECT_EQ(hosts, d.hosts) << "not enough hosts to leave out";
  return without(
      f, [&](const std::string& n) { return dropped.contains(n); },
      [&](const CableSpec& c) { return cut.contains(c.a + "[" + std::to_string(c.pa) + "]"); });
}

// The generator's groups, routers, hosts and roles carried over to `damaged` by name, indexed
// there: what the recogniser must find.
DragonflyLayout expected_layout(const Fabric& generated, const Fabric& damaged) {
  const DragonflyLayout& g = *generated.dragonfly();
  DragonflyLayout x;
  x.kind = g.kind;
  x.groups = g.groups;
  x.hosts_per_router = g.hosts_per_router;
  x.host_routers = g.host_routers;
  x.spines = g.spines;
  const auto to = [&](NodeIdx n) { return *damaged.find(generated.node(n).name); };
  for (const auto& rs : g.routers) {
    x.routers.emplace_back();
    for (NodeIdx r : rs) x.routers.back().push_back(to(r));
  }
  for (NodeIdx h : g.hosts) {
    if (damaged.find(generated.node(h).name)) x.hosts.push_back(to(h));
  }
  x.role.assign(damaged.num_nodes(), RouterRole::kHost);
  for (NodeIdx s : generated.switches()) x.role[to(s).value()] = g.role[s.value()];
  index_dragonfly_cabling(damaged, x);
  return x;
}

// Every dragonfly algorithm routes `count` random flows on valid loop-free paths.
void expect_valid_routes(const Fabric& f, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Flow> flows;
  const std::size_t n = f.hcas().size();
  while (flows.size() < count) {
    Flow fl;
    fl.src = f.hcas()[rng() % n];
    fl.dst = f.hcas()[rng() % n];
    if (fl.src != fl.dst) flows.push_back(fl);
  }
  set_weights(flows);
  for (const char* algorithm : {"df-minimal", "df-valiant", "df-global-adaptive"}) {
    RouteRequest req{f, flows};
    req.seed = seed;
    const std::vector<Path> paths = make_algorithm(algorithm)->route(req);
    ASSERT_EQ(paths.size(), flows.size());
    std::size_t invalid = 0;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const std::string why = validate_path(f, flows[i], paths[i]);
      if (!why.empty() && invalid++ < 3) {
        ADD_FAILURE() << algorithm << ": " << f.node(flows[i].src).name << " -> "
                      << f.node(flows[i].dst).name << ": " << why;
      }
    }
    EXPECT_EQ(invalid, 0u) << algorithm;
  }
}

struct DamageCase {
  std::string name;
  Config config;
  Damage damage;
  std::uint64_t seed = 1;
};

void PrintTo(const DamageCase& c, std::ostream* os) {
  *os << c.config.params << " seed " << c.seed;
}

class RecogniseDamaged : public ::testing::TestWithParam<DamageCase> {};

TEST_P(RecogniseDamaged, FindsTheGeneratorsGroupsAndRoutesAroundMissingCables) {
  const DamageCase& c = GetParam();
  const Fabric f = generate(c.config);
  Fabric g = damage(f, c.seed, c.damage);
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(g, &why)) << why;
  EXPECT_EQ(g.kind_label, f.kind_label);
  const DragonflyLayout expected = expected_layout(f, g);
  EXPECT_EQ(expected.complete_groups, c.damage.local == 0);
  EXPECT_EQ(first_difference(g, expected, g, *g.dragonfly()), "");
  // The note counts what is missing, in the recogniser's order.
  std::string note;
  const auto part = [&note](std::size_t n, const std::string& one, const std::string& many) {
    if (n > 0) note += (note.empty() ? "" : ", ") + std::to_string(n) + " " + (n == 1 ? one : many);
  };
  part(c.damage.hosts, "host port empty", "host ports empty");
  part(c.damage.local, "local cable missing", "local cables missing");
  part(c.damage.global, "global cable missing", "global cables missing");
  EXPECT_EQ(why, note);
  // A read netlist of the damaged fabric gets the same.
  const Fabric h = parse_netlist(export_ibsim_netlist(g), "damaged.net");
  ASSERT_NE(h.dragonfly(), nullptr);
  EXPECT_EQ(first_difference(g, *g.dragonfly(), h, *h.dragonfly()), "");
  expect_valid_routes(g, 400, c.seed);
}

INSTANTIATE_TEST_SUITE_P(
    Dragonflies, RecogniseDamaged,
    ::testing::Values(
        DamageCase{"TableOne_40Local_60Global_30Hosts", {"", false, "8,16,8,65"}, {40, 60, 30}, 1},
        DamageCase{"TwoCopies_4Local_6Global_3Hosts", {"", false, "4,8,4,17"}, {4, 6, 3}, 2},
        DamageCase{"TwoCopies_OneLocal", {"", false, "4,8,4,17"}, {1, 0, 0}, 3},
        DamageCase{"TwoCopies_GlobalsOnly", {"", false, "4,8,4,17"}, {0, 20, 0}, 4},
        DamageCase{"PartialCopy_3Local_4Global", {"", false, "2,6,2,8"}, {3, 4, 2}, 5},
        DamageCase{"MegaflyTableOne_30Local_50Global_20Hosts",
                   {"", true, "16,16,16,16,33"},
                   {30, 50, 20},
                   6},
        DamageCase{"Megafly_3Local_3Global_2Hosts", {"", true, "4,6,4,4,9"}, {3, 3, 2}, 7},
        DamageCase{
            "MegaflyTwoGroupsParallel_2Local_3Global", {"", true, "2,3,3,4,2"}, {2, 3, 1}, 8},
        DamageCase{"MegaflyFewGroups_2Local", {"", true, "2,4,4,2,3"}, {2, 2, 0}, 9}),
    testing_names::ByCaseName{});

// Cuts the cable between two named routers.
Fabric without_cable(const Fabric& f, const std::string& a, const std::string& b) {
  return without(f, no_node, [&](const CableSpec& c) {
    return (c.a == a && c.b == b) || (c.a == b && c.b == a);
  });
}

std::size_t router_hops(const Fabric& f, const Path& p) {
  std::size_t n = 0;
  for (LinkId l : p) n += f.node(f.link(l).from).is_switch() && f.node(f.link(l).to).is_switch();
  return n;
}

TEST(RecogniseDragonfly, LocalRoutesBounceThroughARouterOfTheGroupWhereTheCableIsMissing) {
  Fabric g = without_cable(generate_dragonfly(2, 6, 3, 10), "g01r01", "g01r02");
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(g, &why)) << why;
  EXPECT_EQ(why, "1 local cable missing");
  const DragonflyLayout& x = *g.dragonfly();
  EXPECT_FALSE(x.complete_groups);
  const NodeIdx r1 = *g.find("g01r01");
  const NodeIdx r2 = *g.find("g01r02");
  EXPECT_EQ(x.local_route_count(r1, r2), 4u);  // through r03..r06
  EXPECT_EQ(x.local_route_count(r1, *g.find("g01r03")), 1u);
  for (std::size_t choice = 0; choice < 4; ++choice) {
    Path p;
    x.append_local_route(r1, r2, choice, p);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(g.node(g.link(p[0]).to).name, "g01r0" + std::to_string(3 + choice));
    EXPECT_EQ(g.link(p[1]).to, r2);
  }
  // n0001 is on g01r01, n0003 on g01r02.
  Flow fl;
  fl.src = *g.find("n0001");
  fl.dst = *g.find("n0003");
  for (const char* a : {"df-minimal", "df-valiant", "df-global-adaptive"}) {
    const Path p = make_algorithm(a)->route(RouteRequest{g, std::span(&fl, 1)}).front();
    EXPECT_EQ(validate_path(g, fl, p), "") << a;
    EXPECT_EQ(router_hops(g, p), 2u) << a;
  }
}

TEST(RecogniseDragonfly, MinimalPathsAvoidAMissingLeafCableWhileAnotherGlobalLinkServes) {
  // megafly(2,4,4,2,3): spine s of every group is cabled to spine s of both others, so group 1
  // reaches group 2 from all four spines; g01l01 without g01s02 keeps three direct ways.
  Fabric g = without_cable(generate_megafly(2, 4, 4, 2, 3), "g01l01", "g01s02");
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(g, &why)) << why;
  const DragonflyLayout& x = *g.dragonfly();
  const NodeIdx src = *g.find("n0001");   // on g01l01
  for (std::size_t d = 8; d < 24; ++d) {  // the hosts of groups 2 and 3
    Flow fl;
    fl.src = src;
    fl.dst = g.hcas()[d];
    EXPECT_EQ(x.minimal_path_count(fl.src, fl.dst), 3u);
    for (std::size_t choice = 0; choice < 3; ++choice) {
      Path p;
      x.minimal_path(fl.src, fl.dst, choice, p);
      EXPECT_EQ(validate_path(g, fl, p), "");
      EXPECT_EQ(router_hops(g, p), 3u);
    }
  }
  // Two leaves of group 1 share the three other spines.
  EXPECT_EQ(x.local_route_count(*g.find("g01l01"), *g.find("g01l02")), 3u);
  EXPECT_EQ(x.local_route_count(*g.find("g01l03"), *g.find("g01l02")), 4u);
}

TEST(RecogniseDragonfly, AMegaflyLeafDetoursToTheOnlySpineWithTheGlobalLink) {
  // megafly(1,3,3,1,4): one global port per spine, so spine s alone reaches group i+1+s; g01l01
  // without g01s01 reaches group 2 by leaf, other spine, other leaf, g01s01.
  Fabric g = without_cable(generate_megafly(1, 3, 3, 1, 4), "g01l01", "g01s01");
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(g, &why)) << why;
  const DragonflyLayout& x = *g.dragonfly();
  Flow fl;
  fl.src = *g.find("n0001");  // on g01l01
  fl.dst = *g.find("n0004");  // on g02l01
  ASSERT_EQ(x.global_links(0, 1).size(), 1u);
  EXPECT_EQ(g.node(x.global_links(0, 1)[0].from).name, "g01s01");
  EXPECT_EQ(x.minimal_path_count(fl.src, fl.dst), 1u);
  for (const char* a : {"df-minimal", "df-valiant", "df-global-adaptive"}) {
    const Path p = make_algorithm(a)->route(RouteRequest{g, std::span(&fl, 1)}).front();
    EXPECT_EQ(validate_path(g, fl, p), "") << a;
  }
  Path p;
  x.minimal_path(fl.src, fl.dst, 0, p);
  EXPECT_EQ(router_hops(g, p), 5u);  // l01-s0x, s0x-l0y, l0y-s01, global, s-l01
  expect_valid_routes(g, 200, 11);
}

TEST(RecogniseDragonfly, RefusesAGroupPairWithoutGlobalCable) {
  Fabric f = without(generate_dragonfly(4, 8, 4, 17), no_node, [](const CableSpec& c) {
    return (c.a.starts_with("g01") && c.b.starts_with("g02")) ||
           (c.a.starts_with("g02") && c.b.starts_with("g01"));
  });
  EXPECT_TRUE(refused_with(std::move(f),
                           "router g01r01: no global cable between its group and the group of "
                           "g02r01"));
}

TEST(RecogniseDragonfly, ARouterMissingThreeOfItsSevenLocalCablesStaysInItsGroup) {
  // g01r01 keeps 4 of 7: it shares only 3 neighbours with each, below the threshold, and joins
  // its group because more than half of that group are its neighbours.
  Fabric f = generate_dragonfly(4, 8, 4, 17);
  const DragonflyLayout generated = *f.dragonfly();
  for (const char* other : {"g01r02", "g01r03", "g01r04"}) f = without_cable(f, "g01r01", other);
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(f, &why)) << why;
  EXPECT_EQ(why, "3 local cables missing");
  EXPECT_EQ(names(f, f.dragonfly()->routers[0]), names(f, generated.routers[0]));
  EXPECT_EQ(f.dragonfly()->local_route_count(*f.find("g01r01"), *f.find("g01r02")), 4u);
  expect_valid_routes(f, 300, 12);
}

TEST(RecogniseDragonfly, RefusesARouterCutOffFromItsGroup) {
  Fabric f = generate_dragonfly(4, 8, 4, 17);
  for (const char* other : {"g01r02", "g01r03", "g01r04", "g01r05", "g01r06"}) {
    f = without_cable(f, "g01r01", other);
  }
  EXPECT_TRUE(refused_with(std::move(f), "router g01r01: its group has 1 router, the largest 8"));
}

TEST(RecogniseDragonfly, RefusesAMegaflyLeafCabledToFewSpines) {
  Fabric f = generate_megafly(4, 6, 4, 3, 9);
  for (const char* spine : {"g01s01", "g01s02"}) f = without_cable(f, "g01l01", spine);
  EXPECT_TRUE(refused_with(std::move(f), "router g01l01: cabled to 2 of the 4 spines"));
}

TEST(RecogniseDragonfly, AMegaflyLeafWithoutHostsIsALeafOfItsSpinesGroup) {
  Fabric g = without(
      generate_megafly(2, 4, 4, 2, 3),
      [](const std::string& n) { return n == "n0003" || n == "n0004"; },  // g01l02's hosts
      no_cable);
  std::string why;
  ASSERT_TRUE(recognize_dragonfly(g, &why)) << why;
  EXPECT_EQ(why, "2 host ports empty");
  EXPECT_EQ(g.kind_label, "megafly(2,4,4,2,3)");
  // Routers without hosts come after those with hosts, in name order.
  EXPECT_EQ(names(g, g.dragonfly()->routers[0]),
            (std::vector<std::string>{"g01l01", "g01l03", "g01l04", "g01l02", "g01s01", "g01s02",
                                      "g01s03", "g01s04"}));
  EXPECT_EQ(g.dragonfly()->role[g.find("g01l02")->value()], RouterRole::kLeaf);
  expect_valid_routes(g, 200, 13);
}

TEST(RecogniseDragonfly, RefusesALeafCabledToALeaf) {
  const Fabric f = generate_megafly(2, 4, 4, 2, 3);
  std::vector<NodeSpec> nodes = nodes_of(f);
  for (NodeSpec& n : nodes) n.ports += n.name == "g01l01" || n.name == "g02l01";
  std::vector<CableSpec> cables = cables_of(f);
  cables.push_back({"g01l01", 7, "g02l01", 7});
  EXPECT_TRUE(
      refused_with(build(nodes, cables), "router g01l01: cabled to g02l01, both with hosts"));
}

// ---------------------------------------------------------------------------------------------
// A hand-written ibsim netlist

// megafly(1,2,2,1,2) as an operator might cable it: host ports after the spine ports, a spare
// port, hosts listed from group b first, names that sort differently from the generator's.
constexpr const char* kMegaflyNet = R"(# two groups of 2 leaves x 2 spines
Switch 8 "a-leaf-1" # "a-leaf-1"
[1] "a-spine-10"[2]
[2] "a-spine-9"[1]
[5] "node-a1"[1]

Switch 8 "a-leaf-2"
[1] "a-spine-9"[2]
[2] "a-spine-10"[1]
[6] "node-a2"[1]

Switch 8 "a-spine-9"
[4] "b-spine-2"[4]

Switch 8 "a-spine-10"
[4] "b-spine-1"[4]

Switch 8 "b-leaf-1"
[3] "b-spine-1"[1]
[4] "b-spine-2"[1]
[1] "node-b1"[1]

Switch 8 "b-leaf-2"
[3] "b-spine-1"[2]
[4] "b-spine-2"[2]
[1] "node-b2"[1]

Switch 8 "b-spine-1"
Switch 8 "b-spine-2"

Hca 1 "node-b2"
Hca 1 "node-b1"
Hca 1 "node-a1"
Hca 1 "node-a2"
)";

TEST(RecogniseDragonfly, ReadsAHandWrittenMegaflyNetlist) {
  const Fabric f = parse_netlist(kMegaflyNet, "megafly.net");
  ASSERT_NE(f.dragonfly(), nullptr);
  EXPECT_EQ(f.kind_label, "megafly(1,2,2,1,2)");
  const DragonflyLayout& x = *f.dragonfly();
  EXPECT_TRUE(x.megafly());
  EXPECT_TRUE(x.complete_groups);
  // Groups by their first host (node-b2), leaves by theirs, spines in natural name order.
  ASSERT_EQ(x.groups, 2);
  EXPECT_EQ(names(f, x.routers[0]),
            (std::vector<std::string>{"b-leaf-2", "b-leaf-1", "b-spine-1", "b-spine-2"}));
  EXPECT_EQ(names(f, x.routers[1]),
            (std::vector<std::string>{"a-leaf-1", "a-leaf-2", "a-spine-9", "a-spine-10"}));
  EXPECT_EQ(names(f, x.hosts),
            (std::vector<std::string>{"node-b2", "node-b1", "node-a1", "node-a2"}));
  EXPECT_EQ(x.role[f.find("a-spine-10")->value()], RouterRole::kSpine);
  EXPECT_EQ(x.role[f.find("b-leaf-1")->value()], RouterRole::kLeaf);
  ASSERT_EQ(x.global_links(1, 0).size(), 2u);
  EXPECT_EQ(f.node(x.global_links(1, 0)[0].from).name, "a-spine-9");
  EXPECT_EQ(f.node(x.global_links(1, 0)[0].to).name, "b-spine-2");
  expect_valid_routes(f, 12, 5);
}

}  // namespace
}  // namespace ibsdn
