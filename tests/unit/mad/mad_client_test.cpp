// MadClient and SwitchResponder talking over the loopback transport: the switch agent's logic
// (key, table full, malformed MADs, paging, FlowMod commands) and the client's (transaction ids,
// timeouts, retries, strays, restarts of paged reads, pipelining).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "flowtable/flow_text.hpp"
#include "mad/flow_mod_apply.hpp"
#include "mad/loopback_transport.hpp"
#include "mad/mad_client.hpp"
#include "mad/mad_codec.hpp"
#include "mad/raw_header.hpp"
#include "mad/responder_loop.hpp"
#include "mad/switch_responder.hpp"

namespace ibsdn::mad {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kKey = 0x5eed;
const Lid kClientLid{1};
const Lid kSwitchLid{2};

ResponderConfig switch_config(std::uint32_t capacity = 4096, std::uint8_t ports = 8) {
  ResponderConfig c;
  c.key = kKey;
  c.table.capacity = capacity;
  c.table.num_ports = ports;
  return c;
}

FlowMod add_mod(std::string_view flow) {
  const FlowEntry e = parse_flow(flow);
  FlowMod m;
  m.command = FlowModCommand::kAdd;
  m.cookie = e.cookie;
  m.priority = e.priority;
  m.match = e.match;
  m.action = e.action;
  return m;
}

FlowMod add_dlid(std::uint16_t dlid, std::uint64_t cookie = 1) {
  FlowMod m;
  m.cookie = cookie;
  m.priority = 100;
  m.match = FlowMatch::exact_dlid(Lid(dlid));
  m.action.output = PortNum(static_cast<std::uint8_t>(1 + dlid % 8));
  return m;
}

FlowMod delete_cookie(std::uint64_t cookie) {
  FlowMod m;
  m.command = FlowModCommand::kDelete;
  m.cookie = cookie;
  m.cookie_mask = ~std::uint64_t{0};
  return m;
}

/// A switch agent on its own thread. `intercept` sees every MAD first and may change the table
/// or return true to drop the MAD unanswered.
class FakeSwitch {
 public:
  using Intercept = std::function<bool(const ReceivedMad&, SwitchResponder&)>;

  FakeSwitch(LoopbackFabric& fabric, Lid lid, ResponderConfig cfg, Intercept intercept = {})
      : transport_(fabric.attach(lid)), responder_(cfg), intercept_(std::move(intercept)) {
    thread_ = std::thread([this] { run(); });
  }
  ~FakeSwitch() {
    stop_ = true;
    thread_.join();
  }
  /// Only once the client is done (the agent thread owns the table while it runs).
  const FlowTable& table() const { return responder_.table(); }
  int requests() const { return requests_.load(); }

 private:
  void run() {
    while (!stop_) {
      auto in = transport_->receive(5ms);
      if (!in) continue;
      ++requests_;
      if (intercept_ && intercept_(*in, responder_)) continue;
      Handled h = responder_.handle(std::span<const std::uint8_t>(in->bytes.data(), in->length));
      if (h.reply) transport_->send(in->from, *h.reply);
    }
  }

  std::unique_ptr<LoopbackTransport> transport_;
  SwitchResponder responder_;
  Intercept intercept_;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

ClientOptions quick(int retries = 2, std::size_t window = 8) {
  ClientOptions o;
  o.timeout = 50ms;
  o.retries = retries;
  o.window = window;
  return o;
}

/// A request the codec accepts, as bytes to be damaged by a test.
MadBytes table_info_request(std::uint64_t tid) {
  SdnMad m;
  m.hdr.method = Method::kGet;
  m.hdr.attr_id = AttributeId::kTableInfo;
  m.hdr.tid = tid;
  m.key = kKey;
  m.payload = TableInfo{};
  return encode(m);
}

// --- the switch side --------------------------------------------------------------------------

TEST(SwitchResponder, WrongKeyIsRefusedAndNothingIsInstalled) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  {
    FakeSwitch sw(fabric, kSwitchLid, switch_config());
    MadClient client(*client_end, quick());
    auto r = client.flow_mod(kSwitchLid, kKey + 1, add_dlid(0x40));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ClientErrorKind::kStatus);
    EXPECT_EQ(r.error().status, Status::kBadKey);
    auto read = client.table_info(kSwitchLid, kKey + 1);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().status, Status::kBadKey);
    auto info = client.table_info(kSwitchLid, kKey);
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info.value().used, 0u);
    EXPECT_EQ(info.value().generation, 0u);
  }
}

