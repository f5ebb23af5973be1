#include "plugin/controller/config.hpp"

#include <sys/stat.h>
#include <sys/un.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <sstream>

#include "flowtable/guid_text.hpp"
#include "plugin/notice/names.hpp"
#include "routing/algorithm.hpp"

namespace ibsdn {
namespace {

constexpr std::string_view kTopLevel = "top level";

// The keys parse_config() accepts, per map; config_keys() lists them for the documentation's tests.
constexpr std::array<std::string_view, 16> kKeys = {"notice_socket",
                                                    "socket_group",
                                                    "state_dir",
                                                    "switch_key",
                                                    "switch_key_file",
                                                    "table_capacity",
                                                    "flow_definition_level",
                                                    "algorithms",
                                                    "mad",
                                                    "limits",
                                                    "job_start_timeout_ms",
                                                    "audit_interval_ms",
                                                    "slurm_user",
                                                    "notice",
                                                    "host_map",
                                                    "log_level"};
constexpr std::array<std::string_view, 3> kAlgorithmKeys = {"fat_tree", "dragonfly", "other"};
constexpr std::array<std::string_view, 3> kMadKeys = {"timeout_ms", "retries", "window"};
constexpr std::array<std::string_view, 3> kLimitKeys = {"max_rank_flows", "max_flows_per_job",
                                                        "max_flows_total"};
constexpr std::array<std::string_view, 5> kNoticeKeys = {
    "max_connections", "max_connections_per_uid", "reserved_for_scheduler", "idle_timeout_ms",
    "scheduler_idle_timeout_ms"};

std::string error_text(std::string_view source, std::size_t line, std::size_t column,
                       std::string_view what) {
  std::string out(source);
  if (line > 0) out += ":" + std::to_string(line);
  if (line > 0 && column > 0) out += ":" + std::to_string(column);
  out += ": ";
  out += what;
  return out;
}

// Reads one document node by node; every error carries the node's position (yaml-cpp marks
// are 0-based, messages 1-based like compilers').
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    const auto line = m.line >= 0 ? static_cast<std::size_t>(m.line) + 1 : 0;
    const auto column = m.column >= 0 ? static_cast<std::size_t>(m.column) + 1 : 0;
    throw ConfigError(source_, line, column, what);
  }

  void require_value(const YAML::Node& n, std::string_view key) const {
    if (n.IsNull()) fail(n, std::string(key) + ": no value (leave the key out to use the default)");
  }

  std::string string(const YAML::Node& n, std::string_view key) const {
    require_value(n, key);
    if (!n.IsScalar()) fail(n, std::string(key) + ": expected a single value, not a list or map");
    return n.Scalar();
  }

  std::uint64_t integer(const YAML::Node& n, std::string_view key, std::uint64_t min,
                        std::uint64_t max) const {
    const std::string text = string(n, key);
    // A quoted number is a string in YAML: refuse it rather than guess what was meant.
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
    if (n.Tag() != "?") {
      fail(n, std::string(key) + ": expected a decimal integer, got the quoted string " +
                  quote_for_message(text) + " (remove the quotes)");
    }
    if (!digits_only || ec == std::errc::invalid_argument || ptr != text.data() + text.size()) {
      fail(n, std::string(key) + ": expected a decimal integer, got " + quote_for_message(text));
    }
    if (ec == std::errc::result_out_of_range || v < min || v > max) {
      fail(n, std::string(key) + ": " + text + " is out of range " + std::to_string(min) + ".." +
                  std::to_string(max));
    }
    return v;
  }

  std::string absolute_path(const YAML::Node& n, std::string_view key) const {
    std::string p = string(n, key);
    if (p.empty() || p.front() != '/') {
      fail(n, std::string(key) + ": " + quote_for_message(p) + " is not an absolute path");
    }
    if (p.find('\0') != std::string::npos) fail(n, std::string(key) + ": contains a NUL byte");
    return p;
  }

  // An absolute path that may hold %g (the SM port GUID) and %% (a %).
  std::string templated_path(const YAML::Node& n, std::string_view key) const {
    std::string p = absolute_path(n, key);
    try {
      (void)expand_path_template(p, kTemplateCheckGuid);
    } catch (const std::invalid_argument& e) {
      fail(n, std::string(key) + ": " + e.what());
    }
    return p;
  }

