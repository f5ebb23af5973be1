#include "plugin/controller/notice_admission.hpp"

#include <sys/socket.h>

#include <cstddef>

#include "plugin/notice/response.hpp"

namespace ibsdn::notice_detail {

Admission::Admission(const NoticeServer::Settings& settings, const ServerLog& log)
    : settings_(settings), log_(log), refusals_(settings.refusal_log_interval) {}

bool Admission::privileged(uid_t uid) const {
  return uid == 0 || (settings_.scheduler_uid && uid == *settings_.scheduler_uid);
}

bool Admission::admit(int fd, const PeerCredentials& peer, bool privileged, const Connections& open,
                      Clock::time_point now) {
  std::string log_reason;
  const std::optional<std::string> why = refusal(peer, privileged, open, log_reason);
  if (!why) return true;
  if (refusals_.refused(peer.uid, log_reason, now)) {
    log_(LogLevel::kWarn, "refusing the connection of " + peer_text(peer) + ": " + log_reason);
  }
  // The socket's buffer is empty, so one short line fits; if it does not, the client only
  // misses the explanation.
  const std::string line = to_line(error_response(ErrorCode::kBusy, *why));
  (void)::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  return false;
}

std::optional<std::string> Admission::refusal(const PeerCredentials& peer, bool privileged,
                                              const Connections& open,
                                              std::string& log_reason) const {
  if (open.size() >= settings_.max_connections) {
    log_reason = std::to_string(open.size()) + " connections are open";
    return "too many connections";
  }
  if (privileged) return std::nullopt;
  std::size_t of_uid = 0;
  std::size_t unprivileged = 0;
  for (const auto& [id, c] : open) {
    if (c.privileged) continue;
    ++unprivileged;
    if (c.peer.uid == peer.uid) ++of_uid;
  }
  if (of_uid >= settings_.max_connections_per_uid) {
    log_reason = "uid " + std::to_string(peer.uid) + " holds " + std::to_string(of_uid) +
                 (of_uid == 1 ? " connection" : " connections") + ", the per-uid limit is " +
                 std::to_string(settings_.max_connections_per_uid);
    return log_reason;
  }
  if (unprivileged >= settings_.max_connections - settings_.reserved_for_scheduler) {
    log_reason = std::to_string(unprivileged) +
                 " connections of users other than root and the scheduler are open, their limit; " +
                 std::to_string(settings_.reserved_for_scheduler) +
                 " more are reserved for root and the scheduler";
    return "too many connections (the others are reserved for root and the scheduler)";
  }
  return std::nullopt;
}

void Admission::log_due(Clock::time_point now) {
  log_summaries(refusals_.due(now));
}

void Admission::log_all() {
  log_summaries(refusals_.flush());
}

std::optional<Clock::time_point> Admission::next_due() const {
  return refusals_.next_due();
}

void Admission::log_summaries(const std::vector<RefusalLog::Summary>& summaries) const {
  for (const RefusalLog::Summary& s : summaries) log_(LogLevel::kWarn, RefusalLog::text(s));
}

}  // namespace ibsdn::notice_detail
