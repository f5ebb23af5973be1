#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "plugin/controller/config.hpp"
#include "plugin/controller/host_map.hpp"
#include "tests/support/param_names.hpp"

namespace ibsdn {
namespace {

constexpr const char* kFullConfig = R"(# ibsdn controller
notice_socket: /run/ibsdn/notice.sock
socket_group: slurm          # optional; socket mode 0660
state_dir: /var/lib/ibsdn
switch_key: 0x0123456789abcdef
table_capacity: 4096
flow_definition_level: slid-dlid-sl
algorithms: {fat_tree: sdn-greedy, dragonfly: df-valiant, other: dmodk}
mad: {timeout_ms: 250, retries: 5, window: 16}
job_start_timeout_ms: 7000
load_guard: false
slurm_user: slurm
notice: {max_connections: 32, max_connections_per_uid: 4, reserved_for_scheduler: 6,
         idle_timeout_ms: 5000, scheduler_idle_timeout_ms: 30000}
host_map: /etc/ibsdn/hosts.map
log_level: debug
)";

TEST(ControllerConfig, ParsesEveryKey) {
  const Config c = parse_config(kFullConfig, "ibsdn.yaml");
  EXPECT_EQ(c.notice_socket, "/run/ibsdn/notice.sock");
  ASSERT_TRUE(c.socket_group.has_value());
  EXPECT_EQ(*c.socket_group, "slurm");
  EXPECT_EQ(c.socket_mode(), 0660u);
  EXPECT_EQ(c.state_dir, "/var/lib/ibsdn");
  EXPECT_EQ(c.switch_key, 0x0123456789abcdefULL);
  EXPECT_EQ(c.table_capacity, 4096u);
  EXPECT_EQ(c.flow_definition_level, FlowDefinitionLevel::kSlidDlidSl);
  EXPECT_EQ(c.algorithms.fat_tree, "sdn-greedy");
  EXPECT_EQ(c.algorithms.dragonfly, "df-valiant");
  EXPECT_EQ(c.algorithms.other, "dmodk");
  EXPECT_EQ(c.mad.timeout_ms, 250u);
  EXPECT_EQ(c.mad.retries, 5u);
  EXPECT_EQ(c.mad.window, 16u);
  EXPECT_EQ(c.job_start_timeout_ms, 7000u);
  EXPECT_FALSE(c.load_guard);
  EXPECT_EQ(c.slurm_user, "slurm");
  EXPECT_EQ(c.notice.max_connections, 32u);
  EXPECT_EQ(c.notice.max_connections_per_uid, 4u);
  EXPECT_EQ(c.notice.reserved_for_scheduler, 6u);
  EXPECT_EQ(c.notice.idle_timeout_ms, 5000u);
  EXPECT_EQ(c.notice.scheduler_idle_timeout_ms, 30000u);
  ASSERT_TRUE(c.host_map.has_value());
  EXPECT_EQ(*c.host_map, "/etc/ibsdn/hosts.map");
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_EQ(c.switch_key_source, SwitchKeySource::kConfig);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].rfind("ibsdn.yaml:5:13: switch_key: the key is written in the "
                                "configuration file",
                                0),
            0u)
      << c.warnings[0];
}

TEST(ControllerConfig, FatTreeAuto_TheDefault_MayBeWrittenOut) {
  EXPECT_EQ(parse_config("algorithms: {fat_tree: auto}\n", "ibsdn.yaml").algorithms.fat_tree,
            kAutoAlgorithm);
}

