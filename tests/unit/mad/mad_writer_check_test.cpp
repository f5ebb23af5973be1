// Only the master SM (and --allow-lid) may write a switch's flow table: WriterCheck's judgement,
// its PortInfo re-reads (fail-over, floods), its rate-limited reports, and the responder's use of
// it (kNotAuthorized, nothing applied, reads still open to key holders).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mad/mad_codec.hpp"
#include "mad/switch_responder.hpp"
#include "mad/writer_check.hpp"

namespace ibsdn::mad {
namespace {

using namespace std::chrono_literals;
using Clock = WriterCheck::Clock;

constexpr Lid kSm{0x0001};
constexpr Lid kHca{0x000b};
constexpr Lid kOtherHca{0x000c};

/// PortInfo:MasterSMLID as the fake SMA reports it; counts reads.
struct FakePortInfo {
  std::optional<Lid> master_sm = kSm;
  int reads = 0;
  WriterCheck::ReadMasterSmLid reader() {
    return [this] {
      ++reads;
      return master_sm;
    };
  }
};

WriterPolicy master_only() {
  WriterPolicy p;
  p.refresh = 10s;
  p.reread_gap = 1s;
  p.report_every = 60s;
  return p;
}

TEST(WriterCheck, MasterSmMayWrite_OtherLidsAreRefused) {
  FakePortInfo pi;
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  EXPECT_TRUE(check.judge(kSm, t0).allowed);
  const WriterCheck::Verdict v = check.judge(kHca, t0 + 2s);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.why, "LID 0x000b may not write: only the master SM (LID 0x0001) may");
  EXPECT_EQ(check.refused(), 1u);
  EXPECT_EQ(check.master(), kSm);
}

TEST(WriterCheck, AllowLid_AddsWritersBesidesTheMaster) {
  FakePortInfo pi;
  WriterPolicy p = master_only();
  p.allowed = {kHca};
  WriterCheck check(p, pi.reader());
  const Clock::time_point t0{};
  EXPECT_TRUE(check.judge(kHca, t0).allowed);
  EXPECT_EQ(pi.reads, 0) << "an allowed LID needs no PortInfo read";
  EXPECT_TRUE(check.judge(kSm, t0).allowed);
  const WriterCheck::Verdict v = check.judge(kOtherHca, t0 + 2s);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.why,
            "LID 0x000c may not write: only the master SM (LID 0x0001) and the allowed LIDs "
            "0x000b may");
}

TEST(WriterCheck, AnyWriter_AcceptsEveryLid_WithoutReadingPortInfo) {
  FakePortInfo pi;
  WriterPolicy p = master_only();
  p.any_writer = true;
  WriterCheck check(p, pi.reader());
  for (Lid lid : {kSm, kHca, kOtherHca, Lid{0}})
    EXPECT_TRUE(check.judge(lid, Clock::now()).allowed);
  EXPECT_EQ(pi.reads, 0);
  EXPECT_EQ(check.refused(), 0u);
}

TEST(WriterCheck, NoMasterSm_RefusesEveryoneButTheAllowed) {
  FakePortInfo pi;
  pi.master_sm = Lid{0};  // no SM has configured the switch yet
  WriterPolicy p = master_only();
  p.allowed = {kHca};
  WriterCheck check(p, pi.reader());
  const Clock::time_point t0{};
  const WriterCheck::Verdict v = check.judge(Lid{0}, t0);
  EXPECT_FALSE(v.allowed) << "LID 0 must not pass as MasterSMLID 0";
  EXPECT_NE(v.why.find("no master SM has configured this switch (PortInfo:MasterSMLID 0)"),
            std::string::npos)
      << v.why;
  EXPECT_FALSE(check.judge(kSm, t0 + 2s).allowed);
  EXPECT_TRUE(check.judge(kHca, t0 + 3s).allowed);
}

TEST(WriterCheck, SmComingUp_ItsFirstWriteIsAccepted_EvenRightAfterARead) {
  FakePortInfo pi;
  pi.master_sm = Lid{0};  // the agent started before the SM
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  EXPECT_EQ(check.refresh(t0), Lid{0});
  pi.master_sm = kSm;  // the SM configured the switch 10 ms later and writes at once
  EXPECT_TRUE(check.judge(kSm, t0 + 10ms).allowed);
  EXPECT_EQ(pi.reads, 2);
}

