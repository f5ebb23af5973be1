#include "plugin/controller/refusal_log.hpp"

#include <utility>

namespace ibsdn {

RefusalLog::RefusalLog(std::chrono::milliseconds interval) : interval_(interval) {}

bool RefusalLog::refused(std::uint32_t uid, std::string_view reason, Clock::time_point now) {
  const auto [it, first] = uids_.try_emplace(uid);
  Uid& u = it->second;
  if (first || (u.counted == 0 && now - u.last_line >= interval_)) {
    u.last_line = now;
    return true;
  }
  ++u.counted;
  u.last_reason = reason;
  return false;
}

std::vector<RefusalLog::Summary> RefusalLog::due(Clock::time_point now) {
  std::vector<Summary> out;
  for (auto it = uids_.begin(); it != uids_.end();) {
    Uid& u = it->second;
    if (now - u.last_line < interval_) {
      ++it;
      continue;
    }
    if (u.counted == 0) {
      it = uids_.erase(it);
      continue;
    }
    out.push_back(Summary{it->first, u.counted, std::move(u.last_reason)});
    u.last_line = now;
    u.counted = 0;
    u.last_reason.clear();
    ++it;
  }
  return out;
}

std::vector<RefusalLog::Summary> RefusalLog::flush() {
  std::vector<Summary> out;
  for (auto& [uid, u] : uids_) {
    if (u.counted > 0) out.push_back(Summary{uid, u.counted, std::move(u.last_reason)});
  }
  uids_.clear();
  return out;
}

std::optional<RefusalLog::Clock::time_point> RefusalLog::next_due() const {
  std::optional<Clock::time_point> next;
  for (const auto& [uid, u] : uids_) {
    if (u.counted == 0) continue;
    const Clock::time_point at = u.last_line + interval_;
    if (!next || at < *next) next = at;
  }
  return next;
}

std::string RefusalLog::text(const Summary& s) {
  return std::to_string(s.count) + (s.count == 1 ? " more connection" : " more connections") +
         " refused from uid " + std::to_string(s.uid) + " (the last: " + s.last_reason + ")";
}

}  // namespace ibsdn
