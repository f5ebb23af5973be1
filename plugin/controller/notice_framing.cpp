#include "plugin/controller/notice_framing.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "plugin/notice/limits.hpp"

namespace ibsdn::notice_detail {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

}  // namespace

void read_some(Connection& c, const ServerLog& log) {
  if (c.in_pos > 0) {
    c.in.erase(0, c.in_pos);
    c.scanned -= c.in_pos;
    c.in_pos = 0;
  }
  const std::size_t old_size = c.in.size();
  c.in.resize(old_size + kReadChunk);
  ssize_t n;
  do {
    n = ::recv(c.fd.get(), c.in.data() + old_size, kReadChunk, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  c.in.resize(old_size + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  if (n == 0) {
    c.eof = true;
  } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
    const int err = errno;
    log(LogLevel::kDebug, "connection " + std::to_string(c.id) + " failed: " + errno_text(err));
    c.dead = true;
  }
}

Frame next_frame(Connection& c) {
  Frame frame;
  while (true) {
    const std::size_t newline = c.in.find('\n', c.scanned);
    std::string_view rest(c.in);
    rest.remove_prefix(c.in_pos);
    if (newline == std::string::npos) {
      c.scanned = c.in.size();
      // A "\r" may still precede the '\n' of a line of exactly the limit.
      const bool over = rest.size() > kMaxNoticeLineBytes + 1 ||
                        (rest.size() == kMaxNoticeLineBytes + 1 && rest.back() != '\r');
      if (over) {
        frame.kind = Frame::Kind::kTooLong;
        frame.log_reason = "a line exceeds " + std::to_string(kMaxNoticeLineBytes) + " bytes";
        frame.answer =
            "the line exceeds " + std::to_string(kMaxNoticeLineBytes) + " bytes without a newline";
        return frame;
      }
      if (!c.eof) return frame;
      // The client shut down its side after a last line without '\n': that line is complete.
      c.in_pos = c.in.size();
      c.scanned = c.in.size();
      if (rest.empty() || rest == "\r") return frame;
      frame.kind = Frame::Kind::kLine;
      frame.line = rest;
      return frame;
    }
    const std::string_view line = rest.substr(0, newline - c.in_pos);
    c.in_pos = newline + 1;
    c.scanned = c.in_pos;
    if (line.empty() || line == "\r") continue;
    const std::size_t length = line.size() - (line.back() == '\r' ? 1 : 0);
    if (length > kMaxNoticeLineBytes) {
      // Treated like a line still without '\n': whether the newline had arrived is chance.
      frame.kind = Frame::Kind::kTooLong;
      frame.log_reason = "a line has " + std::to_string(length) + " bytes";
      frame.answer = "the line has " + std::to_string(length) + " bytes, the limit is " +
                     std::to_string(kMaxNoticeLineBytes);
      return frame;
    }
    frame.kind = Frame::Kind::kLine;
    frame.line = line;
    return frame;
  }
}

void send_line(Connection& c, std::string line, std::size_t max_output_bytes,
               const ServerLog& log) {
  const std::size_t pending = c.out.size() - c.out_pos;
  if (pending + line.size() > max_output_bytes) {
    log(LogCode::kOutputLimitExceeded, "closing the connection of " + peer_text(c.peer) +
                                           ": a response of " + std::to_string(line.size()) +
                                           " bytes exceeds the output limit of " +
                                           std::to_string(max_output_bytes) + " bytes");
    c.dead = true;
    return;
  }
  if (c.out_empty()) {
    c.out = std::move(line);
    c.out_pos = 0;
  } else {
    c.out.append(line);
  }
  flush(c, log);
}

void flush(Connection& c, const ServerLog& log) {
  while (!c.out_empty()) {
    const ssize_t n = ::send(c.fd.get(), c.out.data() + c.out_pos, c.out.size() - c.out_pos,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out_pos += static_cast<std::size_t>(n);
      c.last_activity = Clock::now();
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // EPIPE, ECONNRESET: the client is gone; what it had not read yet goes with it.
    const int err = errno;
    log(LogLevel::kDebug, "connection " + std::to_string(c.id) + " of " + peer_text(c.peer) +
                              " closed before reading its response: " + errno_text(err));
    c.dead = true;
    return;
  }
  c.out.clear();
  c.out_pos = 0;
}

}  // namespace ibsdn::notice_detail
