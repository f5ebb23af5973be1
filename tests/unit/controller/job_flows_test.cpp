#include "plugin/controller/job_flows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "plugin/opensm/abi_fabric.hpp"
#include "routing/patterns/pattern.hpp"
#include "routing/xgft.hpp"
#include "tests/unit/plugin/abi_test_fabric.hpp"

namespace ibsdn::plugin {
namespace {

struct TestFabric {
  Fabric fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LidMap lids = sequential_lids(fabric);
  test::AbiBuffers abi = test::to_abi(fabric, lids);
  Subnet f = subnet_from_abi(abi.view);
};

ErrorCode code_of(const std::function<void()>& body, std::string* message = nullptr,
                  std::string* at = nullptr) {
  try {
    body();
  } catch (const NoticeFailure& e) {
    if (message) *message = e.what();
    if (at) *at = e.at();
    return e.code();
  }
  ADD_FAILURE() << "no NoticeFailure";
  return ErrorCode::kInternal;
}

TEST(JobFlows, HostsResolveByNodeDescriptionOrHostMapAndUnknownOnesAreAllNamed) {
  TestFabric s;
  const std::vector<std::string> hosts = {"n0003", "n0001"};
  const auto nodes = resolve_hosts(s.f, nullptr, hosts);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(s.f.fabric.node(nodes[0]).description.substr(0, 5), "n0003");

  const HostMap map = HostMap::parse(
      "gpu01 0x" +
          [&] {
            char b[20];
            std::snprintf(b, sizeof(b), "%016llx",
                          static_cast<unsigned long long>(s.f.fabric.node(nodes[1]).guid.value()));
            return std::string(b);
          }() +
          "\ngpu02 \"n0002 HCA-1\"\n",
      "hosts");
  const std::vector<std::string> mapped = {"gpu01", "gpu02"};
  const auto m = resolve_hosts(s.f, &map, mapped);
  EXPECT_EQ(m[0], nodes[1]);
  EXPECT_EQ(s.f.fabric.node(m[1]).description.substr(0, 5), "n0002");

  std::string message;
  std::string at;
  const std::vector<std::string> bad = {"n0001", "ghost1", "n00010", "ghost2"};
  EXPECT_EQ(code_of([&] { resolve_hosts(s.f, nullptr, bad); }, &message, &at),
            ErrorCode::kUnknownHost);
  EXPECT_NE(message.find("3 host(s)"), std::string::npos) << message;
  EXPECT_NE(message.find("'n00010'"), std::string::npos) << message;  // whole words only
  EXPECT_EQ(at, "/nodes");
  const std::vector<std::string> twice = {"n0001", "gpu01"};
  EXPECT_EQ(code_of([&] { resolve_hosts(s.f, &map, twice); }, &message, &at), ErrorCode::kInvalid)
      << "gpu01 is n0001's HCA too";
}

TEST(JobFlows, TrafficIsDeterministicPerJobAndHintsMarkOnlyTheirPairsAsElephants) {
  TestFabric s;
  std::vector<NodeIdx> nodes(s.f.fabric.hcas().begin(), s.f.fabric.hcas().begin() + 8);
  const Traffic perm = PatternSpec::parse("random-perm");
  const JobTraffic a =
      build_job_traffic(s.f.fabric, nodes, perm, std::nullopt, Mapping::kBlock, {}, JobId(5));
  const JobTraffic b =
      build_job_traffic(s.f.fabric, nodes, perm, std::nullopt, Mapping::kBlock, {}, JobId(5));
  ASSERT_EQ(a.flows.size(), b.flows.size());
  for (std::size_t i = 0; i < a.flows.size(); ++i) {
    EXPECT_EQ(a.flows[i].src, b.flows[i].src);
    EXPECT_EQ(a.flows[i].dst, b.flows[i].dst);
    EXPECT_TRUE(a.flows[i].elephant);  // no hints: all count
  }
  const std::vector<RankPair> hint = {{0, 1}};
  const Traffic shift = PatternSpec::parse("shift:k=1");
  const JobTraffic h =
      build_job_traffic(s.f.fabric, nodes, shift, std::nullopt, Mapping::kBlock, hint, JobId(5));
  std::size_t elephants = 0;
  for (const Flow& f : h.flows) {
    if (!f.elephant) continue;
    ++elephants;
    EXPECT_EQ(f.src, nodes[0]);
    EXPECT_EQ(f.dst, nodes[1]);
  }
  EXPECT_EQ(elephants, 1u);
}

TEST(JobFlows, RanksBeyondTheJobAreRefusedNamingTheField) {
  TestFabric s;
  std::vector<NodeIdx> nodes(s.f.fabric.hcas().begin(), s.f.fabric.hcas().begin() + 4);
  std::string message;
  std::string at;
  const Traffic matrix = TrafficMatrix{{{0, 1, 10}, {3, 4, 10}}, {}};
  EXPECT_EQ(code_of(
                [&] {
                  build_job_traffic(s.f.fabric, nodes, matrix, std::nullopt, Mapping::kBlock, {},
                                    JobId(1));
                },
                &message, &at),
            ErrorCode::kInvalid);
  EXPECT_EQ(at, "/matrix/1");
  const std::vector<RankPair> hint = {{0, 9}};
  EXPECT_EQ(code_of(
                [&] {
                  build_job_traffic(s.f.fabric, nodes, PatternSpec::parse("ring"), std::nullopt,
                                    Mapping::kBlock, hint, JobId(1));
                },
                &message, &at),
            ErrorCode::kInvalid);
  EXPECT_EQ(at, "/elephants/0");
  // Two ranks per node: 8 ranks, the matrix's rank 4 now exists.
  EXPECT_NO_THROW(build_job_traffic(s.f.fabric, nodes, matrix, 2u, Mapping::kCyclic, {}, JobId(1)));
}

TEST(JobFlows, RankFlowBoundIsAnUpperBoundOfEveryPatternsFlows) {
  for (const std::string& name : pattern_names()) {
    if (name == "matrix") continue;  // reads a file; notices carry matrices inline
    for (const std::uint32_t ranks : {2u, 3u, 7u, 16u, 64u, 129u}) {
      PatternSpec spec = PatternSpec::parse(name);
      if (name == "stencil3d" || name == "stencil4d" || name == "many-to-many") {
        spec.dims.clear();  // the default grid fits any rank count
      }
      std::vector<RankFlow> flows;
      try {
        flows = generate_pattern(spec, ranks, 7);
      } catch (const std::invalid_argument&) {
        continue;  // the pattern does not fit this rank count
      }
      EXPECT_LE(flows.size(), rank_flow_bound(Traffic{spec}, ranks))
          << name << " on " << ranks << " ranks";
    }
  }
  // A matrix's skipped pairs give no flow: its bound is its flows.
  const TrafficMatrix matrix{{{0, 1, 10}, {1, 0, 5}, {2, 1, 1}}, {2, 40, 5}};
  EXPECT_EQ(rank_flow_bound(Traffic{matrix}, 3), 3u);
}

TEST(JobFlows, MatrixCountsAreTheMatrixsPairsAndSkippedOnesNoneForAPattern) {
  const TrafficMatrix matrix{{{0, 1, 10}, {1, 0, 5}}, {1, 64, 3}};
  EXPECT_EQ(matrix_counts(Traffic{matrix}), (MatrixCounts{2, {1, 64, 3}}));
  EXPECT_EQ(matrix_counts(Traffic{PatternSpec::parse("ring")}), std::nullopt);
}

TEST(JobFlows, AllToAllOverTheRankLimitIsBuiltAtHostLevelWithTheSameFlows) {
  TestFabric s;
  std::vector<NodeIdx> nodes(s.f.fabric.hcas().begin(), s.f.fabric.hcas().begin() + 6);
  const Traffic all = PatternSpec::parse("all-to-all:bytes=1K");
  const JobTraffic ranks =
      build_job_traffic(s.f.fabric, nodes, all, 4, Mapping::kCyclic, {}, JobId(1));
  const JobTraffic hosts = build_job_traffic(s.f.fabric, nodes, all, 4, Mapping::kCyclic, {},
                                             JobId(1), /*max_rank_flows=*/10);
  EXPECT_EQ(hosts.rank_flows, ranks.rank_flows);
  ASSERT_EQ(hosts.flows.size(), ranks.flows.size());
  const auto key = [](const Flow& f) {
    return std::tuple(f.src.value(), f.dst.value(), f.bytes, f.multiplicity, f.weight);
  };
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t, double>> a;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t, double>> b;
  for (const Flow& f : ranks.flows) a.push_back(key(f));
  for (const Flow& f : hosts.flows) b.push_back(key(f));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  // A pattern without a host-level form is refused before anything is generated.
  EXPECT_EQ(code_of([&] {
              build_job_traffic(s.f.fabric, nodes, PatternSpec::parse("spread"), 4, Mapping::kBlock,
                                {}, JobId(1), 10);
            }),
            ErrorCode::kTooLarge);
}

}  // namespace
}  // namespace ibsdn::plugin
