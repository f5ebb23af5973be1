// Who may open one more connection to the notice socket (internal to the notice server). One local
// user must not lock the scheduler out: all connections together are limited, every uid other than
// root and the scheduler's (Config::slurm_user) may hold only a few, and some slots only root and
// the scheduler may take. A refused connection is answered kBusy and closed; the refusal is logged
// rate-limited (refusal_log.hpp), since a user who connects in a loop must not flood OpenSM's log.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "plugin/controller/notice_connection.hpp"
#include "plugin/controller/notice_server.hpp"
#include "plugin/controller/refusal_log.hpp"

namespace ibsdn::notice_detail {

class Admission {
 public:
  /// `settings` and `log` are the server's and outlive the admission.
  Admission(const NoticeServer::Settings& settings, const ServerLog& log);

  /// Root and the scheduler's uid: they may take the reserved slots.
  [[nodiscard]] bool privileged(uid_t uid) const;

  /// Whether `peer` may open one more connection beside `open`. If not, the refusal is logged
  /// (rate-limited) and answered kBusy on `fd`, which the caller then closes.
  [[nodiscard]] bool admit(int fd, const PeerCredentials& peer, bool privileged,
                           const Connections& open, Clock::time_point now);

  /// Logs the refusal summaries due at `now`.
  void log_due(Clock::time_point now);
  /// Logs every counted refusal, due or not (the server stops).
  void log_all();
  /// When log_due() next has a summary to log; none when nothing is counted.
  [[nodiscard]] std::optional<Clock::time_point> next_due() const;

 private:
  /// Why `peer` is refused: the answer for the client, with `log_reason` set for the log.
  [[nodiscard]] std::optional<std::string> refusal(const PeerCredentials& peer, bool privileged,
                                                   const Connections& open,
                                                   std::string& log_reason) const;
  void log_summaries(const std::vector<RefusalLog::Summary>& summaries) const;

  const NoticeServer::Settings& settings_;
  const ServerLog& log_;
  RefusalLog refusals_;
};

}  // namespace ibsdn::notice_detail
