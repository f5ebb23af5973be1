// A job's DLID-only entries written into the LFTs, and the 64-entry blocks a write has to carry.
#include "routing/lft_overrides.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/link_load.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "tests/support/flow_sets.hpp"

namespace ibsdn {
namespace {

using test::permutation;

struct Bed {
  Fabric f;
  LftSet dmodk;
  explicit Bed(const char* xgft)
      : f(generate_xgft(XgftParams::parse(xgft))),
        dmodk(lfts_from_destination_routes(f, sequential_lids(f), *make_algorithm("dmodk"))) {}
};

FlowEntry dlid_entry(Lid dlid, PortNum out) {
  FlowEntry e;
  e.cookie = 7;
  e.priority = 100;
  e.match = FlowMatch::exact_dlid(dlid);
  e.action.output = out;
  return e;
}

/// Every entry of both sets, LID by LID, on every switch.
void expect_same_tables(const Fabric& f, const LftSet& a, const LftSet& b) {
  for (const NodeIdx sw : f.switches()) {
    const std::size_t n = std::max(a.table(sw).size(), b.table(sw).size());
    for (std::size_t lid = 0; lid < n; ++lid) {
      const Lid l(static_cast<std::uint16_t>(lid));
      ASSERT_EQ(a.table(sw).out(l), b.table(sw).out(l)) << f.node(sw).name << " LID " << lid;
    }
  }
}

/// SDN-optimal routes one source per destination on a permutation, so its routes fit the LFTs:
/// written as DLID entries over DmodK's tables, every pair's traced route is the chosen one and
/// the max link load stays the node-load bound (full-bisection trees, Theorem 1 of seed 002).
TEST(LftOverrides, SdnOptimalPermutationsFitTheLftAndKeepTheNodeLoadBound) {
  for (const char* spec : {"2;4,4;1,4", "3;4,4,4;1,4,4"}) {
    const Bed bed(spec);
    const auto optimal = make_algorithm("sdn-optimal");
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const std::vector<Flow> flows = permutation(bed.f.hcas(), seed);
      const std::vector<Path> paths = optimal->route(RouteRequest{bed.f, flows});
      CompileOptions opt;
      opt.level = FlowDefinitionLevel::kDlid;
      const CompiledFlows c = compile_flows(bed.f, bed.dmodk, flows, paths, JobId(7), opt);
      ASSERT_EQ(c.flows_on_default, 0u) << spec << " seed " << seed;
      const LftSet installed = lfts_with_dlid_entries(bed.f, bed.dmodk, c.tables);
      LinkLoad load(bed.f);
      for (std::size_t i = 0; i < flows.size(); ++i) {
        const Trace t = trace(bed.f, installed, flows[i].src, flows[i].dst);
        ASSERT_TRUE(t.ok()) << t.error;
        ASSERT_EQ(t.path, paths[i]) << spec << " seed " << seed << " flow " << i;
        load.add(t.path);
      }
      EXPECT_EQ(static_cast<std::uint32_t>(load.max_flows()), lower_bound(bed.f, flows).node_load)
          << spec << " seed " << seed;
      // Every changed block holds an entry the job wrote, and every entry it wrote that differs
      // from DmodK's lies in a changed block.
      std::set<std::pair<NodeIdx, std::uint16_t>> blocks;
      for (const LftBlockChange& b : changed_lft_blocks(bed.f, bed.dmodk, installed)) {
        blocks.emplace(b.sw, b.block);
      }
      std::set<std::pair<NodeIdx, std::uint16_t>> written;
      for (const auto& [sw, entries] : c.tables) {
        for (const FlowEntry& e : entries) {
          const Lid dlid(e.match.dlid->value);
          if (bed.dmodk.table(sw).out(dlid) == e.action.output) continue;
          written.emplace(sw, static_cast<std::uint16_t>(dlid.value() / kLftBlockSize));
        }
      }
      EXPECT_EQ(blocks, written) << spec << " seed " << seed;
    }
  }
}

TEST(LftOverrides, ChangedBlocksNameEachDifferingBlockOnceWithTheNewEntries) {
  const Bed bed("2;4,4;1,4");
  const NodeIdx s0 = bed.f.switches()[0];
  const NodeIdx s1 = bed.f.switches()[1];
  LftSet after = bed.dmodk;
  const auto other = [&](NodeIdx sw, std::uint16_t lid) {
    const PortNum now = bed.dmodk.table(sw).out(Lid(lid));
    return PortNum(static_cast<std::uint8_t>(now.value() == 1 ? 2 : 1));
  };
  after.table(s0).set(Lid(5), other(s0, 5));
  after.table(s0).set(Lid(7), other(s0, 7));                     // same block as LID 5: one block
  after.table(s1).set(Lid(3), bed.dmodk.table(s1).out(Lid(3)));  // rewritten unchanged: none
  after.table(s1).set(Lid(130), PortNum(2));  // beyond the table (24 LIDs): block 2 only
  const auto changes = changed_lft_blocks(bed.f, bed.dmodk, after);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].sw, s0);
  EXPECT_EQ(changes[0].block, 0);
  EXPECT_EQ(changes[1].sw, s1);
  EXPECT_EQ(changes[1].block, 2);
  for (std::size_t i = 0; i < kLftBlockSize; ++i) {
    EXPECT_EQ(changes[0].ports[i], after.table(s0).out(Lid(static_cast<std::uint16_t>(i))));
    EXPECT_EQ(changes[1].ports[i], i == 130 - 128 ? PortNum(2) : kLftUnset) << i;
  }
  EXPECT_TRUE(changed_lft_blocks(bed.f, bed.dmodk, bed.dmodk).empty());
}

