#include <gtest/gtest.h>

#include "flowtable/flow_table.hpp"
#include "flowtable/flow_text.hpp"

namespace ibsdn {
namespace {

PacketHeader pkt(std::uint16_t slid, std::uint16_t dlid, std::uint8_t sl = 0,
                 std::uint32_t qp = 0) {
  return PacketHeader{Lid(slid), Lid(dlid), ServiceLevel(sl), qp};
}

FlowEntry entry(std::string_view text) {
  return parse_flow(text);
}

TEST(FlowTable, MissMeansDefaultRoute) {
  FlowTable t;
  EXPECT_FALSE(t.lookup(pkt(1, 2)).has_value());
  EXPECT_EQ(t.counters().missed, 1u);
  EXPECT_EQ(t.counters().lookups, 1u);
}

TEST(FlowTable, ExactPairMatchOverridesOnlyThatPair) {
  FlowTable t;
  ASSERT_TRUE(t.add(entry("cookie=0x7, priority=100, slid=0x12, dlid=0x40 actions=output:7")).ok());
  EXPECT_EQ(t.lookup(pkt(0x12, 0x40))->output, PortNum(7));
  EXPECT_FALSE(t.lookup(pkt(0x13, 0x40)).has_value());
  EXPECT_FALSE(t.lookup(pkt(0x12, 0x41)).has_value());
  EXPECT_EQ(t.entries()[0].n_packets, 1u);
}

TEST(FlowTable, HigherPriorityWinsThenMoreSpecificThenOlder) {
  FlowTable t;
  ASSERT_TRUE(t.add(entry("priority=10, dlid=0x40 actions=output:1")).ok());
  ASSERT_TRUE(t.add(entry("priority=10, slid=0x5, dlid=0x40 actions=output:2")).ok());
  EXPECT_EQ(t.lookup(pkt(5, 0x40))->output, PortNum(2));  // more specific at equal priority
  ASSERT_TRUE(t.add(entry("priority=20, dlid=0x40/0xfff0 actions=output:3")).ok());
  EXPECT_EQ(t.lookup(pkt(5, 0x40))->output, PortNum(3));  // priority beats specificity
  ASSERT_TRUE(t.add(entry("priority=20, dlid=0x0/0xff00 actions=output:4")).ok());
  EXPECT_EQ(t.lookup(pkt(5, 0x41))->output, PortNum(3));  // more specific mask
  ASSERT_TRUE(t.add(entry("priority=20, slid=0x0/0x0f00 actions=output:5")).ok());
  ASSERT_TRUE(t.add(entry("priority=20, slid=0x0/0x0f00, sl=0x0/0x8 actions=output:6")).ok());
  EXPECT_EQ(t.lookup(pkt(0x10, 0x1234))->output, PortNum(6));
}

TEST(FlowTable, MasksSlAndQpMatch) {
  FlowTable t;
  ASSERT_TRUE(
      t.add(entry("priority=1, dlid=0x40, sl=0x2, dest_qp=0x100/0xff00 actions=set_sl:5,output:9"))
          .ok());
  const auto a = t.lookup(pkt(1, 0x40, 2, 0x1ab));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->set_sl, ServiceLevel(5));
  EXPECT_FALSE(t.lookup(pkt(1, 0x40, 3, 0x1ab)).has_value());
  EXPECT_FALSE(t.lookup(pkt(1, 0x40, 2, 0x2ab)).has_value());
}

TEST(FlowTable, AddWithSameMatchAndPriorityReplaces) {
  FlowTable t;
  ASSERT_TRUE(t.add(entry("cookie=0x1, priority=5, dlid=0x9 actions=output:1")).ok());
  const auto g = t.generation();
  ASSERT_TRUE(t.add(entry("cookie=0x2, priority=5, dlid=0x9 actions=output:2")).ok());
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.entries()[0].cookie, 2u);
  EXPECT_GT(t.generation(), g);
  ASSERT_TRUE(t.add(entry("cookie=0x2, priority=6, dlid=0x9 actions=output:2")).ok());
  EXPECT_EQ(t.size(), 2u);
}

TEST(FlowTable, CapacityIsEnforcedAndReplacementStillWorksWhenFull) {
  FlowTable t(FlowTableConfig{3, FlowDefinitionLevel::kSlidDlidSlQp, 36});
  for (int d = 1; d <= 3; ++d) {
    FlowEntry e;
    e.match = FlowMatch::exact_dlid(Lid(static_cast<std::uint16_t>(d)));
    e.action.output = PortNum(1);
    ASSERT_TRUE(t.add(e).ok());
  }
  FlowEntry e;
  e.match = FlowMatch::exact_dlid(Lid(4));
  e.action.output = PortNum(1);
  const auto r = t.add(e);
  EXPECT_EQ(r.status, FlowModStatus::kTableFull);
  EXPECT_NE(r.detail.find("3 of 3"), std::string::npos);
  e.match = FlowMatch::exact_dlid(Lid(2));
  e.action.output = PortNum(2);
  EXPECT_TRUE(t.add(e).ok());
  EXPECT_EQ(t.size(), 3u);
}

