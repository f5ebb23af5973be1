// The controller through its C ABI, as the glue drives it: a fake glue whose send_mad hands
// requests to mad::SwitchResponder instances (the agents' logic) on threads of their own, as the
// vendor layer's receiver would, and a client on the real notice socket. The real-process
// version of these scenarios (ibsim, opensm, agents) is tests/integration/controller_ibsim.sh.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "flowtable/flow_text.hpp"
#include "mad/mad_codec.hpp"
#include "mad/switch_responder.hpp"
#include "osmsdn_abi.h"
#include "plugin/abi_fabric.hpp"
#include "plugin/sdn_engine.hpp"
#include "plugin/tests/abi_test_fabric.hpp"
#include "routing/xgft.hpp"
#include "tests/param_names.hpp"

namespace ibsdn::plugin {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr std::uint64_t kKey = 0x5eed;

/// Stands in for plugin/glue: records the log, answers MADs on threads of its own, or leaves
/// them unanswered (a switch without an agent).
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

  /// Joins the answering threads; call after osmsdn_stop and before osmsdn_destroy.
  void join() {
    std::vector<std::thread> t;
    {
      std::lock_guard lock(mu_);
      t.swap(threads_);
    }
    for (auto& th : t) th.join();
  }

  void attach_agent(Lid lid, std::uint8_t ports, std::uint32_t capacity = 4096) {
    mad::ResponderConfig cfg;
    cfg.key = kKey;
    cfg.table.num_ports = ports;
    cfg.table.capacity = capacity;
    std::lock_guard lock(mu_);
    agents_[lid.value()] = std::make_unique<mad::SwitchResponder>(cfg);
  }
  void detach_agent(Lid lid) {
    std::lock_guard lock(mu_);
    agents_.erase(lid.value());
  }
  /// The agent's table as rules (counters dropped), in installation order.
  std::vector<std::string> table(Lid lid) {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (FlowEntry e : agents_.at(lid.value())->table().entries()) {
      e.n_packets = 0;
      out.push_back(format_flow(e));
    }
    return out;
  }
  void set_ctx(osmsdn_ctx* ctx) { ctx_ = ctx; }
  [[nodiscard]] const osmsdn_glue_ops& ops() const { return ops_; }

  bool wait_for(const std::string& text, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return count_locked(text) > 0; });
  }
  std::size_t count(const std::string& text) {
    std::lock_guard lock(mu_);
    return count_locked(text);
  }
  std::string log_text() {
    std::lock_guard lock(mu_);
    std::string out;
    for (const auto& l : log_) out += l + "\n";
    return out;
  }

 private:
  int send(std::uint16_t dlid, const std::uint8_t* bytes) {
    mad::MadBytes request{};
    std::memcpy(request.data(), bytes, request.size());
    std::lock_guard lock(mu_);
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
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
};

/// XGFT(2;4,4;1,4) with the sdn engine's LFTs, as OpenSM would hand them over.
struct TestFabric {
  Fabric fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LidMap lids = sequential_lids(fabric);
  test::AbiBuffers abi = test::to_abi(fabric, lids);
  std::vector<std::vector<std::uint8_t>> lft_bytes;
  std::vector<osmsdn_lft> lfts;

  TestFabric() {
    plugin::Subnet f = subnet_from_abi(abi.view);
    const SdnTables t = compute_sdn_tables(f);
    for (const NodeIdx sw : fabric.switches()) {
      lft_bytes.emplace_back(lids.max_lid().value() + 1u, OSMSDN_NO_PATH);
      lfts.push_back(osmsdn_lft{fabric.node(sw).guid.value(), lft_bytes.back().data(),
                                static_cast<std::uint32_t>(lft_bytes.back().size())});
    }
    write_tables(f, t.lfts, lfts);
  }
  [[nodiscard]] std::vector<Lid> switch_lids() const {
    std::vector<Lid> out;
    for (const NodeIdx sw : fabric.switches()) out.push_back(lids.lid(sw, PortNum(0)));
    return out;
  }
  void attach_all(FakeGlue& glue, std::uint32_t capacity = 4096) const {
    for (const NodeIdx sw : fabric.switches()) {
      glue.attach_agent(lids.lid(sw, PortNum(0)),
                        static_cast<std::uint8_t>(fabric.node(sw).ports.size()), capacity);
    }
  }
};

