#include "plugin/controller/notice_server.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/unique_fd.hpp"
#include "plugin/controller/log_codes.hpp"
#include "plugin/controller/notice_admission.hpp"
#include "plugin/controller/notice_connection.hpp"
#include "plugin/controller/notice_framing.hpp"
#include "plugin/controller/notice_outbox.hpp"
#include "plugin/controller/notice_socket.hpp"

namespace ibsdn {
namespace {

using notice_detail::check_socket_path;
using notice_detail::Clock;
using notice_detail::Connection;
using notice_detail::errno_text;
using notice_detail::fail_socket;
using notice_detail::fail_socket_errno;
using notice_detail::flush;
using notice_detail::Frame;
using notice_detail::listen_on;
using notice_detail::ListeningSocket;
using notice_detail::next_frame;
using notice_detail::Outbox;
using notice_detail::peer_text;
using notice_detail::Posted;
using notice_detail::read_some;
using notice_detail::remove_socket_file;
using notice_detail::ReplyToken;
using notice_detail::send_line;

// Connections accepted per wake-up, so that a connect storm cannot starve open connections.
constexpr int kAcceptsPerWakeup = 64;
// After accept() failed for lack of descriptors or memory the listener stays readable; without a
// pause the loop would spin on it.
constexpr std::chrono::milliseconds kAcceptPause{100};
// After an unexpected failure of the loop itself (ENOMEM): keeps a lasting one from spinning.
constexpr std::chrono::milliseconds kRetryPause{10};

// The server whose thread this is, so that stop() knows when it is called from the handler.
thread_local const void* t_running_server = nullptr;

}  // namespace

class NoticeServer::Impl {
 public:
  Impl(Settings settings, Handler handler, Log log)
      : settings_(std::move(settings)),
        handler_(std::move(handler)),
        log_(settings_.path, std::move(log)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { stop(); }

  void start();
  void stop();
  [[nodiscard]] std::size_t connections() const { return open_.load(); }
  [[nodiscard]] const std::string& path() const { return settings_.path; }

 private:
  void run() noexcept;
  void loop_once();
  void drain_outbox();
  void accept_connections();
  void handle_io(Connection& c, short revents);
  void mark_ready(Connection& c);
  void serve_ready();
  bool step(Connection& c);
  void dispatch(Connection& c, std::string_view line);
  void check_idle(Clock::time_point now);
  void sweep();
  int poll_timeout_ms(Clock::time_point now) const;

  const Settings settings_;
  const Handler handler_;
  const notice_detail::ServerLog log_;

  UniqueFd listen_fd_;
  notice_detail::SocketFile socket_file_;
  std::shared_ptr<Outbox> outbox_ = std::make_shared<Outbox>();
  std::thread thread_;
  std::mutex stop_mutex_;
  bool stopped_ = false;
  std::atomic<std::size_t> open_{0};

  // Owned by the server thread.
  notice_detail::Connections connections_;
  // Connections that may take a step, in the order they became ready: served round-robin, one
  // step each per turn.
  std::deque<std::uint64_t> ready_;
  std::uint64_t next_connection_ = 0;
  Clock::time_point accept_paused_until_{};
  notice_detail::Admission admission_{settings_, log_};
};

void NoticeServer::Impl::start() {
  const std::string& path = settings_.path;
  check_socket_path(path);
  if (!handler_) fail_socket(path, "no request handler");
  if (settings_.max_connections == 0) fail_socket(path, "max_connections must be at least 1");
  if (settings_.max_connections_per_uid == 0 ||
      settings_.max_connections_per_uid > settings_.max_connections) {
    fail_socket(path, "max_connections_per_uid must be in 1..max_connections");
  }
  if (settings_.reserved_for_scheduler >= settings_.max_connections) {
    fail_socket(path, "reserved_for_scheduler must be below max_connections");
  }
  if (settings_.idle_timeout.count() <= 0 || settings_.scheduler_idle_timeout.count() <= 0) {
    fail_socket(path, "idle timeouts must be positive");
  }
  if (settings_.max_output_bytes == 0) fail_socket(path, "max_output_bytes must be at least 1");
  ListeningSocket sock = listen_on(path, settings_.group);
  // From here on, too, a failure removes the file again.
  try {
    UniqueFd wake(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (wake.get() < 0) fail_socket_errno(path, "cannot create an eventfd");
    listen_fd_ = std::move(sock.fd);
    socket_file_ = sock.file;
    outbox_->attach_wake_fd(std::move(wake));
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  log_(LogLevel::kInfo, "listening, mode " + (settings_.group ? "0660, group " + *settings_.group
                                                              : std::string("0600")));
}

void NoticeServer::Impl::stop() {
  // From the handler: the thread cannot join itself; it finishes after the handler returns.
  if (t_running_server == this) {
    outbox_->close();
    return;
  }
  const std::lock_guard lock(stop_mutex_);
  if (stopped_) return;
  outbox_->close();
  if (thread_.joinable()) thread_.join();
  stopped_ = true;
  outbox_->close_wake_fd();
  if (listen_fd_.get() < 0) return;  // start() failed
  listen_fd_.reset();
  // Only our own file: a successor may already have replaced it.
  if (const int err = remove_socket_file(settings_.path, socket_file_); err != 0) {
    log_(LogLevel::kWarn, "cannot remove the socket file: " + errno_text(err));
  }
  log_(LogLevel::kInfo, "stopped");
}

void NoticeServer::Impl::run() noexcept {
  t_running_server = this;
  while (true) {
    try {
      if (outbox_->closed()) break;
      loop_once();
    } catch (const std::exception& e) {
      log_(LogCode::kServerLoopFailed, std::string("unexpected failure, continuing: ") + e.what());
      std::this_thread::sleep_for(kRetryPause);
    } catch (...) {
      log_(LogCode::kServerLoopFailed, "unexpected failure, continuing");
      std::this_thread::sleep_for(kRetryPause);
    }
  }
  connections_.clear();
  open_.store(0);
  try {
    admission_.log_all();
  } catch (...) {
  }
}

void NoticeServer::Impl::loop_once() {
  drain_outbox();
  serve_ready();
  sweep();

  std::vector<pollfd> fds;
  std::vector<std::uint64_t> ids;
  fds.reserve(connections_.size() + 2);
  fds.push_back({outbox_->wake_fd(), POLLIN, 0});
  const Clock::time_point now = Clock::now();
  fds.push_back({now >= accept_paused_until_ ? listen_fd_.get() : -1, POLLIN, 0});
  for (const auto& [id, c] : connections_) {
    short events = 0;
    if (c.wants_read()) events |= POLLIN;
    if (!c.out_empty()) events |= POLLOUT;
    // A connection waiting on the handler is not polled at all: POLLHUP would be reported
    // whatever the events, and the loop would spin until the reply comes.
    fds.push_back({events != 0 ? c.fd.get() : -1, events, 0});
    ids.push_back(id);
  }

  // A connection with a line waiting for its turn: look for news without sleeping.
  const int n = ::poll(fds.data(), fds.size(), ready_.empty() ? poll_timeout_ms(now) : 0);
  if (n < 0) {
    if (errno == EINTR) return;
    const int err = errno;
    log_(LogCode::kPollFailed, "poll failed: " + errno_text(err));
    std::this_thread::sleep_for(kRetryPause);
    return;
  }
  if (fds[0].revents != 0) outbox_->consume_wake();
  if (fds[1].revents != 0) accept_connections();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (fds[i + 2].revents == 0) continue;
    const auto it = connections_.find(ids[i]);
    if (it == connections_.end()) continue;
    Connection& c = it->second;
    try {
      handle_io(c, fds[i + 2].revents);
    } catch (const std::exception& e) {
      log_(LogCode::kIoFailed, "closing the connection of " + peer_text(c.peer) + ": " + e.what());
      c.dead = true;
    }
  }
  check_idle(Clock::now());
  admission_.log_due(Clock::now());
  sweep();
}

int NoticeServer::Impl::poll_timeout_ms(Clock::time_point now) const {
  std::optional<Clock::time_point> wake = admission_.next_due();
  if (now < accept_paused_until_ && (!wake || accept_paused_until_ < *wake)) {
    wake = accept_paused_until_;
  }
  for (const auto& [id, c] : connections_) {
    if (c.awaiting) continue;
    const Clock::time_point deadline = c.last_activity + c.idle_timeout;
    if (!wake || deadline < *wake) wake = deadline;
  }
  if (!wake) return -1;
  if (*wake <= now) return 0;
  // Rounded up: waking a millisecond early would only poll again.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wake - now).count();
  return static_cast<int>(std::min<decltype(ms)>(ms, 60'000));
}

void NoticeServer::Impl::drain_outbox() {
  std::vector<Posted> posted = outbox_->take();
  for (Posted& p : posted) {
    const auto it = connections_.find(p.connection);
    // Gone (closed meanwhile), or a second answer to the same request.
    if (it == connections_.end() || it->second.awaiting != p.request) continue;
    Connection& c = it->second;
    try {
      c.awaiting.reset();
      c.last_activity = Clock::now();
      if (p.dropped) {
        log_(LogCode::kRequestDropped,
             "a request of " + peer_text(c.peer) + " was dropped unanswered");
        p.line = to_line(
            error_response(ErrorCode::kInternal, "the controller dropped the request unanswered"));
      } else {
        if (p.line.empty() || p.line.back() != '\n') p.line += '\n';
        if (p.line.size() == 1 || p.line.find('\n') != p.line.size() - 1) {
          log_(LogCode::kResponseMalformed,
               "a response for " + peer_text(c.peer) +
                   " is empty or spans several lines; sending an internal error");
          p.line = to_line(error_response(ErrorCode::kInternal, "the response was malformed"));
        }
      }
      send_line(c, std::move(p.line), settings_.max_output_bytes, log_);
      mark_ready(c);
    } catch (const std::exception& e) {
      log_(LogCode::kReplyFailed,
           "closing the connection of " + peer_text(c.peer) + ": " + e.what());
      c.dead = true;
    }
  }
}

void NoticeServer::Impl::accept_connections() {
  for (int i = 0; i < kAcceptsPerWakeup; ++i) {
    UniqueFd fd(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd.get() < 0) {
      const int err = errno;
      if (err == EINTR || err == ECONNABORTED || err == EPROTO) continue;
      if (err == EAGAIN || err == EWOULDBLOCK) return;
      log_(LogCode::kAcceptFailed, "accept failed, pausing for " +
                                       std::to_string(kAcceptPause.count()) +
                                       " ms: " + errno_text(err));
      accept_paused_until_ = Clock::now() + kAcceptPause;
      return;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      const int err = errno;
      log_(LogCode::kNoPeerCredentials,
           "closing a connection without peer credentials: " + errno_text(err));
      continue;
    }
    const PeerCredentials peer{cred.pid, cred.uid, cred.gid};
    const bool privileged = admission_.privileged(peer.uid);
    if (!admission_.admit(fd.get(), peer, privileged, connections_, Clock::now())) continue;
    const std::uint64_t id = ++next_connection_;
    Connection& c = connections_[id];
    c.id = id;
    c.fd = std::move(fd);
    c.peer = peer;
    c.privileged = privileged;
    c.idle_timeout = privileged ? settings_.scheduler_idle_timeout : settings_.idle_timeout;
    c.last_activity = Clock::now();
    open_.store(connections_.size());
    log_(LogLevel::kDebug, "connection " + std::to_string(id) + " from " + peer_text(peer));
  }
}

void NoticeServer::Impl::handle_io(Connection& c, short revents) {
  if ((revents & POLLNVAL) != 0) {
    log_(LogCode::kInvalidDescriptor,
         "connection " + std::to_string(c.id) + " has an invalid descriptor");
    c.dead = true;
    return;
  }
  // POLLHUP and POLLERR: the read or write below finds out what happened.
  const bool failed = (revents & (POLLHUP | POLLERR)) != 0;
  if (!c.out_empty() && ((revents & POLLOUT) != 0 || failed)) flush(c, log_);
  if (c.wants_read() && ((revents & POLLIN) != 0 || failed)) read_some(c, log_);
  mark_ready(c);
}

void NoticeServer::Impl::mark_ready(Connection& c) {
  if (c.queued || !c.may_step()) return;
  ready_.push_back(c.id);
  c.queued = true;
}

// One turn: a step for every connection that was ready when the turn began, in the order they
// became ready. One that served a line queues again behind the others, so a client that pipelines
// delays another connection's request by at most one of its own lines.
void NoticeServer::Impl::serve_ready() {
  for (std::size_t n = ready_.size(); n > 0; --n) {
    const std::uint64_t id = ready_.front();
    ready_.pop_front();
    const auto it = connections_.find(id);
    if (it == connections_.end()) continue;
    Connection& c = it->second;
    c.queued = false;
    try {
      if (step(c)) mark_ready(c);
    } catch (const std::exception& e) {
      log_(LogCode::kServeFailed,
           "closing the connection of " + peer_text(c.peer) + ": " + e.what());
      c.dead = true;
    }
  }
}

// Serves the connection's next line, once the previous request is answered and its response
// written: dispatches it, or answers it here when it is malformed or too long. Empty lines are
// skipped. Closes the connection when it is finished. True when a line was served (another may be
// waiting).
bool NoticeServer::Impl::step(Connection& c) {
  bool served = false;
  if (c.may_step() && !c.close_after) {
    const Frame frame = next_frame(c);
    if (frame.kind == Frame::Kind::kTooLong) {
      log_(LogLevel::kWarn,
           "closing the connection of " + peer_text(c.peer) + ": " + frame.log_reason);
      send_line(c, to_line(error_response(ErrorCode::kTooLarge, frame.answer)),
                settings_.max_output_bytes, log_);
      c.close_after = true;
    } else if (frame.kind == Frame::Kind::kLine) {
      dispatch(c, frame.line);
      served = true;
    }
  }
  if (c.dead || !c.out_empty() || c.awaiting) return served;
  if (c.close_after) {
    c.dead = true;
  } else if (c.eof && c.in_pos == c.in.size()) {
    log_(LogLevel::kDebug, "connection " + std::to_string(c.id) + " finished");
    c.dead = true;
  }
  return served;
}

void NoticeServer::Impl::dispatch(Connection& c, std::string_view line) {
  c.last_activity = Clock::now();
  const ParsedRequest parsed = parse_request(line);
  if (!parsed.ok()) {
    const RequestError& e = parsed.error();
    log_(LogLevel::kDebug, "refused a request of " + peer_text(c.peer) + ": " +
                               std::string(to_string(e.code)) + ": " + e.message);
    send_line(c, to_line(error_response(e)), settings_.max_output_bytes, log_);
    return;
  }
  const std::uint64_t request = ++c.requests;
  c.awaiting = request;
  const auto token = std::make_shared<ReplyToken>(outbox_, c.id, request);
  Reply reply = [token](std::string response) { token->reply(std::move(response)); };
  const std::string_view op = op_name(parsed.request());
  try {
    handler_(parsed.request(), c.peer, reply);
  } catch (const std::exception& e) {
    log_(LogCode::kHandlerFailed, "the handler failed on a " + std::string(op) + " request of " +
                                      peer_text(c.peer) + ": " + e.what());
    token->reply(to_line(error_response(ErrorCode::kInternal,
                                        "the controller failed on this request; see its log")));
  } catch (...) {
    log_(LogCode::kHandlerFailed, "the handler failed on a " + std::string(op) + " request of " +
                                      peer_text(c.peer) + " (not a std::exception)");
    token->reply(to_line(error_response(ErrorCode::kInternal,
                                        "the controller failed on this request; see its log")));
  }
}

void NoticeServer::Impl::check_idle(Clock::time_point now) {
  for (auto& [id, c] : connections_) {
    if (c.awaiting || c.dead || now - c.last_activity < c.idle_timeout) continue;
    const bool partial = c.in_pos < c.in.size();
    log_(partial || !c.out_empty() ? LogLevel::kWarn : LogLevel::kDebug,
         "closing connection " + std::to_string(id) + " of " + peer_text(c.peer) + ": idle for " +
             std::to_string(c.idle_timeout.count()) + " ms" + (partial ? " within a line" : "") +
             (!c.out_empty() ? " without reading" : ""));
    c.dead = true;
  }
}

void NoticeServer::Impl::sweep() {
  std::erase_if(connections_, [](const auto& entry) { return entry.second.dead; });
  open_.store(connections_.size());
}

// ---- NoticeServer ----------------------------------------------------------------------------

NoticeServer::NoticeServer(Settings settings, Handler handler, Log log)
    : impl_(std::make_unique<Impl>(std::move(settings), std::move(handler), std::move(log))) {
  impl_->start();
}

NoticeServer::~NoticeServer() = default;

void NoticeServer::stop() {
  impl_->stop();
}

std::size_t NoticeServer::connections() const {
  return impl_->connections();
}

const std::string& NoticeServer::path() const {
  return impl_->path();
}

}  // namespace ibsdn
