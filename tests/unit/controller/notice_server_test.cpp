#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "plugin/controller/notice_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// Generous: the tests wait for events, they never measure speed.
constexpr std::chrono::milliseconds kWait = 5s;

using test::TempDir;

sockaddr_un address_of(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// A blocking client that reads with timeouts.
class Client {
 public:
  explicit Client(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket failed");
    const sockaddr_un addr = address_of(path);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      const int err = errno;
      ::close(fd_);
      throw std::runtime_error("connect " + path + ": " + std::strerror(err));
    }
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { close(); }

  /// False when the server closed the connection before taking everything.
  bool send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }
  [[nodiscard]] int fd() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  /// The next line without its '\n'; nothing on EOF (eof() is then true) or after `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = kWait) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      if (eof_) return std::nullopt;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[65536];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      // ECONNRESET: Linux reports it after the data when the server closed with unread input.
      if (n <= 0) {
        eof_ = true;
        continue;
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  std::optional<json> read_json(std::chrono::milliseconds timeout = kWait) {
    const auto line = read_line(timeout);
    if (!line) return std::nullopt;
    return json::parse(*line);
  }
  /// True when the server closes the connection (after any unread lines) within `timeout`.
  bool closed_within(std::chrono::milliseconds timeout = kWait) {
    while (read_line(timeout)) {
    }
    return eof_;
  }
  [[nodiscard]] bool eof() const { return eof_; }

 private:
  int fd_;
  std::string buffer_;
  bool eof_ = false;
};

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout = kWait) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

class LogSink {
 public:
  NoticeServer::Log log() {
    return [this](LogLevel level, const std::string& message) {
      const std::lock_guard lock(mutex_);
      lines_.emplace_back(level, message);
    };
  }
  bool contains(LogLevel level, const std::string& text) { return count(level, text) > 0; }
  std::size_t count(LogLevel level, const std::string& text) {
    const std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto& [l, m] : lines_) n += l == level && m.find(text) != std::string::npos;
    return n;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

// Requests with their Replies, kept for the test to answer when it wants.
class HeldRequests {
 public:
  NoticeServer::Handler handler() {
    return [this](Request request, PeerCredentials peer, NoticeServer::Reply reply) {
      const std::lock_guard lock(mutex_);
      held_.push_back({std::move(request), peer, std::move(reply)});
      changed_.notify_all();
    };
  }
  bool wait_for(std::size_t count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kWait, [&] { return held_.size() >= count; });
  }
  std::size_t size() {
    const std::lock_guard lock(mutex_);
    return held_.size();
  }
  NoticeServer::Reply reply(std::size_t i) {
    const std::lock_guard lock(mutex_);
    return held_.at(i).reply;
  }
  Request request(std::size_t i) {
    const std::lock_guard lock(mutex_);
    return held_.at(i).request;
  }
  PeerCredentials peer(std::size_t i) {
    const std::lock_guard lock(mutex_);
    return held_.at(i).peer;
  }
  void clear() {
    const std::lock_guard lock(mutex_);
    held_.clear();
  }

 private:
  struct Held {
    Request request;
    PeerCredentials peer;
    NoticeServer::Reply reply;
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Held> held_;
};

NoticeServer::Handler pong_handler(std::atomic<int>* calls = nullptr) {
  return [calls](Request request, PeerCredentials, NoticeServer::Reply reply) {
    if (calls != nullptr) ++*calls;
    if (!std::holds_alternative<PingQuery>(request)) throw std::runtime_error("not a ping");
    reply(to_line(pong_response("test")));
  };
}

NoticeServer::Settings settings_for(const std::string& path) {
  NoticeServer::Settings s;
  s.path = path;
  return s;
}

const std::string kPing = R"({"v":1,"op":"ping"})"
                          "\n";

std::string job_end(std::uint64_t job) {
  return R"({"v":1,"op":"job_end","job":)" + std::to_string(job) + "}\n";
}

std::string tagged_ok(std::uint64_t job) {
  return to_line(json{{"v", 1}, {"ok", true}, {"job", job}});
}

bool is_pong(const std::optional<json>& j) {
  return j && j->value("pong", false);
}

std::string error_code(const std::optional<json>& j) {
  if (!j || !j->contains("error")) return "(no error)";
  return j->at("error").at("code").get<std::string>();
}

std::string thrown_by(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(NoticeServer, Ping_IsAnsweredThroughTheHandler) {
  TempDir dir;
  LogSink logs;
  std::atomic<int> calls{0};
  NoticeServer server(settings_for(dir.file("s.sock")), pong_handler(&calls), logs.log());
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(kPing));
  const auto answer = client.read_json();
  ASSERT_TRUE(answer);
  EXPECT_EQ(*answer, pong_response("test"));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_TRUE(logs.contains(LogLevel::kDebug, "pid " + std::to_string(::getpid())));
}

TEST(NoticeServer, Handler_GetsThePeerCredentialsOfTheClientProcess) {
  TempDir dir;
  HeldRequests held;
  NoticeServer server(settings_for(dir.file("s.sock")), held.handler(), nullptr);
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(kPing));
  ASSERT_TRUE(held.wait_for(1));
  EXPECT_EQ(held.peer(0), (PeerCredentials{::getpid(), ::getuid(), ::getgid()}));
  EXPECT_TRUE(std::holds_alternative<PingQuery>(held.request(0)));
}

