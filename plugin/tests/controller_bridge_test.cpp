// The controller through its C ABI, as the glue drives it, with a fake glue whose send_mad hands
// requests to mad::SwitchResponder instances (the agents' logic) or drops them.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mad/mad_codec.hpp"
#include "mad/switch_responder.hpp"
#include "osmsdn_abi.h"
#include "plugin/tests/abi_test_fabric.hpp"
#include "routing/xgft.hpp"

namespace ibsdn::plugin {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kKey = 0x5eed;

/// Stands in for plugin/glue: records the log, answers MADs on a thread of its own (as the
/// vendor layer's receiver thread would), or leaves them unanswered.
class FakeGlue {
 public:
  FakeGlue() {
    ops_.glue = this;
    ops_.log = [](void* g, osmsdn_log_level, const char* m) {
      auto* self = static_cast<FakeGlue*>(g);
      std::lock_guard lock(self->mu_);
      self->log_.emplace_back(m);
      self->cv_.notify_all();
    };
    ops_.send_mad = [](void* g, std::uint16_t dlid, const std::uint8_t* mad) {
      return static_cast<FakeGlue*>(g)->send(dlid, mad);
    };
  }
  ~FakeGlue() { join(); }

  /// Joins the answering threads; call after osmsdn_stop (no more sends) and before
  /// osmsdn_destroy (they call into the controller).
  void join() {
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  void attach_agent(Lid lid, std::uint8_t ports) {
    mad::ResponderConfig cfg;
    cfg.key = kKey;
    cfg.table.num_ports = ports;
    agents_.emplace(lid.value(), std::make_unique<mad::SwitchResponder>(cfg));
  }
  void set_ctx(osmsdn_ctx* ctx) { ctx_ = ctx; }
  [[nodiscard]] const osmsdn_glue_ops& ops() const { return ops_; }

  /// Waits until a log line contains `text`.
  bool wait_for(const std::string& text, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return count_locked(text) > 0; });
  }
  std::size_t count(const std::string& text) {
    std::lock_guard lock(mu_);
    return count_locked(text);
  }

 private:
  int send(std::uint16_t dlid, const std::uint8_t* bytes) {
    mad::MadBytes request{};
    std::memcpy(request.data(), bytes, request.size());
    const auto it = agents_.find(dlid);
    if (it == agents_.end()) return OSMSDN_OK;  // silence: the controller's own timeout
    const mad::Handled h = it->second->handle(request);
    if (!h.reply) return OSMSDN_OK;
    const mad::MadBytes reply = *h.reply;
    threads_.emplace_back([this, dlid, reply] { osmsdn_mad_received(ctx_, dlid, reply.data()); });
    return OSMSDN_OK;
  }
  std::size_t count_locked(const std::string& text) const {
    std::size_t n = 0;
    for (const auto& l : log_) n += l.find(text) != std::string::npos ? 1 : 0;
    return n;
  }

  osmsdn_glue_ops ops_{};
  osmsdn_ctx* ctx_ = nullptr;
  std::map<std::uint16_t, std::unique_ptr<mad::SwitchResponder>> agents_;
  std::vector<std::thread> threads_;  // only the controller's thread adds to it
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
};

struct Subnet {
  Fabric fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LidMap lids = sequential_lids(fabric);
  test::AbiBuffers abi = test::to_abi(fabric, lids);
};

TEST(ControllerBridge, AsksEverySwitchForTableInfoAfterSubnetUpAndLogsTheAnswers) {
  Subnet s;
  FakeGlue glue;
  for (const NodeIdx sw : s.fabric.switches()) {
    glue.attach_agent(s.lids.lid(sw, PortNum(0)),
                      static_cast<std::uint8_t>(s.fabric.node(sw).ports.size()));
  }
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), "key=0x5eed,mad_timeout_ms=2000", &ctx),
            OSMSDN_OK);
  glue.set_ctx(ctx);
  ASSERT_EQ(osmsdn_fabric_updated(ctx, &s.abi.view, nullptr, 0, "ftree"), OSMSDN_OK);
  EXPECT_TRUE(glue.wait_for("TableInfo round 1: 8 of 8 switches answered"));
  EXPECT_EQ(glue.count("TableInfo from "), 8u);
  EXPECT_EQ(glue.count("TableInfo from l2s004 (LID 24): capacity"), 1u);
  EXPECT_EQ(glue.count("subnet up, routed by 'ftree': 24 nodes (8 switches, 16 CAs), 32 cables"),
            1u);
  osmsdn_stop(ctx);
  glue.join();
  osmsdn_destroy(ctx);
}