/// A job's end: the blocks from the installed tables back to the defaults, written over the
/// installed tables, give the defaults again, entry for entry.
TEST(LftOverrides, WritingTheBlocksBackRestoresTheDefaultsExactly) {
  const Bed bed("3;4,4,4;1,4,4");
  const std::vector<Flow> flows = permutation(bed.f.hcas(), 3);
  const auto paths = make_algorithm("sdn-optimal")->route(RouteRequest{bed.f, flows});
  CompileOptions opt;
  opt.level = FlowDefinitionLevel::kDlid;
  const CompiledFlows c = compile_flows(bed.f, bed.dmodk, flows, paths, JobId(7), opt);
  const LftSet installed = lfts_with_dlid_entries(bed.f, bed.dmodk, c.tables);
  const auto back = changed_lft_blocks(bed.f, installed, bed.dmodk);
  ASSERT_FALSE(back.empty());
  EXPECT_EQ(back.size(), changed_lft_blocks(bed.f, bed.dmodk, installed).size());
  LftSet restored = installed;
  for (const LftBlockChange& b : back) {
    for (std::size_t i = 0; i < kLftBlockSize; ++i) {
      const Lid lid(static_cast<std::uint16_t>(b.block * kLftBlockSize + i));
      if (b.ports[i] != kLftUnset || lid.value() < restored.table(b.sw).size()) {
        restored.table(b.sw).set(lid, b.ports[i]);
      }
    }
  }
  expect_same_tables(bed.f, restored, bed.dmodk);
  EXPECT_TRUE(changed_lft_blocks(bed.f, restored, bed.dmodk).empty());
}