TEST(SwitchResponder, FullTableAnswersTableFullAndKeepsWhatItHas) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  FakeSwitch sw(fabric, kSwitchLid, switch_config(/*capacity=*/3));
  MadClient client(*client_end, quick());
  for (std::uint16_t d = 1; d <= 3; ++d) {
    auto r = client.flow_mod(kSwitchLid, kKey, add_dlid(d));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value().affected, 1u);
  }
  auto full = client.flow_mod(kSwitchLid, kKey, add_dlid(4));
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().status, Status::kTableFull);
  // Replacing an existing entry needs no room.
  auto replace = add_dlid(2);
  replace.action.output = PortNum(5);
  EXPECT_TRUE(client.flow_mod(kSwitchLid, kKey, replace).ok());
  auto read = client.read_table(kSwitchLid, kKey);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read.value().entries.size(), 3u);
  EXPECT_EQ(read.value().entries[1].action.output, PortNum(5));
}

TEST(SwitchResponder, FlowModOutcomesMapToClassStatuses) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  ResponderConfig cfg = switch_config(16, /*ports=*/4);
  cfg.table.level = FlowDefinitionLevel::kDlid;
  FakeSwitch sw(fabric, kSwitchLid, cfg);
  MadClient client(*client_end, quick());

  auto beyond_level = client.flow_mod(kSwitchLid, kKey,
                                      add_mod("priority=1, slid=0x3, dlid=0x40 actions=output:1"));
  ASSERT_FALSE(beyond_level.ok());
  EXPECT_EQ(beyond_level.error().status, Status::kUnsupportedField);

  auto no_such_port =
      client.flow_mod(kSwitchLid, kKey, add_mod("priority=1, dlid=0x40 actions=output:5"));
  ASSERT_FALSE(no_such_port.ok());
  EXPECT_EQ(no_such_port.error().status, Status::kBadAction);

  // A malformed match never leaves a well-behaved client (the codec refuses to encode it), so the
  // mapping is checked where the table reports it.
  FlowTable table;
  FlowMod bad = add_dlid(0x40);
  bad.match.dlid = Masked<std::uint16_t>{0x41, 0xFFF0};
  EXPECT_EQ(to_mad_status(apply_flow_mod(table, bad).status), Status::kMalformedMatch);
  EXPECT_EQ(client.flow_mod(kSwitchLid, kKey, bad).error().kind, ClientErrorKind::kInvalidRequest);
}

TEST(SwitchResponder, DeletesAndModifiesFollowOpenFlowSemantics) {
  FlowTable t({16, FlowDefinitionLevel::kSlidDlidSlQp, 8});
  ASSERT_TRUE(
      apply_flow_mod(t, add_mod("cookie=0x1, priority=10, dlid=0x40 actions=output:1")).ok());
  ASSERT_TRUE(
      apply_flow_mod(t, add_mod("cookie=0x1, priority=10, dlid=0x41 actions=output:1")).ok());
  ASSERT_TRUE(
      apply_flow_mod(t, add_mod("cookie=0x2, priority=10, dlid=0x42 actions=output:1")).ok());
  ASSERT_TRUE(
      apply_flow_mod(t, add_mod("cookie=0x2, priority=20, dlid=0x40 actions=output:1")).ok());

  // MODIFY (non-strict) restricted to cookie 0x2: both of job 2's entries, nothing else.
  FlowMod mod;
  mod.command = FlowModCommand::kModify;
  mod.cookie = 0x2;
  mod.cookie_mask = ~std::uint64_t{0};
  mod.action.output = PortNum(6);
  EXPECT_EQ(apply_flow_mod(t, mod).affected, 2u);

  // DELETE_STRICT of a match that exists at another priority removes nothing.
  FlowMod strict;
  strict.command = FlowModCommand::kDeleteStrict;
  strict.priority = 30;
  strict.match = FlowMatch::exact_dlid(Lid(0x40));
  EXPECT_EQ(apply_flow_mod(t, strict).affected, 0u);

  // DELETE by match and cookie: dlid 0x40 of job 1 only.
  FlowMod del;
  del.command = FlowModCommand::kDelete;
  del.match = FlowMatch::exact_dlid(Lid(0x40));
  del.cookie = 0x1;
  del.cookie_mask = ~std::uint64_t{0};
  EXPECT_EQ(apply_flow_mod(t, del).affected, 1u);
  ASSERT_EQ(t.size(), 3u);

  EXPECT_EQ(apply_flow_mod(t, delete_cookie(0x2)).affected, 2u);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.entries()[0].cookie, 0x1u);
  EXPECT_EQ(t.entries()[0].action.output, PortNum(1));
}