TEST(ControllerConfig, OmittedKeysKeepTheirDefaults_AndTheKeyComesFromTheStateDirectory) {
  const Config c = parse_config("table_capacity: 10\n", "ibsdn.yaml");
  const Config d;
  EXPECT_EQ(c.table_capacity, 10u);
  EXPECT_EQ(c.notice_socket, d.notice_socket);
  EXPECT_FALSE(c.socket_group.has_value());
  EXPECT_EQ(c.socket_mode(), 0600u);
  EXPECT_EQ(c.state_dir, "/var/lib/ibsdn");
  EXPECT_EQ(c.flow_definition_level, FlowDefinitionLevel::kSlidDlid);
  EXPECT_EQ(c.algorithms.fat_tree, "auto");
  EXPECT_EQ(c.algorithms.dragonfly, "df-global-adaptive");
  EXPECT_EQ(c.algorithms.other, "minhop");
  EXPECT_EQ(c.mad.timeout_ms, 200u);
  EXPECT_EQ(c.mad.retries, 3u);
  EXPECT_EQ(c.mad.window, 32u);
  EXPECT_EQ(c.job_start_timeout_ms, 5000u);
  EXPECT_TRUE(c.load_guard);
  EXPECT_EQ(c.notice.max_connections, 64u);
  EXPECT_EQ(c.notice.max_connections_per_uid, 8u);
  EXPECT_EQ(c.notice.reserved_for_scheduler, 8u);
  EXPECT_EQ(c.notice.idle_timeout_ms, 10000u);
  EXPECT_EQ(c.notice.scheduler_idle_timeout_ms, 60000u);
  EXPECT_EQ(c.log_level, LogLevel::kInfo);
  EXPECT_EQ(c.switch_key_source, SwitchKeySource::kStateDirFile);
  EXPECT_FALSE(c.switch_key_file.has_value());
  EXPECT_EQ(c.switch_key, 0u);  // resolve_switch_key() reads or generates STATE_DIR/switch.key
  EXPECT_TRUE(c.warnings.empty());
}

TEST(ControllerConfig, EmptyFileMeansAllDefaults) {
  const Config c = parse_config("# nothing set\n", "ibsdn.yaml");
  EXPECT_EQ(c.table_capacity, 4096u);
  EXPECT_EQ(c.switch_key_source, SwitchKeySource::kStateDirFile);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("empty"), std::string::npos);
}

TEST(ControllerConfig, SwitchKeyNone_MeansNoAuthenticationWithAWarning) {
  const Config c = parse_config("table_capacity: 10\nswitch_key: none\n", "ibsdn.yaml");
  EXPECT_EQ(c.switch_key_source, SwitchKeySource::kNone);
  EXPECT_EQ(c.switch_key, 0u);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "ibsdn.yaml:2:13: switch_key: none: switches accept flow changes from anyone who can "
            "send MADs on the fabric (docs/security.md)");
}

TEST(ControllerConfig, SwitchKeyInTheFile_IsKeptWithAWarningThatItSitsInAConfigFile) {
  const Config c = parse_config("switch_key: 0x5eedc0de\n", "ibsdn.yaml");
  EXPECT_EQ(c.switch_key_source, SwitchKeySource::kConfig);
  EXPECT_EQ(c.switch_key, 0x5eedc0deu);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("ibsdn.yaml:1:13: switch_key: the key is written in the "
                               "configuration file"),
            std::string::npos)
      << c.warnings[0];
}

TEST(ControllerConfig, SwitchKeyFile_NamesAnotherKeyFile) {
  const Config c = parse_config("switch_key_file: /etc/ibsdn/switch.key\n", "ibsdn.yaml");
  EXPECT_EQ(c.switch_key_source, SwitchKeySource::kFile);
  ASSERT_TRUE(c.switch_key_file.has_value());
  EXPECT_EQ(*c.switch_key_file, "/etc/ibsdn/switch.key");
  EXPECT_EQ(c.switch_key, 0u);
  EXPECT_TRUE(c.warnings.empty());
}

struct BadKeyConfig {
  const char* name;
  const char* text;
  std::size_t line;
  std::size_t column;
  const char* says;
};

class SwitchKeyConfigRejects : public ::testing::TestWithParam<BadKeyConfig> {};

TEST_P(SwitchKeyConfigRejects, NamingFileLineAndColumn) {
  const BadKeyConfig& bad = GetParam();
  try {
    (void)parse_config(bad.text, "cfg.yaml");
    FAIL() << "accepted:\n" << bad.text;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    const std::string prefix =
        "cfg.yaml:" + std::to_string(bad.line) + ":" + std::to_string(bad.column) + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(bad.says), std::string::npos) << what;
  }
}

constexpr const char* kZeroMeansNone =
    "switch_key: 0 disables authentication; write `switch_key: none` to mean that";

