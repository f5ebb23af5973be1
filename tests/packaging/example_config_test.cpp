// The configuration the package installs as /etc/opensm/ibsdn.yaml (packaging/ibsdn.yaml) and its
// manual page (docs/man/ibsdn.yaml.5), checked against the controller's own parser: the plugin
// reads that file by default, so a mistake in it would keep the plugin out of every opensm.
//
// The example's lines come in three kinds:
//   key: value        a setting (the same as the default);
//   #key: value       a commented setting, the default written out (nested: "#  key: value");
//   # key: value      an example of a key without a default (one blank after '#').
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/controller/config.hpp"

namespace ibsdn {
namespace {

constexpr const char* kExample = "packaging/ibsdn.yaml";
constexpr const char* kManPage = "docs/man/ibsdn.yaml.5";

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(IBSDN_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << "cannot read " << relative;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A top-level key of the format, for telling an example line from prose ("# Who may use ...").
bool is_top_level_key(const std::string& name) {
  for (const std::string& k : config_keys()) {
    if (k == name) return true;
  }
  return false;
}

/// The example with every commented setting uncommented; examples and prose stay comments.
std::string uncommented(const std::string& text) {
  static const std::regex kSetting(R"(^#([a-z_]+:.*|  +[a-z_]+:.*)$)");
  std::string out;
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    out += (std::regex_match(line, m, kSetting) ? m[1].str() : line) + "\n";
  }
  return out;
}

/// The "# key: value" example lines, each one YAML line.
std::vector<std::string> examples(const std::string& text) {
  static const std::regex kExampleLine(R"(^# (([a-z_]+): .*)$)");
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_match(line, m, kExampleLine) && is_top_level_key(m[2].str())) {
      out.push_back(m[1].str());
    }
  }
  return out;
}

void expect_defaults(const Config& c) {
  const Config d;
  EXPECT_EQ(c.notice_socket, d.notice_socket);
  EXPECT_EQ(c.socket_group, d.socket_group);
  EXPECT_EQ(c.state_dir, d.state_dir);
  EXPECT_EQ(c.switch_key_source, d.switch_key_source);
  EXPECT_EQ(c.switch_key_file, d.switch_key_file);
  EXPECT_EQ(c.switch_key, d.switch_key);
  EXPECT_EQ(c.table_capacity, d.table_capacity);
  EXPECT_EQ(c.flow_definition_level, d.flow_definition_level);
  EXPECT_EQ(c.algorithms.fat_tree, d.algorithms.fat_tree);
  EXPECT_EQ(c.algorithms.dragonfly, d.algorithms.dragonfly);
  EXPECT_EQ(c.algorithms.other, d.algorithms.other);
  EXPECT_EQ(c.mad.timeout_ms, d.mad.timeout_ms);
  EXPECT_EQ(c.mad.retries, d.mad.retries);
  EXPECT_EQ(c.mad.window, d.mad.window);
  EXPECT_EQ(c.limits.max_rank_flows, d.limits.max_rank_flows);
  EXPECT_EQ(c.limits.max_flows_per_job, d.limits.max_flows_per_job);
  EXPECT_EQ(c.limits.max_flows_total, d.limits.max_flows_total);
  EXPECT_EQ(c.job_start_timeout_ms, d.job_start_timeout_ms);
  EXPECT_EQ(c.audit_interval_ms, d.audit_interval_ms);
  EXPECT_EQ(c.slurm_user, d.slurm_user);
  EXPECT_EQ(c.notice.max_connections, d.notice.max_connections);
  EXPECT_EQ(c.notice.max_connections_per_uid, d.notice.max_connections_per_uid);
  EXPECT_EQ(c.notice.reserved_for_scheduler, d.notice.reserved_for_scheduler);
  EXPECT_EQ(c.notice.idle_timeout_ms, d.notice.idle_timeout_ms);
  EXPECT_EQ(c.notice.scheduler_idle_timeout_ms, d.notice.scheduler_idle_timeout_ms);
  EXPECT_EQ(c.host_map, d.host_map);
  EXPECT_EQ(c.log_level, d.log_level);
}

TEST(ExampleConfig, AsShipped_ParsesWithoutWarningsToTheDefaults) {
  const Config c = parse_config(source_file(kExample), kExample);
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  expect_defaults(c);
}

TEST(ExampleConfig, CommentedSettings_AreTheDefaults) {
  const std::string text = uncommented(source_file(kExample));
  ASSERT_NE(text, source_file(kExample)) << "no commented setting found: the test proves nothing";
  const Config c = parse_config(text, std::string(kExample) + " (uncommented)");
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  expect_defaults(c);
}

TEST(ExampleConfig, EachExampleLine_IsAccepted) {
  const std::vector<std::string> lines = examples(source_file(kExample));
  EXPECT_GE(lines.size(), 4u) << "socket_group, switch_key_file, switch_key, host_map";
  for (const std::string& line : lines) {
    EXPECT_NO_THROW((void)parse_config(line + "\n", kExample)) << line;
  }
}

TEST(ExampleConfig, NamesEveryKeyTheParserAccepts) {
  const std::string text = source_file(kExample);
  const YAML::Node settings = YAML::Load(uncommented(text));
  std::set<std::string> shown;
  for (const auto& kv : settings) {
    const std::string key = kv.first.Scalar();
    shown.insert(key);
    if (kv.second.IsMap()) {
      for (const auto& sub : kv.second) shown.insert(key + "." + sub.first.Scalar());
    }
  }
  for (const std::string& line : examples(text)) shown.insert(line.substr(0, line.find(':')));
  for (const std::string& key : config_keys()) {
    EXPECT_TRUE(shown.count(key) > 0) << key << " is neither set, commented out nor an example";
  }
}

// Every key is a tagged paragraph of its own: ".TP" then ".B key" (nested keys dotted,
// ".B mad.timeout_ms").
TEST(ConfigManPage, DescribesEveryKeyTheParserAccepts) {
  const std::string page = source_file(kManPage);
  for (const std::string& key : config_keys()) {
    EXPECT_NE(page.find(".TP\n.B " + key + "\n"), std::string::npos)
        << kManPage << " has no paragraph for " << key;
  }
}

TEST(ConfigManPage, DescribesNoKeyTheParserRefuses) {
  const std::set<std::string> known = [] {
    const std::vector<std::string> keys = config_keys();
    return std::set<std::string>(keys.begin(), keys.end());
  }();
  // A section of keys starts at .SH KEYS and ends at the next .SH.
  const std::string page = source_file(kManPage);
  const auto begin = page.find("\n.SH KEYS\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = page.find("\n.SH ", begin + 1);
  const std::string keys = page.substr(begin, end - begin);
  static const std::regex kKeyParagraph(R"(\n\.TP\n\.B ([a-z_.]+)(?=\n))");
  int described = 0;
  for (auto it = std::sregex_iterator(keys.begin(), keys.end(), kKeyParagraph);
       it != std::sregex_iterator(); ++it) {
    ++described;
    EXPECT_TRUE(known.count((*it)[1].str()) > 0) << (*it)[1].str() << " is not a key";
  }
  EXPECT_EQ(described, static_cast<int>(known.size()));
}

}  // namespace
}  // namespace ibsdn
