// Test harness: the controller through its C ABI, as the glue drives it, in-process. A fake glue
// whose send_mad hands requests to mad::SwitchResponder instances (the agents' logic) on threads
// of their own, as the vendor layer's receiver would; a configuration, socket and state directory
// of their own; and clients on the real notice socket (also as another uid). Shared by the
// controller's tests and those of the clients that talk to it (hints/).
#pragma once

#include <grp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "flowtable/flow_text.hpp"
#include "mad/mad_codec.hpp"
#include "mad/switch_responder.hpp"
#include "osmsdn_abi.h"
#include "plugin/opensm/abi_fabric.hpp"
#include "plugin/opensm/sdn_engine.hpp"
#include "routing/xgft.hpp"
#include "tests/unit/plugin/abi_test_fabric.hpp"

namespace ibsdn::plugin::test {

using namespace std::chrono_literals;
using nlohmann::json;

inline constexpr std::uint64_t kKey = 0x5eed;

/// Stands in for plugin/opensm/glue: records the log, answers MADs on threads of its own, or leaves
/// them unanswered (a switch without an agent).
class FakeGlue {
 public:
  FakeGlue() {
    ops_.glue = this;
    ops_.log = [](void* g, osmsdn_log_level level, const char* m) {
      auto* self = static_cast<FakeGlue*>(g);
      std::lock_guard lock(self->mu_);
      self->log_.emplace_back(m);
      self->levels_.push_back(level);
      self->cv_.notify_all();
    };
    ops_.send_mad = [](void* g, std::uint16_t dlid, const std::uint8_t* mad) {
      return static_cast<FakeGlue*>(g)->send(dlid, mad);
    };
    ops_.sm_state = [](void* g) { return static_cast<FakeGlue*>(g)->sm_state_.load(); };
  }
  /// OpenSM's SM state as the glue reports it (enum osmsdn_sm_state); MASTER at first.
  void set_sm_state(int state) {
    sm_state_.store(state);
    if (ctx_ != nullptr) osmsdn_sm_state_changed(ctx_, state);
  }
  /// MADs the controller sent so far, to any switch.
  std::size_t sent_total() {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (const auto& [lid, count] : sent_) n += count;
    return n;
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

  /// Gives the glue LFTs it writes and reads as OpenSM would (call before osmsdn_create): the
  /// switches' tables, by switch GUID, start as `tables`. Switches in `silent` do not answer.
  void enable_lfts(const std::vector<osmsdn_lft>& tables) {
    std::lock_guard lock(mu_);
    // OpenSM's tables are whole blocks (osm_switch_t.lft_size), unset LIDs OSM_NO_PATH.
    for (const osmsdn_lft& t : tables) {
      auto& table = lfts_[t.switch_guid];
      table.assign(t.ports, t.ports + t.size);
      table.resize(
          (t.size + OSMSDN_LFT_BLOCK_SIZE - 1) / OSMSDN_LFT_BLOCK_SIZE * OSMSDN_LFT_BLOCK_SIZE,
          OSMSDN_NO_PATH);
    }
    ops_.lft_write = [](void* g, const osmsdn_lft_block* b, std::uint32_t n, std::uint32_t,
                        std::uint8_t* confirmed) -> int {
      auto* self = static_cast<FakeGlue*>(g);
      std::lock_guard guard(self->mu_);
      for (std::uint32_t i = 0; i < n; ++i) {
        std::uint8_t* block = self->lft_block(b[i]);
        confirmed[i] = block != nullptr;
        if (block != nullptr) std::memcpy(block, b[i].ports, OSMSDN_LFT_BLOCK_SIZE);
        if (block != nullptr) ++self->lft_blocks_written_;
      }
      return OSMSDN_OK;
    };
    ops_.lft_read = [](void* g, osmsdn_lft_block* b, std::uint32_t n, std::uint32_t,
                       std::uint8_t* answered) -> int {
      auto* self = static_cast<FakeGlue*>(g);
      std::lock_guard guard(self->mu_);
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint8_t* block = self->lft_block(b[i]);
        answered[i] = block != nullptr;
        if (block != nullptr) std::memcpy(b[i].ports, block, OSMSDN_LFT_BLOCK_SIZE);
      }
      return OSMSDN_OK;
    };
  }
  /// The switches' LFTs now, by switch GUID.
  std::map<std::uint64_t, std::vector<std::uint8_t>> lfts() {
    std::lock_guard lock(mu_);
    return lfts_;
  }
  void set_lft(std::uint64_t guid, std::vector<std::uint8_t> table) {
    std::lock_guard lock(mu_);
    lfts_[guid] = std::move(table);
  }
  std::size_t lft_blocks_written() {
    std::lock_guard lock(mu_);
    return lft_blocks_written_;
  }
  void silence_lft(std::uint64_t guid) {
    std::lock_guard lock(mu_);
    silent_lfts_.insert(guid);
  }
  /// MADs the controller sent to `lid` so far.
  std::size_t sent_to(Lid lid) {
    std::lock_guard lock(mu_);
    return sent_[lid.value()];
  }
  [[nodiscard]] const osmsdn_glue_ops& ops() const { return ops_; }

