#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "plugin/opensm/abi_fabric.hpp"
#include "routing/xgft.hpp"
#include "tests/unit/plugin/abi_test_fabric.hpp"

namespace ibsdn::plugin {
namespace {

Fabric small_xgft() {
  return generate_xgft(XgftParams::parse("2;4,4;1,4"));
}

std::string error_of(const osmsdn_fabric& f) {
  try {
    subnet_from_abi(f);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Subnet, RebuildsNodesCablesAndLidsOfTheGluesStructs) {
  const Fabric f = small_xgft();
  const LidMap lids = sequential_lids(f);
  test::AbiBuffers abi = test::to_abi(f, lids);
  const Subnet got = subnet_from_abi(abi.view);

  EXPECT_EQ(got.fabric.num_nodes(), f.num_nodes());
  EXPECT_EQ(got.fabric.num_links(), f.num_links());
  EXPECT_EQ(got.fabric.hcas().size(), 16u);
  EXPECT_EQ(got.fabric.switches().size(), 8u);
  // Names are the descriptions' first words; the full description is kept.
  const NodeIdx n1 = *got.fabric.find("n0001");
  EXPECT_EQ(got.fabric.node(n1).description, "n0001 HCA-1");
  EXPECT_EQ(got.lids.lid(n1), lids.lid(*f.find("n0001")));
  const NodeIdx s1 = *got.fabric.find("l1s001");
  EXPECT_EQ(got.lids.lid(s1, PortNum(0)), lids.lid(*f.find("l1s001"), PortNum(0)));
  EXPECT_EQ(got.node_of(f.node(*f.find("l2s003")).guid), *got.fabric.find("l2s003"));
  // 4x QDR.
  EXPECT_DOUBLE_EQ(got.fabric.port(n1, PortNum(1)).gbps, 40.0);
}

TEST(Subnet, PutsCasBeforeSwitchesWhateverTheGluesOrder) {
  const Fabric f = small_xgft();
  test::AbiBuffers abi = test::to_abi(f, sequential_lids(f));
  std::swap(abi.nodes.front(), abi.nodes.back());  // a switch first, as GUID order may give
  abi.refresh();
  const Subnet got = subnet_from_abi(abi.view);
  for (std::size_t i = 0; i < 16; ++i) EXPECT_TRUE(got.fabric.node(NodeIdx(i)).is_hca());
}

// OpenSM's node table is ordered by the GUID in network byte order: on x86 n0016 (GUID ...0100)
// comes before n0001 (...0010). The subnet keeps ascending GUIDs, the generator's (and a replay's)
// order, on which min-hop's default LFTs depend.
TEST(Subnet, OrdersNodesByAscendingGuidNotOpenSmsTableOrder) {
  const Fabric f = small_xgft();
  test::AbiBuffers abi = test::to_abi(f, sequential_lids(f));
  const auto network_order = [](std::uint64_t g) { return __builtin_bswap64(g); };
  std::sort(abi.nodes.begin(), abi.nodes.end(), [&](const osmsdn_node& a, const osmsdn_node& b) {
    return network_order(a.guid) < network_order(b.guid);
  });
  abi.refresh();
  ASSERT_EQ(std::string(abi.nodes.front().description).substr(0, 5), "n0016");
  const Subnet got = subnet_from_abi(abi.view);
  ASSERT_EQ(got.fabric.num_nodes(), f.num_nodes());
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    EXPECT_EQ(got.fabric.nodes()[i].name, f.nodes()[i].name) << i;
  }
}

TEST(Subnet, FallsBackToGuidNamesForMissingOrTakenDescriptions) {
  const Fabric f = small_xgft();
  test::AbiBuffers abi = test::to_abi(f, sequential_lids(f));
  std::strcpy(abi.nodes[1].description, "n0001 HCA-2");  // n0002 claims n0001's name
  std::strcpy(abi.nodes[2].description, "   ");
  abi.refresh();
  const Subnet got = subnet_from_abi(abi.view);
  const auto guid_name = [](std::uint64_t guid) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "guid-0x%016llx", static_cast<unsigned long long>(guid));
    return std::string(buf);
  };
  EXPECT_TRUE(got.fabric.find(guid_name(abi.nodes[1].guid)));
  EXPECT_TRUE(got.fabric.find(guid_name(abi.nodes[2].guid)));
  EXPECT_EQ(got.fabric.node(*got.fabric.find(guid_name(abi.nodes[1].guid))).description,
            "n0001 HCA-2");
}

TEST(Subnet, RefusesInconsistentStructsNamingThePlace) {
  const Fabric f = small_xgft();
  const LidMap lids = sequential_lids(f);

  test::AbiBuffers unknown = test::to_abi(f, lids);
  unknown.port(0, 1).peer_node_guid = 0x1234;
  EXPECT_NE(error_of(unknown.view).find("cabled to unknown node 0x0000000000001234"),
            std::string::npos);

  test::AbiBuffers one_sided = test::to_abi(f, lids);
  one_sided.port(0, 1).peer_port = 2;  // l1s001 port 2 leads to n0002, not back to n0001
  EXPECT_NE(error_of(one_sided.view).find("is not seen from its far end"), std::string::npos);

  test::AbiBuffers twice = test::to_abi(f, lids);
  twice.port(1, 1).lid = twice.port(0, 1).lid;
  EXPECT_NE(error_of(twice.view).find("n0002"), std::string::npos);

  test::AbiBuffers overflow = test::to_abi(f, lids);
  overflow.nodes.back().first_port = static_cast<std::uint32_t>(overflow.ports.size());
  overflow.refresh();
  EXPECT_NE(error_of(overflow.view).find("outside the"), std::string::npos);
}

TEST(Subnet, LinkRatesFollowPortInfoCodes) {
  osmsdn_port p{};
  p.link_width_active = 2;
  p.link_speed_active = 1;
  EXPECT_DOUBLE_EQ(link_gbps(p), 10.0);  // 4x SDR
  p.link_speed_ext_active = 2;
  EXPECT_DOUBLE_EQ(link_gbps(p), 100.0);  // 4x EDR
  p.link_width_active = 0;
  EXPECT_DOUBLE_EQ(link_gbps(p), 0.0);
}

}  // namespace
}  // namespace ibsdn::plugin