  // Calls on_key(name, key node, value node) for every entry of a map, after checking that `map`
  // is a map, each key is a known plain name and none repeats.
  void for_each_key(
      const YAML::Node& map, std::string_view what, std::span<const std::string_view> known,
      const std::function<void(const std::string&, const YAML::Node&)>& on_key) const {
    if (!map.IsMap()) fail(map, std::string(what) + ": expected a map of key: value");
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const YAML::Node& k = kv.first;
      if (!k.IsScalar()) fail(k, std::string(what) + ": keys must be plain names");
      const std::string& name = k.Scalar();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        fail(k, unknown_key_message(what, name, known));
      }
      if (!seen.insert(name).second) fail(k, std::string(what) + ": duplicate key '" + name + "'");
      // A key without a value is reported at the key: the null's own mark is the next line.
      if (kv.second.IsNull()) {
        const std::string full = what == kTopLevel ? name : std::string(what) + "." + name;
        fail(k, full + ": no value (leave the key out to use the default)");
      }
      on_key(name, kv.second);
    }
  }

 private:
  static std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  }

  static std::string unknown_key_message(std::string_view what, const std::string& name,
                                         std::span<const std::string_view> known) {
    std::string msg = std::string(what) + ": unknown key " + quote_for_message(name);
    for (std::string_view k : known) {
      if (edit_distance(name, k) <= 2) return msg + " (did you mean '" + std::string(k) + "'?)";
    }
    msg += " (known:";
    for (std::string_view k : known) msg += " " + std::string(k);
    return msg + ")";
  }

  std::string_view source_;
};

LogLevel parse_log_level(const Reader& r, const YAML::Node& n) {
  const std::string v = r.string(n, "log_level");
  if (v == "error") return LogLevel::kError;
  if (v == "warn") return LogLevel::kWarn;
  if (v == "info") return LogLevel::kInfo;
  if (v == "debug") return LogLevel::kDebug;
  r.fail(n, "log_level: " + quote_for_message(v) + " is not one of error, warn, info, debug");
}

// switch_key: none | 0x followed by 1 to 16 hex digits, not all zero.
void parse_switch_key(const Reader& r, const YAML::Node& n, Config& c) {
  const std::string v = r.string(n, "switch_key");
  if (v == "none") {
    c.switch_key_source = SwitchKeySource::kNone;
    c.switch_key = 0;
    return;
  }
  const bool hex_prefix = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  std::uint64_t key = 0;
  bool parsed = false;
  if (hex_prefix && v.size() <= 18) {
    const auto [ptr, ec] = std::from_chars(v.data() + 2, v.data() + v.size(), key, 16);
    parsed = ec == std::errc() && ptr == v.data() + v.size();
  }
  if (v == "0" || (parsed && key == 0)) {
    r.fail(n, "switch_key: 0 disables authentication; write `switch_key: none` to mean that");
  }
  if (!parsed) {
    r.fail(n, "switch_key: expected 0x followed by 1 to 16 hex digits (a 64-bit key), or none");
  }
  c.switch_key_source = SwitchKeySource::kConfig;
  c.switch_key = key;
}

std::size_t line_of(const YAML::Node& n) {
  return n.Mark().line >= 0 ? static_cast<std::size_t>(n.Mark().line) + 1 : 0;
}

std::size_t column_of(const YAML::Node& n) {
  return n.Mark().column >= 0 ? static_cast<std::size_t>(n.Mark().column) + 1 : 0;
}

std::string parse_algorithm(const Reader& r, const YAML::Node& n, const std::string& key) {
  std::string name = r.string(n, "algorithms." + key);
  try {
    (void)make_algorithm(name);
  } catch (const std::invalid_argument& e) {
    r.fail(n, "algorithms." + key + ": " + e.what());
  }
  return name;
}

std::string parse_group(const Reader& r, const YAML::Node& n, std::string_view key) {
  std::string name = r.string(n, key);
  if (std::string why = user_name_problem(name); !why.empty()) {
    r.fail(n, std::string(key) + ": " + quote_for_message(name) + " is not a valid name: " + why);
  }
  return name;
}