TEST(SwitchResponder, MalformedMadsGetTheDecodersStatusAndTheAgentKeepsServing) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  FakeSwitch sw(fabric, kSwitchLid, switch_config());
  MadClient client(*client_end, quick(/*retries=*/0));

  MadBytes bad_version = table_info_request(0x101);
  bad_version[2] = 2;  // ClassVersion
  auto r1 = client.raw(kSwitchLid, bad_version);
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  EXPECT_EQ(r1.value().status, Status::kBadVersion);
  const auto echoed = peek_header(r1.value().bytes);
  EXPECT_EQ(tid_low(echoed->tid), 0x101u);
  EXPECT_EQ(echoed->method, static_cast<std::uint8_t>(Method::kGetResp));

  MadBytes bad_method = table_info_request(0x102);
  bad_method[3] = 0x03;
  auto r2 = client.raw(kSwitchLid, bad_method);
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ(r2.value().status, Status::kUnsupportedMethod);

  MadBytes junk_body = table_info_request(0x103);
  junk_body[100] = 0xAB;
  auto r3 = client.raw(kSwitchLid, junk_body);
  ASSERT_TRUE(r3.ok()) << r3.error().message;
  EXPECT_EQ(r3.value().status, Status::kInvalidField);

  // Too short to carry a header (raw() would pad it): nothing to answer.
  const std::uint8_t short_mad[10] = {1, 9, 1, 1};
  client_end->send(kSwitchLid, std::span<const std::uint8_t>(short_mad, 10));
  EXPECT_FALSE(client_end->receive(100ms).has_value());

  auto info = client.table_info(kSwitchLid, kKey);
  EXPECT_TRUE(info.ok()) << info.error().message;
}

TEST(SwitchResponder, NeverAnswersResponsesOrOtherClasses) {
  SwitchResponder r(switch_config());
  MadBytes resp = table_info_request(7);
  resp[3] = static_cast<std::uint8_t>(Method::kGetResp);
  EXPECT_FALSE(r.handle(resp).reply.has_value());
  MadBytes smp = table_info_request(8);
  smp[1] = 0x81;
  EXPECT_FALSE(r.handle(smp).reply.has_value());
  EXPECT_FALSE(r.handle(std::span<const std::uint8_t>(smp.data(), 12)).reply.has_value());
}

TEST(SwitchResponder, BarrierReportsTheGenerationAfterEarlierFlowMods) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  FakeSwitch sw(fabric, kSwitchLid, switch_config());
  MadClient client(*client_end, quick());
  std::vector<FlowModJob> jobs;
  for (std::uint16_t d = 1; d <= 5; ++d) jobs.push_back({kSwitchLid, kKey, add_dlid(d)});
  for (const auto& r : client.flow_mods(jobs)) ASSERT_TRUE(r.ok()) << r.error().message;
  auto b = client.barrier(kSwitchLid, kKey);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b.value().generation, 5u);
}

// --- the client side --------------------------------------------------------------------------

TEST(MadClient, ReadsATableLargerThanOneMadPageByPage) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  FakeSwitch sw(fabric, kSwitchLid, switch_config());
  MadClient client(*client_end, quick());
  std::vector<FlowEntry> sent;
  for (std::uint16_t d = 1; d <= 37; ++d) {
    FlowMod m = add_dlid(d, d % 3);
    if (d % 5 == 0) m.action.set_sl = ServiceLevel(static_cast<std::uint8_t>(d % 16));
    if (d % 7 == 0) m.match.slid = Masked<std::uint16_t>{static_cast<std::uint16_t>(d), 0xFFFF};
    ASSERT_TRUE(client.flow_mod(kSwitchLid, kKey, m).ok());
    sent.push_back(FlowEntry{m.cookie, m.priority, m.match, m.action, 0});
  }
  auto read = client.read_table(kSwitchLid, kKey);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read.value().entries.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_TRUE(read.value().entries[i].same_rule(sent[i])) << format_flow(read.value().entries[i]);
  }
  EXPECT_EQ(read.value().restarts, 0);
  EXPECT_GT(sw.requests(), 37 + 37 / static_cast<int>(kMaxStatsEntriesPerMad));
}

