#include "plugin/pending_requests.hpp"

#include <algorithm>
#include <utility>

namespace ibsdn::plugin {

std::uint32_t PendingRequests::next_tid() {
  counter_ = (counter_ + 1) & kTidCounterMask;
  if (counter_ == 0) counter_ = 1;
  return kTidBase | counter_;
}

void PendingRequests::add(PendingRequest r) {
  const std::uint32_t tid = r.tid;
  by_tid_.insert_or_assign(tid, std::move(r));
}

std::optional<PendingRequest> PendingRequests::take(std::uint32_t tid) {
  const auto it = by_tid_.find(tid);
  if (it == by_tid_.end()) return std::nullopt;
  PendingRequest r = std::move(it->second);
  by_tid_.erase(it);
  return r;
}

std::vector<PendingRequest> PendingRequests::take_expired(Clock::time_point now) {
  std::vector<PendingRequest> out;
  for (auto it = by_tid_.begin(); it != by_tid_.end();) {
    if (it->second.deadline <= now) {
      out.push_back(std::move(it->second));
      it = by_tid_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(out.begin(), out.end(), [](const PendingRequest& a, const PendingRequest& b) {
    return a.deadline != b.deadline ? a.deadline < b.deadline : a.tid < b.tid;
  });
  return out;
}

std::vector<PendingRequest> PendingRequests::take_all() {
  return take_expired(Clock::time_point::max());
}

std::optional<Clock::time_point> PendingRequests::earliest_deadline() const {
  std::optional<Clock::time_point> out;
  for (const auto& [tid, r] : by_tid_) {
    if (!out || r.deadline < *out) out = r.deadline;
  }
  return out;
}

}  // namespace ibsdn::plugin
