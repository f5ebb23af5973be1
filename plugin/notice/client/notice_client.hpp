// The client side of the notice protocol (docs/notice-protocol.md): one request line to the
// controller's Unix socket, one response line back, checked for "v": 1 and "ok". Shared by
// ibsdnctl (cli/) and the Slurm hook (scheduler_hook/), which must both bound every wait.
//
// Every failure to get a usable answer (no socket, refused, timeout, connection closed early,
// oversized or malformed line) is a kNoAnswer reply whose message names the socket path and, for
// system errors, the errno text: that is what an operator needs to tell a stopped OpenSM from a
// permissions problem.
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ibsdn {

/// Where the controller listens unless its configuration says otherwise (notice_socket), and the
/// environment variable with which users point ibsdnctl and libibsdn-hints elsewhere.
inline constexpr std::string_view kDefaultNoticeSocket = "/run/ibsdn/notice.sock";
inline constexpr std::string_view kNoticeSocketEnvVar = "IBSDN_SOCKET";

/// A flows dump of a large fabric is big, but a response beyond this is a broken controller (or
/// not the controller at all), and the client must not grow without bound reading it.
inline constexpr std::size_t kMaxResponseBytes = std::size_t{256} << 20;

struct Reply {
  enum class Status : unsigned char {
    kOk,               // "ok": true
    kControllerError,  // "ok": false with a well-formed "error"
    kNoAnswer,         // transport failure or malformed response
  };
  Status status = Status::kNoAnswer;
  /// The response line as received, without its '\n' (empty when none was read).
  std::string line;
  /// The parsed response (kOk and kControllerError).
  nlohmann::json response;
  /// kControllerError: the controller's error code ("unknown_job", ...).
  std::string error_code;
  /// kControllerError: the controller's message. kNoAnswer: what went wrong, naming the socket.
  std::string message;
};

/// The bounds of one exchange with the controller.
struct CallLimits {
  /// The whole exchange: connect, write and read.
  std::chrono::milliseconds timeout{10'000};
  /// The connect alone (within `timeout`): a controller whose listen backlog stays full (hung,
  /// stopped) is given up on early. Default: all of `timeout`.
  std::optional<std::chrono::milliseconds> connect_timeout;
  std::size_t max_response_bytes = kMaxResponseBytes;
  /// How the caller's user sets the bounds, named in the messages: "(--timeout)".
  std::string timeout_setting = "--timeout";
  std::string connect_timeout_setting = "--timeout";
};

/// Connects to `socket_path`, writes `request_line` (a '\n' is appended when missing) and reads
/// one response line. `timeout` bounds the whole exchange: connect, write and read. A controller
/// that refuses the connection (busy, a connection limit) writes one line and closes, maybe
/// before the request is written: when the write fails because the peer closed (EPIPE,
/// ECONNRESET), that line is still read and returned; the write's error only when there is none.
/// Never raises SIGPIPE.
Reply call_controller(const std::string& socket_path, std::string_view request_line,
                      std::chrono::milliseconds timeout,
                      std::size_t max_response_bytes = kMaxResponseBytes);

/// The same with separate connect and total bounds (CallLimits).
Reply call_controller(const std::string& socket_path, std::string_view request_line,
                      const CallLimits& limits);

/// Checks one response line (JSON object, "v": 1, boolean "ok", on failure an "error" object with
/// string "code" and "message"). `socket_path` only goes into messages.
Reply interpret_response(std::string line, const std::string& socket_path);

}  // namespace ibsdn