TEST(NoticeServer, MalformedLine_IsAnsweredWithParseErrorWithoutTheHandler) {
  TempDir dir;
  std::atomic<int> calls{0};
  NoticeServer server(settings_for(dir.file("s.sock")), pong_handler(&calls), nullptr);
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send("{not json\n"));
  EXPECT_EQ(error_code(client.read_json()), "parse_error");
  ASSERT_TRUE(client.send(R"({"v":1,"op":"fly"})"
                          "\n"));
  EXPECT_EQ(error_code(client.read_json()), "unknown_op");
  // The connection stays usable.
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(is_pong(client.read_json()));
  EXPECT_EQ(calls.load(), 1);
}

TEST(NoticeServer, EmptyLines_AreIgnored) {
  TempDir dir;
  std::atomic<int> calls{0};
  NoticeServer server(settings_for(dir.file("s.sock")), pong_handler(&calls), nullptr);
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send("\n\r\n\n" + kPing + "\n"));
  EXPECT_TRUE(is_pong(client.read_json()));
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(is_pong(client.read_json()));
  EXPECT_EQ(calls.load(), 2);
}

// Replies come back in request order because a connection's next request reaches the handler
// only once the previous one is answered, whichever thread answers.
TEST(NoticeServer, PipelinedRequests_ReachTheHandlerOneAtATimeAndAreAnsweredInOrder) {
  TempDir dir;
  HeldRequests held;
  NoticeServer server(settings_for(dir.file("s.sock")), held.handler(), nullptr);
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(job_end(1) + job_end(2) + job_end(3)));
  for (std::uint64_t job = 1; job <= 3; ++job) {
    ASSERT_TRUE(held.wait_for(job));
    const Request request = held.request(job - 1);
    ASSERT_TRUE(std::holds_alternative<JobEndRequest>(request));
    EXPECT_EQ(std::get<JobEndRequest>(request).job, JobId(job));
    // Not a speed assertion: the next request must not come at all while this one is out.
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(held.size(), job);
    std::thread controller([reply = held.reply(job - 1), job] { reply(tagged_ok(job)); });
    controller.join();
  }
  for (std::uint64_t job = 1; job <= 3; ++job) {
    const auto answer = client.read_json();
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->at("job"), job);
  }
}

TEST(NoticeServer, SecondReplyToOneRequest_IsIgnored) {
  TempDir dir;
  NoticeServer server(
      settings_for(dir.file("s.sock")),
      [](Request request, PeerCredentials, NoticeServer::Reply reply) {
        const std::uint64_t job = std::get<JobEndRequest>(request).job.value();
        NoticeServer::Reply copy = reply;
        reply(tagged_ok(job));
        copy(tagged_ok(job + 100));
        reply(tagged_ok(job + 200));
      },
      nullptr);
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(job_end(1) + job_end(2)));
  EXPECT_EQ(client.read_json().value().at("job"), 1);
  EXPECT_EQ(client.read_json().value().at("job"), 2);
  ASSERT_TRUE(client.send(job_end(3)));
  EXPECT_EQ(client.read_json().value().at("job"), 3);
}

TEST(NoticeServer, LineOverTheLimit_GetsTooLargeAndTheConnectionIsClosed) {
  TempDir dir;
  std::atomic<int> calls{0};
  LogSink logs;
  NoticeServer server(settings_for(dir.file("s.sock")), pong_handler(&calls), logs.log());
  {
    // Still no newline when the limit is passed.
    Client client(dir.file("s.sock"));
    client.send(std::string(kMaxNoticeLineBytes + 2, 'a'));
    EXPECT_EQ(error_code(client.read_json()), "too_large");
    EXPECT_TRUE(client.closed_within());
  }
  {
    // The newline came, but the line is too long anyway; a request after it is not read.
    Client client(dir.file("s.sock"));
    client.send(std::string(kMaxNoticeLineBytes + 1, ' ') + "\r\n" + kPing);
    EXPECT_EQ(error_code(client.read_json()), "too_large");
    EXPECT_TRUE(client.closed_within());
  }
  EXPECT_EQ(calls.load(), 0);
  EXPECT_TRUE(logs.contains(LogLevel::kWarn, "uid " + std::to_string(::getuid())));
}

TEST(NoticeServer, LineOfExactlyTheLimit_WithCrLf_IsARequest) {
  TempDir dir;
  NoticeServer server(settings_for(dir.file("s.sock")), pong_handler(), nullptr);
  Client client(dir.file("s.sock"));
  std::string line = R"({"v":1,"op":"ping"})";
  line.resize(kMaxNoticeLineBytes, ' ');
  ASSERT_TRUE(client.send(line + "\r\n"));
  EXPECT_TRUE(is_pong(client.read_json()));
}

