// Proofs of the job-trace replay's node allocation (sim_backend/workload/node_allocation.hpp):
// linear and random basics, Slurm's tree best fit on hand-checked XGFTs (complete and degraded),
// seed 001's dragonfly placements on a small dragonfly, refusals, and a property test over random
// allocate / release sequences for every policy on every fabric it accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/patterns/rng.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/workload/node_allocation.hpp"
#include "tests/support/param_names.hpp"

namespace ibsdn {
namespace {

using Hosts = std::vector<std::uint32_t>;

// XGFT(2;4,4;1,4): 4 leaves of 4 hosts; XGFT(3;4,4,4;1,4,4): 16 leaves of 4 hosts, 4 under each
// level-2 subtree. Host i is on leaf i / 4 (and subtree i / 16).
const Fabric& xgft2() {
  static const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  return f;
}
const Fabric& xgft3() {
  static const Fabric f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  return f;
}
// XGFT(3;4,4,4;1,4,4) without host 5's cable (leaf 1 keeps 3 hosts) and without one of leaf 0's
// up cables, recognised again.
const Fabric& degraded_xgft3() {
  static const Fabric f = [] {
    const Fabric& full = xgft3();
    const FatTreeLayout& t = *full.fat_tree();
    const NodeIdx leaf0 = t.switches[0][0];
    const CableEnd cut[] = {{full.hcas()[5], PortNum(1)}, {leaf0, t.up_ports[leaf0.value()][1]}};
    Fabric d = without_cables(full, cut);
    std::string why;
    if (!recognize_fat_tree(d, &why)) throw std::logic_error(why);
    return d;
  }();
  return f;
}
// dragonfly(2,4,1,5): 5 groups of 4 routers with 2 hosts; host g*8 + r*2 + k is host k of router
// r of group g.
const Fabric& dragonfly() {
  static const Fabric f = generate_dragonfly(2, 4, 1, 5);
  return f;
}
const Fabric& megafly() {
  static const Fabric f = generate_megafly(2, 3, 2, 2, 5);
  return f;
}

// Nodes as host numbers (positions in the fabric's host order).
Hosts numbers(const Fabric& f, const std::vector<NodeIdx>& nodes) {
  Hosts out;
  for (const NodeIdx n : nodes) {
    const auto it = std::find(f.hcas().begin(), f.hcas().end(), n);
    out.push_back(static_cast<std::uint32_t>(it - f.hcas().begin()));
  }
  return out;
}

Hosts range(std::uint32_t first, std::uint32_t end) {
  Hosts out(end - first);
  std::iota(out.begin(), out.end(), first);
  return out;
}

Hosts join(Hosts a, const Hosts& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Allocates and returns host numbers; empty when the job was not placed.
struct Driver {
  const Fabric& f;
  std::unique_ptr<NodeAllocator> a;
  std::uint64_t next_job = 1;

  Driver(const Fabric& fabric, std::string_view policy, NodeAllocationOptions o = {})
      : f(fabric), a(make_node_allocator(policy, fabric, o)) {}
  Hosts job(std::uint32_t nodes) { return job_as(next_job++, nodes); }
  Hosts job_as(std::uint64_t id, std::uint32_t nodes) {
    const auto got = a->allocate(JobId(id), nodes);
    return got ? numbers(f, *got) : Hosts{};
  }
  void release(std::uint64_t id) { a->release(JobId(id)); }
};

bool fails_with(const std::function<void()>& call, const std::string& text) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return std::string(e.what()).find(text) != std::string::npos;
  }
  return false;
}

// ---- the registry and the contract ----------------------------------------------------------

TEST(NodeAllocation, RegistryListsEveryPolicyAndRefusesUnknownNames) {
  EXPECT_EQ(node_allocation_names(), (std::vector<std::string>{"linear", "random", "tree", "rdn",
                                                               "rdr", "rdc", "rdg", "rrn", "rrr"}));
  EXPECT_TRUE(fails_with([] { make_node_allocator("best", xgft2()); },
                         "unknown node allocation 'best' (known: linear, random, tree"));
}

TEST(NodeAllocation, StructuredPoliciesRefuseFabricsWithoutTheirStructure) {
  EXPECT_TRUE(
      fails_with([] { make_node_allocator("tree", dragonfly()); }, "'tree' needs a fat-tree"));
  for (const char* p : {"rdn", "rdr", "rdc", "rdg", "rrn", "rrr"}) {
    EXPECT_TRUE(fails_with([p] { make_node_allocator(p, xgft3()); },
                           "'" + std::string(p) + "' needs a dragonfly or megafly"))
        << p;
  }
  NodeAllocationOptions o;
  o.routers_per_chassis = 0;
  EXPECT_TRUE(fails_with([&o] { make_node_allocator("rdc", dragonfly(), o); },
                         "routers per chassis must be at least 1"));
}

TEST(NodeAllocation, RefusesZeroNodesTwiceTheSameJobAndReleasingAJobWithoutNodes) {
  const auto a = make_node_allocator("linear", xgft2());
  EXPECT_TRUE(fails_with([&] { (void)a->allocate(JobId(1), 0); }, "job 1 needs 0 nodes"));
  ASSERT_TRUE(a->allocate(JobId(1), 2));
  EXPECT_TRUE(fails_with([&] { (void)a->allocate(JobId(1), 2); }, "job 1 already holds nodes"));
  EXPECT_TRUE(fails_with([&] { a->release(JobId(2)); }, "job 2 holds no nodes"));
  a->release(JobId(1));
  EXPECT_TRUE(fails_with([&] { a->release(JobId(1)); }, "job 1 holds no nodes"));
}

TEST(NodeAllocation, HeldNodesAreSkippedByEveryPolicyUntilReleased) {
  // Hosts 8..15 of XGFT(3;4,4,4;1,4,4) held (leaves 2 and 3): every policy places around them.
  std::vector<NodeIdx> held;
  for (std::uint32_t h = 8; h < 16; ++h) held.push_back(xgft3().hcas()[h]);
  for (const std::string policy : {"linear", "random", "tree"}) {
    Driver d(xgft3(), policy);
    d.a->hold(JobId(100), held);
    EXPECT_EQ(d.a->free_nodes(), 64u - 8u) << policy;
    std::set<std::uint32_t> got;
    for (int j = 0; j < 14; ++j) {
      for (const std::uint32_t h : d.job(4)) got.insert(h);
    }
    EXPECT_EQ(got.size(), 56u) << policy;
    for (std::uint32_t h = 8; h < 16; ++h) EXPECT_FALSE(got.contains(h)) << policy << " " << h;
    EXPECT_EQ(d.job(1), Hosts{}) << policy;
    d.release(100);
    EXPECT_EQ(d.job(8), range(8, 16)) << policy;
  }
}

TEST(NodeAllocation, HoldRefusesBusyForeignAndRepeatedNodesAndChangesNothing) {
  const auto a = make_node_allocator("linear", xgft2());
  const std::vector<NodeIdx> first = *a->allocate(JobId(1), 2);
  const NodeIdx h5 = xgft2().hcas()[5];
  EXPECT_TRUE(fails_with([&] { a->hold(JobId(2), std::vector{h5, first[0]}); }, "is busy"));
  EXPECT_TRUE(fails_with([&] { a->hold(JobId(2), std::vector{h5, h5}); }, "given twice"));
  EXPECT_TRUE(fails_with([&] { a->hold(JobId(2), std::vector{xgft2().switches()[0]}); },
                         "not a node it allocates from"));
  EXPECT_TRUE(fails_with([&] { a->hold(JobId(1), std::vector{h5}); }, "already holds nodes"));
  EXPECT_EQ(a->free_nodes(), 14u);
  EXPECT_FALSE(a->busy(h5));
}

// ---- linear and random ----------------------------------------------------------------------

TEST(NodeAllocationLinear, TakesTheLowestFreeNodesAndRefillsGapsFirst) {
  Driver d(xgft2(), "linear");
  EXPECT_EQ(d.job(3), range(0, 3));
  EXPECT_EQ(d.job(2), range(3, 5));
  d.release(1);
  EXPECT_EQ(d.job(4), join(range(0, 3), {5}));
  EXPECT_EQ(d.a->free_nodes(), 16u - 6u);
}

TEST(NodeAllocationLinear, RefusesWhenTooFewNodesAreFreeAndChangesNothing) {
  Driver d(xgft2(), "linear");
  EXPECT_EQ(d.job(10), range(0, 10));
  EXPECT_EQ(d.job(7), Hosts{});
  EXPECT_EQ(d.a->free_nodes(), 6u);
  EXPECT_EQ(d.job(6), range(10, 16));
  EXPECT_EQ(d.job(1), Hosts{});
}

TEST(NodeAllocationRandom, DrawsDistinctFreeNodesInHostOrder) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Driver d(xgft3(), "random", {.seed = seed});
    const Hosts a = d.job(20);
    const Hosts b = d.job(30);
    ASSERT_EQ(a.size(), 20u);
    ASSERT_EQ(b.size(), 30u);
    EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
    EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
    std::set<std::uint32_t> all(a.begin(), a.end());
    all.insert(b.begin(), b.end());
    EXPECT_EQ(all.size(), 50u) << "seed " << seed << ": a node allocated twice";
  }
}

