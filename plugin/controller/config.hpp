// The controller's configuration file (YAML), read once when OpenSM loads the plugin.
//
// Every key is optional and has the default shown in Config. Validation is strict: an unknown
// key (a typo), a value of the wrong type or out of range, a relative path or an unknown
// algorithm name is an error that names the file, line and column, so that a mistake never
// silently falls back to a default.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/config_error.hpp"
#include "flowtable/flow_table.hpp"
#include "flowtable/install_backend.hpp"
#include "flowtable/match.hpp"

namespace ibsdn {

enum class LogLevel : std::uint8_t { kError, kWarn, kInfo, kDebug };
std::string_view to_string(LogLevel level);

class Fabric;  // routing/fabric.hpp

/// algorithms.fat_tree's default, which no algorithm is named: the controller chooses per job by
/// its traffic (algorithm_pick.hpp): sdn-volume when its flows' byte volumes differ, sdn-optimal
/// otherwise.
inline constexpr std::string_view kAutoAlgorithm = "auto";

/// Which routing algorithm (a routing/algorithms.def name) serves a job, by recognised topology.
struct AlgorithmChoice {
  std::string fat_tree{kAutoAlgorithm};
  std::string dragonfly = "df-global-adaptive";
  std::string other = "minhop";
  /// The algorithm for a job on `f` that names none, by the layout recognised on `f`: a name, or
  /// kAutoAlgorithm (pick_algorithm() resolves it).
  [[nodiscard]] const std::string& for_fabric(const Fabric& f) const;
};

/// Where the key the SDN MADs carry comes from; resolve_switch_key() (switch_key.hpp) reads it.
enum class SwitchKeySource : std::uint8_t {
  kStateDirFile,  // neither switch_key nor switch_key_file: STATE_DIR/switch.key
  kFile,          // switch_key_file: PATH
  kConfig,        // switch_key: 0x... in the configuration file
  kNone,          // switch_key: none
};

/// How the controller talks to the switches (SDN MAD class 0x09).
struct MadSettings {
  std::uint32_t timeout_ms = 200;  // per MAD, 1..60000
  std::uint32_t retries = 3;       // resends after a timeout, 0..100
  std::uint32_t window = 32;       // MADs in flight at once, 1..1024
};

/// The notice socket's connections (notice_server.hpp). Root and slurm_user are "the scheduler":
/// they have slots of their own and a longer idle timeout, so that no other member of
/// socket_group can keep Slurm from starting jobs by holding connections open.
struct NoticeSocketSettings {
  std::uint32_t max_connections = 64;                // open at once, 1..4096
  std::uint32_t max_connections_per_uid = 8;         // per uid but root's and slurm_user's, 1..max
  std::uint32_t reserved_for_scheduler = 8;          // of max_connections, 0..max_connections-1
  std::uint32_t idle_timeout_ms = 10'000;            // others' idle connections, 1..86400000
  std::uint32_t scheduler_idle_timeout_ms = 60'000;  // root's and slurm_user's, 1..86400000
};

inline constexpr std::uint32_t kMaxNoticeConnections = 4096;
inline constexpr std::uint32_t kMaxNoticeIdleTimeoutMs = 86'400'000;

/// Bounds on the work one notice may cause inside opensm, known before anything is built.
struct Limits {
  /// Rank-to-rank flows a pattern may generate (16 bytes each while the job's traffic is built).
  /// A pattern over this with no host-level form (all-to-all has one) is refused.
  std::uint64_t max_rank_flows = std::uint64_t{1} << 22;
  /// Host-pair flows routed per job: beyond it the job's heaviest flows are routed, the rest
  /// take the default routes (the reply says how many).
  std::uint64_t max_flows_per_job = 65'536;
  /// Host-pair flows routed over all active jobs together.
  std::uint64_t max_flows_total = 1'048'576;
};
inline constexpr std::uint64_t kMaxLimit = std::uint64_t{1} << 32;

inline constexpr std::uint32_t kMaxMadTimeoutMs = 60'000;
inline constexpr std::uint32_t kMaxMadRetries = 100;
inline constexpr std::uint32_t kMaxMadWindow = 1024;
inline constexpr std::uint32_t kMaxJobStartTimeoutMs = 600'000;
inline constexpr std::uint32_t kMaxAuditIntervalMs = 86'400'000;

struct Config {
  /// The Unix socket Slurm's hook and ibsdnctl connect to. Absolute, at most 107 bytes. This,
  /// state_dir and switch_key_file may hold `%g`, the SM port's GUID (expand_path_templates):
  /// one opensm per port, or an active and a standby SM on one host, then never share them.
  std::string notice_socket = "/run/ibsdn/notice.sock";
  /// Group owning the socket; the socket is then 0660, otherwise 0600 (root only). Never
  /// world-accessible: any local user could otherwise reroute the fabric.
  std::optional<std::string> socket_group;
  /// Directory of the state store; created 0700 when missing.
  std::string state_dir = "/var/lib/ibsdn";
  /// Where the authentication key every SDN MAD carries comes from (docs/security.md). There is
  /// no default key:
  /// - neither switch_key nor switch_key_file (the default): STATE_DIR/switch.key, which the
  ///   controller generates on its first start (random, non-zero, mode 0600) and reads later;
  /// - `switch_key_file: PATH` (absolute): that file, which must exist. A key file holds one
  ///   line, 0x + 1..16 hex digits or a decimal number (ibsdn-switch-agent --key-file reads the
  ///   same), and must be a regular file owned by the controller's uid, mode 0600 or stricter;
  /// - `switch_key: 0x...` (non-zero): the key itself, with a warning (it sits in a config file);
  /// - `switch_key: none`: no authentication, with a warning: switches accept FlowMods from
  ///   anyone who can send MADs. `switch_key: 0` is refused (write `none` to mean that).
  SwitchKeySource switch_key_source = SwitchKeySource::kStateDirFile;
  /// The file of SwitchKeySource::kFile.
  std::optional<std::string> switch_key_file;
  /// The key every SDN MAD carries; 0 means none. parse_config() sets it for `switch_key: 0x...`
  /// only; resolve_switch_key() gives it for every source, and the plugin stores that here before
  /// the controller starts.
  std::uint64_t switch_key = 0;
  /// Flow entries per switch table, 1..1,000,000.
  std::size_t table_capacity = 4096;
  /// The fields the switches' flow tables match on.
  FlowDefinitionLevel flow_definition_level = FlowDefinitionLevel::kSlidDlid;
  /// Where jobs' routes go (a job_start's `backend` overrides it for that job): `auto` puts flow
  /// entries on switches whose SDN agent answers and LFT entries (through OpenSM, routing engine
  /// `sdn`, fat-trees only) on the others; `flow_table` only the former, `lft` only the latter;
  /// `dry_run` answers what `auto` would change and writes nothing (docs/routing.md, "Install
  /// backends").
  InstallBackend install_backend = InstallBackend::kAuto;
  AlgorithmChoice algorithms;
  MadSettings mad;
  Limits limits;
  /// How long a job_start may take (routing + installation) before the controller answers with
  /// an error and Slurm's prolog fails. 1..600000.
  std::uint32_t job_start_timeout_ms = 5000;
  /// Keep the busiest link's load (seed 002's SWML) at most what the default routes (the LFTs)
  /// would give the same running jobs: when a change raises it above, jobs are re-routed or moved
  /// to the default routes (docs/routing.md, "The load guard").
  bool load_guard = true;
  /// How often the controller checks that every switch still holds the entries it intends (a
  /// TableInfo per switch; a full FlowStats audit and repair of a switch whose count differs, e.g.
  /// an agent that restarted empty). 0 turns the periodic check off (SUBNET UP still audits).
  std::uint32_t audit_interval_ms = 30'000;
  /// Besides root, the user that may send job_start / job_end (Slurm's SlurmUser).
  std::string slurm_user = "slurm";
  /// Connection limits of the notice socket:
  ///   notice: {max_connections: 64, max_connections_per_uid: 8, reserved_for_scheduler: 8,
  ///            idle_timeout_ms: 10000, scheduler_idle_timeout_ms: 60000}
  NoticeSocketSettings notice;
  /// Optional file mapping Slurm host names to HCAs (see host_map.hpp).
  std::optional<std::string> host_map;
  LogLevel log_level = LogLevel::kInfo;

