#include "scheduler_hook/hook_log.hpp"

#include <syslog.h>

#include <chrono>
#include <ctime>
#include <fstream>

namespace ibsdn::slurm_hook {
namespace {

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kError:
      return "error";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
  }
  return "?";
}

int syslog_priority(LogLevel l) {
  switch (l) {
    case LogLevel::kError:
      return LOG_ERR;
    case LogLevel::kWarning:
      return LOG_WARNING;
    case LogLevel::kInfo:
      return LOG_INFO;
    case LogLevel::kDebug:
      return LOG_DEBUG;
  }
  return LOG_INFO;
}

// "2024-05-01T12:00:00Z", as slurmctld's own log lines start (UTC here: the file may be read
// beside logs of other hosts).
std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

HookLog::HookLog(bool use_syslog, std::string log_file, std::ostream* err)
    : syslog_(use_syslog), log_file_(std::move(log_file)), err_(err) {
  if (syslog_) ::openlog("ibsdn-slurm-hook", LOG_PID, LOG_DAEMON);
}

HookLog::~HookLog() {
  if (syslog_) ::closelog();
}

void HookLog::log(LogLevel level, std::string_view message) {
  std::string line = std::string(level_name(level)) + ": " + std::string(message);
  if (syslog_) ::syslog(syslog_priority(level), "%s", line.c_str());
  if (err_ != nullptr) *err_ << "ibsdn-slurm-hook: " << line << '\n' << std::flush;
  if (!log_file_.empty()) {
    // Opened per message: the hook runs for a few seconds, and a rotated file is picked up.
    std::ofstream f(log_file_, std::ios::app);
    if (f) f << utc_now() << " ibsdn-slurm-hook: " << line << '\n';
  }
  lines_.push_back(std::move(line));
}

}  // namespace ibsdn::slurm_hook