TEST(NodeAllocationRandom, IsSeeded) {
  const auto draw = [](std::uint64_t seed) {
    Driver d(xgft3(), "random", {.seed = seed});
    Hosts out = d.job(10);
    d.release(1);
    return join(out, d.job(10));
  };
  EXPECT_EQ(draw(7), draw(7));
  EXPECT_NE(draw(7), draw(8));
}

// Pinned draws: PatternRng's own bounded draws (no <random> distribution) give these on every
// platform; a change of the draw procedure changes them, and with it every replay's placements.
TEST(NodeAllocationRandom, GivesThePinnedNodesForASeed) {
  EXPECT_EQ(Driver(xgft2(), "random", {.seed = 42}).job(4), (Hosts{0, 1, 3, 5}));
  EXPECT_EQ(Driver(dragonfly(), "rdn", {.seed = 42}).job(6), (Hosts{13, 1, 4, 3, 34, 32}));
}

TEST(NodeAllocationRandom, ReleaseFreesExactlyTheJobsNodes) {
  Driver d(xgft3(), "random", {.seed = 3});
  const Hosts a = d.job(25);
  const Hosts b = d.job(25);
  d.release(1);
  EXPECT_EQ(d.a->free_nodes(), 64u - 25u);
  for (const std::uint32_t h : a) EXPECT_FALSE(d.a->busy(xgft3().hcas()[h]));
  for (const std::uint32_t h : b) EXPECT_TRUE(d.a->busy(xgft3().hcas()[h]));
  EXPECT_EQ(d.job(40), Hosts{});
  const Hosts c = d.job(39);
  std::set<std::uint32_t> all(b.begin(), b.end());
  all.insert(c.begin(), c.end());
  EXPECT_EQ(all.size(), 64u);
}

