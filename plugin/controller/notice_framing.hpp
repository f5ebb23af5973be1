// One notice connection's bytes (internal to the notice server): request lines cut from what the
// client sent, each bounded by kMaxNoticeLineBytes, and responses written in the order they were
// queued, bounded by max_output_bytes. Never blocks: a socket that takes no more bytes keeps them
// in Connection::out until poll() says it does. The server reads a connection only once every
// buffered byte was scanned without a complete line (Connection::wants_read()), so lines wait for
// their turn in the kernel's buffer, not in ours.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "plugin/controller/notice_connection.hpp"

namespace ibsdn::notice_detail {

/// Reads what the socket holds, at most one chunk, after c.in's unconsumed bytes. Sets c.eof when
/// the client shut down its side, c.dead (logged at debug level) when reading failed.
void read_some(Connection& c, const ServerLog& log);

/// What c.in holds next.
struct Frame {
  enum class Kind : std::uint8_t {
    kNone,     // no complete line (yet): wait for more, or, after EOF, the connection is finished
    kLine,     // `line`
    kTooLong,  // a line beyond kMaxNoticeLineBytes, with or without its '\n' yet
  };
  Kind kind = Kind::kNone;
  /// kLine: the request line without its '\n' (a final '\r' stays: the parser takes it), a view
  /// into c.in, valid until c.in changes.
  std::string_view line;
  /// kTooLong: why, for the log ("a line has N bytes"), and the kTooLarge answer's message.
  std::string log_reason;
  std::string answer;
};

/// The next non-empty line of c.in, consumed; empty lines (also "\r") are skipped. A last line
/// without '\n' is complete once the client shut down its side (c.eof). A line too long is not
/// consumed: the connection is closed after the answer.
Frame next_frame(Connection& c);

/// Queues `line` (a whole response line) after what c.out holds and writes what the socket takes.
/// When the bytes waiting would exceed `max_output_bytes` the connection is closed instead
/// (c.dead, logged as an error: the client does not read, or one response is too large).
void send_line(Connection& c, std::string line, std::size_t max_output_bytes, const ServerLog& log);

/// Writes what the socket takes of c.out. A client gone before reading its response (EPIPE,
/// ECONNRESET) closes the connection (c.dead, logged at debug level).
void flush(Connection& c, const ServerLog& log);

}  // namespace ibsdn::notice_detail