/// A fabric where only some switches have flow tables (install_backend auto): on the others the
/// compiler writes destination entries only, whatever the flow definition level, one port per
/// DLID, and no table capacity binds there; flows whose routes need two ports toward one
/// destination at such a switch keep their default routes, all others take their chosen paths.
TEST(LftOverrides, LftSwitchesGetDestinationEntriesOnlyWithoutACapacity) {
  const Bed bed("3;4,4,4;1,4,4");
  std::vector<bool> lft(bed.f.num_nodes(), false);
  for (std::size_t k = 0; k < bed.f.switches().size(); k += 2)
    lft[bed.f.switches()[k].value()] = true;
  const auto greedy = make_algorithm("sdn-greedy");
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    // Two permutations at once: two sources per destination, so some routes conflict.
    std::vector<Flow> flows = permutation(bed.f.hcas(), seed);
    const std::vector<Flow> more = permutation(bed.f.hcas(), seed + 100);
    flows.insert(flows.end(), more.begin(), more.end());
    const std::vector<Path> paths = greedy->route(RouteRequest{bed.f, flows});
    CompileOptions opt;
    opt.level = FlowDefinitionLevel::kSlidDlid;
    opt.capacity = 0;  // no flow table has room: only the LFT switches take entries
    opt.lft_switches = &lft;
    const CompiledFlows c = compile_flows(bed.f, bed.dmodk, flows, paths, JobId(7), opt);
    std::map<NodeIdx, std::vector<FlowEntry>> in_lfts;
    for (const auto& [sw, entries] : c.tables) {
      ASSERT_TRUE(lft[sw.value()]) << bed.f.node(sw).name << " has no LFT backend";
      for (const FlowEntry& e : entries) {
        ASSERT_FALSE(e.match.slid.has_value()) << bed.f.node(sw).name;
        ASSERT_EQ(e.match, FlowMatch::exact_dlid(Lid(e.match.dlid->value)));
      }
      in_lfts[sw] = entries;
    }
    // One port per DLID: the entries load into the LFTs, and the LFTs alone then deliver every
    // flow on the path the compiler traced.
    const LftSet installed = lfts_with_dlid_entries(bed.f, bed.dmodk, in_lfts);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const Trace t = trace(bed.f, installed, flows[i].src, flows[i].dst);
      ASSERT_TRUE(t.ok()) << t.error;
      ASSERT_EQ(t.path, c.effective[i]) << "seed " << seed << " flow " << i;
      if (!c.on_default[i]) {
        EXPECT_EQ(t.path, paths[i]);
      }
    }
    EXPECT_GT(c.entries, 0u) << "seed " << seed;
  }
}

TEST(LftOverrides, RefusesWhatAnLftCannotHold) {
  const Bed bed("2;4,4;1,4");
  const NodeIdx sw = bed.f.switches()[0];
  const auto refused = [&](std::vector<FlowEntry> entries, const std::string& needle) {
    try {
      (void)lfts_with_dlid_entries(bed.f, bed.dmodk, {{sw, std::move(entries)}});
      ADD_FAILURE() << "accepted; expected a message with '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bed.f.node(sw).name), std::string::npos) << e.what();
    }
  };
  FlowEntry pair = dlid_entry(Lid(3), PortNum(1));
  pair.match = FlowMatch::exact_pair(Lid(1), Lid(3));
  refused({pair}, "exact DLID only");
  FlowEntry sl = dlid_entry(Lid(3), PortNum(1));
  sl.action.set_sl = ServiceLevel(2);
  refused({sl}, "SL");
  refused({dlid_entry(Lid(3), PortNum(1)), dlid_entry(Lid(3), PortNum(2))}, "ports 1 and 2");
  refused({dlid_entry(Lid(3), PortNum(40))}, "port 40");
  // The same entry twice is one entry.
  const LftSet twice = lfts_with_dlid_entries(
      bed.f, bed.dmodk, {{sw, {dlid_entry(Lid(3), PortNum(2)), dlid_entry(Lid(3), PortNum(2))}}});
  EXPECT_EQ(twice.table(sw).out(Lid(3)), PortNum(2));
  EXPECT_THROW((void)lfts_with_dlid_entries(bed.f, bed.dmodk,
                                            {{bed.f.hcas()[0], {dlid_entry(Lid(3), PortNum(1))}}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