  bool wait_for(const std::string& text, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return count_locked(text) > 0; });
  }
  std::size_t count(const std::string& text) {
    std::lock_guard lock(mu_);
    return count_locked(text);
  }
  /// Lines at `level` that start with `start` and contain `text`.
  std::size_t count_starting(osmsdn_log_level level, const std::string& start,
                             const std::string& text = "") {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (std::size_t i = 0; i < log_.size(); ++i) {
      n += levels_[i] == level && log_[i].starts_with(start) &&
           log_[i].find(text) != std::string::npos;
    }
    return n;
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
    ++sent_[dlid];
    const auto it = agents_.find(dlid);
    if (it == agents_.end()) return OSMSDN_OK;  // silence: the controller's own timeout
    const mad::Handled h = it->second->handle(request);
    if (!h.reply) return OSMSDN_OK;
    const mad::MadBytes reply = *h.reply;
    threads_.emplace_back([this, dlid, reply] { osmsdn_mad_received(ctx_, dlid, reply.data()); });
    return OSMSDN_OK;
  }
  std::uint8_t* lft_block(const osmsdn_lft_block& b) {
    const auto it = lfts_.find(b.switch_guid);
    if (it == lfts_.end() || silent_lfts_.contains(b.switch_guid)) return nullptr;
    const std::size_t off = std::size_t{b.block} * OSMSDN_LFT_BLOCK_SIZE;
    if (off + OSMSDN_LFT_BLOCK_SIZE > it->second.size()) return nullptr;
    return it->second.data() + off;
  }
  std::size_t count_locked(const std::string& text) const {
    std::size_t n = 0;
    for (const auto& l : log_) n += l.find(text) != std::string::npos ? 1 : 0;
    return n;
  }

  osmsdn_glue_ops ops_{};
  std::atomic<int> sm_state_{OSMSDN_SM_MASTER};
  osmsdn_ctx* ctx_ = nullptr;
  std::map<std::uint16_t, std::unique_ptr<mad::SwitchResponder>> agents_;
  std::map<std::uint16_t, std::size_t> sent_;                // MADs sent, by destination LID
  std::map<std::uint64_t, std::vector<std::uint8_t>> lfts_;  // enable_lfts(): by switch GUID
  std::set<std::uint64_t> silent_lfts_;
  std::size_t lft_blocks_written_ = 0;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
  std::vector<osmsdn_log_level> levels_;  // of each line of log_
};

/// XGFT(2;4,4;1,4) with the sdn engine's LFTs, as OpenSM would hand them over.
struct TestFabric {
  Fabric fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LidMap lids = sequential_lids(fabric);
  test::AbiBuffers abi = test::to_abi(fabric, lids);
  std::vector<std::vector<std::uint8_t>> lft_bytes;
  std::vector<osmsdn_lft> lfts;