TEST(MadClient, PagesFitWhatUmad2simDelivers) {
  // umad2sim hands over only the first 224 bytes of a MAD; the agent cuts its pages to fit.
  LoopbackFabric fabric(kUmad2simIntactBytes);
  auto client_end = fabric.attach(kClientLid);
  ResponderConfig cfg = switch_config();
  cfg.reply_bytes = kUmad2simIntactBytes;
  FakeSwitch sw(fabric, kSwitchLid, cfg);
  MadClient client(*client_end, quick());
  std::vector<FlowEntry> sent;
  for (std::uint16_t d = 1; d <= 23; ++d) {
    FlowMod m = add_dlid(d, 0xFFFFFFFFFFFF0000u + d);
    m.match.slid = Masked<std::uint16_t>{d, 0xFFFF};
    m.match.sl = Masked<std::uint8_t>{3, 0xF};
    m.match.dest_qp = Masked<std::uint32_t>{0xABCDE, 0xFFFFFF};
    m.action.set_sl = ServiceLevel(9);
    ASSERT_TRUE(client.flow_mod(kSwitchLid, kKey, m).ok());
    sent.push_back(FlowEntry{m.cookie, m.priority, m.match, m.action, 0});
  }
  auto read = client.read_table(kSwitchLid, kKey);
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read.value().entries.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_TRUE(read.value().entries[i].same_rule(sent[i])) << format_flow(read.value().entries[i]);
  }
}

TEST(MadClient, FlowModAffectedSurvivesWhatUmad2simDelivers) {
  // The GetResp's `affected` sits below byte 224 (wire-format revision 2): the requester gets the
  // real count although only 224 bytes of each MAD arrive.
  LoopbackFabric fabric(kUmad2simIntactBytes);
  auto client_end = fabric.attach(kClientLid);
  ResponderConfig cfg = switch_config();
  cfg.reply_bytes = kUmad2simIntactBytes;
  FakeSwitch sw(fabric, kSwitchLid, cfg);
  MadClient client(*client_end, quick());
  for (std::uint16_t d = 1; d <= 3; ++d) {
    auto r = client.flow_mod(kSwitchLid, kKey, add_dlid(d, 0x77));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value().affected, 1u);
  }
  auto del = client.flow_mod(kSwitchLid, kKey, delete_cookie(0x77));
  ASSERT_TRUE(del.ok()) << del.error().message;
  EXPECT_EQ(del.value().affected, 3u);
}

TEST(MadClient, ReadRestartsWhenTheTableChangesMidRead) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  bool changed = false;
  FakeSwitch sw(
      fabric, kSwitchLid, switch_config(), [&](const ReceivedMad& in, SwitchResponder& r) {
        const auto h = peek_header(in.bytes);
        if (!changed && h->attr_id == static_cast<std::uint16_t>(AttributeId::kFlowStats) &&
            h->attr_mod > 0) {
          changed = true;  // another controller thread adds an entry between pages
          FlowEntry e;
          e.match = FlowMatch::exact_dlid(Lid(0x999));
          e.action.output = PortNum(1);
          r.table().add(e);
        }
        return false;
      });
  MadClient client(*client_end, quick());
  for (std::uint16_t d = 1; d <= 9; ++d)
    ASSERT_TRUE(client.flow_mod(kSwitchLid, kKey, add_dlid(d)).ok());
  auto read = client.read_table(kSwitchLid, kKey);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read.value().restarts, 1);
  ASSERT_EQ(read.value().entries.size(), 10u);
  EXPECT_EQ(read.value().entries.back().match.dlid->value, 0x999);
}

TEST(MadClient, ReadGivesUpWhenTheTableNeverSettles) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  std::uint16_t next = 0x500;
  FakeSwitch sw(
      fabric, kSwitchLid, switch_config(), [&](const ReceivedMad& in, SwitchResponder& r) {
        const auto h = peek_header(in.bytes);
        if (h->attr_id == static_cast<std::uint16_t>(AttributeId::kFlowStats) && h->attr_mod > 0) {
          FlowEntry e;
          e.match = FlowMatch::exact_dlid(Lid(next++));
          e.action.output = PortNum(1);
          r.table().add(e);
        }
        return false;
      });
  ClientOptions o = quick();
  o.read_restarts = 2;
  MadClient client(*client_end, o);
  for (std::uint16_t d = 1; d <= 9; ++d)
    ASSERT_TRUE(client.flow_mod(kSwitchLid, kKey, add_dlid(d)).ok());
  auto read = client.read_table(kSwitchLid, kKey);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ClientErrorKind::kUnstable);
}

