#include "plugin/controller/config.hpp"

#include <sys/stat.h>
#include <sys/un.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <charconv>
#include <cstdio>
#include <optional>
#include <span>

#include "common/config_error.hpp"
#include "common/names.hpp"
#include "common/quote_for_message.hpp"
#include "common/yaml_reader.hpp"
#include "flowtable/guid_text.hpp"
#include "routing/algorithm.hpp"
#include "routing/fabric.hpp"

namespace ibsdn {
namespace {

// The keys parse_config() accepts, per map; config_keys() lists them for the documentation's tests.
constexpr std::array<std::string_view, 18> kKeys = {"notice_socket",
                                                    "socket_group",
                                                    "state_dir",
                                                    "switch_key",
                                                    "switch_key_file",
                                                    "table_capacity",
                                                    "flow_definition_level",
                                                    "install_backend",
                                                    "algorithms",
                                                    "mad",
                                                    "limits",
                                                    "job_start_timeout_ms",
                                                    "load_guard",
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

// An absolute path that may hold %g (the SM port GUID) and %% (a %).
std::string templated_path(const YamlReader& r, const YAML::Node& n, std::string_view key) {
  std::string p = r.absolute_path(n, key);
  try {
    (void)expand_path_template(p, kTemplateCheckGuid);
  } catch (const std::invalid_argument& e) {
    r.fail(n, std::string(key) + ": " + e.what());
  }
  return p;
}

LogLevel parse_log_level(const YamlReader& r, const YAML::Node& n) {
  const std::string v = r.string(n, "log_level");
  if (v == "error") return LogLevel::kError;
  if (v == "warn") return LogLevel::kWarn;
  if (v == "info") return LogLevel::kInfo;
  if (v == "debug") return LogLevel::kDebug;
  r.fail(n, "log_level: " + quote_for_message(v) + " is not one of error, warn, info, debug");
}

// switch_key: none | 0x followed by 1 to 16 hex digits, not all zero.
void parse_switch_key(const YamlReader& r, const YAML::Node& n, Config& c) {
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

std::string parse_algorithm(const YamlReader& r, const YAML::Node& n, const std::string& key) {
  std::string name = r.string(n, "algorithms." + key);
  if (name == kAutoAlgorithm) {
    // Its volume-aware choice, sdn-volume, routes fat-trees only.
    if (key != "fat_tree") {
      r.fail(n, "algorithms." + key + ": auto is for fat_tree only; name an algorithm");
    }
    return name;
  }
  try {
    (void)make_algorithm(name);
  } catch (const std::invalid_argument& e) {
    r.fail(n, "algorithms." + key + ": " + e.what() +
                  (key == "fat_tree" ? "; or auto, the default" : ""));
  }
  return name;
}

std::string parse_group(const YamlReader& r, const YAML::Node& n, std::string_view key) {
  std::string name = r.string(n, key);
  if (std::string why = user_name_problem(name); !why.empty()) {
    r.fail(n, std::string(key) + ": " + quote_for_message(name) + " is not a valid name: " + why);
  }
  return name;
}

NoticeSocketSettings parse_notice_socket(const YamlReader& r, const YAML::Node& map) {
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

const std::string& AlgorithmChoice::for_fabric(const Fabric& f) const {
  if (f.fat_tree() != nullptr) return fat_tree;
  if (f.dragonfly() != nullptr) return dragonfly;
  return other;
}

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
  const YAML::Node doc = load_single_document(text, source_name);
  const YamlReader r(source_name);
  Config c;
  std::optional<YAML::Node> key_node;
  std::optional<YAML::Node> key_file_node;
  if (doc.IsNull()) {
    c.warnings.emplace_back(std::string(source_name) + ": empty, every setting has its default");
  } else {
    r.for_each_key(
        doc, YamlReader::kTopLevel, kKeys, [&](const std::string& key, const YAML::Node& v) {
          if (key == "notice_socket") {
            c.notice_socket = templated_path(r, v, key);
            if (expand_path_template(c.notice_socket, kTemplateCheckGuid).size() >=
                sizeof(sockaddr_un{}.sun_path)) {
              r.fail(v, "notice_socket: longer than " +
                            std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) +
                            " bytes, the limit of a Unix socket path");
            }
          } else if (key == "socket_group") {
            c.socket_group = parse_group(r, v, key);
          } else if (key == "state_dir") {
            c.state_dir = templated_path(r, v, key);
          } else if (key == "switch_key") {
            parse_switch_key(r, v, c);
            key_node = v;
          } else if (key == "switch_key_file") {
            c.switch_key_file = templated_path(r, v, key);
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
          } else if (key == "install_backend") {
            const std::string name = r.string(v, key);
            const auto parsed = parse_install_backend(name);
            if (!parsed) {
              r.fail(v, "install_backend: " + quote_for_message(name) + " is not one of " +
                            std::string(kInstallBackendNames));
            }
            c.install_backend = *parsed;
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
                c.mad.window =
                    static_cast<std::uint32_t>(r.integer(m, "mad.window", 1, kMaxMadWindow));
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
          } else if (key == "load_guard") {
            c.load_guard = r.boolean(v, key);
          } else if (key == "audit_interval_ms") {
            c.audit_interval_ms =
                static_cast<std::uint32_t>(r.integer(v, key, 0, kMaxAuditIntervalMs));
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
    c.warnings.push_back(located_message(
        source_name, line_of(*key_node), column_of(*key_node),
        "switch_key: none: switches accept flow changes from anyone who can send MADs on the "
        "fabric (docs/security.md)"));
  } else if (c.switch_key_source == SwitchKeySource::kConfig) {
    c.warnings.push_back(located_message(
        source_name, line_of(*key_node), column_of(*key_node),
        "switch_key: the key is written in the configuration file; leave switch_key out to use "
        "the generated STATE_DIR/switch.key (mode 0600), or name a key file with "
        "switch_key_file (docs/security.md)"));
  }
  return c;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> out(kKeys.begin(), kKeys.end());
  add_dotted_keys(out, "algorithms", kAlgorithmKeys);
  add_dotted_keys(out, "mad", kMadKeys);
  add_dotted_keys(out, "limits", kLimitKeys);
  add_dotted_keys(out, "notice", kNoticeKeys);
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
  struct stat st {};
  // Whoever may write the file decides how the subnet is routed and where the state goes: as
  // OpenSSH refuses a key others may write, a file group or others may write is refused.
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw ConfigError(path, 0, 0,
                      std::string("is writable by ") +
                          ((st.st_mode & S_IWOTH) != 0 ? "every user" : "its group") + " (mode " +
                          mode + "): whoever may write it controls the routing; chmod go-w");
  }
  Config c = parse_config(read_config_file(path), path);
  if (c.switch_key_source == SwitchKeySource::kConfig && ::stat(path.c_str(), &st) == 0 &&
      (st.st_mode & S_IROTH) != 0) {
    c.warnings.push_back(path + ": holds switch_key but is readable by every user (chmod o-r)");
  }
  return c;
}

}  // namespace ibsdn