/// A configuration, socket and state directory of its own under /tmp.
struct Sandbox {
  std::filesystem::path dir;
  std::string options;

  explicit Sandbox(const std::string& extra = "") {
    char tmpl[] = "/tmp/ibsdn-bridge-XXXXXX";
    dir = ::mkdtemp(tmpl);
    std::ofstream(dir / "ibsdn.yaml")
        << "notice_socket: " << (dir / "notice.sock").string()
        << "\nstate_dir: " << (dir / "state").string() << "\nswitch_key: 0x5eed\n"
        << "mad: {timeout_ms: 40, retries: 1}\n"
        << "audit_interval_ms: 0\n"
        << extra;
    options = "config=" + (dir / "ibsdn.yaml").string();
  }
  ~Sandbox() { std::filesystem::remove_all(dir); }
  [[nodiscard]] std::string socket() const { return (dir / "notice.sock").string(); }
};

/// One request line, one response line.
json ask(const std::string& socket_path, const json& request) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    ADD_FAILURE() << "connect " << socket_path << ": " << std::strerror(errno);
    return json();
  }
  const std::string line = request.dump() + "\n";
  EXPECT_EQ(::send(fd, line.data(), line.size(), MSG_NOSIGNAL), static_cast<ssize_t>(line.size()));
  std::string in;
  char buf[4096];
  while (in.find('\n') == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return json::parse(in);
}

json job_start(std::uint64_t job, const std::string& pattern, int first = 1, int nodes = 16) {
  json r = {{"v", 1}, {"op", "job_start"}, {"job", job}, {"user", "root"}, {"pattern", pattern}};
  r["nodes"] = json::array();
  for (int i = first; i < first + nodes; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "n%04d", i);
    r["nodes"].push_back(name);
  }
  return r;
}

/// Every entry the controller intends, per switch LID, as format_flow text.
std::map<std::uint16_t, std::vector<std::string>> intent(const std::string& socket_path) {
  const json r = ask(socket_path, {{"v", 1}, {"op", "flows"}});
  std::map<std::uint16_t, std::vector<std::string>> out;
  for (const json& sw : r.at("switches")) {
    auto& list = out[sw.at("lid").get<std::uint16_t>()];
    for (const json& e : sw.at("entries")) list.push_back(e.at("text").get<std::string>());
  }
  return out;
}

class Running {
 public:
  Running(FakeGlue& glue, const Sandbox& box, const TestFabric& s) : glue_(glue) {
    EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx_), OSMSDN_OK)
        << glue.log_text();
    glue.set_ctx(ctx_);
    EXPECT_EQ(osmsdn_fabric_updated(ctx_, &s.abi.view, s.lfts.data(),
                                    static_cast<std::uint32_t>(s.lfts.size()), "sdn"),
              OSMSDN_OK);
    EXPECT_TRUE(glue.wait_for("audit after SUBNET UP")) << glue.log_text();
  }
  ~Running() { stop(); }
  void stop() {
    if (ctx_ == nullptr) return;
    osmsdn_stop(ctx_);
    glue_.join();
    osmsdn_destroy(ctx_);
    ctx_ = nullptr;
  }

 private:
  FakeGlue& glue_;
  osmsdn_ctx* ctx_ = nullptr;
};

std::size_t total(const std::map<std::uint16_t, std::vector<std::string>>& m) {
  std::size_t n = 0;
  for (const auto& [lid, e] : m) n += e.size();
  return n;
}

