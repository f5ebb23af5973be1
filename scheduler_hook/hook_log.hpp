// Where ibsdn-slurm-hook says what it did and why it failed open. slurmctld captures a
// PrologSlurmctld's stdout and stderr and discards them (slurmscriptd keeps only the exit
// status), so every message goes to syslog (facility daemon, ident ibsdn-slurm-hook: journalctl
// -t ibsdn-slurm-hook), to LogFile when one is configured, and to stderr for a person running
// the hook by hand.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn::slurm_hook {

enum class LogLevel { kError, kWarning, kInfo, kDebug };

class HookLog {
 public:
  /// `use_syslog` false and `err` null keep the messages in lines() only (tests).
  HookLog(bool use_syslog, std::string log_file, std::ostream* err);
  HookLog(const HookLog&) = delete;
  HookLog& operator=(const HookLog&) = delete;
  ~HookLog();

  void set_log_file(std::string path) { log_file_ = std::move(path); }
  void log(LogLevel level, std::string_view message);
  void error(std::string_view m) { log(LogLevel::kError, m); }
  void warning(std::string_view m) { log(LogLevel::kWarning, m); }
  void info(std::string_view m) { log(LogLevel::kInfo, m); }
  void debug(std::string_view m) { log(LogLevel::kDebug, m); }

  /// Every message so far, as "LEVEL: message" ("error: job 42: ...").
  [[nodiscard]] const std::vector<std::string>& lines() const { return lines_; }

 private:
  bool syslog_;
  std::string log_file_;
  std::ostream* err_;
  std::vector<std::string> lines_;
};

}  // namespace ibsdn::slurm_hook