  /// `lmc` > 0: every HCA port answers 2^lmc LIDs (base LIDs 2^lmc apart, the switches after).
  explicit TestFabric(std::uint8_t lmc = 0) {
    if (lmc > 0) {
      const auto step = static_cast<std::uint16_t>(1u << lmc);
      lids = LidMap(fabric);
      std::uint16_t next = step;
      for (const NodeIdx h : fabric.hcas()) {
        lids.assign(h, PortNum(1), Lid(next));
        next = static_cast<std::uint16_t>(next + step);
      }
      for (const NodeIdx sw : fabric.switches()) lids.assign(sw, PortNum(0), Lid(next++));
      abi = test::to_abi(fabric, lids);
      for (const NodeIdx h : fabric.hcas()) abi.port(h.value(), 1).lmc = lmc;
      abi.refresh();
    }
    Subnet f = subnet_from_abi(abi.view);
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
        << (extra.find("mad:") == std::string::npos ? "mad: {timeout_ms: 40, retries: 1}\n" : "")
        << (extra.find("audit_interval_ms") == std::string::npos ? "audit_interval_ms: 0\n" : "")
        << extra;
    options = "config=" + (dir / "ibsdn.yaml").string();
  }
  ~Sandbox() { std::filesystem::remove_all(dir); }
  [[nodiscard]] std::string socket() const { return (dir / "notice.sock").string(); }
};

/// One request line, one response line.
inline json ask(const std::string& socket_path, const json& request) {
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

inline json job_start(std::uint64_t job, const std::string& pattern, int first = 1,
                      int nodes = 16) {
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
inline std::map<std::uint16_t, std::vector<std::string>> intent(const std::string& socket_path) {
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
  /// With `subnet_up` false the controller waits for its first SUBNET UP (subnet_up()).
  Running(FakeGlue& glue, const Sandbox& box, const TestFabric& s, bool subnet_up = true)
      : glue_(glue), fabric_(s) {
    EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx_), OSMSDN_OK)
        << glue.log_text();
    glue.set_ctx(ctx_);
    if (subnet_up) this->subnet_up();
  }
  /// Hands over a SUBNET UP and waits until the controller audited after it.
  void subnet_up() {
    const std::size_t before = glue_.count("audit after SUBNET UP");
    EXPECT_EQ(osmsdn_fabric_updated(ctx_, &fabric_.abi.view, fabric_.lfts.data(),
                                    static_cast<std::uint32_t>(fabric_.lfts.size()), "sdn"),
              OSMSDN_OK);
    for (int i = 0; i < 500 && glue_.count("audit after SUBNET UP") == before; ++i) {
      std::this_thread::sleep_for(20ms);
    }
    EXPECT_GT(glue_.count("audit after SUBNET UP"), before) << glue_.log_text();
  }
  ~Running() { stop(); }
  void stop() {
    if (ctx_ == nullptr) return;
    osmsdn_stop(ctx_);
    glue_.join();
    glue_.set_ctx(nullptr);  // the glue's events (SM state) must not reach a freed controller
    osmsdn_destroy(ctx_);
    ctx_ = nullptr;
  }

 private:
  FakeGlue& glue_;
  const TestFabric& fabric_;
  osmsdn_ctx* ctx_ = nullptr;
};

inline std::size_t total(const std::map<std::uint16_t, std::vector<std::string>>& m) {
  std::size_t n = 0;
  for (const auto& [lid, e] : m) n += e.size();
  return n;
}

/// One request line, one response line, sent by a child process as `uid` (group `gid`, which
/// must be the socket's group). Everything the child needs is made before the fork: the child
/// of a process with threads only makes system calls.
inline json ask_as(uid_t uid, gid_t gid, const std::string& socket_path, const json& request) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  const std::string line = request.dump() + "\n";
  int out[2];
  if (::pipe(out) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return json();
  }
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(out[0]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) ::_exit(10);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) ::_exit(11);
    if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
      ::_exit(12);
    }
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      if (::write(out[1], buf, static_cast<std::size_t>(n)) != n) ::_exit(13);
      if (std::memchr(buf, '\n', static_cast<std::size_t>(n)) != nullptr) break;
    }
    ::_exit(0);
  }
  ::close(out[1]);
  std::string in;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof(buf))) > 0;) {
    in.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child as uid " << uid << " exited " << WEXITSTATUS(status);
  return json::parse(in, nullptr, false);
}

}  // namespace ibsdn::plugin::test
