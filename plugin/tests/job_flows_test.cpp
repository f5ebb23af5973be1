#include "plugin/controller/job_flows.hpp"

#include <gtest/gtest.h>

#include "plugin/abi_fabric.hpp"
#include "plugin/tests/abi_test_fabric.hpp"
#include "routing/xgft.hpp"

namespace ibsdn::plugin {
namespace {

struct TestFabric {
  Fabric fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LidMap lids = sequential_lids(fabric);
  test::AbiBuffers abi = test::to_abi(fabric, lids);
  plugin::Subnet f = subnet_from_abi(abi.view);
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
  const Traffic matrix = std::vector<RankFlow>{{0, 1, 10}, {3, 4, 10}};
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

}  // namespace
}  // namespace ibsdn::plugin
