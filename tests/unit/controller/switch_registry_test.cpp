#include "plugin/controller/switch_registry.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ibsdn::plugin {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Agent = SwitchRegistry::Agent;
using Change = SwitchRegistry::Change;

constexpr Guid kSwB{0x200};    // "sw-b", LID 11
constexpr Guid kSwA{0x100};    // "sw-a", LID 10
constexpr Guid kNoLid{0x300};  // "sw-c", a switch without a LID
constexpr Guid kHca{0x1000};   // "h1", LID 1

/// sw-b and sw-a cabled port 1 to port 1, h1 on sw-a's port 2; sw-c unconnected and without a
/// LID. With `recabled`, h1 hangs on sw-a's port 3 instead.
std::shared_ptr<const Subnet> subnet(bool recabled = false) {
  auto s = std::make_shared<Subnet>();
  Fabric& f = s->fabric;
  const NodeIdx b = f.add_node(NodeKind::kSwitch, "sw-b", 4, kSwB);
  const NodeIdx a = f.add_node(NodeKind::kSwitch, "sw-a", 4, kSwA);
  f.add_node(NodeKind::kSwitch, "sw-c", 4, kNoLid);
  const NodeIdx h = f.add_node(NodeKind::kHca, "h1", 1, kHca);
  f.connect(a, PortNum(1), b, PortNum(1), 100.0);
  f.connect(a, PortNum(recabled ? 3 : 2), h, PortNum(1), 100.0);
  s->lids = LidMap(f);
  s->lids.assign(a, PortNum(0), Lid(10));
  s->lids.assign(b, PortNum(0), Lid(11));
  s->lids.assign(h, PortNum(1), Lid(1));
  return s;
}

bool is_due(const SwitchRegistry& r, Guid g, SwitchRegistry::Clock::time_point now) {
  for (const SwitchRegistry::Switch& s : r.due(now)) {
    if (s.guid == g) return true;
  }
  return false;
}

std::vector<std::string> names(const std::vector<SwitchRegistry::Switch>& switches) {
  std::vector<std::string> out;
  for (const SwitchRegistry::Switch& s : switches) out.push_back(s.name);
  return out;
}

const SwitchRegistry::Clock::time_point kT0{seconds(1'000'000)};

/// A registry checking every 10 s (a back-off from 30 s), on subnet().
class SwitchRegistryOnAFabric : public testing::Test {
 protected:
  SwitchRegistryOnAFabric() { r.update(subnet()); }
  SwitchRegistry r{seconds(10)};
};

TEST(SwitchRegistry, ListsTheSwitchesWithALidByName_AndFindsThemByGuid) {
  SwitchRegistry r(seconds(10));
  EXPECT_TRUE(r.all().empty());
  EXPECT_FALSE(r.find(kSwA).has_value());  // no fabric yet
  r.update(subnet());
  EXPECT_EQ(names(r.all()), (std::vector<std::string>{"sw-a", "sw-b"}));
  const auto a = r.find(kSwA);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->guid, kSwA);
  EXPECT_EQ(a->lid, Lid(10));
  EXPECT_EQ(a->node, NodeIdx(1));
  EXPECT_EQ(a->name, "sw-a");
  EXPECT_EQ(r.find(kSwB)->lid, Lid(11));
  EXPECT_FALSE(r.find(kNoLid).has_value());  // no LID: no MAD can reach it
  EXPECT_FALSE(r.find(kHca).has_value());    // not a switch
  EXPECT_FALSE(r.find(Guid(0x999)).has_value());
  EXPECT_EQ(names(r.due(kT0)), (std::vector<std::string>{"sw-a", "sw-b"}));
}

TEST(SwitchRegistry,
     SwitchThatNeverAnswers_IsNotSdnCapable_ProbedAfterADoublingBackOffCappedAtAnHour) {
  SwitchRegistry r(seconds(10));  // shorter than the 30 s minimum
  r.update(subnet());
  EXPECT_EQ(r.agent(kSwA), Agent::kUnknown);
  EXPECT_EQ(r.note_answer(kSwA, false, kT0), Change::kNotSdnCapable);
  EXPECT_EQ(r.agent(kSwA), Agent::kIncapable);
  EXPECT_EQ(r.incapable(), std::set<Guid>{kSwA});
  EXPECT_EQ(r.unreachable_count(), 0u);
  const std::vector<seconds> waits = {seconds(30),   seconds(60),   seconds(120),
                                      seconds(240),  seconds(480),  seconds(960),
                                      seconds(1920), seconds(3600), seconds(3600)};
  auto t = kT0;
  for (std::size_t i = 0; i < waits.size(); ++i) {
    EXPECT_FALSE(is_due(r, kSwA, t + waits[i] - milliseconds(1))) << "probe " << i;
    EXPECT_TRUE(is_due(r, kSwA, t + waits[i])) << "probe " << i;
    EXPECT_TRUE(is_due(r, kSwB, t));  // the others are not held back
    t += waits[i];
    EXPECT_EQ(r.note_answer(kSwA, false, t), Change::kNone) << "logged once, not per probe";
  }
  EXPECT_EQ(names(r.due(t)), std::vector<std::string>{"sw-b"});
}