// ---- tree -----------------------------------------------------------------------------------

TEST(NodeAllocationTree, AJobThatFitsALeafTakesTheBestFitLeaf) {
  Driver d(xgft2(), "tree");
  EXPECT_EQ(d.job(2), (Hosts{0, 1}));
  EXPECT_EQ(d.job(3), (Hosts{4, 5, 6}));  // leaf 0 has 2 free: too few
  EXPECT_EQ(d.job(1), (Hosts{7}));        // leaf 1 has 1 free, the fewest that fit
  EXPECT_EQ(d.job(2), (Hosts{2, 3}));     // leaf 0 has 2, leaves 2 and 3 have 4
}

TEST(NodeAllocationTree, SpansTheFewestLeavesAndKeepsTheLargestFreeBlocks) {
  Driver d(xgft2(), "tree");
  EXPECT_EQ(d.job(3), range(0, 3));
  EXPECT_EQ(d.job(1), Hosts{3});
  EXPECT_EQ(d.job(4), range(4, 8));
  EXPECT_EQ(d.job(2), range(8, 10));
  EXPECT_EQ(d.job(2), range(10, 12));
  EXPECT_EQ(d.job(1), Hosts{12});
  for (const std::uint64_t j : {2, 3, 4}) d.release(j);
  // Free per leaf: 1 {3}, 4 {4..7}, 2 {8, 9}, 3 {13..15}. No leaf holds 5: the largest leaf
  // whole, then the leaf that fits the last one best: two leaves, the 2 and 3 blocks kept.
  EXPECT_EQ(d.job(5), join({3}, range(4, 8)));
  EXPECT_EQ(d.job(5), join({8, 9}, range(13, 16)));
  EXPECT_EQ(d.a->free_nodes(), 0u);
}