TEST(NoticeServer, Socket_IsMode0600WithoutGroup_InADirectoryCreated0755) {
  TempDir dir;
  const std::string path = dir.file("run/notice.sock");
  NoticeServer server(settings_for(path), pong_handler(), nullptr);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat(dir.file("run").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(server.path(), path);
}

TEST(NoticeServer, Socket_IsMode0660AndOwnedByTheConfiguredGroup) {
  const ::group* own = ::getgrgid(::getgid());
  if (own == nullptr) GTEST_SKIP() << "the process's group has no name";
  TempDir dir;
  NoticeServer::Settings settings = settings_for(dir.file("s.sock"));
  settings.group = own->gr_name;
  NoticeServer server(settings, pong_handler(), nullptr);
  struct stat st {};
  ASSERT_EQ(::lstat(settings.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_EQ(st.st_gid, ::getgid());
}

TEST(NoticeServer, UnknownGroup_IsRefusedBeforeCreatingAnything) {
  TempDir dir;
  NoticeServer::Settings settings = settings_for(dir.file("s.sock"));
  settings.group = "ibsdn-no-such-group";
  const std::string what =
      thrown_by([&] { NoticeServer server(settings, pong_handler(), nullptr); });
  EXPECT_NE(what.find(settings.path), std::string::npos) << what;
  EXPECT_NE(what.find("group 'ibsdn-no-such-group' does not exist"), std::string::npos) << what;
  EXPECT_FALSE(std::filesystem::exists(settings.path));
}

TEST(NoticeServer, BadPaths_AreRefusedWithTheReason) {
  const auto what_for = [](const std::string& path) {
    return thrown_by([&] { NoticeServer server(settings_for(path), pong_handler(), nullptr); });
  };
  EXPECT_NE(what_for("run/notice.sock").find("not an absolute path"), std::string::npos);
  EXPECT_NE(what_for("/tmp/" + std::string(110, 'x')).find("longer than 107 bytes"),
            std::string::npos);
  const std::string missing = "/tmp/ibsdn-no-such-dir-" + std::to_string(::getpid()) + "/a/s.sock";
  EXPECT_NE(what_for(missing).find("cannot create its directory: No such file or directory"),
            std::string::npos);
}

TEST(NoticeServer, StaleSocketFile_IsReplaced) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  {
    // Bound, never listened on, closed without unlinking: what a crashed server leaves.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const sockaddr_un addr = address_of(path);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  ASSERT_TRUE(std::filesystem::is_socket(path));
  NoticeServer server(settings_for(path), pong_handler(), nullptr);
  Client client(path);
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(is_pong(client.read_json()));
}

TEST(NoticeServer, LiveSocket_OfAnotherServerIsRefusedAndKeepsWorking) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  NoticeServer first(settings_for(path), pong_handler(), nullptr);
  const std::string what =
      thrown_by([&] { NoticeServer second(settings_for(path), pong_handler(), nullptr); });
  EXPECT_EQ(what, "notice socket " + path +
                      ": another process is listening on this socket; refusing to take it over");
  Client client(path);
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(is_pong(client.read_json()));
}

TEST(NoticeServer, RegularFile_AtThePathIsRefusedAndLeftUntouched) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  std::ofstream(path) << "precious\n";
  const std::string what =
      thrown_by([&] { NoticeServer server(settings_for(path), pong_handler(), nullptr); });
  EXPECT_EQ(what, "notice socket " + path + ": exists and is not a socket; refusing to remove it");
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), "precious\n");
}

TEST(NoticeServer, Stop_LeavesASocketFileThatReplacedItsOwnAlone) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  NoticeServer old_server(settings_for(path), pong_handler(), nullptr);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  NoticeServer new_server(settings_for(path), pong_handler(), nullptr);
  old_server.stop();
  ASSERT_TRUE(std::filesystem::is_socket(path));
  Client client(path);
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(is_pong(client.read_json()));
}

TEST(NoticeServer, Stop_ClosesConnectionsAndLateRepliesAreHarmless) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  HeldRequests held;
  auto server = std::make_unique<NoticeServer>(settings_for(path), held.handler(), nullptr);
  Client a(path);
  Client b(path);
  ASSERT_TRUE(a.send(kPing));
  ASSERT_TRUE(b.send(kPing));
  ASSERT_TRUE(held.wait_for(2));
  const NoticeServer::Reply answered_after_stop = held.reply(0);
  NoticeServer::Reply never_answered = held.reply(1);
  held.clear();

  server->stop();
  EXPECT_EQ(server->connections(), 0u);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(a.closed_within());
  EXPECT_TRUE(b.closed_within());
  answered_after_stop(to_line(pong_response("late")));
  server->stop();
  server.reset();
  answered_after_stop(to_line(pong_response("later")));
  // Destroying the last copy of an unanswered Reply tells a server that is gone.
  never_answered = nullptr;
}