  /// Things that are allowed but probably wrong (switch_key none, a key written in the
  /// configuration file, which every user may read).
  std::vector<std::string> warnings;

  /// 0660 with socket_group, else 0600.
  [[nodiscard]] mode_t socket_mode() const { return socket_group ? 0660 : 0600; }
};

/// A port GUID that only serves to check a template's syntax and length.
inline constexpr std::uint64_t kTemplateCheckGuid = ~std::uint64_t{0};

/// `path` with `%g` replaced by `port_guid` as 0x + 16 hex digits (the form opensm@.service's
/// instance name has) and `%%` by `%`. Throws std::invalid_argument on another `%` sequence, or
/// on `%g` with port_guid 0 (opensm chose its port itself).
std::string expand_path_template(std::string_view path, std::uint64_t port_guid);

/// Expands notice_socket, state_dir and switch_key_file (expand_path_template) for the SM port
/// the plugin runs on, so that one configuration serves every opensm@GUID instance of a host.
/// Throws ConfigError.
void expand_path_templates(Config& c, std::uint64_t port_guid);

/// Parses configuration text; `source_name` is used in error messages. Throws ConfigError.
Config parse_config(std::string_view text, std::string_view source_name);

/// Every key parse_config() accepts, a nested one as "map.key" ("mad.timeout_ms"): what
/// ibsdn.yaml(5) and the example configuration must describe.
std::vector<std::string> config_keys();

/// Reads and parses the file at `path`. Throws ConfigError (unreadable file: "PATH: why").
Config load_config(const std::string& path);

}  // namespace ibsdn