TEST(FlowTable, RefusesMalformedEntriesWithTheRightStatus) {
  FlowTable t(FlowTableConfig{16, FlowDefinitionLevel::kSlidDlid, 36});
  FlowEntry e = entry("priority=1, dlid=0x40 actions=output:3");
  e.action.output = PortNum(0);
  EXPECT_EQ(t.add(e).status, FlowModStatus::kBadAction);
  e.action.output = PortNum(37);
  EXPECT_EQ(t.add(e).status, FlowModStatus::kBadAction);
  e.action.output = PortNum(3);
  e.match.dlid = Masked<std::uint16_t>{0x41, 0xFFF0};
  EXPECT_EQ(t.add(e).status, FlowModStatus::kBadMatch);
  e.match.dlid = Masked<std::uint16_t>{0x40, 0};
  EXPECT_EQ(t.add(e).status, FlowModStatus::kBadMatch);
  e.match.dlid = Masked<std::uint16_t>{0x40, 0xFFFF};
  e.match.sl = Masked<std::uint8_t>{1, 0xF};
  EXPECT_EQ(t.add(e).status, FlowModStatus::kUnsupportedField);
  e.match.sl.reset();
  e.action.set_sl = ServiceLevel(16);
  EXPECT_EQ(t.add(e).status, FlowModStatus::kBadAction);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.generation(), 0u);
}

TEST(FlowTable, DeletesByCookieByCoveringMatchAndStrictly) {
  FlowTable t;
  ASSERT_TRUE(t.add(entry("cookie=0x1, priority=1, slid=0x1, dlid=0x40 actions=output:1")).ok());
  ASSERT_TRUE(t.add(entry("cookie=0x1, priority=1, slid=0x2, dlid=0x40 actions=output:1")).ok());
  ASSERT_TRUE(t.add(entry("cookie=0x2, priority=1, slid=0x1, dlid=0x41 actions=output:1")).ok());
  ASSERT_TRUE(t.add(entry("cookie=0x2, priority=1, dlid=0x42 actions=output:1")).ok());
  FlowMatch m;
  m.dlid = Masked<std::uint16_t>{0x40, 0xFFFF};
  EXPECT_EQ(t.delete_matching(m).affected, 2u);  // both 0x40 entries are covered
  EXPECT_EQ(t.delete_strict(FlowMatch::exact_dlid(Lid(0x41)), 1).affected, 0u);  // has slid too
  EXPECT_EQ(t.delete_strict(FlowMatch::exact_pair(Lid(1), Lid(0x41)), 1).affected, 1u);
  EXPECT_EQ(t.delete_by_cookie(1).affected, 0u);
  EXPECT_EQ(t.delete_by_cookie(2).affected, 1u);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_FALSE(t.lookup(pkt(1, 0x42)).has_value());
}

TEST(FlowTable, StaysConsistentThroughManyAddsAndDeletes) {
  FlowTable t(FlowTableConfig{64, FlowDefinitionLevel::kSlidDlidSlQp, 36});
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 64; ++i) {
      FlowEntry e;
      e.cookie = static_cast<std::uint64_t>(i % 4);
      e.match = FlowMatch::exact_pair(Lid(static_cast<std::uint16_t>(i)),
                                      Lid(static_cast<std::uint16_t>(i % 7 + 1)));
      e.action.output = PortNum(static_cast<std::uint8_t>(i % 36 + 1));
      ASSERT_TRUE(t.add(e).ok()) << round << " " << i;
    }
    EXPECT_EQ(t.lookup(pkt(9, 3))->output, PortNum(10));
    EXPECT_EQ(t.delete_by_cookie(static_cast<std::uint64_t>(round % 4)).affected, 16u);
    EXPECT_EQ(t.size(), 48u);
    t.clear();
  }
}

TEST(FlowText, FormatsLikeOvsOfctlAndParsesBack) {
  const FlowEntry e = entry("cookie=0x2a, priority=100, slid=0x12, dlid=0x40 actions=output:7");
  EXPECT_EQ(format_flow(e),
            "cookie=0x2a, priority=100, slid=0x12, dlid=0x40 actions=output:7, n_packets=0");
  const FlowEntry m =
      entry("priority=3 dlid=0x40/0xfff0 sl=2 dest_qp=0x10/0xf0 actions=set_sl:1,output:4");
  EXPECT_EQ(format_flow(m),
            "cookie=0x0, priority=3, dlid=0x40/0xfff0, sl=0x2, dest_qp=0x10/0xf0 "
            "actions=set_sl:1,output:4, n_packets=0");
  EXPECT_TRUE(parse_flow(format_flow(m)).same_rule(m));
  EXPECT_TRUE(flow_from_json(flow_to_json(m)).same_rule(m));
}

TEST(FlowText, RejectsBadTextNamingTheToken) {
  for (const char* bad : {"priority=1 dlid=0x40", "priority=1 dlid=0x40 actions=drop",
                          "dlid=0x1ffff actions=output:1", "vlan=3 actions=output:1",
                          "dlid=0x41/0xfff0 actions=output:1", "dlid=zz actions=output:1",
                          "priority=70000 actions=output:1", "actions=output:255",
                          "dlid actions=output:1", "sl=16 actions=output:1"}) {
    EXPECT_THROW(parse_flow(bad), std::invalid_argument) << bad;
  }
  try {
    parse_flow("vlan=3 actions=output:1");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vlan"), std::string::npos);
  }
  EXPECT_THROW(flow_from_json(nlohmann::json::parse(R"({"match":{},"actions":{"output":0}})")),
               std::invalid_argument);
  EXPECT_THROW(flow_from_json(nlohmann::json::parse(
                   R"({"match":{"dlid":{"value":70000}},"actions":{"output":1}})")),
               std::invalid_argument);
  EXPECT_THROW(flow_from_json(nlohmann::json::parse(R"([1,2])")), std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