TEST(NoticeServer, Stop_CalledFromTheHandlerIsCompletedByTheDestructor) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  NoticeServer* self = nullptr;
  auto server = std::make_unique<NoticeServer>(
      settings_for(path),
      [&self](Request, PeerCredentials, NoticeServer::Reply reply) {
        self->stop();
        reply(to_line(ok_response()));
      },
      nullptr);
  self = server.get();
  Client client(path);
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(client.closed_within());
  server.reset();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(NoticeServer, ConnectionsBeyondTheMaximum_AreAnsweredBusyAndClosed) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  LogSink logs;
  NoticeServer::Settings settings = settings_for(path);
  settings.max_connections = 2;
  settings.max_connections_per_uid = 2;
  settings.reserved_for_scheduler = 0;
  NoticeServer server(settings, pong_handler(), logs.log());
  auto a = std::make_unique<Client>(path);
  Client b(path);
  ASSERT_TRUE(wait_until([&] { return server.connections() == 2; }));

  Client refused(path);
  const auto answer = refused.read_json();
  EXPECT_EQ(error_code(answer), "busy");
  EXPECT_EQ(answer.value().at("error").at("message"), "too many connections");
  EXPECT_TRUE(refused.closed_within());
  EXPECT_TRUE(logs.contains(LogLevel::kWarn, "refusing the connection of pid " +
                                                 std::to_string(::getpid()) + " uid " +
                                                 std::to_string(::getuid())));

  a.reset();
  ASSERT_TRUE(wait_until([&] { return server.connections() == 1; }));
  Client c(path);
  ASSERT_TRUE(c.send(kPing));
  EXPECT_TRUE(is_pong(c.read_json()));
  EXPECT_EQ(server.connections(), 2u);
}

TEST(NoticeServer, ClientThatHalfCloses_GetsAllItsAnswersBeforeTheClose) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  // The controller answers from its own thread, after a while.
  std::mutex mutex;
  std::vector<NoticeServer::Reply> queue;
  std::atomic<bool> done{false};
  std::thread controller([&] {
    while (!done) {
      std::this_thread::sleep_for(20ms);
      const std::lock_guard lock(mutex);
      for (auto& reply : queue) reply(to_line(pong_response("async")));
      queue.clear();
    }
  });
  {
    NoticeServer server(
        settings_for(path),
        [&](Request, PeerCredentials, NoticeServer::Reply reply) {
          const std::lock_guard lock(mutex);
          queue.push_back(std::move(reply));
        },
        nullptr);
    Client client(path);
    // The last request has no '\n': the end of the stream ends it.
    ASSERT_TRUE(client.send(kPing + kPing + R"({"v":1,"op":"ping"})"));
    client.shutdown_write();
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(is_pong(client.read_json())) << i;
    EXPECT_TRUE(client.closed_within());
    EXPECT_TRUE(wait_until([&] { return server.connections() == 0; }));
  }
  done = true;
  controller.join();
}

TEST(NoticeServer, ReplyAfterTheClientLeft_IsHarmless) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  HeldRequests held;
  NoticeServer server(settings_for(path), held.handler(), nullptr);
  {
    Client client(path);
    ASSERT_TRUE(client.send(kPing));
    ASSERT_TRUE(held.wait_for(1));
  }
  // Written to a socket nobody reads: EPIPE, never SIGPIPE.
  held.reply(0)(to_line(pong_response("nobody listens")));
  EXPECT_TRUE(wait_until([&] { return server.connections() == 0; }));
  Client next(path);
  ASSERT_TRUE(next.send(kPing));
  ASSERT_TRUE(held.wait_for(2));
}

// A flood of refused connections must not flood OpenSM's log: one line in full, then a count.
TEST(NoticeServer, RefusedConnections_AreLoggedOncePerUidThenCountedInOneLine) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  LogSink logs;
  NoticeServer::Settings settings = settings_for(path);
  settings.max_connections = 1;  // refuses root too
  settings.max_connections_per_uid = 1;
  settings.reserved_for_scheduler = 0;
  settings.refusal_log_interval = 300ms;
  NoticeServer server(settings, pong_handler(), logs.log());
  Client held(path);
  ASSERT_TRUE(wait_until([&] { return server.connections() == 1; }));
  for (int i = 0; i < 5; ++i) {
    Client refused(path);
    EXPECT_EQ(error_code(refused.read_json()), "busy");
  }
  EXPECT_EQ(logs.count(LogLevel::kWarn, "refusing the connection of"), 1u);
  // Nothing else happens on the socket: the server wakes up for the count by itself.
  const std::string summary = "4 more connections refused from uid " + std::to_string(::getuid()) +
                              " (the last: 1 connections are open)";
  EXPECT_TRUE(wait_until([&] { return logs.count(LogLevel::kWarn, summary) == 1; }));
  EXPECT_EQ(logs.count(LogLevel::kWarn, "refusing the connection of"), 1u);
}

