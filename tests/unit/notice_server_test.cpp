#include <grp.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "plugin/controller/notice_server.hpp"

namespace ibsdn {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// Generous: the tests wait for events, they never measure speed.
constexpr std::chrono::milliseconds kWait = 5s;

class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "ibsdn-notice-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

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
  bool contains(LogLevel level, const std::string& text) {
    const std::lock_guard lock(mutex_);
    for (const auto& [l, m] : lines_) {
      if (l == level && m.find(text) != std::string::npos) return true;
    }
    return false;
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

}  // namespace
}  // namespace ibsdn