TEST(ControllerBridge, JobStartInstallsTheIntendedEntriesOnEverySwitchAndJobEndRemovesThem) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);

  const json ready = ask(box.socket(), job_start(42, "random-perm"));
  ASSERT_TRUE(ready.value("ok", false)) << ready.dump();
  EXPECT_EQ(ready.at("flows").get<int>(), 16);
  EXPECT_FALSE(ready.at("degraded").get<bool>()) << ready.dump();
  // SDN-optimal on a full-bisection fat-tree: L_D equals the bound.
  EXPECT_EQ(ready.at("max_link_load").get<double>(), ready.at("bound").get<double>());

  const auto intended = intent(box.socket());
  EXPECT_EQ(total(intended), ready.at("entries").get<std::size_t>());
  for (const Lid l : s.switch_lids()) {
    const auto it = intended.find(l.value());
    const std::vector<std::string> want =
        it == intended.end() ? std::vector<std::string>{} : it->second;
    EXPECT_EQ(glue.table(l), want) << "switch LID " << l.value();
  }
  const json audit = ask(box.socket(), {{"v", 1}, {"op", "audit"}});
  EXPECT_TRUE(audit.at("consistent").get<bool>()) << audit.dump();

  const json end = ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 42}});
  ASSERT_TRUE(end.value("ok", false)) << end.dump();
  for (const Lid l : s.switch_lids()) EXPECT_TRUE(glue.table(l).empty());
  EXPECT_EQ(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").size(), 0u);
}

json job_on(std::uint64_t job, const std::vector<std::string>& nodes, const std::string& pattern,
            const std::string& algorithm) {
  return {{"v", 1},
          {"op", "job_start"},
          {"job", job},
          {"user", "root"},
          {"nodes", nodes},
          {"pattern", pattern},
          {"algorithm", algorithm}};
}

class TwoJobs : public ::testing::TestWithParam<const char*> {};

TEST_P(TwoJobs, TheSecondJobRoutesAroundTheFirstJobsLoad) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  // Both jobs have two hosts on each of the first two leaves and send every flow across: four
  // flows leave each leaf over its four up links. Routed alone, each job takes up ports 5 and 6
  // of both leaves; one flow per link is only possible if the second job avoids the first's.
  const json a =
      ask(box.socket(), job_on(1, {"n0001", "n0002", "n0005", "n0006"}, "shift:k=2", GetParam()));
  const json b =
      ask(box.socket(), job_on(2, {"n0003", "n0004", "n0007", "n0008"}, "shift:k=2", GetParam()));
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  ASSERT_TRUE(b.value("ok", false)) << b.dump();
  EXPECT_EQ(b.at("max_link_load").get<double>(), 1.0) << b.dump();
  const json links = ask(box.socket(), {{"v", 1}, {"op", "links"}, {"top", 1}});
  EXPECT_EQ(links.at("links").at(0).at("flows").get<int>(), 1) << links.dump();
  EXPECT_EQ(links.at("swml_flows").get<int>(), 1) << links.dump();
}

INSTANTIATE_TEST_SUITE_P(Algorithms, TwoJobs, ::testing::Values("sdn-greedy", "sdn-optimal"),
                         testing_names::ByText());

TEST(ControllerBridge, ARepeatedJobStartGetsTheSameAnswerAndAConflictingOneARefusal) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  const json a = ask(box.socket(), job_start(1, "shift:k=4", 1, 8));
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  EXPECT_EQ(ask(box.socket(), job_start(1, "shift:k=4", 1, 8)), a);
  const json other = ask(box.socket(), job_start(1, "random-perm", 1, 8));
  EXPECT_EQ(other.at("error").at("code"), "invalid") << other.dump();
}

// The notice protocol checks only an algorithm name's syntax; the controller knows which exist and
// answers as the parser did when it still knew them: invalid, at /algorithm, nothing routed.
TEST(ControllerBridge, UnknownAlgorithm_IsRefusedInvalidAtTheAlgorithmField) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  json start = job_start(1, "ring", 1, 4);
  start["algorithm"] = "fastest";
  const json refused = ask(box.socket(), start);
  EXPECT_EQ(refused.at("error").at("code"), "invalid") << refused.dump();
  EXPECT_EQ(refused.at("error").at("at"), "/algorithm") << refused.dump();
  EXPECT_EQ(refused.at("error").at("message").get<std::string>().rfind(
                "at /algorithm: unknown routing algorithm 'fastest' (known: dmodk, ", 0),
            0u)
      << refused.dump();
  EXPECT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").empty());
  start["algorithm"] = "sdn-greedy";
  const json ready = ask(box.socket(), start);
  EXPECT_EQ(ready.value("algorithm", ""), "sdn-greedy") << ready.dump();
}