TEST(NoticeServer, ErrorLines_CarryTheirCodeFirst) {
  TempDir dir;
  LogSink logs;
  NoticeServer server(
      settings_for(dir.file("s.sock")), [](Request, PeerCredentials, NoticeServer::Reply) {},
      logs.log());
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(kPing));
  EXPECT_EQ(error_code(client.read_json()), "internal");
  EXPECT_TRUE(logs.contains(
      LogLevel::kError, "ERR 5D82: notice server " + dir.file("s.sock") + ": a request of pid"));
}

TEST(NoticeServer, HandlerThatThrows_IsAnsweredInternalAndLogged) {
  TempDir dir;
  LogSink logs;
  NoticeServer server(settings_for(dir.file("s.sock")), pong_handler(), logs.log());
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(job_end(5)));
  EXPECT_EQ(error_code(client.read_json()), "internal");
  EXPECT_TRUE(logs.contains(LogLevel::kError, "job_end request of pid"));
  EXPECT_TRUE(logs.contains(LogLevel::kError, "not a ping"));
  ASSERT_TRUE(client.send(kPing));
  EXPECT_TRUE(is_pong(client.read_json()));
}

TEST(NoticeServer, ReplyDroppedUnanswered_IsAnsweredInternal) {
  TempDir dir;
  LogSink logs;
  NoticeServer server(
      settings_for(dir.file("s.sock")), [](Request, PeerCredentials, NoticeServer::Reply) {},
      logs.log());
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(kPing));
  const auto answer = client.read_json();
  EXPECT_EQ(error_code(answer), "internal");
  EXPECT_TRUE(logs.contains(LogLevel::kError, "dropped unanswered"));
}

TEST(NoticeServer, IdleConnection_IsClosedButNotWhileItsRequestIsOut) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  HeldRequests held;
  LogSink logs;
  NoticeServer::Settings settings = settings_for(path);
  settings.idle_timeout = 100ms;
  settings.scheduler_idle_timeout = 100ms;
  NoticeServer server(settings, held.handler(), logs.log());

  Client busy(path);
  ASSERT_TRUE(busy.send(kPing));
  ASSERT_TRUE(held.wait_for(1));
  std::this_thread::sleep_for(300ms);
  held.reply(0)(to_line(pong_response("slow")));
  EXPECT_TRUE(is_pong(busy.read_json()));
  EXPECT_TRUE(busy.closed_within());

  Client partial(path);
  ASSERT_TRUE(partial.send(R"({"v":1,"op":)"));
  EXPECT_TRUE(partial.closed_within());
  EXPECT_TRUE(logs.contains(LogLevel::kWarn, "within a line"));
}

TEST(NoticeServer, ResponseOverTheOutputLimit_ClosesTheConnection) {
  TempDir dir;
  LogSink logs;
  NoticeServer::Settings settings = settings_for(dir.file("s.sock"));
  settings.max_output_bytes = 1024;
  NoticeServer server(
      settings,
      [](Request, PeerCredentials, NoticeServer::Reply reply) {
        reply(to_line(json{{"v", 1}, {"ok", true}, {"padding", std::string(4096, 'x')}}));
      },
      logs.log());
  Client client(settings.path);
  ASSERT_TRUE(client.send(kPing));
  EXPECT_FALSE(client.read_line());
  EXPECT_TRUE(client.eof());
  EXPECT_TRUE(logs.contains(LogLevel::kError, "exceeds the output limit of 1024 bytes"));
}

TEST(NoticeServer, MultiLineResponse_IsReplacedByAnInternalError) {
  TempDir dir;
  NoticeServer server(
      settings_for(dir.file("s.sock")),
      [](Request, PeerCredentials, NoticeServer::Reply reply) { reply("{\"v\":1}\n{}\n"); },
      nullptr);
  Client client(dir.file("s.sock"));
  ASSERT_TRUE(client.send(kPing));
  EXPECT_EQ(error_code(client.read_json()), "internal");
}

// ---- Fairness between connections ---------------------------------------------------------

// Holds the server's thread in the handler of one request (a `stats` query), so that the test can
// have several connections' lines waiting before the server looks at them again. Every other
// request is held for the test to answer, in the order the server passed them on.
class Stall {
 public:
  NoticeServer::Handler handler(std::function<void(const Request&)> on_request = {}) {
    return [this, on_request](Request request, PeerCredentials peer, NoticeServer::Reply reply) {
      if (std::holds_alternative<StatsQuery>(request)) {
        stalled_.set_value();
        release_.get_future().wait();
        reply(to_line(ok_response()));
        return;
      }
      if (on_request) on_request(request);
      held_.handler()(std::move(request), peer, std::move(reply));
    };
  }
  bool wait_until_stalled() {
    return stalled_.get_future().wait_for(kWait) == std::future_status::ready;
  }
  void release() { release_.set_value(); }
  HeldRequests& held() { return held_; }

