#include "scheduler_hook/hook_config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/file_line_error.hpp"
#include "common/quote_for_message.hpp"

namespace ibsdn::slurm_hook {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::chrono::milliseconds millis(std::string_view key, std::string_view value, long long min,
                                 long long max) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || v < min ||
      v > max) {
    throw HookConfigError(std::string(key) + ": " + quote_for_message(value) +
                          " is not a number of milliseconds in " + std::to_string(min) + ".." +
                          std::to_string(max));
  }
  return std::chrono::milliseconds(v);
}

bool yes_no(std::string_view key, std::string_view value) {
  const std::string v = lower(value);
  if (v == "yes" || v == "true" || v == "1") return true;
  if (v == "no" || v == "false" || v == "0") return false;
  throw HookConfigError(std::string(key) + ": " + quote_for_message(value) + " is not yes or no");
}

std::string absolute_path(std::string_view key, std::string_view value, bool may_be_empty) {
  if (value.empty() && may_be_empty) return {};
  // The hook runs without PATH and from slurmctld's working directory: only absolute paths mean
  // the same file every time.
  if (value.empty() || value.front() != '/') {
    throw HookConfigError(std::string(key) + ": " + quote_for_message(value) +
                          " is not an absolute path");
  }
  return std::string(value);
}

constexpr long long kMaxTimeoutMs = 3'600'000;

}  // namespace

std::vector<std::string> hook_config_keys() {
  return {"NoticeSocket", "ConnectTimeoutMs",   "TimeoutMs",
          "Strict",       "DefaultPattern",     "StateDir",
          "LogFile",      "ReconcileTimeoutMs", "ReconcileMaxEnds"};
}

void set_hook_config_key(HookConfig& c, std::string_view key, std::string_view value) {
  const std::string k = lower(key);
  if (k == "noticesocket") {
    c.socket = absolute_path(key, value, false);
  } else if (k == "connecttimeoutms") {
    c.connect_timeout = millis(key, value, 1, kMaxTimeoutMs);
  } else if (k == "timeoutms") {
    c.timeout = millis(key, value, 1, kMaxTimeoutMs);
  } else if (k == "strict") {
    c.strict = yes_no(key, value);
  } else if (k == "defaultpattern") {
    if (lower(value) == "none") {
      c.default_pattern.reset();
      return;
    }
    PatternSpec spec;
    try {
      spec = PatternSpec::parse(value);
      spec.validate();
    } catch (const std::invalid_argument& e) {
      throw HookConfigError(std::string(key) + ": " + e.what());
    }
    if (spec.name == "matrix") {
      throw HookConfigError(std::string(key) +
                            ": the matrix pattern is refused in notices (it names a file)");
    }
    c.default_pattern = spec;
  } else if (k == "statedir") {
    c.state_dir = absolute_path(key, value, true);
  } else if (k == "logfile") {
    c.log_file = absolute_path(key, value, true);
  } else if (k == "reconciletimeoutms") {
    c.slurm_timeout = millis(key, value, 1, kMaxTimeoutMs);
  } else if (k == "reconcilemaxends") {
    unsigned v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || v < 1 ||
        v > 100000) {
      throw HookConfigError(std::string(key) + ": " + quote_for_message(value) +
                            " is not a number in 1..100000");
    }
    c.reconcile_max_ends = v;
  } else {
    std::string known;
    for (const std::string& name : hook_config_keys()) known += (known.empty() ? "" : ", ") + name;
    throw HookConfigError("unknown key " + quote_for_message(key) + " (known: " + known + ")");
  }
}

HookConfig parse_hook_config(std::string_view text, std::string_view source) {
  HookConfig c;
  TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = trim(line);
    if (line.empty()) continue;
    const auto eq = line.find('=');
    const std::string where = std::string(source) + ":" + std::to_string(lines.number()) + ": ";
    if (eq == std::string_view::npos) {
      throw HookConfigError(where + "expected Key=Value, found " + quote_for_message(line));
    }
    try {
      set_hook_config_key(c, trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
    } catch (const HookConfigError& e) {
      throw HookConfigError(where + e.what());
    }
  }
  return c;
}

CallLimits call_limits(const HookConfig& config) {
  CallLimits l;
  l.timeout = config.timeout;
  l.connect_timeout = config.connect_timeout;
  l.timeout_setting = "TimeoutMs";
  l.connect_timeout_setting = "ConnectTimeoutMs";
  return l;
}

HookConfig load_hook_config(const std::string& path, bool path_is_default) {
  std::ifstream in(path);
  if (!in) {
    if (path_is_default && errno == ENOENT) return HookConfig{};
    throw HookConfigError(path + ": cannot open: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hook_config(text.str(), path);
}

}  // namespace ibsdn::slurm_hook