NoticeSocketSettings parse_notice_socket(const Reader& r, const YAML::Node& map) {
  NoticeSocketSettings s;
  // Where the keys checked against each other are, for the error's position.
  std::optional<YAML::Node> max_at;
  std::optional<YAML::Node> per_uid_at;
  std::optional<YAML::Node> reserved_at;
  r.for_each_key(map, "notice", kNoticeKeys, [&](const std::string& k, const YAML::Node& v) {
    const std::string key = "notice." + k;
    if (k == "max_connections") {
      max_at.emplace(v);
      s.max_connections = static_cast<std::uint32_t>(r.integer(v, key, 1, kMaxNoticeConnections));
    } else if (k == "max_connections_per_uid") {
      per_uid_at.emplace(v);
      s.max_connections_per_uid =
          static_cast<std::uint32_t>(r.integer(v, key, 1, kMaxNoticeConnections));
    } else if (k == "reserved_for_scheduler") {
      reserved_at.emplace(v);
      s.reserved_for_scheduler =
          static_cast<std::uint32_t>(r.integer(v, key, 0, kMaxNoticeConnections - 1));
    } else if (k == "idle_timeout_ms") {
      s.idle_timeout_ms = static_cast<std::uint32_t>(r.integer(v, key, 1, kMaxNoticeIdleTimeoutMs));
    } else {
      s.scheduler_idle_timeout_ms =
          static_cast<std::uint32_t>(r.integer(v, key, 1, kMaxNoticeIdleTimeoutMs));
    }
  });
  // Checked against each other once all are known, whatever their order in the file. A default
  // that no longer fits a smaller max_connections is named too: it is not lowered silently.
  const std::string max_text = std::to_string(s.max_connections);
  if (s.max_connections_per_uid > s.max_connections) {
    const std::string per_uid = std::to_string(s.max_connections_per_uid);
    if (per_uid_at) {
      r.fail(*per_uid_at, "notice.max_connections_per_uid: " + per_uid +
                              " exceeds notice.max_connections (" + max_text + ")");
    }
    r.fail(max_at.value_or(map), "notice.max_connections: " + max_text +
                                     " is below the default notice.max_connections_per_uid (" +
                                     per_uid + "); set that too");
  }
  if (s.reserved_for_scheduler >= s.max_connections) {
    const std::string reserved = std::to_string(s.reserved_for_scheduler);
    if (reserved_at) {
      r.fail(*reserved_at, "notice.reserved_for_scheduler: " + reserved +
                               " leaves no connection of notice.max_connections (" + max_text +
                               ") to other users; at most " +
                               std::to_string(s.max_connections - 1));
    }
    r.fail(max_at.value_or(map), "notice.max_connections: " + max_text +
                                     " leaves no connection to other users than root and "
                                     "slurm_user with the default notice.reserved_for_scheduler (" +
                                     reserved + "); set that too");
  }
  return s;
}

}  // namespace

ConfigError::ConfigError(std::string_view source, std::size_t line, std::size_t column,
                         std::string_view what)
    : std::runtime_error(error_text(source, line, column, what)), line_(line), column_(column) {}

std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::kError:
      return "error";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
  }
  return "?";
}