TEST(NodeAllocationTree, StaysUnderTheBestFitLevelTwoSubtree) {
  Driver d(xgft3(), "tree");
  // Subtree 0: leaf 0 whole, then leaf 1 fits the remaining 2 (the first of equals).
  EXPECT_EQ(d.job(6), range(0, 6));
  // Subtree 0 has 10 free: too few; subtree 1, leaves 4 and 5 whole and leaf 6.
  EXPECT_EQ(d.job(12), range(16, 28));
  // Subtree 0 (10 free) fits 8 more tightly than subtrees 2 and 3 (16): leaves 2 and 3 whole,
  // leaf 1's last 2 kept.
  EXPECT_EQ(d.job(8), range(8, 16));
  // No subtree holds 20: the whole machine, largest leaves first (leaf 7, then 8, 9, 10), and
  // the last 4 from the first leaf that fits them.
  EXPECT_EQ(d.job(20), range(28, 48));
  EXPECT_EQ(d.job(2), (Hosts{6, 7}));
}

TEST(NodeAllocationTree, WorksOnADegradedFatTree) {
  Driver d(degraded_xgft3(), "tree");
  EXPECT_EQ(d.a->total_nodes(), 63u);                     // host 5 lost its cable
  EXPECT_EQ(d.job(3), (Hosts{4, 6, 7}));                  // leaf 1, the only leaf with exactly 3
  EXPECT_EQ(d.job(12), join(range(0, 4), range(8, 16)));  // subtree 0 has exactly 12 left
  EXPECT_EQ(d.job(5), join(range(16, 20), {20}));
  EXPECT_EQ(d.job(44), Hosts{});
  EXPECT_EQ(d.job(43), range(21, 64));
}

// ---- dragonfly placements (seed 001) --------------------------------------------------------

std::set<std::uint32_t> routers_of(const Hosts& h) {
  std::set<std::uint32_t> out;
  for (const std::uint32_t x : h) out.insert(x / 2);
  return out;
}

TEST(NodeAllocationDragonfly, RoundRobinNodesDealsOneNodePerGroupAndContinuesWhereItStopped) {
  Driver d(dragonfly(), "rrn");
  EXPECT_EQ(d.job(7), (Hosts{0, 8, 16, 24, 32, 1, 9}));
  EXPECT_EQ(d.job(2), (Hosts{17, 25}));
}

TEST(NodeAllocationDragonfly, RoundRobinRoutersDealsWholeRoutersPerGroup) {
  Driver d(dragonfly(), "rrr");
  EXPECT_EQ(d.job(5), (Hosts{0, 1, 8, 9, 16}));
  EXPECT_EQ(d.job(2), (Hosts{24, 25}));
  EXPECT_EQ(d.job(2), (Hosts{32, 33}));
  EXPECT_EQ(d.job(4), (Hosts{2, 3, 10, 11}));
  EXPECT_EQ(d.job(1), (Hosts{18}));  // group 2's router 0 is in use: its router 1
}

