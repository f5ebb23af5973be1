// The controller's end of the notice socket (docs/notice-protocol.md, "Transport"): a Unix stream
// socket server for the JSON-lines protocol of notice.hpp, on a thread of its own.
//
// The server only frames, parses and answers: it reads request lines, answers malformed ones
// itself, and passes every well-formed request with the peer's SO_PEERCRED credentials to the
// handler, which queues it for the controller thread. The controller decides authorization and
// answers later through a Reply. One request per connection is with the handler at a time: the
// next line of a connection is parsed only once the previous reply was written to the socket.
// So a client may pipeline, responses come back in request order whatever thread answers when,
// and a client that does not read its responses stops being read from (back-pressure) instead of
// growing the server's buffers.
//
// Nothing a client or the handler does may end the process (OpenSM runs it): writes use
// MSG_NOSIGNAL, exceptions are caught and logged, and a Reply outliving its connection or the
// server does nothing.
//
// Nor may one local user lock the scheduler out: root and the scheduler's uid ("privileged") have
// connection slots nobody else can take, every other uid may hold only a few connections and is
// closed sooner when idle. Connections are served round-robin, one line per connection per turn,
// so a client that pipelines many requests (or many lines the server answers itself) delays
// another connection's request by at most one of its own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "plugin/controller/config.hpp"
#include "plugin/notice/notice.hpp"

namespace ibsdn {

/// The peer's process, read with SO_PEERCRED when the connection is accepted.
struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  bool operator==(const PeerCredentials&) const = default;
};

class NoticeServer {
 public:
  /// Writes one response line (from to_line(); a missing final '\n' is added, an empty or
  /// multi-line one is logged and replaced by kInternal) to the connection the request came from.
  /// Callable from any thread. Only the first call of a request's Reply (and of its copies) counts;
  /// a Reply called after its connection closed or the server stopped does nothing. When every copy
  /// of a Reply is destroyed without having been called, the client gets kInternal ("dropped")
  /// instead of waiting forever.
  using Reply = std::function<void(std::string line)>;
  /// Called on the server's thread for every well-formed request line. Must not block (it
  /// normally queues the request for the controller thread) and must not destroy the server;
  /// it may call stop(). An exception it throws is logged and answered with kInternal (unless
  /// it had already replied).
  using Handler = std::function<void(Request request, PeerCredentials peer, Reply reply)>;
  /// Called on the server's thread, and on the caller's in the constructor and stop(). May be
  /// empty.
  using Log = std::function<void(LogLevel level, const std::string& message)>;

  struct Settings {
    /// Absolute, at most 107 bytes (Config::notice_socket).
    std::string path;
    /// Config::socket_group: the socket's group, mode 0660. Without it: the process's group,
    /// mode 0600.
    std::optional<std::string> group;
    /// Connections open at once; the next one is answered kBusy and closed.
    std::size_t max_connections = 64;
    /// Connections one uid other than root and `scheduler_uid` may hold at once; its next one is
    /// answered kBusy (naming the limit and how many it holds) and closed. 1..max_connections.
    std::size_t max_connections_per_uid = 8;
    /// Of max_connections, the slots only root and `scheduler_uid` may take: all other uids
    /// together hold at most max_connections - reserved_for_scheduler. 0..max_connections - 1.
    std::size_t reserved_for_scheduler = 8;
    /// The scheduler's uid (Config::slurm_user), privileged like root; none: root only.
    std::optional<uid_t> scheduler_uid;
    /// A connection the server waits on (no request with the handler) that completes no line
    /// and accepts no response bytes for this long is closed: root's and the scheduler's ...
    std::chrono::milliseconds scheduler_idle_timeout{60'000};
    /// ... and everybody else's, sooner: their idle connections only hold slots.
    std::chrono::milliseconds idle_timeout{10'000};
    /// Response bytes waiting for a client that does not read; beyond it the connection is
    /// closed (and logged). It bounds one response, since the next request waits for the last.
    std::size_t max_output_bytes = std::size_t{64} << 20;
    /// Refused connections are logged rate-limited (refusal_log.hpp): a uid's first refusal in
    /// full, then at most one line per uid and interval that counts the others. 0: every one.
    std::chrono::milliseconds refusal_log_interval{10'000};
  };

  /// Creates the parent directory (0755) when missing (not its ancestors), removes a stale
  /// socket file (a socket nobody listens on) but refuses to take over a live one or to remove
  /// anything that is not a socket, binds, sets the group and mode, listens, and starts the
  /// server's thread. Throws std::runtime_error naming the path and the reason (errno text).
  NoticeServer(Settings settings, Handler handler, Log log);
  NoticeServer(const NoticeServer&) = delete;
  NoticeServer& operator=(const NoticeServer&) = delete;
  ~NoticeServer();

  /// Idempotent: closes all connections (pending requests get no response), joins the thread
  /// and removes the socket file (unless another process has replaced it meanwhile). From the
  /// handler it only asks the thread to finish; the destructor then completes it.
  void stop();

  /// Connections open now; a refused one never counts.
  [[nodiscard]] std::size_t connections() const;
  [[nodiscard]] const std::string& path() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsdn
