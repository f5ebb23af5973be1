#include "plugin/notice/client/notice_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "common/unique_fd.hpp"
#include "plugin/notice/notice.hpp"

namespace ibsdn {
namespace {

using Clock = std::chrono::steady_clock;

Reply no_answer(std::string message) {
  Reply r;
  r.status = Reply::Status::kNoAnswer;
  r.message = std::move(message);
  return r;
}

std::string errno_text(int err) {
  return std::strerror(err);
}

// What is left of the deadline, for poll(): at least 0, at most INT_MAX.
int remaining_ms(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

// Waits until `fd` is ready for `events` or the deadline passes. Returns 0 when ready, ETIMEDOUT
// at the deadline, or the errno of poll().
int wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return 0;  // POLLHUP / POLLERR: the following call reports what happened
    if (n == 0) return ETIMEDOUT;
    if (errno != EINTR) return errno;
  }
}

// A Unix socket's connect() does not go through EINPROGRESS: a full listen backlog gives EAGAIN
// at once, and the only way to wait for room is to try again.
int connect_until(int fd, const sockaddr_un& addr, Clock::time_point deadline) {
  constexpr auto kRetryPause = std::chrono::milliseconds(10);
  for (;;) {
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return 0;
    const int err = errno;
    if (err == EINTR) continue;
    if (err == EINPROGRESS) {
      if (const int w = wait_for(fd, POLLOUT, deadline); w != 0) return w;
      int so_error = 0;
      socklen_t len = sizeof so_error;
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) return errno;
      return so_error;
    }
    if (err != EAGAIN) return err;
    if (Clock::now() >= deadline) return ETIMEDOUT;
    std::this_thread::sleep_for(std::min<Clock::duration>(kRetryPause, deadline - Clock::now()));
  }
}

std::string ms_text(std::chrono::milliseconds t) {
  return std::to_string(t.count()) + " ms";
}

// Reads one response line and checks it (interpret_response), or says why there is none.
Reply read_response(int fd, const std::string& socket_path, Clock::time_point deadline,
                    const CallLimits& limits) {
  const std::size_t max_response_bytes = limits.max_response_bytes;
  std::string in;
  char buf[64 * 1024];
  for (;;) {
    if (const int w = wait_for(fd, POLLIN, deadline); w != 0) {
      return no_answer(w == ETIMEDOUT
                           ? socket_path + ": no response within " + ms_text(limits.timeout) +
                                 " (" + limits.timeout_setting + ")"
                           : "cannot read from " + socket_path + ": " + errno_text(w));
    }
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR || err == EAGAIN || err == EWOULDBLOCK) continue;
      return no_answer("cannot read from " + socket_path + ": " + errno_text(err));
    }
    if (n == 0) {
      return no_answer(socket_path + ": the controller closed the connection " +
                       (in.empty() ? std::string("without answering")
                                   : "after " + std::to_string(in.size()) +
                                         " bytes, before the end of the response line"));
    }
    const std::size_t old = in.size();
    in.append(buf, static_cast<std::size_t>(n));
    if (const auto nl = in.find('\n', old); nl != std::string::npos) {
      if (nl > max_response_bytes) break;
      in.resize(nl);
      return interpret_response(std::move(in), socket_path);
    }
    if (in.size() > max_response_bytes) break;
  }
  return no_answer(socket_path + ": malformed response: longer than " +
                   std::to_string(max_response_bytes) + " bytes");
}

}  // namespace