TEST(NodeAllocationDragonfly, RandomRoutersTakeWholeRoutersInRandomOrder) {
  std::set<Hosts> seen;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Driver d(dragonfly(), "rdr", {.seed = seed});
    const Hosts a = d.job(4);
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(routers_of(a).size(), 2u);
    EXPECT_EQ(a[0] / 2, a[1] / 2);  // a router's nodes consecutively, in host order
    EXPECT_EQ(a[1], a[0] + 1);
    EXPECT_EQ(a[3], a[2] + 1);
    const Hosts b = d.job(3);  // a whole router and one node of another
    EXPECT_EQ(routers_of(b).size(), 2u);
    EXPECT_EQ(b[1], b[0] + 1);
    for (const std::uint32_t r : routers_of(b)) EXPECT_FALSE(routers_of(a).contains(r));
    seen.insert(join(a, b));
  }
  EXPECT_GT(seen.size(), 5u);  // seeded draws, not one fixed order
  Driver x(dragonfly(), "rdr", {.seed = 4});
  Driver y(dragonfly(), "rdr", {.seed = 4});
  EXPECT_EQ(x.job(9), y.job(9));
}

TEST(NodeAllocationDragonfly, RandomRoutersFallBackToPartlyFreeRoutersOnAFullMachine) {
  Driver d(dragonfly(), "rdr", {.seed = 5});
  std::set<std::uint32_t> routers;
  for (int i = 0; i < 20; ++i) {
    const Hosts h = d.job(1);
    ASSERT_EQ(h.size(), 1u);
    routers.insert(h[0] / 2);
  }
  EXPECT_EQ(routers.size(), 20u);  // a wholly free router for every job while there is one
  const Hosts rest = d.job(20);
  EXPECT_EQ(rest.size(), 20u);
  EXPECT_EQ(d.a->free_nodes(), 0u);
}

TEST(NodeAllocationDragonfly, RandomChassisTakeWholeChassis) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Driver d(dragonfly(), "rdc", {.seed = seed, .routers_per_chassis = 2});
    const Hosts a = d.job(4);  // one chassis: routers 0-1 or 2-3 of one group
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(a[0] % 4, 0u);
    EXPECT_EQ(a, range(a[0], a[0] + 4));
    const Hosts b = d.job(6);  // another chassis whole, and 2 nodes of a third
    ASSERT_EQ(b.size(), 6u);
    EXPECT_EQ(b[0] % 4, 0u);
    EXPECT_EQ(Hosts(b.begin(), b.begin() + 4), range(b[0], b[0] + 4));
    EXPECT_EQ(b[4] % 4, 0u);
    EXPECT_NE(b[0], a[0]);
    EXPECT_NE(b[4], a[0]);
  }
}

TEST(NodeAllocationDragonfly, RandomGroupsTakeWholeGroups) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Driver d(dragonfly(), "rdg", {.seed = seed});
    const Hosts a = d.job(8);
    ASSERT_EQ(a.size(), 8u);
    EXPECT_EQ(a, range(a[0], a[0] + 8));
    EXPECT_EQ(a[0] % 8, 0u);
    const Hosts b = d.job(10);
    ASSERT_EQ(b.size(), 10u);
    EXPECT_EQ(Hosts(b.begin(), b.begin() + 8), range(b[0], b[0] + 8));
    EXPECT_EQ(b[8] % 8, 0u);  // the first router of a third group
    EXPECT_EQ(b[9], b[8] + 1);
    EXPECT_NE(b[0], a[0]);
    EXPECT_NE(b[8], a[0]);
  }
}

TEST(NodeAllocationDragonfly, RandomNodesComeInDrawOrder) {
  bool unsorted = false;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Driver d(dragonfly(), "rdn", {.seed = seed});
    const Hosts a = d.job(12);
    EXPECT_EQ(std::set<std::uint32_t>(a.begin(), a.end()).size(), 12u);
    unsorted = unsorted || !std::is_sorted(a.begin(), a.end());
  }
  EXPECT_TRUE(unsorted) << "rdn orders nodes as drawn, not by host";
}