TEST(WriterCheck, FailOver_TheNewMasterIsAcceptedOnItsFirstWrite) {
  FakePortInfo pi;
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  EXPECT_TRUE(check.judge(kSm, t0).allowed);
  pi.master_sm = kOtherHca;  // the standby took over, well within the refresh interval
  EXPECT_TRUE(check.judge(kOtherHca, t0 + 2s).allowed);
  EXPECT_EQ(pi.reads, 2);
  EXPECT_FALSE(check.judge(kSm, t0 + 4s).allowed) << "the old master is no longer a writer";
}

TEST(WriterCheck, StaleMaster_IsReadAgainAfterTheRefreshInterval) {
  FakePortInfo pi;
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  EXPECT_TRUE(check.judge(kSm, t0).allowed);
  EXPECT_TRUE(check.judge(kSm, t0 + 9s).allowed);
  EXPECT_EQ(pi.reads, 1) << "within the refresh interval the cached master is used";
  pi.master_sm = kOtherHca;
  EXPECT_FALSE(check.judge(kSm, t0 + 11s).allowed) << "the demoted master after the refresh";
  EXPECT_EQ(pi.reads, 2);
}

TEST(WriterCheck, FloodFromAnUnknownLid_ReadsPortInfoAtMostOncePerGap) {
  FakePortInfo pi;
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  EXPECT_TRUE(check.judge(kSm, t0).allowed);
  // 1000 writes over 5 s (one every 5 ms): one read per second at most.
  for (int i = 1; i <= 1000; ++i) {
    EXPECT_FALSE(check.judge(kHca, t0 + i * 5ms).allowed);
  }
  EXPECT_LE(pi.reads, 1 + 5);
  EXPECT_GE(pi.reads, 1 + 4);
  EXPECT_EQ(check.refused(), 1000u);
}

TEST(WriterCheck, FailedRead_KeepsTheLastKnownMaster) {
  FakePortInfo pi;
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  EXPECT_TRUE(check.judge(kSm, t0).allowed);
  pi.master_sm = std::nullopt;  // the SMP timed out
  EXPECT_TRUE(check.judge(kSm, t0 + 11s).allowed);
  EXPECT_EQ(pi.reads, 2);
  EXPECT_EQ(check.master(), kSm);
}

TEST(WriterCheck, NothingRead_RefusesSayingSo) {
  FakePortInfo pi;
  pi.master_sm = std::nullopt;
  WriterCheck check(master_only(), pi.reader());
  const WriterCheck::Verdict v = check.judge(kSm, Clock::time_point{});
  EXPECT_FALSE(v.allowed);
  EXPECT_NE(v.why.find("could not be read"), std::string::npos) << v.why;
}

TEST(WriterCheck, Refusals_AreReportedOncePerLidPerMinute_WithTheCountLeftOut) {
  FakePortInfo pi;
  WriterCheck check(master_only(), pi.reader());
  const Clock::time_point t0{};
  WriterCheck::Verdict v = check.judge(kHca, t0);
  EXPECT_TRUE(v.report);
  EXPECT_EQ(v.unreported, 0u);
  for (int i = 1; i <= 30; ++i) EXPECT_FALSE(check.judge(kHca, t0 + i * 1s).report);
  v = check.judge(kOtherHca, t0 + 31s);
  EXPECT_TRUE(v.report) << "another LID is reported on its own";
  v = check.judge(kHca, t0 + 61s);
  EXPECT_TRUE(v.report);
  EXPECT_EQ(v.unreported, 30u);
  EXPECT_FALSE(check.judge(kHca, t0 + 62s).report);
  EXPECT_EQ(check.refused(), 34u);
}

// --- the responder ------------------------------------------------------------------------------

constexpr std::uint64_t kKey = 0x5eedc0de;

MadBytes request(AttributeId attr, Payload payload, std::uint64_t key = kKey) {
  SdnMad m;
  m.hdr.method = attr == AttributeId::kFlowMod ? Method::kSet : Method::kGet;
  m.hdr.attr_id = attr;
  m.hdr.tid = 0x77;
  m.key = key;
  m.payload = std::move(payload);
  return encode(m);
}

MadBytes add_dlid_0x40() {
  FlowMod fm;
  fm.cookie = 0x2a;
  fm.priority = 100;
  fm.match = FlowMatch::exact_dlid(Lid(0x40));
  fm.action.output = PortNum(3);
  return request(AttributeId::kFlowMod, fm);
}

struct Agent {
  FakePortInfo pi;
  std::shared_ptr<WriterCheck> writers;
  std::optional<SwitchResponder> responder;
  explicit Agent(WriterPolicy p = master_only()) {
    ResponderConfig cfg;
    cfg.key = kKey;
    cfg.table.capacity = 16;
    cfg.table.num_ports = 8;
    writers = std::make_shared<WriterCheck>(p, pi.reader());
    cfg.writers = writers;
    responder.emplace(cfg);
  }
  Handled send(const MadBytes& bytes, Lid from) { return responder->handle(bytes, from); }
};

Status reply_status(const Handled& h) {
  const SdnMad r = std::get<SdnMad>(decode(*h.reply));
  return r.hdr.status;
}

TEST(SwitchResponderWriters, FlowModFromTheMasterSm_IsApplied) {
  Agent a;
  const Handled h = a.send(add_dlid_0x40(), kSm);
  EXPECT_EQ(h.status, Status::kOk);
  EXPECT_EQ(h.affected, 1u);
  EXPECT_EQ(a.responder->table().size(), 1u);
}

TEST(SwitchResponderWriters, FlowModFromAnHca_IsRefusedNotAuthorized_AndNothingApplied) {
  Agent a;
  const Handled h = a.send(add_dlid_0x40(), kHca);
  EXPECT_EQ(h.status, Status::kNotAuthorized);
  ASSERT_TRUE(h.reply.has_value());
  EXPECT_EQ(reply_status(h), Status::kNotAuthorized);
  EXPECT_EQ(std::get<FlowMod>(std::get<SdnMad>(decode(*h.reply)).payload).affected, 0u);
  EXPECT_NE(h.detail.find("LID 0x000b may not write"), std::string::npos) << h.detail;
  EXPECT_FALSE(h.rate_limited);
  EXPECT_EQ(a.responder->table().size(), 0u);
  EXPECT_EQ(a.responder->table().generation(), 0u);
  // The second refusal within the minute is left out of the log.
  EXPECT_TRUE(a.send(add_dlid_0x40(), kHca).rate_limited);
  EXPECT_EQ(a.writers->refused(), 2u);
}

TEST(SwitchResponderWriters, ReadsFromAnHca_NeedOnlyTheKey) {
  Agent a;
  ASSERT_EQ(a.send(add_dlid_0x40(), kSm).status, Status::kOk);
  const int reads_before = a.pi.reads;
  for (AttributeId attr : {AttributeId::kTableInfo, AttributeId::kBarrier}) {
    const Handled h = a.send(
        request(attr, attr == AttributeId::kTableInfo ? Payload{TableInfo{}} : Payload{Barrier{}}),
        kHca);
    EXPECT_EQ(h.status, Status::kOk);
    EXPECT_EQ(reply_status(h), Status::kOk);
  }
  const Handled stats = a.send(request(AttributeId::kFlowStats, FlowStatsRequest{}), kHca);
  EXPECT_EQ(reply_status(stats), Status::kOk);
  EXPECT_EQ(std::get<FlowStatsReply>(std::get<SdnMad>(decode(*stats.reply)).payload).total, 1u);
  EXPECT_EQ(a.pi.reads, reads_before) << "reads never consult PortInfo";
}

TEST(SwitchResponderWriters, WrongKeyFromAnHca_IsBadKey_BeforeAnyPortInfoRead) {
  Agent a;
  FlowMod fm;
  fm.match = FlowMatch::exact_dlid(Lid(0x40));
  fm.action.output = PortNum(3);
  const Handled h = a.send(request(AttributeId::kFlowMod, fm, kKey + 1), kHca);
  EXPECT_EQ(h.status, Status::kBadKey);
  EXPECT_EQ(a.pi.reads, 0) << "only key holders may make the agent read PortInfo";
  EXPECT_EQ(a.writers->refused(), 0u);
}

TEST(SwitchResponderWriters, AllowLidAndAnyWriter_LetAnHcaWrite) {
  WriterPolicy allow = master_only();
  allow.allowed = {kHca};
  Agent allowed(allow);
  EXPECT_EQ(allowed.send(add_dlid_0x40(), kHca).status, Status::kOk);
  EXPECT_EQ(allowed.send(add_dlid_0x40(), kOtherHca).status, Status::kNotAuthorized);

  WriterPolicy any = master_only();
  any.any_writer = true;
  Agent open(any);
  EXPECT_EQ(open.send(add_dlid_0x40(), kOtherHca).status, Status::kOk);
}

TEST(SwitchResponderWriters, WithoutAWriterCheck_EveryKeyHolderWrites) {
  ResponderConfig cfg;
  cfg.key = kKey;
  cfg.table.capacity = 16;
  cfg.table.num_ports = 8;
  SwitchResponder r(cfg);
  EXPECT_EQ(r.handle(add_dlid_0x40(), kHca).status, Status::kOk);
  EXPECT_EQ(r.handle(add_dlid_0x40()).status, Status::kOk);  // the sender unknown
}

}  // namespace
}  // namespace ibsdn::mad
