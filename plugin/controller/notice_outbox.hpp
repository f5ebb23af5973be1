// Replies on their way to the notice server's thread (internal to the notice server): the handler
// answers a request later, from any thread (the controller's, mostly), through a Reply; the reply
// waits in the Outbox until the server's thread, woken by its eventfd, writes it to the connection.
// The Outbox outlives the server when a Reply does: a late Reply finds it closed and does nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/unique_fd.hpp"

namespace ibsdn::notice_detail {

/// One reply for one request of one connection.
struct Posted {
  std::uint64_t connection = 0;
  std::uint64_t request = 0;
  std::string line;
  bool dropped = false;  // the handler let every copy of the Reply go unanswered
};

/// Replies travel from any thread to the server thread through this queue and the eventfd. The
/// outbox is closed (under the mutex) before the eventfd is, so a late Reply never writes to a
/// descriptor number the process has reused meanwhile.
class Outbox {
 public:
  /// The server's eventfd, written to wake its thread.
  void attach_wake_fd(UniqueFd fd);
  /// Closes the eventfd (under the mutex); after close(), when the server's thread has ended.
  void close_wake_fd();
  /// The eventfd to poll, on the server's thread only.
  [[nodiscard]] int wake_fd() const { return wake_fd_.get(); }
  /// Resets the eventfd's counter once the server's thread woke (on that thread).
  void consume_wake() const;

  /// Queues `p` and wakes the server's thread; nothing once closed.
  void post(Posted p);
  /// The server stops: no more replies are queued; wakes its thread so that it finds out.
  void close();
  [[nodiscard]] bool closed() const;
  /// The replies queued so far, in the order they were posted.
  [[nodiscard]] std::vector<Posted> take();

 private:
  void wake_locked() const;

  mutable std::mutex mutex_;
  bool closed_ = false;
  UniqueFd wake_fd_;
  std::vector<Posted> posted_;
};

/// Shared by the copies of one Reply: makes only the first call count, and notices when none
/// was made.
class ReplyToken {
 public:
  ReplyToken(std::weak_ptr<Outbox> outbox, std::uint64_t connection, std::uint64_t request)
      : outbox_(std::move(outbox)), connection_(connection), request_(request) {}
  ReplyToken(const ReplyToken&) = delete;
  ReplyToken& operator=(const ReplyToken&) = delete;
  /// Posts a `dropped` reply unless reply() was called.
  ~ReplyToken();
  void reply(std::string line);

 private:
  std::weak_ptr<Outbox> outbox_;
  std::uint64_t connection_;
  std::uint64_t request_;
  std::atomic<bool> used_{false};
};

}  // namespace ibsdn::notice_detail
