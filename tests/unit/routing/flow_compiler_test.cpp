// The compiler from paths to flow entries, checked by tracing packets through LFTs + entries.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "routing/algorithm.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

struct Bed {
  Fabric f;
  LftSet lfts;
  explicit Bed(const char* xgft)
      : f(generate_xgft(XgftParams::parse(xgft))),
        lfts(lfts_from_destination_routes(f, sequential_lids(f), *make_algorithm("dmodk"))) {}

  std::vector<Flow> random_flows(std::size_t count, std::mt19937_64& rng) const {
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    std::vector<Flow> out;
    const auto n = f.hcas().size();
    while (out.size() < count) {
      const auto s = static_cast<std::uint32_t>(rng() % n);
      const auto d = static_cast<std::uint32_t>(rng() % n);
      if (s == d || !seen.emplace(s, d).second) continue;
      Flow fl;
      fl.src = f.hcas()[s];
      fl.dst = f.hcas()[d];
      out.push_back(fl);
    }
    set_weights(out);
    return out;
  }
};

bool is_up_port(const Fabric& f, NodeIdx sw, PortNum p) {
  return f.level(f.port(sw, p).peer) > f.level(sw);
}

TEST(FlowCompiler, TracedPathEqualsChosenPathForEveryFlowOfManyJobs) {
  Bed bed("3;4,4,3;1,4,4");
  std::mt19937_64 rng(17);
  for (const char* alg : {"sdn-optimal", "sdn-greedy", "smodk"}) {
    for (int job = 0; job < 15; ++job) {
      const auto flows = bed.random_flows(1 + rng() % 120, rng);
      const auto paths = make_algorithm(alg)->route(RouteRequest{bed.f, flows});
      CompileOptions opt;
      const CompiledFlows c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(job + 1), opt);
      ASSERT_EQ(c.flows_on_default, 0u) << alg;
      for (std::size_t i = 0; i < flows.size(); ++i)
        ASSERT_EQ(c.effective[i], paths[i]) << alg << " flow " << i;
      // Entries only where a path leaves DmodK's LFT: on a fat-tree, upward choices only.
      for (const auto& [sw, entries] : c.tables) {
        for (const FlowEntry& e : entries) {
          EXPECT_TRUE(is_up_port(bed.f, sw, e.action.output)) << bed.f.node(sw).name;
          EXPECT_EQ(e.cookie, static_cast<std::uint64_t>(job + 1));
        }
      }
      EXPECT_LE(c.entries, c.override_hops);
      EXPECT_LE(c.override_hops, c.path_hops);
    }
  }
}

TEST(FlowCompiler, DmodKPathsNeedNoEntries) {
  Bed bed("2;4,4;1,4");
  std::mt19937_64 rng(2);
  const auto flows = bed.random_flows(100, rng);
  const auto paths = make_algorithm("dmodk")->route(RouteRequest{bed.f, flows});
  const CompiledFlows c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(1), CompileOptions{});
  EXPECT_EQ(c.entries, 0u);
  EXPECT_EQ(c.override_hops, 0u);
  EXPECT_EQ(c.flows_on_default, 0u);
}

TEST(FlowCompiler, AggregatesADestinationsEntriesWhenAllItsFlowsAgree) {
  // Leaf 0's hosts 0,1 both send to host 4 (leaf 1) through spine 3, which DmodK would not use
  // for host 4 (4 mod 4 = 0): one DLID entry at leaf 0 instead of two pair entries.
  Bed bed("2;4,4;1,4");
  std::vector<Flow> flows(2);
  flows[0].src = bed.f.hcas()[0];
  flows[1].src = bed.f.hcas()[1];
  flows[0].dst = flows[1].dst = bed.f.hcas()[4];
  std::vector<Path> paths(2);
  xgft_path(bed.f, *bed.f.xgft(), 0, 4, 3, paths[0]);
  xgft_path(bed.f, *bed.f.xgft(), 1, 4, 3, paths[1]);
  CompileOptions opt;
  CompiledFlows c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(9), opt);
  ASSERT_EQ(c.entries, 1u);
  const FlowEntry& e = c.tables.begin()->second.front();
  EXPECT_FALSE(e.match.slid.has_value());
  EXPECT_EQ(e.match.dlid->value, bed.lfts.lids.lid(bed.f.hcas()[4]).value());
  opt.aggregate = false;
  c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(9), opt);
  EXPECT_EQ(c.entries, 2u);
  // If host 2 also sends to host 4 on the default spine, the destination cannot be merged.
  flows.push_back(flows[0]);
  flows[2].src = bed.f.hcas()[2];
  paths.emplace_back();
  xgft_path(bed.f, *bed.f.xgft(), 2, 4, 0, paths[2]);
  opt.aggregate = true;
  c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(9), opt);
  EXPECT_EQ(c.entries, 2u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(c.effective[i], paths[i]);
}

TEST(FlowCompiler, FullTablesLeaveTheLeastImportantFlowsOnDefaultRoutes) {
  Bed bed("3;4,4,3;1,4,4");
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    auto flows = bed.random_flows(150, rng);
    for (std::size_t i = 0; i < flows.size(); ++i) flows[i].elephant = (i % 3 != 0);
    const auto paths = make_algorithm("sdn-optimal")->route(RouteRequest{bed.f, flows});
    CompileOptions opt;
    opt.capacity = 3;
    std::vector<std::uint32_t> used(bed.f.num_nodes(), 0);
    used[bed.f.switches()[0].value()] = 2;  // another job holds 2 of leaf 0's 3 slots
    opt.used = &used;
    const CompiledFlows c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(1), opt);
    EXPECT_GT(c.flows_on_default, 0u);
    for (const auto& [sw, entries] : c.tables) {
      EXPECT_LE(entries.size() + used[sw.value()], 3u) << bed.f.node(sw).name;
    }
    const auto dmodk = make_algorithm("dmodk")->route(RouteRequest{bed.f, flows});
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (c.on_default[i]) {
        EXPECT_EQ(c.effective[i], dmodk[i]) << "a demoted flow follows its LFT route exactly";
      } else {
        EXPECT_EQ(c.effective[i], paths[i]);
      }
    }
    LinkLoad load(bed.f);
    for (const Path& p : c.effective) load.add(p);
    EXPECT_EQ(c.effective_max_link_load, load.max_flows());
  }
}

TEST(FlowCompiler, ElephantsKeepTheLastSlotOverMice) {
  // Hosts 0 and 1 (leaf 0) both need leaf 0's only free slot: 0->4 via spine 3 and 1->8 via
  // spine 2, neither DmodK's choice. The mouse comes first in input order; the elephant wins.
  Bed bed("2;4,4;1,4");
  std::vector<Flow> flows(2);
  flows[0].src = bed.f.hcas()[0];
  flows[0].dst = bed.f.hcas()[4];
  flows[0].elephant = false;
  flows[1].src = bed.f.hcas()[1];
  flows[1].dst = bed.f.hcas()[8];
  std::vector<Path> paths(2);
  xgft_path(bed.f, *bed.f.xgft(), 0, 4, 3, paths[0]);
  xgft_path(bed.f, *bed.f.xgft(), 1, 8, 2, paths[1]);
  CompileOptions opt;
  opt.capacity = 1;
  const CompiledFlows c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(4), opt);
  EXPECT_TRUE(c.on_default[0]);
  EXPECT_FALSE(c.on_default[1]);
  EXPECT_EQ(c.entries, 1u);
  EXPECT_EQ(c.effective[1], paths[1]);
}

TEST(FlowCompiler, DlidOnlyTablesStillDeliverEveryFlowAndReportTheRealLoad) {
  Bed bed("3;4,4,3;1,4,4");
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 10; ++trial) {
    const auto flows = bed.random_flows(100, rng);
    const auto paths = make_algorithm("sdn-greedy")->route(RouteRequest{bed.f, flows});
    CompileOptions opt;
    opt.level = FlowDefinitionLevel::kDlid;
    const CompiledFlows c = compile_flows(bed.f, bed.lfts, flows, paths, JobId(1), opt);
    for (const auto& [sw, entries] : c.tables) {
      for (const FlowEntry& e : entries) EXPECT_FALSE(e.match.slid.has_value());
    }
    LinkLoad load(bed.f);
    for (const Path& p : c.effective) load.add(p);
    EXPECT_EQ(c.effective_max_link_load, load.max_flows());
  }
}

TEST(FlowCompiler, RejectsPathsThatDoNotFitTheFabric) {
  Bed bed("2;2,2;1,2");
  std::vector<Flow> flows(1);
  flows[0].src = bed.f.hcas()[0];
  flows[0].dst = bed.f.hcas()[3];
  std::vector<Path> paths{Path{bed.f.port(bed.f.hcas()[1], PortNum(1)).out}};
  EXPECT_THROW(compile_flows(bed.f, bed.lfts, flows, paths, JobId(1), CompileOptions{}),
               std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