INSTANTIATE_TEST_SUITE_P(
    Cases, SwitchKeyConfigRejects,
    ::testing::Values(
        BadKeyConfig{"ZeroDecimal", "switch_key: 0\n", 1, 13, kZeroMeansNone},
        BadKeyConfig{"ZeroHex", "switch_key: 0x0\n", 1, 13, kZeroMeansNone},
        BadKeyConfig{"ZeroHexSixteenDigits", "switch_key: 0x0000000000000000\n", 1, 13,
                     kZeroMeansNone},
        BadKeyConfig{"Decimal", "switch_key: 12345\n", 1, 13,
                     "expected 0x followed by 1 to 16 hex digits (a 64-bit key), or none"},
        BadKeyConfig{"NoneCapitalised", "switch_key: None\n", 1, 13, "or none"},
        BadKeyConfig{"Empty", "switch_key: ''\n", 1, 13, "or none"},
        BadKeyConfig{"KeyFileRelative", "switch_key_file: switch.key\n", 1, 18,
                     "switch_key_file: 'switch.key' is not an absolute path"},
        BadKeyConfig{"KeyFileWithoutValue", "switch_key_file:\n", 1, 1,
                     "switch_key_file: no value"},
        BadKeyConfig{"KeyAndKeyFile", "switch_key: 0x1\nswitch_key_file: /etc/ibsdn/k\n", 2, 18,
                     "switch_key_file: cannot be combined with switch_key (line 1)"},
        BadKeyConfig{"NoneAndKeyFile", "switch_key_file: /etc/k\nswitch_key: none\n", 1, 18,
                     "cannot be combined with switch_key (line 2)"}),
    [](const ::testing::TestParamInfo<BadKeyConfig>& p) { return std::string(p.param.name); });

struct BadConfig {
  const char* name;  // the test's name: what is wrong
  const char* text;
  std::size_t line;
  std::size_t column;
  const char* says;
};