TEST(NodeAllocationDragonfly, RoutersOfAMegaflyAreItsLeaves) {
  const DragonflyLayout& df = *megafly().dragonfly();
  Driver d(megafly(), "rrr");
  const Hosts a = d.job(4);
  ASSERT_EQ(a.size(), 4u);
  const auto leaf = [&](std::uint32_t h) { return df.edge_router[megafly().hcas()[h].value()]; };
  EXPECT_EQ(leaf(a[0]), leaf(a[1]));
  EXPECT_EQ(leaf(a[2]), leaf(a[3]));
  EXPECT_NE(df.group_of(leaf(a[0])), df.group_of(leaf(a[2])));
}

// ---- every policy: random sequences of allocate and release ----------------------------------

struct Case {
  std::string policy;
  std::string fabric;
  std::string name;  // "<policy>_on_<fabric>"
};

const Fabric& fabric_named(const std::string& name) {
  if (name == "xgft3") return xgft3();
  if (name == "degraded_xgft3") return degraded_xgft3();
  if (name == "dragonfly") return dragonfly();
  return megafly();
}

std::vector<Case> cases() {
  using std::string_literals::operator""s;
  std::vector<Case> out;
  for (const char* f : {"xgft3", "degraded_xgft3"}) {
    for (const char* p : {"linear", "random", "tree"}) out.push_back({p, f, p + "_on_"s + f});
  }
  for (const char* f : {"dragonfly", "megafly"}) {
    for (const char* p : {"linear", "random", "rdn", "rdr", "rdc", "rdg", "rrn", "rrr"}) {
      out.push_back({p, f, p + "_on_"s + f});
    }
  }
  return out;
}

class NodeAllocationSequence : public ::testing::TestWithParam<Case> {};

// The sequence's outcomes; checks against a model of busy nodes on the way.
std::vector<Hosts> replay(const Case& c, std::uint64_t seed) {
  const Fabric& f = fabric_named(c.fabric);
  const auto a = make_node_allocator(c.policy, f, {.seed = seed, .routers_per_chassis = 2});
  std::vector<bool> busy(f.num_nodes(), false);
  std::map<std::uint64_t, std::vector<NodeIdx>> active;
  std::uint32_t free = a->total_nodes();
  PatternRng rng(seed);
  std::vector<Hosts> outcomes;
  for (std::uint64_t job = 1; job <= 400; ++job) {
    if (!active.empty() && rng.below(5) < 2) {
      auto it = active.begin();
      std::advance(it, static_cast<long>(rng.below(active.size())));
      a->release(JobId(it->first));
      for (const NodeIdx n : it->second) busy[n.value()] = false;
      free += static_cast<std::uint32_t>(it->second.size());
      active.erase(it);
    } else {
      const auto want = static_cast<std::uint32_t>(1 + rng.below(a->total_nodes() / 3));
      const auto got = a->allocate(JobId(job), want);
      if (!got) {
        EXPECT_GT(want, free) << "job " << job << " refused with enough free nodes";
        outcomes.emplace_back();
      } else {
        EXPECT_EQ(got->size(), want);
        for (const NodeIdx n : *got) {
          EXPECT_TRUE(f.node(n).is_hca());
          EXPECT_FALSE(busy[n.value()]) << "job " << job << ": " << f.node(n).name << " twice";
          busy[n.value()] = true;
        }
        free -= want;
        active.emplace(job, *got);
        outcomes.push_back(numbers(f, *got));
      }
    }
    EXPECT_EQ(a->free_nodes(), free) << "after job " << job;
    for (const NodeIdx h : f.hcas()) {
      if (f.node(h).ports[0].connected()) {
        EXPECT_EQ(a->busy(h), busy[h.value()]);
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  for (const auto& [job, nodes] : active) a->release(JobId(job));
  EXPECT_EQ(a->free_nodes(), a->total_nodes()) << "nodes lost";
  return outcomes;
}

TEST_P(NodeAllocationSequence, NeverDoubleAllocatesNorLosesNodesAndIsDeterministic) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Hosts> first = replay(GetParam(), seed);
    EXPECT_EQ(replay(GetParam(), seed), first) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, NodeAllocationSequence, ::testing::ValuesIn(cases()),
                         testing_names::ByCaseName());

}  // namespace
}  // namespace ibsdn