TEST(ControllerBridge, ReportsSilentSwitchesAfterItsTimeoutAndRetriesThem) {
  Subnet s;
  FakeGlue glue;
  // Only l1s001 has an agent.
  glue.attach_agent(s.lids.lid(*s.fabric.find("l1s001"), PortNum(0)), 8);
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(),
                          "key=0x5eed,mad_timeout_ms=50,retry_ms=50", &ctx),
            OSMSDN_OK);
  glue.set_ctx(ctx);
  ASSERT_EQ(osmsdn_fabric_updated(ctx, &s.abi.view, nullptr, 0, "sdn"), OSMSDN_OK);
  EXPECT_TRUE(glue.wait_for("TableInfo round 1: 1 of 8 switches answered"));
  EXPECT_GE(glue.count("no TableInfo answer from l2s001 (LID 21) within 50 ms"), 1u);
  // The seven silent switches are asked again, on their own.
  EXPECT_TRUE(glue.wait_for("TableInfo retry round 2: asked 7 switches"));
  osmsdn_stop(ctx);
  glue.join();
  osmsdn_destroy(ctx);
}

TEST(ControllerBridge, ComputesTablesAndRefusesABrokenFabricWithoutTouchingThem) {
  Subnet s;
  FakeGlue glue;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), "poll_table_info=0", &ctx), OSMSDN_OK);
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<osmsdn_lft> lfts;
  for (const NodeIdx sw : s.fabric.switches()) {
    bytes.emplace_back(25, OSMSDN_NO_PATH);
    lfts.push_back(osmsdn_lft{s.fabric.node(sw).guid.value(), bytes.back().data(), 25});
  }
  ASSERT_EQ(osmsdn_compute_lfts(ctx, &s.abi.view, lfts.data(), 8), OSMSDN_OK);
  EXPECT_EQ(bytes[0][1], 1);  // l1s001 sends n0001 (LID 1) down port 1
  EXPECT_EQ(glue.count("sdn engine: dmodk on XGFT(2;4,4;1,4); 8 switch tables"), 1u);

  for (auto& b : bytes) std::fill(b.begin(), b.end(), OSMSDN_NO_PATH);
  s.abi.port(0, 1).peer_node_guid = 0x1234;  // a cable to nowhere
  EXPECT_EQ(osmsdn_compute_lfts(ctx, &s.abi.view, lfts.data(), 8), OSMSDN_ERR_INVALID);
  EXPECT_EQ(glue.count("('n0001 HCA-1') port 1 is cabled to unknown node 0x0000000000001234"), 1u);
  for (const auto& b : bytes) {
    for (const std::uint8_t e : b) EXPECT_EQ(e, OSMSDN_NO_PATH);
  }
  osmsdn_destroy(ctx);
}

TEST(ControllerBridge, RejectsBadOptionsAndAbiVersionsWithALogLine) {
  FakeGlue glue;
  osmsdn_ctx* ctx = reinterpret_cast<osmsdn_ctx*>(&glue);
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), "colour=blue", &ctx),
            OSMSDN_ERR_INVALID);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(glue.count("unknown option 'colour'"), 1u);
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION + 1, &glue.ops(), nullptr, &ctx), OSMSDN_ERR_INVALID);
  EXPECT_EQ(glue.count("rebuild libosmsdn.so"), 1u);
}

TEST(ControllerBridge, IgnoresAnswersThatMatchNoRequest) {
  FakeGlue glue;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), "key=0x5eed", &ctx), OSMSDN_OK);
  mad::SdnMad m;
  m.hdr.method = mad::Method::kGetResp;
  m.hdr.attr_id = mad::AttributeId::kTableInfo;
  m.hdr.tid = 0x0001000012345678;
  m.key = kKey;
  m.payload = mad::TableInfo{};
  const mad::MadBytes b = mad::encode(m);
  osmsdn_mad_received(ctx, 7, b.data());
  osmsdn_mad_send_failed(ctx, 7, b.data(), 1);
  osmsdn_stop(ctx);  // drains the queue: both events were handled (and ignored) by now
  EXPECT_EQ(glue.count("TableInfo from"), 0u);
  EXPECT_EQ(glue.count("no TableInfo answer"), 0u);
  osmsdn_mad_received(ctx, 7, b.data());  // after stop: dropped quietly
  osmsdn_destroy(ctx);
}

}  // namespace
}  // namespace ibsdn::plugin