class ControllerConfigRejects : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ControllerConfigRejects, NamingFileLineAndColumn) {
  const BadConfig& bad = GetParam();
  try {
    (void)parse_config(bad.text, "cfg.yaml");
    FAIL() << "accepted:\n" << bad.text;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.line(), bad.line) << what;
    EXPECT_EQ(e.column(), bad.column) << what;
    const std::string prefix =
        "cfg.yaml:" + std::to_string(bad.line) + ":" + std::to_string(bad.column) + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(bad.says), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ControllerConfigRejects,
    ::testing::Values(
        BadConfig{"MisspeltKeySuggestsTheKnownOne", "state_dir: /x\ntabel_capacity: 10\n", 2, 1,
                  "did you mean 'table_capacity'"},
        BadConfig{"TableCapacityZero", "table_capacity: 0\n", 1, 17, "out of range 1..1000000"},
        BadConfig{"TableCapacityAboveTheLimit", "table_capacity: 1000001\n", 1, 17, "out of range"},
        BadConfig{"TableCapacityNotANumber", "table_capacity: many\n", 1, 17,
                  "expected a decimal integer"},
        BadConfig{"TableCapacityQuoted", "table_capacity: \"4096\"\n", 1, 17,
                  "expected a decimal integer"},
        BadConfig{"TableCapacityNegative", "table_capacity: -5\n", 1, 17,
                  "expected a decimal integer"},
        BadConfig{"SwitchKeyWithoutHexPrefix", "switch_key: 12345\n", 1, 13,
                  "0x followed by 1 to 16 hex digits"},
        BadConfig{"SwitchKeyLongerThan64Bits", "switch_key: 0x0123456789abcdef0\n", 1, 13,
                  "64-bit"},
        BadConfig{"SwitchKeyNotHex", "switch_key: 0xfoo\n", 1, 13, "hex digits"},
        BadConfig{"StateDirRelative", "state_dir: var/lib/ibsdn\n", 1, 12, "not an absolute path"},
        BadConfig{"StateDirUnknownTemplate", "state_dir: /var/lib/ibsdn/%p\n", 1, 12,
                  "unknown %p (paths know %g"},
        BadConfig{"StateDirLonePercent", "state_dir: /var/lib/ibsdn%\n", 1, 12, "a lone %"},
        BadConfig{"SocketTooLongOnceTheGuidIsIn",
                  "notice_socket: /run/ibsdn/0123456789012345678901234567890123456789012345678901"
                  "2345678901234567890123/%g.sock\n",
                  1, 16, "longer than 107 bytes"},
        BadConfig{"FlowDefinitionLevelUnknown", "flow_definition_level: slid\n", 1, 24,
                  "is not one of dlid"},
        BadConfig{"AlgorithmUnknown", "algorithms:\n  fat_tree: sdn-bogus\n", 2, 13,
                  "unknown routing algorithm"},
        BadConfig{"AlgorithmUnknownSaysAutoForFatTrees", "algorithms:\n  fat_tree: sdn-bogus\n", 2,
                  13, "; or auto, the default"},
        BadConfig{"AlgorithmAutoOnADragonfly", "algorithms:\n  dragonfly: auto\n", 2, 14,
                  "algorithms.dragonfly: auto is for fat_tree only"},
        BadConfig{"AlgorithmsKeyMisspelt", "algorithms: {fat_tre: sdn-optimal}\n", 1, 14,
                  "did you mean 'fat_tree'"},
        BadConfig{"MadTimeoutZero", "mad:\n  timeout_ms: 0\n", 2, 15,
                  "mad.timeout_ms: 0 is out of range"},
        BadConfig{"MadWindowAboveTheLimit", "mad:\n  window: 5000\n", 2, 11, "mad.window"},
        BadConfig{"MadNotAMap", "mad: 5\n", 1, 6, "mad: expected a map"},
        BadConfig{"JobStartTimeoutNotAnInteger", "job_start_timeout_ms: 1.5\n", 1, 23,
                  "expected a decimal integer"},
        BadConfig{"LoadGuardYes", "load_guard: yes\n", 1, 13,
                  "load_guard: expected true or false, got 'yes'"},
        BadConfig{"LoadGuardQuoted", "load_guard: \"true\"\n", 1, 13,
                  "expected true or false, got the quoted string"},
        BadConfig{"KeyGivenTwice", "log_level: info\nlog_level: debug\n", 2, 1,
                  "duplicate key 'log_level'"},
        BadConfig{"LogLevelUnknown", "log_level: verbose\n", 1, 12,
                  "not one of error, warn, info, debug"},
        BadConfig{"KeyWithoutValue", "state_dir:\ntable_capacity: 5\n", 1, 1,
                  "state_dir: no value"},
        BadConfig{"ListWhereOneValueIsExpected", "state_dir: [/a, /b]\n", 1, 12,
                  "expected a single value"},
        BadConfig{"SlurmUserInvalidName", "slurm_user: 9slurm\n", 1, 13, "not a valid name"},
        BadConfig{"SocketGroupInvalidName", "socket_group: \"wheel;rm\"\n", 1, 15,
                  "not a valid name"},
        BadConfig{"HostMapRelative", "host_map: hosts.map\n", 1, 11, "not an absolute path"},
        BadConfig{"NoticeMaxConnectionsZero", "notice: {max_connections: 0}\n", 1, 27,
                  "notice.max_connections: 0 is out of range 1..4096"},
        BadConfig{"NoticeIdleTimeoutZero", "notice: {idle_timeout_ms: 0}\n", 1, 27,
                  "out of range 1..86400000"},
        BadConfig{"NoticeKeyMisspelt", "notice: {idle_timout_ms: 5}\n", 1, 10,
                  "did you mean 'idle_timeout_ms'"},
        BadConfig{"NoticeReservedLeavesNoConnection",
                  "notice:\n  max_connections: 4\n  max_connections_per_uid: 2\n"
                  "  reserved_for_scheduler: 4\n",
                  4, 27, "reserved_for_scheduler: 4 leaves no connection"},
        BadConfig{"NoticeMaxConnectionsBelowDefaultPerUid", "notice: {max_connections: 4}\n", 1, 27,
                  "below the default notice.max_connections_per_uid (8); set that too"},
        BadConfig{"NoticeMaxConnectionsNotAboveDefaultReserved",
                  "notice: {max_connections: 8, max_connections_per_uid: 2}\n", 1, 27,
                  "with the default notice.reserved_for_scheduler (8); set that too"},
        BadConfig{"NoticePerUidAboveMaxConnections",
                  "notice:\n  max_connections_per_uid: 9\n  max_connections: 8\n", 2, 28,
                  "max_connections_per_uid: 9 exceeds notice.max_connections (8)"},
        BadConfig{"NoticeNotAMap", "notice: 64\n", 1, 9, "notice: expected a map"},
        BadConfig{
            "NoticeSocketPathTooLong",
            "notice_socket: /run/ibsdn/"
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            "aaaaaaaaaaaaaaaaaaaaaa.sock\n",
            1, 16, "limit of a Unix socket path"},
        BadConfig{"AlgorithmsNotAMap", "algorithms: [sdn-optimal]\n", 1, 13,
                  "algorithms: expected a map"},
        BadConfig{"YamlSyntaxError", "mad: {timeout_ms: 200\n", 2, 1, "YAML syntax"},
        BadConfig{"SeveralDocuments", "log_level: info\n---\nlog_level: warn\n", 3, 1,
                  "only one YAML document"},
        // yaml-cpp 0.7's LoadAll loops forever, allocating, on this (common/yaml_reader.cpp).
        BadConfig{"LoneComma", ",\n", 1, 1, "YAML syntax"},
        BadConfig{"TopLevelNotAMap", "- a\n- b\n", 1, 1, "top level: expected a map"}),
    testing_names::ByCaseName());