TEST(ControllerBridge, JobsAndEntriesSurviveARestartAndAnEmptiedSwitchIsRepaired) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  std::map<std::uint16_t, std::vector<std::string>> before;
  {
    Running run(glue, box, s);
    ASSERT_TRUE(ask(box.socket(), job_start(7, "random-perm")).value("ok", false));
    before = intent(box.socket());
  }
  ASSERT_GT(total(before), 0u);
  // An agent restarted empty while the SM was down.
  const Lid emptied(before.begin()->first);
  s.attach_all(glue);  // fresh responders everywhere: all tables empty
  Running again(glue, box, s);
  EXPECT_EQ(intent(box.socket()), before);
  for (const Lid l : s.switch_lids()) {
    const auto it = before.find(l.value());
    EXPECT_EQ(glue.table(l), it == before.end() ? std::vector<std::string>{} : it->second)
        << "switch LID " << l.value();
  }
  EXPECT_GE(glue.count("repaired to its"), 1u);
  (void)emptied;
  const json jobs = ask(box.socket(), {{"v", 1}, {"op", "jobs"}});
  ASSERT_EQ(jobs.at("jobs").size(), 1u);
  EXPECT_EQ(jobs.at("jobs").at(0).at("job").get<int>(), 7);
}

TEST(ControllerBridge, ASilentSwitchGivesADegradedReadyInBoundedTimeWithNothingRelyingOnIt) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  // Entries sit where paths go up: at the leaves. A leaf that does not answer.
  const NodeIdx leaf = *s.fabric.find("l1s001");
  glue.detach_agent(s.lids.lid(leaf, PortNum(0)));
  const auto t0 = std::chrono::steady_clock::now();
  const json ready = ask(box.socket(), job_start(3, "random-perm"));
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(ready.value("ok", false)) << ready.dump();
  EXPECT_TRUE(ready.at("degraded").get<bool>());
  EXPECT_NE(ready.at("warnings").dump().find("l1s001"), std::string::npos) << ready.dump();
  EXPECT_LT(took, 5s);  // job_start_timeout_ms' default; the MAD timeouts are 40 ms here
  // Nothing is intended for the silent leaf: its hosts' flows take its default routes.
  for (const auto& [lid, entries] : intent(box.socket())) {
    EXPECT_NE(lid, s.lids.lid(leaf, PortNum(0)).value());
  }
}

TEST(ControllerBridge, RefusesJobNoticesFromOtherUsersAndBadNoticesLeavingStateIntact) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to send as another uid";
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  ::chmod(box.dir.c_str(), 0755);
  Running run(glue, box, s);
  ASSERT_TRUE(ask(box.socket(), job_start(5, "random-perm")).value("ok", false));
  const auto before = intent(box.socket());
  // The socket is 0600 root: "nobody" cannot even connect.
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, box.socket().c_str(), sizeof(addr.sun_path) - 1);
    ::_exit(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 ? 11 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "exit " << WEXITSTATUS(status);

  const json unknown = ask(box.socket(), job_start(6, "random-perm", 10, 8));
  EXPECT_EQ(unknown.at("error").at("code"), "unknown_host") << unknown.dump();
  EXPECT_NE(unknown.dump().find("n0017"), std::string::npos);
  const json not_active = ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 99}});
  EXPECT_EQ(not_active.at("error").at("code"), "unknown_job");
  const json phase =
      ask(box.socket(),
          {{"v", 1}, {"op", "phase"}, {"job", 5}, {"action", "begin"}, {"name", "undeclared"}});
  EXPECT_EQ(phase.at("error").at("code"), "unknown_phase") << phase.dump();
  EXPECT_EQ(intent(box.socket()), before);
  EXPECT_EQ(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").size(), 1u);
}