Config parse_config(std::string_view text, std::string_view source_name) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    const auto line = e.mark.line >= 0 ? static_cast<std::size_t>(e.mark.line) + 1 : 0;
    const auto column = e.mark.column >= 0 ? static_cast<std::size_t>(e.mark.column) + 1 : 0;
    throw ConfigError(source_name, line, column, "YAML syntax: " + e.msg);
  }
  const Reader r(source_name);
  if (docs.size() > 1) r.fail(docs[1], "only one YAML document is allowed");
  Config c;
  std::optional<YAML::Node> key_node;
  std::optional<YAML::Node> key_file_node;
  if (docs.empty() || docs[0].IsNull()) {
    c.warnings.emplace_back(std::string(source_name) + ": empty, every setting has its default");
  } else {
    r.for_each_key(docs[0], kTopLevel, kKeys, [&](const std::string& key, const YAML::Node& v) {
      if (key == "notice_socket") {
        c.notice_socket = r.templated_path(v, key);
        if (expand_path_template(c.notice_socket, kTemplateCheckGuid).size() >=
            sizeof(sockaddr_un{}.sun_path)) {
          r.fail(v, "notice_socket: longer than " +
                        std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) +
                        " bytes, the limit of a Unix socket path");
        }
      } else if (key == "socket_group") {
        c.socket_group = parse_group(r, v, key);
      } else if (key == "state_dir") {
        c.state_dir = r.templated_path(v, key);
      } else if (key == "switch_key") {
        parse_switch_key(r, v, c);
        key_node = v;
      } else if (key == "switch_key_file") {
        c.switch_key_file = r.templated_path(v, key);
        key_file_node = v;
      } else if (key == "table_capacity") {
        c.table_capacity = static_cast<std::size_t>(r.integer(v, key, 1, kMaxTableCapacity));
      } else if (key == "flow_definition_level") {
        const std::string level = r.string(v, key);
        const auto parsed = parse_flow_definition_level(level);
        if (!parsed) {
          r.fail(v, "flow_definition_level: " + quote_for_message(level) +
                        " is not one of dlid, slid-dlid, slid-dlid-sl, slid-dlid-sl-qp");
        }
        c.flow_definition_level = *parsed;
      } else if (key == "algorithms") {
        r.for_each_key(v, "algorithms", kAlgorithmKeys,
                       [&](const std::string& k, const YAML::Node& a) {
                         std::string name = parse_algorithm(r, a, k);
                         if (k == "fat_tree") c.algorithms.fat_tree = std::move(name);
                         if (k == "dragonfly") c.algorithms.dragonfly = std::move(name);
                         if (k == "other") c.algorithms.other = std::move(name);
                       });
      } else if (key == "mad") {
        r.for_each_key(v, "mad", kMadKeys, [&](const std::string& k, const YAML::Node& m) {
          if (k == "timeout_ms") {
            c.mad.timeout_ms =
                static_cast<std::uint32_t>(r.integer(m, "mad.timeout_ms", 1, kMaxMadTimeoutMs));
          } else if (k == "retries") {
            c.mad.retries =
                static_cast<std::uint32_t>(r.integer(m, "mad.retries", 0, kMaxMadRetries));
          } else {
            c.mad.window = static_cast<std::uint32_t>(r.integer(m, "mad.window", 1, kMaxMadWindow));
          }
        });
      } else if (key == "limits") {
        r.for_each_key(v, "limits", kLimitKeys, [&](const std::string& k, const YAML::Node& m) {
          const auto n = static_cast<std::uint64_t>(r.integer(m, "limits." + k, 1, kMaxLimit));
          if (k == "max_rank_flows") c.limits.max_rank_flows = n;
          if (k == "max_flows_per_job") c.limits.max_flows_per_job = n;
          if (k == "max_flows_total") c.limits.max_flows_total = n;
        });
      } else if (key == "job_start_timeout_ms") {
        c.job_start_timeout_ms =
            static_cast<std::uint32_t>(r.integer(v, key, 1, kMaxJobStartTimeoutMs));
      } else if (key == "audit_interval_ms") {
        c.audit_interval_ms = static_cast<std::uint32_t>(r.integer(v, key, 0, kMaxAuditIntervalMs));
      } else if (key == "slurm_user") {
        c.slurm_user = parse_group(r, v, key);
      } else if (key == "notice") {
        c.notice = parse_notice_socket(r, v);
      } else if (key == "host_map") {
        c.host_map = r.absolute_path(v, key);
      } else {
        c.log_level = parse_log_level(r, v);
      }
    });
  }
  if (key_node && key_file_node) {
    r.fail(*key_file_node, "switch_key_file: cannot be combined with switch_key (line " +
                               std::to_string(line_of(*key_node)) + "); keep one of them");
  }
  if (key_file_node) c.switch_key_source = SwitchKeySource::kFile;
  if (c.switch_key_source == SwitchKeySource::kNone) {
    c.warnings.push_back(error_text(
        source_name, line_of(*key_node), column_of(*key_node),
        "switch_key: none: switches accept flow changes from anyone who can send MADs on the "
        "fabric (docs/security.md)"));
  } else if (c.switch_key_source == SwitchKeySource::kConfig) {
    c.warnings.push_back(error_text(
        source_name, line_of(*key_node), column_of(*key_node),
        "switch_key: the key is written in the configuration file; leave switch_key out to use "
        "the generated STATE_DIR/switch.key (mode 0600), or name a key file with "
        "switch_key_file (docs/security.md)"));
  }
  return c;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> out(kKeys.begin(), kKeys.end());
  const auto nested = [&out](std::string_view map, std::span<const std::string_view> keys) {
    for (std::string_view k : keys) out.push_back(std::string(map) + "." + std::string(k));
  };
  nested("algorithms", kAlgorithmKeys);
  nested("mad", kMadKeys);
  nested("limits", kLimitKeys);
  nested("notice", kNoticeKeys);
  return out;
}

std::string expand_path_template(std::string_view path, std::uint64_t port_guid) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    if (i + 1 == path.size()) throw std::invalid_argument("a lone % at the end (write %% for %)");
    const char c = path[++i];
    if (c == '%') {
      out += '%';
    } else if (c == 'g') {
      if (port_guid == 0) {
        throw std::invalid_argument(
            "%g (the SM port GUID) needs opensm started on a given port: --guid GUID, or "
            "`guid` in opensm.conf (Debian's opensm@.service passes --guid)");
      }
      out += guid_text(Guid(port_guid));
    } else {
      throw std::invalid_argument(std::string("unknown %") + c +
                                  " (paths know %g, the SM port GUID, and %% for %)");
    }
  }
  return out;
}

void expand_path_templates(Config& c, std::uint64_t port_guid) {
  try {
    c.notice_socket = expand_path_template(c.notice_socket, port_guid);
    c.state_dir = expand_path_template(c.state_dir, port_guid);
    if (c.switch_key_file) c.switch_key_file = expand_path_template(*c.switch_key_file, port_guid);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("configuration", 0, 0, e.what());
  }
}

Config load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, 0, std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path, 0, 0, std::string("read failed: ") + std::strerror(errno));
  Config c = parse_config(text.str(), path);
  struct stat st {};
  if (c.switch_key_source == SwitchKeySource::kConfig && ::stat(path.c_str(), &st) == 0 &&
      (st.st_mode & S_IROTH) != 0) {
    c.warnings.push_back(path + ": holds switch_key but is readable by every user (chmod o-r)");
  }
  return c;
}

}  // namespace ibsdn
