// ibsdn-slurm-hook's settings: /etc/ibsdn/slurm-hook.conf, in slurm.conf's own form
// (`Key=Value` lines, keys case-insensitive, '#' comments), so that a Slurm administrator reads
// and writes it like the files beside it. Every key is optional; the defaults fail open within a
// few seconds. Command-line options override the file.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/notice/client/notice_client.hpp"
#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn::slurm_hook {

inline constexpr const char* kDefaultConfigPath = "/etc/ibsdn/slurm-hook.conf";

struct HookConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct HookConfig {
  /// NoticeSocket: the controller's socket (notice_socket in ibsdn.yaml).
  std::string socket = "/run/ibsdn/notice.sock";
  /// ConnectTimeoutMs: how long a full listen backlog (a hung or stopped opensm) is waited for;
  /// the connect never waits beyond TimeoutMs either.
  std::chrono::milliseconds connect_timeout{2000};
  /// TimeoutMs: the whole exchange, connect included: job_start until "ready", job_end. Keep it
  /// well below slurm.conf's PrologEpilogTimeout, or Slurm kills the hook first.
  std::chrono::milliseconds timeout{5000};
  /// Strict=yes: a failure exits non-zero (Slurm requeues a batch job, cancels an interactive
  /// one). Default no: fail open, the job runs on the fabric's default routes.
  bool strict = false;
  /// DefaultPattern: the traffic of jobs submitted without --sdn-pattern; "none" (the default)
  /// sends them no notice at all.
  std::optional<PatternSpec> default_pattern;
  /// StateDir: where the prolog notes the jobs it asked routes for, for reconcile's report.
  std::string state_dir = "/var/lib/ibsdn/slurm-hook";
  /// LogFile: also append each message there (always to syslog, and to stderr).
  std::string log_file;
  /// ReconcileTimeoutMs: reconcile's query of Slurm's running jobs (slurm_load_jobs in a child
  /// process, killed at the bound).
  std::chrono::milliseconds slurm_timeout{10000};
  /// ReconcileMaxEnds: at most this many job_end per reconcile run, each bounded by TimeoutMs.
  unsigned reconcile_max_ends = 64;
};

/// Parses the file's text; `source` names it in errors ("PATH:LINE: what").
HookConfig parse_hook_config(std::string_view text, std::string_view source);

/// Reads `path`. A missing file at the default path gives the defaults; any other unreadable
/// file is an error.
HookConfig load_hook_config(const std::string& path, bool path_is_default);

/// Sets one key (as in the file) on `config`; HookConfigError on an unknown key or bad value.
/// Used by the file parser and by --set KEY=VALUE.
void set_hook_config_key(HookConfig& config, std::string_view key, std::string_view value);

/// The bounds of one call to the controller (TimeoutMs, ConnectTimeoutMs), named in its messages
/// by these keys.
CallLimits call_limits(const HookConfig& config);

/// The keys, in the file's spelling, for --help and the documentation's check.
std::vector<std::string> hook_config_keys();

}  // namespace ibsdn::slurm_hook