std::string temp_dir() {
  std::string templ = (std::filesystem::temp_directory_path() / "ibsdn-cfg-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return templ;
}

TEST(ControllerConfig, PathTemplates_TakeTheSmPortGuid) {
  Config c = parse_config(
      "notice_socket: /run/ibsdn/%g/notice.sock\nstate_dir: /var/lib/ibsdn/%g\n"
      "switch_key_file: /etc/opensm/100%%-%g.key\n",
      "ibsdn.yaml");
  EXPECT_EQ(c.state_dir, "/var/lib/ibsdn/%g");  // expanded only when the port is known
  expand_path_templates(c, 0x0002c90300a1b2c4);
  EXPECT_EQ(c.notice_socket, "/run/ibsdn/0x0002c90300a1b2c4/notice.sock");
  EXPECT_EQ(c.state_dir, "/var/lib/ibsdn/0x0002c90300a1b2c4");
  EXPECT_EQ(c.switch_key_file, "/etc/opensm/100%-0x0002c90300a1b2c4.key");
}

TEST(ControllerConfig, PathTemplates_WithoutAGuidFromOpensm_AreRefusedSayingHowToGiveOne) {
  Config c = parse_config("state_dir: /var/lib/ibsdn/%g\n", "ibsdn.yaml");
  try {
    expand_path_templates(c, 0);
    FAIL() << "expanded %g without a port GUID";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--guid"), std::string::npos) << e.what();
  }
  Config plain = parse_config("state_dir: /var/lib/ibsdn\n", "ibsdn.yaml");
  expand_path_templates(plain, 0);  // nothing to expand: no GUID needed
  EXPECT_EQ(plain.state_dir, "/var/lib/ibsdn");
}

TEST(ControllerConfig, LoadConfig_ReportsAnUnreadableFile) {
  try {
    (void)load_config("/nonexistent/ibsdn.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/ibsdn.yaml: cannot read: ", 0), 0u)
        << e.what();
  }
}

/// What is not a small regular file the operator alone may write is refused, naming the path:
/// a directory (it used to read as an empty file: the controller ran on the defaults), a device
/// that never ends (/dev/zero used to grow the reader without bound), and a file its group or
/// every user may write.
TEST(ControllerConfig, LoadConfig_RefusesADirectoryADeviceAndAFileOthersMayWrite) {
  const std::string dir = temp_dir();
  const auto refused = [](const std::string& path) {
    try {
      (void)load_config(path);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused(dir), dir + ": is a directory, not a file");
  EXPECT_EQ(refused("/dev/zero"),
            "/dev/zero: is not a regular file (a device, a FIFO or a socket)");
  const std::string path = dir + "/ibsdn.yaml";
  std::ofstream(path) << "audit_interval_ms: 0\n";
  ::chmod(path.c_str(), 0664);
  EXPECT_EQ(refused(path), path +
                               ": is writable by its group (mode 0664): whoever may write it "
                               "controls the routing; chmod go-w");
  ::chmod(path.c_str(), 0646);
  EXPECT_NE(refused(path).find("writable by every user (mode 0646)"), std::string::npos);
  ::chmod(path.c_str(), 0644);
  EXPECT_EQ(refused(path), "accepted");
  // Larger than any configuration: refused once the limit is passed, not read to the end.
  {
    std::ofstream big(path, std::ios::binary);
    const std::string chunk(1 << 20, '#');
    for (std::size_t i = 0; i <= (kMaxConfigFileBytes >> 20); ++i) big << chunk;
  }
  EXPECT_EQ(refused(path), path + ": larger than 64 MiB, not a configuration file");
  std::filesystem::remove_all(dir);
}

TEST(ControllerConfig, LoadConfig_WarnsWhenAConfigFileHoldingTheKeyIsWorldReadable) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/ibsdn.yaml";
  std::ofstream(path) << "switch_key: 0x1\n";
  ::chmod(path.c_str(), 0644);
  Config c = load_config(path);
  EXPECT_EQ(c.switch_key, 1u);
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_NE(c.warnings[1].find("readable by every user"), std::string::npos);
  ::chmod(path.c_str(), 0600);
  EXPECT_EQ(load_config(path).warnings.size(), 1u);  // the key is still in a config file
  std::ofstream(path) << "switch_key: none\n";
  ::chmod(path.c_str(), 0644);
  EXPECT_EQ(load_config(path).warnings.size(), 1u);  // no key, nothing to read
  std::ofstream(path) << "switch_key: 0x1\nbogus: 1\n";
  try {
    (void)load_config(path);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":2:1: ", 0), 0u) << e.what();
  }
  std::filesystem::remove_all(dir);
}