Reply interpret_response(std::string line, const std::string& socket_path) {
  const std::string where = socket_path + ": malformed response: ";
  if (!line.empty() && line.back() == '\r') line.pop_back();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    // Keep nlohmann's position, drop its "[json.exception.parse_error.101] " tag.
    if (const auto tag_end = what.find("] "); what.starts_with("[json.") && tag_end != what.npos) {
      what.erase(0, tag_end + 2);
    }
    return no_answer(where + "not JSON: " + what);
  }
  if (!j.is_object()) {
    return no_answer(where + "expected a JSON object, got " + std::string(j.type_name()));
  }
  const auto v = j.find("v");
  if (v == j.end() || !v->is_number_integer() || v->get<std::int64_t>() != kNoticeProtocolVersion) {
    return no_answer(where + "\"v\" is " + (v == j.end() ? std::string("missing") : v->dump()) +
                     ", this client speaks protocol version " +
                     std::to_string(kNoticeProtocolVersion));
  }
  const auto ok = j.find("ok");
  if (ok == j.end() || !ok->is_boolean()) {
    return no_answer(where + "\"ok\" is missing or not true/false");
  }
  Reply r;
  r.line = std::move(line);
  if (ok->get<bool>()) {
    r.status = Reply::Status::kOk;
    r.response = std::move(j);
    return r;
  }
  const auto err = j.find("error");
  if (err == j.end() || !err->is_object() || !err->contains("code") ||
      !(*err)["code"].is_string() || !err->contains("message") || !(*err)["message"].is_string()) {
    return no_answer(where + "\"ok\" is false without an error object {code, message}");
  }
  r.status = Reply::Status::kControllerError;
  r.error_code = (*err)["code"].get<std::string>();
  r.message = (*err)["message"].get<std::string>();
  r.response = std::move(j);
  return r;
}

Reply call_controller(const std::string& socket_path, std::string_view request_line,
                      std::chrono::milliseconds timeout, std::size_t max_response_bytes) {
  CallLimits limits;
  limits.timeout = timeout;
  limits.max_response_bytes = max_response_bytes;
  return call_controller(socket_path, request_line, limits);
}

Reply call_controller(const std::string& socket_path, std::string_view request_line,
                      const CallLimits& limits) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + limits.timeout;
  const bool own_connect_bound = limits.connect_timeout && *limits.connect_timeout < limits.timeout;
  const Clock::time_point connect_deadline =
      own_connect_bound ? start + *limits.connect_timeout : deadline;

  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.empty()) return no_answer("the socket path is empty");
  if (socket_path.size() >= sizeof addr.sun_path) {
    return no_answer("cannot connect to " + socket_path + ": the path is longer than " +
                     std::to_string(sizeof addr.sun_path - 1) + " bytes");
  }
  std::memcpy(addr.sun_path, socket_path.data(), socket_path.size());

  const UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return no_answer("cannot create a Unix socket: " + errno_text(errno));
  if (const int err = connect_until(fd.get(), addr, connect_deadline); err != 0) {
    if (err == ETIMEDOUT) {
      return no_answer(
          "cannot connect to " + socket_path + ": no room in its backlog within " +
          (own_connect_bound
               ? ms_text(*limits.connect_timeout) + " (" + limits.connect_timeout_setting + ")"
               : ms_text(limits.timeout) + " (" + limits.timeout_setting + ")"));
    }
    return no_answer("cannot connect to " + socket_path + ": " + errno_text(err));
  }

  std::string out(request_line);
  if (out.empty() || out.back() != '\n') out += '\n';
  for (std::size_t sent = 0; sent < out.size();) {
    // MSG_NOSIGNAL: a peer that closed makes send() fail with EPIPE instead of killing ibsdnctl
    // with SIGPIPE before it can read why.
    const ssize_t n = ::send(fd.get(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    const int err = errno;
    if (err == EINTR) continue;
    if (err != EAGAIN && err != EWOULDBLOCK) {
      // A controller that refuses the connection (busy, a limit) writes one line and closes,
      // maybe before the request is written: its line says why, the broken pipe does not.
      if (err == EPIPE || err == ECONNRESET) {
        Reply said = read_response(fd.get(), socket_path, deadline, limits);
        if (said.status != Reply::Status::kNoAnswer) return said;
      }
      return no_answer("cannot send the request to " + socket_path + ": " + errno_text(err));
    }
    if (const int w = wait_for(fd.get(), POLLOUT, deadline); w != 0) {
      return no_answer(
          w == ETIMEDOUT ? socket_path + ": the controller did not take the request " + "within " +
                               ms_text(limits.timeout) + " (" + limits.timeout_setting + ")"
                         : "cannot send the request to " + socket_path + ": " + errno_text(w));
    }
  }
  return read_response(fd.get(), socket_path, deadline, limits);
}

}  // namespace ibsdn