 private:
  std::promise<void> stalled_;
  std::promise<void> release_;
  HeldRequests held_;
};

const std::string kStats = R"({"v":1,"op":"stats"})"
                           "\n";

TEST(NoticeServer, PipelinedRequests_OfOneConnectionDelayAnothersRequestByAtMostOne) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  Stall stall;
  NoticeServer server(settings_for(path), stall.handler(), nullptr);
  Client staller(path);
  Client pipelining(path);
  Client single(path);
  ASSERT_TRUE(staller.send(kStats));
  ASSERT_TRUE(stall.wait_until_stalled());
  std::string pings;
  for (int i = 0; i < 1000; ++i) pings += kPing;
  ASSERT_TRUE(pipelining.send(pings));
  ASSERT_TRUE(single.send(job_end(7)));
  stall.release();

  // Served like the controller thread does: in the order the server passed the requests on.
  HeldRequests& held = stall.held();
  std::size_t served_before_single = 0;
  for (std::size_t i = 0;; ++i) {
    ASSERT_TRUE(held.wait_for(i + 1)) << "request " << i << " never came";
    if (std::holds_alternative<JobEndRequest>(held.request(i))) break;
    ++served_before_single;
    held.reply(i)(to_line(pong_response("test")));
  }
  EXPECT_LE(served_before_single, 1u);
  held.reply(served_before_single)(tagged_ok(7));
  EXPECT_EQ(single.read_json().value().at("job"), 7);
  // The pipelining connection still gets all of its answers, one request at a time. It reads
  // them meanwhile: a client that does not read is no longer served (back-pressure).
  std::atomic<int> pongs{0};
  std::thread reader([&] {
    while (pongs < 1000 && is_pong(pipelining.read_json())) ++pongs;
  });
  for (std::size_t i = served_before_single + 1; i <= 1000; ++i) {
    if (!held.wait_for(i + 1)) {
      ADD_FAILURE() << "ping " << i << " never came";
      break;
    }
    EXPECT_EQ(held.size(), i + 1) << "two requests of one connection with the handler at once";
    held.reply(i)(to_line(pong_response("test")));
  }
  reader.join();
  EXPECT_EQ(pongs.load(), 1000);
}

// Lines the server answers itself (here: an unknown op) take a turn each too: 1000 of them do not
// run ahead of another connection's request.
TEST(NoticeServer, LinesTheServerAnswersItself_AreServedOneATurnLikeRequests) {
  TempDir dir;
  const std::string path = dir.file("s.sock");
  const std::string bad = R"({"v":1,"op":"nope"})";
  const std::string bad_answer = to_line(error_response(parse_request(bad).error()));
  std::atomic<int> pipelining_fd{-1};
  std::atomic<long> answered_before_ping{-1};
  Stall stall;
  NoticeServer server(settings_for(path), stall.handler([&](const Request& request) {
    if (!std::holds_alternative<PingQuery>(request)) return;
    // The bad lines' answers the server has written so far, still unread by the client.
    int bytes = 0;
    if (::ioctl(pipelining_fd.load(), FIONREAD, &bytes) == 0) {
      answered_before_ping = bytes / static_cast<long>(bad_answer.size());
    }
  }),
                      nullptr);
  Client staller(path);
  Client pipelining(path);
  Client single(path);
  pipelining_fd = pipelining.fd();
  ASSERT_TRUE(staller.send(kStats));
  ASSERT_TRUE(stall.wait_until_stalled());
  std::string lines;
  for (int i = 0; i < 1000; ++i) lines += bad + "\n";
  ASSERT_TRUE(pipelining.send(lines));
  ASSERT_TRUE(single.send(kPing));
  stall.release();

  ASSERT_TRUE(stall.held().wait_for(1));
  EXPECT_GE(answered_before_ping.load(), 0);
  EXPECT_LE(answered_before_ping.load(), 2);
  stall.held().reply(0)(to_line(pong_response("test")));
  EXPECT_TRUE(is_pong(single.read_json()));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(error_code(pipelining.read_json()), "unknown_op") << i;
}

// ---- Connection limits per uid (needs root: the clients run as other users) ------------------

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

// The number of threads of this process (from /proc/self/status).
int thread_count() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

