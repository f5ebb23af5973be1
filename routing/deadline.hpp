// A bound on the time one request may take, checked inside the loops that input drives (flows,
// pairs, matchings), so that routing inside the subnet manager can always be cut short: when the
// deadline passes or the owner cancels (opensm shuts down), the next check throws.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ibsdn {

/// Thrown by Deadline::check(); what() says where the work stopped.
class DeadlineExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  /// Never expires (tests, tools).
  Deadline() = default;
  /// Expires at `at`, or as soon as `*cancel` becomes true (may be null).
  explicit Deadline(Clock::time_point at, const std::atomic<bool>* cancel = nullptr)
      : at_(at), cancel_(cancel), bounded_(true) {}

  [[nodiscard]] bool expired() const {
    if (!bounded_) return false;
    if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) return true;
    return Clock::now() >= at_;
  }
  /// Throws DeadlineExceeded naming `where` when expired.
  void check(std::string_view where) const {
    if (expired()) {
      throw DeadlineExceeded(std::string(cancelled() ? "cancelled" : "deadline passed") +
                             " while " + std::string(where));
    }
  }
  /// Checks only every 256th call of a loop (`i` is the loop counter): a clock read per
  /// iteration would cost more than the work of the cheapest loops.
  void check_every(std::uint64_t i, std::string_view where) const {
    if ((i & 0xFFu) == 0) check(where);
  }
  /// Time left: nullopt when it never expires, zero once it has passed or was cancelled. For
  /// solvers that take a time limit instead of checking in a loop of ours (GLPK's tm_lim).
  [[nodiscard]] std::optional<Clock::duration> remaining() const {
    if (!bounded_) return std::nullopt;
    if (cancelled()) return Clock::duration::zero();
    return std::max(at_ - Clock::now(), Clock::duration::zero());
  }
  [[nodiscard]] bool cancelled() const {
    return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed);
  }

 private:
  Clock::time_point at_{};
  const std::atomic<bool>* cancel_ = nullptr;
  bool bounded_ = false;
};

}  // namespace ibsdn