TEST(MadClient, RetriesUntilTheSwitchAnswers) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  int dropped = 0;
  FakeSwitch sw(fabric, kSwitchLid, switch_config(),
                [&](const ReceivedMad&, SwitchResponder&) { return dropped++ < 2; });
  ClientOptions o = quick(/*retries=*/2);
  o.timeout = 200ms;  // each drop costs one; long enough that no answer is ever late
  MadClient client(*client_end, o);
  auto r = client.flow_mod(kSwitchLid, kKey, add_dlid(0x40));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(client.stats().retransmits, 2u);
  EXPECT_EQ(client.stats().sent, 3u);
}

TEST(MadClient, TimesOutAfterTheLastRetry) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  FakeSwitch sw(fabric, kSwitchLid, switch_config(),
                [](const ReceivedMad&, SwitchResponder&) { return true; });
  MadClient client(*client_end, quick(/*retries=*/2));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = client.table_info(kSwitchLid, kKey);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ClientErrorKind::kTimeout);
  EXPECT_NE(r.error().message.find("3 attempt(s)"), std::string::npos) << r.error().message;
  EXPECT_GE(elapsed, 150ms);
  EXPECT_EQ(sw.requests(), 3);
}

TEST(MadClient, AnUnreachableLidFailsWithoutWaitingOutTheTimeouts) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  ClientOptions o = quick(/*retries=*/1);
  o.timeout = 2s;
  MadClient client(*client_end, o);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = client.barrier(Lid(0x77), kKey);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ClientErrorKind::kTimeout);
  EXPECT_NE(r.error().message.find("undelivered"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
}

TEST(MadClient, IgnoresStrayAnswers) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  auto impostor = fabric.attach(Lid(3));
  auto switch_end = fabric.attach(kSwitchLid);
  SwitchResponder responder(switch_config());
  std::thread agent([&] {
    auto in = switch_end->receive(2s);
    ASSERT_TRUE(in.has_value());
    Handled h = responder.handle(in->bytes);
    ASSERT_TRUE(h.reply.has_value());
    MadBytes other_tid = *h.reply;
    other_tid[15] ^= 0x5A;
    switch_end->send(kClientLid, other_tid);  // a late answer to some other request
    impostor->send(kClientLid, *h.reply);     // the right TID from the wrong LID
    switch_end->send(kClientLid, *h.reply);
  });
  MadClient client(*client_end, quick());
  auto r = client.table_info(kSwitchLid, kKey);
  agent.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(client.stats().strays, 2u);
}

TEST(MadClient, PipelinesFlowModsToManySwitches) {
  LoopbackFabric fabric;
  auto client_end = fabric.attach(kClientLid);
  std::vector<std::unique_ptr<LoopbackTransport>> ends;
  std::vector<std::unique_ptr<SwitchResponder>> switches;
  std::vector<std::thread> agents;
  std::atomic<bool> stop{false};
  for (std::uint16_t i = 0; i < 4; ++i) {
    ends.push_back(fabric.attach(Lid(static_cast<std::uint16_t>(10 + i))));
    switches.push_back(std::make_unique<SwitchResponder>(switch_config()));
  }
  for (std::size_t i = 0; i < ends.size(); ++i) {
    agents.emplace_back([&, i] { serve(*ends[i], *switches[i], stop, {}, {5ms, 50}); });
  }
  std::vector<FlowModJob> jobs;
  for (std::uint16_t d = 1; d <= 100; ++d) {
    for (std::uint16_t i = 0; i < 4; ++i) {
      jobs.push_back({Lid(static_cast<std::uint16_t>(10 + i)), kKey, add_dlid(d, 10 + i)});
    }
  }
  jobs.push_back({Lid(11), kKey + 1, add_dlid(1000)});  // one refused in the middle of the stream
  ClientOptions o = quick(2, /*window=*/16);
  o.timeout = 2s;  // no retransmission however loaded the test machine is
  MadClient client(*client_end, o);
  const auto results = client.flow_mods(jobs);
  ASSERT_EQ(results.size(), jobs.size());
  for (std::size_t k = 0; k + 1 < results.size(); ++k) {
    ASSERT_TRUE(results[k].ok()) << results[k].error().message;
  }
  EXPECT_EQ(results.back().error().status, Status::kBadKey);
  for (std::uint16_t i = 0; i < 4; ++i) {
    auto info = client.table_info(Lid(static_cast<std::uint16_t>(10 + i)), kKey);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info.value().used, 100u);
  }
  EXPECT_EQ(client.stats().retransmits, 0u);
  stop = true;
  for (auto& t : agents) t.join();
}

}  // namespace
}  // namespace ibsdn::mad