// A child process running `body` as another uid, with group nogroup (which owns the test's
// socket). body's result comes back through report(); the connections it opened (leaked on
// purpose) stay open until release() lets the child exit.
//
// The child is forked when the AsUser is constructed, which must be before the server starts
// its threads: a child forked while another thread holds a lock (AddressSanitizer's allocator
// has no fork handler in this toolchain) deadlocks on its first allocation. It waits until
// start() and only then runs body.
class AsUser {
 public:
  AsUser(uid_t uid, std::function<std::string()> body) {
    if (thread_count() != 1) {
      throw std::logic_error("AsUser must fork before the server starts its threads");
    }
    int report[2];
    int go[2];
    if (::pipe(report) != 0) throw std::runtime_error("pipe failed");
    if (::pipe(go) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::close(report[0]);
      ::close(go[1]);
      // A start byte runs body; end of file (release() without start()) only exits.
      char byte;
      ssize_t n;
      while ((n = ::read(go[0], &byte, 1)) < 0 && errno == EINTR) {
      }
      if (n != 1) ::_exit(0);
      // Only the two pipes: a copy of the server's descriptors (the parent's test runs it) would
      // keep connections the server closes open.
      const int lo = std::min(report[1], go[0]);
      const int hi = std::max(report[1], go[0]);
      ::close_range(3, lo - 1, 0);
      ::close_range(lo + 1, hi - 1, 0);
      ::close_range(hi + 1, ~0U, 0);
      std::string out;
      if (::setgroups(0, nullptr) != 0 || ::setgid(kNogroup) != 0 || ::setuid(uid) != 0) {
        out = "cannot become uid " + std::to_string(uid);
      } else {
        try {
          out = body();
        } catch (const std::exception& e) {
          out = std::string("exception: ") + e.what();
        }
      }
      for (std::string_view rest = out; !rest.empty();) {
        const ssize_t written = ::write(report[1], rest.data(), rest.size());
        if (written <= 0) break;
        rest.remove_prefix(static_cast<std::size_t>(written));
      }
      ::close(report[1]);
      // Holds its connections until release() closes the other end.
      while (::read(go[0], &byte, 1) < 0 && errno == EINTR) {
      }
      ::_exit(0);
    }
    ::close(report[1]);
    ::close(go[0]);
    report_fd_ = report[0];
    go_fd_ = go[1];
  }
  AsUser(const AsUser&) = delete;
  AsUser& operator=(const AsUser&) = delete;
  ~AsUser() { release(); }

  /// Lets the child run body.
  void start() {
    const char byte = 1;
    if (go_fd_ < 0 || ::write(go_fd_, &byte, 1) != 1) throw std::runtime_error("start failed");
  }