TEST(ControllerBridge, PhasesSwapTheJobsEntriesAndRouteShowsWhereEntriesOverride) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  json start = job_start(8, "shift:k=1");
  start["phases"] = json::array({{{"name", "exchange"}, {"pattern", "random-perm"}}});
  ASSERT_TRUE(ask(box.socket(), start).value("ok", false));
  const auto base = intent(box.socket());
  const json begin =
      ask(box.socket(),
          {{"v", 1}, {"op", "phase"}, {"job", 8}, {"action", "begin"}, {"name", "exchange"}});
  ASSERT_TRUE(begin.value("ok", false)) << begin.dump();
  const auto during = intent(box.socket());
  EXPECT_NE(during, base);
  for (const Lid l : s.switch_lids()) {
    const auto it = during.find(l.value());
    EXPECT_EQ(glue.table(l), it == during.end() ? std::vector<std::string>{} : it->second);
  }
  const json end =
      ask(box.socket(),
          {{"v", 1}, {"op", "phase"}, {"job", 8}, {"action", "end"}, {"name", "exchange"}});
  ASSERT_TRUE(end.value("ok", false)) << end.dump();
  EXPECT_EQ(intent(box.socket()), base);

  // route: the hops the packets take, entries marked with their job.
  bool any_entry = false;
  for (int d = 2; d <= 16 && !any_entry; ++d) {
    char dst[16];
    std::snprintf(dst, sizeof(dst), "n%04d", d);
    const json r = ask(box.socket(), {{"v", 1}, {"op", "route"}, {"src", "n0001"}, {"dst", dst}});
    ASSERT_TRUE(r.value("ok", false)) << r.dump();
    for (const json& h : r.at("hops")) {
      if (h.at("by") == "flow") {
        any_entry = true;
        EXPECT_EQ(h.at("cookie").get<int>(), 8);
      }
    }
  }
  EXPECT_TRUE(any_entry || total(base) == 0);
}

TEST(ControllerBridge, ComputesTablesAndRefusesABrokenFabricWithoutTouchingThem) {
  TestFabric s;
  FakeGlue glue;
  Sandbox box;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
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

TEST(ControllerBridge, RejectsBadOptionsConfigsAndAbiVersionsWithALogLine) {
  FakeGlue glue;
  osmsdn_ctx* ctx = reinterpret_cast<osmsdn_ctx*>(&glue);
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), "colour=blue", &ctx),
            OSMSDN_ERR_INVALID);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(glue.count("unknown option 'colour'"), 1u);
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION + 1, &glue.ops(), nullptr, &ctx), OSMSDN_ERR_INVALID);
  EXPECT_EQ(glue.count("rebuild libosmsdn.so"), 1u);

  Sandbox box("table_capacity: lots\n");
  EXPECT_NE(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(glue.count("ibsdn.yaml:6:"), 1u) << glue.log_text();
  Sandbox missing;
  std::filesystem::remove(missing.dir / "ibsdn.yaml");
  EXPECT_NE(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), missing.options.c_str(), &ctx),
            OSMSDN_OK);
  EXPECT_EQ(glue.count("cannot read"), 1u) << glue.log_text();
}

TEST(ControllerBridge, IgnoresAnswersThatMatchNoRequest) {
  FakeGlue glue;
  Sandbox box;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  mad::SdnMad m;
  m.hdr.method = mad::Method::kGetResp;
  m.hdr.attr_id = mad::AttributeId::kTableInfo;
  m.hdr.tid = 0x0001000012345678;
  m.key = kKey;
  m.payload = mad::TableInfo{};
  const mad::MadBytes b = mad::encode(m);
  osmsdn_mad_received(ctx, 7, b.data());
  osmsdn_mad_send_failed(ctx, 7, b.data(), 1);
  const json stats = ask(box.socket(), {{"v", 1}, {"op", "stats"}});
  EXPECT_TRUE(stats.value("ok", false)) << stats.dump();
  osmsdn_stop(ctx);
  osmsdn_mad_received(ctx, 7, b.data());  // after stop: dropped quietly
  osmsdn_destroy(ctx);
}

}  // namespace
}  // namespace ibsdn::plugin
