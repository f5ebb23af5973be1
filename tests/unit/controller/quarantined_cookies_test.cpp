#include "plugin/controller/quarantined_cookies.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "flowtable/flow_text.hpp"

namespace ibsdn::plugin {
namespace {

constexpr Guid kSw1{0x100};
constexpr Guid kSw2{0x200};

std::vector<FlowEntry> table(const std::vector<const char*>& lines) {
  std::vector<FlowEntry> out;
  for (const char* l : lines) out.push_back(parse_flow(l));
  return out;
}

TEST(QuarantinedCookies, KeepsCookiesApartUntilReleased) {
  QuarantinedCookies q;
  EXPECT_TRUE(q.empty());
  q.add(7);
  q.add(3);
  q.add(7);
  EXPECT_FALSE(q.empty());
  EXPECT_TRUE(q.contains(7));
  EXPECT_FALSE(q.contains(5));
  EXPECT_EQ(q.cookies(), (std::set<std::uint64_t>{3, 7}));
  q.release(7);
  EXPECT_FALSE(q.contains(7));
  EXPECT_EQ(q.cookies(), std::set<std::uint64_t>{3});
}

TEST(QuarantinedCookies, HeldIsUnknownUntilAnAuditReadsASwitch_ThenCountsEntriesAndSwitches) {
  QuarantinedCookies q;
  q.note_table(kSw1, table({"cookie=0x7, priority=100, dlid=0x2 actions=output:5"}));
  q.add(7);
  q.add(9);
  EXPECT_FALSE(q.held(7).has_value());  // that table was read before 7 was quarantined
  q.note_table(kSw1, table({"cookie=0x7, priority=100, dlid=0x2 actions=output:5",
                            "cookie=0x7, priority=100, dlid=0x3 actions=output:6",
                            "cookie=0x1, priority=100, dlid=0x4 actions=output:6"}));
  q.note_table(kSw2, table({"cookie=0x7, priority=100, dlid=0x2 actions=output:1"}));
  ASSERT_TRUE(q.held(7).has_value());
  EXPECT_EQ(q.held(7)->entries, 3u);
  EXPECT_EQ(q.held(7)->switches, 2u);
  // Read, and none found: known to be nowhere.
  ASSERT_TRUE(q.held(9).has_value());
  EXPECT_EQ(q.held(9)->entries, 0u);
  EXPECT_EQ(q.held(9)->switches, 0u);
  EXPECT_FALSE(q.held(1).has_value());  // not quarantined: not counted
}

TEST(QuarantinedCookies, ANewReadOfASwitchReplacesWhatTheLastOneFoundThere) {
  QuarantinedCookies q;
  q.add(7);
  q.note_table(kSw1, table({"cookie=0x7, priority=100, dlid=0x2 actions=output:5",
                            "cookie=0x7, priority=100, dlid=0x3 actions=output:6"}));
  q.note_table(kSw2, table({"cookie=0x7, priority=100, dlid=0x2 actions=output:1"}));
  q.note_table(kSw1, {});
  EXPECT_EQ(q.held(7)->entries, 1u);
  EXPECT_EQ(q.held(7)->switches, 1u);
  q.release(7);
  EXPECT_FALSE(q.held(7).has_value());
  q.add(7);  // quarantined again: unknown until the next read
  EXPECT_FALSE(q.held(7).has_value());
}

}  // namespace
}  // namespace ibsdn::plugin
