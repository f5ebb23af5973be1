#include "plugin/controller/switch_sync.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "flowtable/flow_text.hpp"
#include "mad/loopback_transport.hpp"
#include "mad/responder_loop.hpp"
#include "mad/switch_responder.hpp"

namespace ibsdn::plugin {
namespace {

FlowEntry rule(const char* text) {
  return parse_flow(text);
}

TEST(SwitchSync, DiffAddsNewAndChangedRulesAndDeletesOnlyRulesThatDisappear) {
  const std::vector<FlowEntry> before = {
      rule("cookie=0x1, priority=100, slid=0x1, dlid=0x2 actions=output:5"),
      rule("cookie=0x1, priority=100, slid=0x1, dlid=0x3 actions=output:6"),
      rule("cookie=0x1, priority=100, slid=0x1, dlid=0x4 actions=output:7")};
  const std::vector<FlowEntry> after = {
      rule("cookie=0x1, priority=100, slid=0x1, dlid=0x2 actions=output:5"),  // unchanged
      rule("cookie=0x1, priority=100, slid=0x1, dlid=0x3 actions=output:8"),  // new port
      rule("cookie=0x1, priority=90, slid=0x1, dlid=0x5 actions=output:5")};  // new rule
  const TableDiff d = diff_tables(before, after);
  ASSERT_EQ(d.adds.size(), 2u);
  EXPECT_EQ(d.adds[0].action.output, PortNum(8));  // an ADD replaces the same match+priority
  EXPECT_EQ(d.adds[1].priority, 90);
  ASSERT_EQ(d.deletes.size(), 1u);  // only dlid 4: dlid 3 is replaced, not deleted
  EXPECT_EQ(d.deletes[0].command, mad::FlowModCommand::kDeleteStrict);
  EXPECT_EQ(d.deletes[0].match, before[2].match);
  EXPECT_TRUE(diff_tables(after, after).empty());
}

TEST(SwitchSync, CompareFindsMissingUnexpectedAndDifferingRules) {
  const std::vector<FlowEntry> actual = {
      rule("cookie=0x1, priority=100, dlid=0x2 actions=output:5"),
      rule("cookie=0x2, priority=100, dlid=0x3 actions=output:6"),
      rule("cookie=0x9, priority=100, dlid=0x9 actions=output:1")};
  const std::vector<FlowEntry> intended = {
      rule("cookie=0x1, priority=100, dlid=0x2 actions=output:5"),
      rule("cookie=0x2, priority=100, dlid=0x3 actions=output:7"),
      rule("cookie=0x2, priority=100, dlid=0x4 actions=output:7")};
  const TableComparison c = compare_tables(actual, intended);
  ASSERT_EQ(c.missing.size(), 1u);
  EXPECT_EQ(c.missing[0].match, intended[2].match);
  ASSERT_EQ(c.unexpected.size(), 1u);
  EXPECT_EQ(c.unexpected[0].cookie, 9u);
  ASSERT_EQ(c.differs.size(), 1u);
  EXPECT_EQ(c.differs[0].first.action.output, PortNum(6));
  EXPECT_FALSE(c.consistent());
  EXPECT_TRUE(compare_tables(intended, intended).consistent());
}

TEST(SwitchSync, ApplyBringsRealResponderTablesToTheIntentAndReportsAFullTable) {
  mad::LoopbackFabric fabric;
  auto controller = fabric.attach(Lid(1));
  auto roomy = fabric.attach(Lid(2));
  auto tiny = fabric.attach(Lid(3));
  mad::ResponderConfig cfg;
  cfg.key = 7;
  cfg.table.num_ports = 8;
  mad::SwitchResponder roomy_agent(cfg);
  cfg.table.capacity = 1;
  mad::SwitchResponder tiny_agent(cfg);
  std::atomic<bool> stop{false};
  const mad::ServeOptions poll{std::chrono::milliseconds(10)};
  std::thread ta([&] { mad::serve(*roomy, roomy_agent, stop, {}, poll); });
  std::thread tb([&] { mad::serve(*tiny, tiny_agent, stop, {}, poll); });
  mad::ClientOptions o;
  o.timeout = std::chrono::milliseconds(200);
  mad::MadClient client(*controller, o);

  const std::vector<FlowEntry> want = {rule("cookie=0x5, priority=100, dlid=0x2 actions=output:5"),
                                       rule("cookie=0x5, priority=100, dlid=0x3 actions=output:6")};
  const std::vector<SwitchChange> changes = {{Guid(2), Lid(2), "roomy", {}, want},
                                             {Guid(3), Lid(3), "tiny", {}, want}};
  const SyncResult r = apply_changes(client, 7, changes);
  EXPECT_EQ(r.failed.size(), 1u);
  EXPECT_TRUE(r.full.contains(Guid(3)));
  EXPECT_NE(r.failed.at(Guid(3)).find("refused"), std::string::npos) << r.failed.at(Guid(3));
  auto read = client.read_table(Lid(2), 7);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(compare_tables(read.value().entries, want).consistent());

  // Removing by cookie empties the roomy switch.
  EXPECT_TRUE(delete_cookie(client, 7, std::span(changes).first(1), 5).failed.empty());
  read = client.read_table(Lid(2), 7);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read.value().entries.empty());
  stop = true;
  ta.join();
  tb.join();
}

// Make before break needs room for the new entries beside the old: a switch without it gets its
// removals first and the additions again, and ends with exactly the intent.
TEST(SwitchSync, AFullSwitchReplacingEntries_BreaksBeforeMakeAndEndsAtTheIntent) {
  mad::LoopbackFabric fabric;
  auto controller = fabric.attach(Lid(1));
  auto sw = fabric.attach(Lid(2));
  mad::ResponderConfig cfg;
  cfg.key = 7;
  cfg.table.num_ports = 8;
  cfg.table.capacity = 2;
  mad::SwitchResponder agent(cfg);
  std::atomic<bool> stop{false};
  std::thread t(
      [&] { mad::serve(*sw, agent, stop, {}, mad::ServeOptions{std::chrono::milliseconds(10)}); });
  mad::ClientOptions o;
  o.timeout = std::chrono::milliseconds(200);
  mad::MadClient client(*controller, o);

  const std::vector<FlowEntry> old_rules = {
      rule("cookie=0x5, priority=100, dlid=0x2 actions=output:5"),
      rule("cookie=0x5, priority=100, dlid=0x3 actions=output:6")};
  const std::vector<FlowEntry> new_rules = {
      rule("cookie=0x5, priority=100, dlid=0x3 actions=output:7"),   // replaced in place
      rule("cookie=0x5, priority=100, dlid=0x4 actions=output:6")};  // needs dlid 2's slot
  const auto change = [](const std::vector<FlowEntry>& before,
                         const std::vector<FlowEntry>& after) {
    return std::vector<SwitchChange>{{Guid(2), Lid(2), "sw", before, after}};
  };
  ASSERT_TRUE(apply_changes(client, 7, change({}, old_rules)).failed.empty());
  const SyncResult r = apply_changes(client, 7, change(old_rules, new_rules));
  EXPECT_TRUE(r.failed.empty()) << r.failed.begin()->second;
  EXPECT_TRUE(r.full.empty());
  EXPECT_TRUE(r.generation.contains(Guid(2)));
  auto read = client.read_table(Lid(2), 7);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(compare_tables(read.value().entries, new_rules).consistent());

  // More than the table holds at all still fails, and says the table is full.
  std::vector<FlowEntry> three = new_rules;
  three.push_back(rule("cookie=0x5, priority=100, dlid=0x5 actions=output:6"));
  const SyncResult over = apply_changes(client, 7, change(new_rules, three));
  EXPECT_TRUE(over.full.contains(Guid(2)));
  stop = true;
  t.join();
}

}  // namespace
}  // namespace ibsdn::plugin