// ---- host map ----

TEST(HostMap, ParsesGuidsQuotedAndBarePrefixes) {
  const HostMap m = HostMap::parse(
      "# Slurm name -> HCA\n"
      "\n"
      "node01  0x0002c90300a1b2c4\n"
      "node02\t\"gpu02 mlx5_0\"   # quoted\r\n"
      "  node03  gpu03 mlx5_0    # bare, trailing comment\n"
      "node04 \"0x1234\"\n"
      "node05 weird#name\n",
      "hosts.map");
  ASSERT_EQ(m.entries().size(), 5u);
  const HostMapEntry* n1 = m.find("node01");
  ASSERT_NE(n1, nullptr);
  ASSERT_TRUE(n1->guid.has_value());
  EXPECT_EQ(n1->guid->value(), 0x0002c90300a1b2c4ULL);
  EXPECT_EQ(n1->line, 3u);
  EXPECT_EQ(m.find("node02")->description_prefix, "gpu02 mlx5_0");
  EXPECT_FALSE(m.find("node02")->guid.has_value());
  EXPECT_EQ(m.find("node03")->description_prefix, "gpu03 mlx5_0");
  EXPECT_EQ(m.find("node03")->line, 5u);
  EXPECT_EQ(m.find("node04")->description_prefix, "0x1234");  // quoted: never a GUID
  EXPECT_EQ(m.find("node05")->description_prefix, "weird#name");
  EXPECT_EQ(m.find("node06"), nullptr);
}

struct BadMap {
  const char* name;  // the test's name: what is wrong
  const char* text;
  std::size_t line;
  std::size_t column;
  const char* says;
};

class HostMapRejects : public ::testing::TestWithParam<BadMap> {};

TEST_P(HostMapRejects, NamingLineAndColumn) {
  const BadMap& bad = GetParam();
  try {
    (void)HostMap::parse(bad.text, "hosts.map");
    FAIL() << "accepted:\n" << bad.text;
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line(), bad.line) << e.what();
    EXPECT_EQ(e.column(), bad.column) << e.what();
    EXPECT_NE(std::string(e.what()).find(bad.says), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HostMapRejects,
    ::testing::Values(
        BadMap{"HostMappedTwice", "a 0x1\n# c\na 0x2\n", 3, 1, "already mapped on line 1"},
        BadMap{"GuidMappedTwice", "a 0x1\nb 0x01\n", 2, 3, "GUID already mapped on line 1"},
        BadMap{"PrefixMappedTwice", "a \"n1 HCA-1\"\nb n1 HCA-1\n", 2, 3,
               "prefix already mapped on line 1"},
        BadMap{"InvalidHostName", "bad_host 0x1\n", 1, 1, "not a valid host name"},
        BadMap{"HostWithoutTarget", "node01\n", 1, 7, "missing the NodeDescription prefix or GUID"},
        BadMap{"HostWithOnlyAComment", "node01   # only a comment\n", 1, 10, "missing"},
        BadMap{"UnterminatedQuote", "node01 \"open\n", 1, 8, "unterminated"},
        BadMap{"TextAfterTheQuotedPrefix", "node01 \"x\" y\n", 1, 12, "unexpected text"},
        BadMap{"GuidZero", "node01 0x0\n", 1, 8, "GUID 0"},
        BadMap{"EmptyPrefix", "node01 \"\"\n", 1, 8, "empty NodeDescription prefix"}),
    testing_names::ByCaseName());

TEST(HostMap, DescriptionPrefixesMatchWholeWords) {
  EXPECT_TRUE(description_matches("node01 HCA-1", "node01"));
  EXPECT_TRUE(description_matches("node01 HCA-1", "node01 HCA-1"));
  EXPECT_TRUE(description_matches("node01", "node01"));
  EXPECT_FALSE(description_matches("node010 HCA-1", "node01"));
  EXPECT_FALSE(description_matches("node0", "node01"));
  EXPECT_FALSE(description_matches("node01", ""));
}

TEST(HostMap, LoadReportsAnUnreadableFile) {
  EXPECT_THROW((void)HostMap::load("/nonexistent/hosts.map"), ConfigError);
}

}  // namespace
}  // namespace ibsdn
