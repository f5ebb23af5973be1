// Internal to the notice server (notice_server.cpp and its parts notice_socket, notice_admission,
// notice_framing, notice_outbox; nothing else includes it): one client connection as the server's
// thread holds it, and the log and texts the parts share.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "common/unique_fd.hpp"
#include "plugin/controller/log_codes.hpp"
#include "plugin/controller/notice_server.hpp"

namespace ibsdn::notice_detail {

using Clock = std::chrono::steady_clock;

// strerror() may share a buffer between threads; this does not.
inline std::string errno_text(int err) {
  return std::system_category().message(err);
}

inline std::string peer_text(const PeerCredentials& p) {
  return "pid " + std::to_string(p.pid) + " uid " + std::to_string(p.uid) + " gid " +
         std::to_string(p.gid);
}

/// The server's log: every line names the socket, and a failing logger is ignored.
class ServerLog {
 public:
  ServerLog(std::string path, NoticeServer::Log log)
      : path_(std::move(path)), log_(std::move(log)) {}

  void operator()(LogLevel level, const std::string& message) const noexcept {
    if (!log_) return;
    try {
      log_(level, in_context("notice server " + path_ + ": ", message));
    } catch (...) {
      // A failing logger must not take the server (or OpenSM) down with it.
    }
  }
  void operator()(LogCode code, const std::string& message) const noexcept {
    try {
      (*this)(LogLevel::kError, error_line(code, message));
    } catch (...) {
    }
  }

 private:
  std::string path_;
  NoticeServer::Log log_;
};

struct Connection {
  std::uint64_t id = 0;
  UniqueFd fd;
  PeerCredentials peer;
  bool privileged = false;  // root or the scheduler
  std::chrono::milliseconds idle_timeout{0};
  std::string in;  // received bytes; in[in_pos..] is not yet consumed
  std::size_t in_pos = 0;
  std::size_t scanned = 0;  // in[in_pos..scanned) holds no '\n'
  std::string out;          // out[out_pos..] is not yet written
  std::size_t out_pos = 0;
  std::optional<std::uint64_t> awaiting;  // the request the handler has
  std::uint64_t requests = 0;
  bool eof = false;          // the peer shut down its writing side
  bool close_after = false;  // close once `out` is written
  bool dead = false;         // close now
  bool queued = false;       // in the server's ready queue
  Clock::time_point last_activity;

  [[nodiscard]] bool out_empty() const { return out_pos == out.size(); }
  /// Read only when every buffered byte was scanned without finding a complete line: lines wait
  /// for their turn in the kernel's buffer, not in ours.
  [[nodiscard]] bool wants_read() const {
    return !eof && !close_after && !dead && !awaiting && out_empty() && scanned == in.size();
  }
  /// Could take a step now (serve a line, or find out that it is finished).
  [[nodiscard]] bool may_step() const { return !dead && !awaiting && out_empty(); }
};

/// The open connections by id, in the order they were accepted.
using Connections = std::map<std::uint64_t, Connection>;

}  // namespace ibsdn::notice_detail