  /// What body returned (waits for it; a body that has not finished within a minute counts as
  /// empty, so a stuck child fails the test instead of hanging it).
  std::string report() {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + 12 * kWait;
    while (report_fd_ >= 0 && std::chrono::steady_clock::now() < deadline) {
      pollfd p{report_fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char chunk[4096];
      const ssize_t n = ::read(report_fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(chunk, static_cast<std::size_t>(n));
    }
    return out;
  }

  /// Lets the child exit (closing its connections) and reaps it; one that does not exit within
  /// kWait is killed.
  void release() {
    if (go_fd_ >= 0) ::close(go_fd_);
    go_fd_ = -1;
    if (report_fd_ >= 0) ::close(report_fd_);
    report_fd_ = -1;
    if (pid_ <= 0) return;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    for (;;) {
      const pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done < 0 && errno == EINTR) continue;
      if (done != 0) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      std::this_thread::sleep_for(10ms);
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int report_fd_ = -1;
  int go_fd_ = -1;
};

// Opens `count` connections and pings on each: "accepted N" and every distinct refusal as
// "busy: MESSAGE" lines. The accepted connections stay open (leaked: the child holds them until it
// exits), and are added to `accepted_clients` when given.
std::string open_and_ping(const std::string& path, int count,
                          std::vector<Client*>* accepted_clients = nullptr) {
  std::vector<Client*> clients;
  for (int i = 0; i < count; ++i) {
    clients.push_back(new Client(path));
    (void)clients.back()->send(kPing);
  }
  int accepted = 0;
  std::set<std::string> refusals;
  for (Client* c : clients) {
    const auto answer = c->read_json();
    if (is_pong(answer)) {
      ++accepted;
      if (accepted_clients != nullptr) accepted_clients->push_back(c);
    } else {
      refusals.insert(error_code(answer) + ": " +
                      (answer ? answer->at("error").at("message").get<std::string>() : "-") +
                      (c->closed_within() ? "" : " (left open)"));
    }
  }
  std::string out = "accepted " + std::to_string(accepted);
  for (const std::string& r : refusals) out += "\n" + r;
  return out;
}

// The socket as members of group nogroup reach it, in a directory they may enter.
struct SharedSocket {
  TempDir dir;
  std::string path = dir.file("s.sock");
  NoticeServer::Settings settings() const {
    NoticeServer::Settings s = settings_for(path);
    s.group = ::getgrgid(kNogroup)->gr_name;
    return s;
  }
  SharedSocket() { ::chmod(std::filesystem::path(path).parent_path().c_str(), 0755); }
};

bool can_switch_users() {
  return ::geteuid() == 0 && ::getgrgid(kNogroup) != nullptr;
}

TEST(NoticeServer, OneUsersConnectionsBeyondItsLimit_AreRefusedBusyNamingTheLimit) {
  if (!can_switch_users()) GTEST_SKIP() << "needs root (to connect as other users) and nogroup";
  SharedSocket shared;
  AsUser nobody(kNobody, [&] {
    std::vector<Client*> held;
    std::string out = open_and_ping(shared.path, 4, &held);
    Client again(shared.path);
    out += "\nagain: " + error_code(again.read_json());
    // The refusals cost the user nothing it held: its connections still answer.
    for (Client* c : held) out += c->send(kPing) && is_pong(c->read_json()) ? "\npong" : "\nlost";
    return out;
  });
  AsUser other(60'001, [&] { return open_and_ping(shared.path, 3); });
  LogSink logs;
  NoticeServer::Settings settings = shared.settings();
  settings.max_connections = 16;
  settings.max_connections_per_uid = 3;
  settings.reserved_for_scheduler = 2;
  NoticeServer server(settings, pong_handler(), logs.log());

  nobody.start();
  EXPECT_EQ(nobody.report(),
            "accepted 3\n"
            "busy: uid 65534 holds 3 connections, the per-uid limit is 3\n"
            "again: busy\npong\npong\npong");
  // Another user, and root, are not affected.
  other.start();
  EXPECT_EQ(other.report(), "accepted 3");
  Client root(shared.path);
  ASSERT_TRUE(root.send(kPing));
  EXPECT_TRUE(is_pong(root.read_json()));
  EXPECT_TRUE(
      logs.contains(LogLevel::kWarn, "uid 65534 holds 3 connections, the per-uid limit is 3"));
  EXPECT_EQ(server.connections(), 7u);
}

// The lock-out the per-uid limits exist for: members of socket_group hold every connection they
// can; root and the scheduler still connect and get answers.
TEST(NoticeServer, SixtyFourConnectionsOfOtherUsers_CannotLockRootOrTheSchedulerOut) {
  if (!can_switch_users()) GTEST_SKIP() << "needs root (to connect as other users) and nogroup";
  SharedSocket shared;
  constexpr uid_t kScheduler = 60'100;
  AsUser nobody(kNobody, [&] { return open_and_ping(shared.path, 64); });
  std::vector<std::unique_ptr<AsUser>> others;
  for (uid_t uid = 60'001; uid <= 60'006; ++uid) {
    others.push_back(std::make_unique<AsUser>(uid, [&] { return open_and_ping(shared.path, 8); }));
  }
  AsUser late(60'007, [&] { return open_and_ping(shared.path, 1); });
  AsUser scheduler(kScheduler, [&] { return open_and_ping(shared.path, 7); });
  NoticeServer::Settings settings = shared.settings();  // 64 connections, 8 per uid, 8 reserved
  settings.scheduler_uid = kScheduler;
  NoticeServer server(settings, pong_handler(), nullptr);

  nobody.start();
  EXPECT_EQ(nobody.report(),
            "accepted 8\n"
            "busy: uid 65534 holds 8 connections, the per-uid limit is 8");
  // Six more users fill what is left to users other than root and the scheduler (56).
  for (std::size_t i = 0; i < others.size(); ++i) {
    others[i]->start();
    EXPECT_EQ(others[i]->report(), "accepted 8") << "uid " << 60'001 + i;
  }
  late.start();
  EXPECT_EQ(late.report(),
            "accepted 0\n"
            "busy: too many connections (the others are reserved for root and the scheduler)");
  ASSERT_EQ(server.connections(), 56u);

  Client root(shared.path);
  ASSERT_TRUE(root.send(kPing));
  EXPECT_TRUE(is_pong(root.read_json()));
  scheduler.start();
  EXPECT_EQ(scheduler.report(), "accepted 7");
  // Every slot is taken now; root's next one is refused like any other beyond max_connections.
  Client beyond(shared.path);
  EXPECT_EQ(error_code(beyond.read_json()), "busy");
}

TEST(NoticeServer, IdleConnectionsOfOtherUsers_AreClosedSoonerThanRootsAndTheSchedulers) {
  if (!can_switch_users()) GTEST_SKIP() << "needs root (to connect as other users) and nogroup";
  SharedSocket shared;
  NoticeServer::Settings settings = shared.settings();
  settings.idle_timeout = 200ms;
  settings.scheduler_idle_timeout = 60s;
  AsUser nobody(kNobody, [&] {
    Client idle(shared.path);
    const auto start = std::chrono::steady_clock::now();
    if (!idle.closed_within(kWait)) return std::string("still open");
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    return std::string(took >= 150ms ? "closed after the idle timeout" : "closed too early");
  });
  NoticeServer server(settings, pong_handler(), nullptr);

  Client root(shared.path);
  nobody.start();
  EXPECT_EQ(nobody.report(), "closed after the idle timeout");
  // Root's connection, idle as long, is still served.
  ASSERT_TRUE(root.send(kPing));
  EXPECT_TRUE(is_pong(root.read_json()));
}

}  // namespace
}  // namespace ibsdn