TEST(SwitchRegistry, BackOffStartsAtTheCheckIntervalWhenLongerThan30Seconds) {
  SwitchRegistry r(seconds(100));
  r.update(subnet());
  r.note_answer(kSwB, false, kT0);
  EXPECT_FALSE(is_due(r, kSwB, kT0 + seconds(100) - milliseconds(1)));
  EXPECT_TRUE(is_due(r, kSwB, kT0 + seconds(100)));
  r.note_answer(kSwB, false, kT0 + seconds(100));
  EXPECT_FALSE(is_due(r, kSwB, kT0 + seconds(300) - milliseconds(1)));
  EXPECT_TRUE(is_due(r, kSwB, kT0 + seconds(300)));
}

TEST_F(SwitchRegistryOnAFabric, CablingChange_MakesANotSdnCapableSwitchDueAtOnce) {
  r.note_answer(kSwA, false, kT0);
  r.note_answer(kSwB, false, kT0);
  r.update(subnet());  // the same cabling: the back-off runs on
  EXPECT_FALSE(is_due(r, kSwA, kT0 + seconds(1)));
  r.update(subnet(true));  // h1 moved from sw-a's port 2 to port 3; sw-b's cabling is the same
  EXPECT_TRUE(is_due(r, kSwA, kT0 + seconds(1)));
  EXPECT_FALSE(is_due(r, kSwB, kT0 + seconds(1)));
  EXPECT_EQ(r.agent(kSwA), Agent::kIncapable);  // still not SDN-capable until it answers
  // The back-off goes on doubling from where it was: the reset makes it due, not young.
  EXPECT_EQ(r.note_answer(kSwA, false, kT0 + seconds(1)), Change::kNone);
  EXPECT_FALSE(is_due(r, kSwA, kT0 + seconds(61) - milliseconds(1)));
  EXPECT_TRUE(is_due(r, kSwA, kT0 + seconds(61)));
}

TEST_F(SwitchRegistryOnAFabric,
       CapableSwitchThatFails_IsUnreachable_CheckedEveryRound_UntilItAnswersAgain) {
  EXPECT_EQ(r.note_answer(kSwA, true, kT0), Change::kNone);  // unknown -> capable: not logged
  EXPECT_EQ(r.agent(kSwA), Agent::kCapable);
  EXPECT_EQ(r.note_answer(kSwA, false, kT0), Change::kUnreachable);
  EXPECT_EQ(r.agent(kSwA), Agent::kUnreachable);
  EXPECT_EQ(r.unreachable_count(), 1u);
  EXPECT_TRUE(r.incapable().empty());  // jobs may still rely on it: it comes back
  EXPECT_EQ(r.note_answer(kSwA, false, kT0), Change::kNone);
  EXPECT_TRUE(is_due(r, kSwA, kT0));  // no back-off
  EXPECT_EQ(r.note_answer(kSwA, true, kT0), Change::kAnswersAgain);
  EXPECT_EQ(r.agent(kSwA), Agent::kCapable);
  EXPECT_EQ(r.unreachable_count(), 0u);
}

TEST_F(SwitchRegistryOnAFabric,
       NotSdnCapableSwitchThatAnswers_IsCapable_AndAFailureThenMakesItUnreachable) {
  r.note_answer(kSwA, false, kT0);
  r.note_answer(kSwA, false, kT0 + seconds(30));
  EXPECT_EQ(r.note_answer(kSwA, true, kT0 + seconds(90)), Change::kNowCapable);
  EXPECT_TRUE(r.incapable().empty());
  EXPECT_EQ(r.note_answer(kSwA, false, kT0 + seconds(91)), Change::kUnreachable);
  EXPECT_TRUE(is_due(r, kSwA, kT0 + seconds(91)));
}

TEST_F(SwitchRegistryOnAFabric, KnowsAnAgentAcrossFabrics_EvenWhenTheSwitchIsGone) {
  r.note_answer(kSwA, false, kT0);
  r.note_answer(kSwB, true, kT0);
  r.note_answer(kSwB, false, kT0);
  r.update(std::make_shared<const Subnet>());  // an empty fabric
  EXPECT_TRUE(r.all().empty());
  EXPECT_TRUE(r.due(kT0).empty());
  EXPECT_EQ(r.incapable(), std::set<Guid>{kSwA});
  EXPECT_EQ(r.unreachable_count(), 1u);
}

TEST(SwitchRegistry, Generations_AsLastLeftOrRead_ForgottenForSwitchesThatFailedASync) {
  SwitchRegistry r(seconds(10));
  EXPECT_FALSE(r.generation(kSwA).has_value());
  r.set_generation(kSwA, 3);
  r.set_generation(kSwB, 4);
  EXPECT_EQ(r.generation(kSwA), 3u);
  r.forget_generation(kSwA);
  EXPECT_FALSE(r.generation(kSwA).has_value());
  r.note_generations({{kSwA, 7}});
  EXPECT_EQ(r.generation(kSwA), 7u);
  EXPECT_EQ(r.generation(kSwB), 4u);

  SyncResult sync;
  sync.generation = {{kSwA, 8}, {kNoLid, 9}};
  sync.failed = {{kSwB, "timeout"}, {kNoLid, "table full"}};
  r.note_sync(sync);
  EXPECT_EQ(r.generation(kSwA), 8u);
  EXPECT_FALSE(r.generation(kSwB).has_value());
  EXPECT_FALSE(r.generation(kNoLid).has_value());  // failed wins over a generation
}

}  // namespace
}  // namespace ibsdn::plugin
