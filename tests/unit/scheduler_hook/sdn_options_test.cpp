// The job options at submit time (what spank_ibsdn.so checks) and the hook config file.
#include "scheduler_hook/sdn_options.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>

#include "scheduler_hook/hook_config.hpp"
#include "scheduler_hook/spank_checks.h"
#include "tests/unit/scheduler_hook/fake_controller.hpp"

namespace ibsdn::slurm_hook {
namespace {

using test::TempDir;

std::string option_error(void (*set)(SdnVariables&, std::string_view), std::string_view value) {
  SdnVariables v;
  try {
    set(v, value);
  } catch (const OptionError& e) {
    return e.what();
  }
  return "";
}

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

TEST(SdnOptions, PatternIsCheckedWithTheControllersParser) {
  SdnVariables v;
  set_pattern_option(v, "shift:k=3");
  EXPECT_EQ(v.pattern, "shift:k=3");
  std::string parser_message;
  try {
    PatternSpec::parse("nosuch").validate();
  } catch (const std::invalid_argument& e) {
    parser_message = e.what();
  }
  ASSERT_FALSE(parser_message.empty());
  EXPECT_EQ(option_error(set_pattern_option, "nosuch"), parser_message);
  EXPECT_NE(option_error(set_pattern_option, "matrix:file=x").find("@FILE"), std::string::npos);
}

TEST(SdnOptions, MatrixFileTravelsAsRowsAndSkippedCounts) {
  TempDir dir;
  const std::string path = write(dir, "tm.txt", "0 1 4096\n1 1 100\n2 0 0\n1 2 8\n0 1 4\n");
  SdnVariables v;
  set_pattern_option(v, "@" + path);
  EXPECT_FALSE(v.pattern.has_value());
  EXPECT_EQ(v.matrix, "0 1 4100;1 2 8");
  EXPECT_EQ(v.matrix_skipped, "1 100 1");
  JobStartRequest r;
  ASSERT_TRUE(apply_variables(v, r));
  EXPECT_EQ(std::get<TrafficMatrix>(r.traffic).skipped, (SkippedPairs{1, 100, 1}));
  EXPECT_EQ(option_error(set_pattern_option, "@" + dir.file("none.txt")).substr(0, 0), "");
  EXPECT_NE(option_error(set_pattern_option, "@" + dir.file("none.txt")), "");
  EXPECT_EQ(option_error(set_pattern_option, "@" + write(dir, "bad.txt", "0 1\n"))
                .find(dir.file("bad.txt") + ":1: "),
            0u);
}

TEST(SdnOptions, MatrixTooLargeForTheEnvironmentIsRefusedAtSubmit) {
  TempDir dir;
  std::string rows;
  for (int i = 0; i < 10000; ++i) rows += std::to_string(i) + " " + std::to_string(i + 1) + " 1\n";
  const std::string error = option_error(set_pattern_option, "@" + write(dir, "big.txt", rows));
  EXPECT_NE(error.find("at most 65536 fit the job's environment"), std::string::npos) << error;
}

TEST(SdnOptions, HintsFileRanksAndMapping) {
  TempDir dir;
  SdnVariables v;
  set_hints_option(v, "@" + write(dir, "h.txt", "# elephants\n0 5\n 3\t1  # big\n\n"));
  EXPECT_EQ(v.hints, "0:5,3:1");
  EXPECT_EQ(option_error(set_hints_option, "@" + write(dir, "s.txt", "2 2\n")),
            dir.file("s.txt") + ":1: an elephant pair needs two distinct ranks");
  EXPECT_EQ(option_error(set_hints_option, "h.txt"), "expected @FILE");
  EXPECT_EQ(option_error(set_ranks_per_node_option, "4097"), "'4097' is not a number in 1..4096");
  EXPECT_EQ(option_error(set_mapping_option, "zigzag"), "'zigzag' is not block or cyclic");
  set_mapping_option(v, "cyclic");
  EXPECT_EQ(v.mapping, "cyclic");
}

TEST(SdnOptions, SubmitCheckNeedsAPatternForTheOtherOptions) {
  SdnVariables v;
  EXPECT_EQ(submit_problem(v), "");
  set_ranks_per_node_option(v, "2");
  EXPECT_EQ(submit_problem(v),
            "--sdn-hints, --sdn-ranks-per-node and --sdn-mapping need --sdn-pattern");
  set_pattern_option(v, "ring");
  EXPECT_EQ(submit_problem(v), "");
}

// The C face the SPANK plugin calls: errors come back as text, never as an exception.
TEST(SpankChecks, ReportBadValuesAsTextAndPassTheVariables) {
  char err[256] = "";
  EXPECT_EQ(ibsdn_spank_option(IBSDN_OPT_PATTERN, "nosuch", err, sizeof err), -1);
  EXPECT_NE(std::string(err), "");
  EXPECT_EQ(ibsdn_spank_option(IBSDN_OPT_PATTERN, nullptr, err, sizeof err), -1);
  EXPECT_EQ(ibsdn_spank_option(99, "x", err, sizeof err), -1);
  char tiny[4];
  EXPECT_EQ(ibsdn_spank_option(IBSDN_OPT_MAPPING, "zigzag", tiny, sizeof tiny), -1);
  EXPECT_EQ(std::string(tiny), "'zi");
  ASSERT_EQ(ibsdn_spank_option(IBSDN_OPT_PATTERN, "3dnn", err, sizeof err), 0);
  ASSERT_EQ(ibsdn_spank_option(IBSDN_OPT_MAPPING, "cyclic", err, sizeof err), 0);
  EXPECT_EQ(ibsdn_spank_check(err, sizeof err), 0) << err;
  std::vector<std::string> set;
  EXPECT_EQ(
      ibsdn_spank_each_variable(
          [](const char* name, const char* value, void* ctx) {
            static_cast<std::vector<std::string>*>(ctx)->push_back(std::string(name) + "=" + value);
            return 0;
          },
          &set),
      0);
  EXPECT_EQ(set, (std::vector<std::string>{"SDN_PATTERN=3dnn", "SDN_MAPPING=cyclic"}));
}

TEST(SpankPlugin, ExportsOnlyTheSpankSymbols) {
  void* so = ::dlopen(SPANK_IBSDN_PATH, RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(so, nullptr) << ::dlerror();
  EXPECT_NE(::dlsym(so, "slurm_spank_init"), nullptr);
  EXPECT_NE(::dlsym(so, "slurm_spank_init_post_opt"), nullptr);
  EXPECT_STREQ(static_cast<const char*>(::dlsym(so, "plugin_type")), "spank");
  EXPECT_STREQ(static_cast<const char*>(::dlsym(so, "plugin_name")), "ibsdn");
  EXPECT_EQ(::dlsym(so, "ibsdn_spank_option"), nullptr);
  ::dlclose(so);
}

// ---- The configuration file -------------------------------------------------------------------

TEST(HookConfigFile, ReadsSlurmStyleKeysCaseInsensitively) {
  const HookConfig c = parse_hook_config(
      "# ibsdn\nNoticeSocket=/run/x.sock\nconnecttimeoutms = 1500 # fast\nTimeoutMs=4000\n"
      "Strict=yes\nDefaultPattern=shift:k=2\nLogFile=/var/log/ibsdn-hook.log\n",
      "hook.conf");
  EXPECT_EQ(c.socket, "/run/x.sock");
  EXPECT_EQ(c.connect_timeout.count(), 1500);
  EXPECT_EQ(c.timeout.count(), 4000);
  EXPECT_TRUE(c.strict);
  ASSERT_TRUE(c.default_pattern.has_value());
  EXPECT_EQ(c.default_pattern->to_string(), "shift:k=2");
  EXPECT_EQ(c.log_file, "/var/log/ibsdn-hook.log");
}

TEST(HookConfigFile, DefaultsFailOpenWithinSeconds) {
  const HookConfig c = parse_hook_config("", "x");
  EXPECT_EQ(c.connect_timeout.count(), 2000);
  EXPECT_EQ(c.timeout.count(), 5000);
  EXPECT_FALSE(c.strict);
  EXPECT_FALSE(c.default_pattern.has_value());
}

TEST(HookConfigFile, ErrorsNameFileAndLine) {
  const auto error = [](std::string_view text) {
    try {
      parse_hook_config(text, "hook.conf");
    } catch (const HookConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("\nTimeoutMs=soon\n"),
            "hook.conf:2: TimeoutMs: 'soon' is not a number of milliseconds in 1..3600000");
  EXPECT_EQ(error("Strict=maybe"), "hook.conf:1: Strict: 'maybe' is not yes or no");
  EXPECT_EQ(error("NoticeSocket=notice.sock"),
            "hook.conf:1: NoticeSocket: 'notice.sock' is not an absolute path");
  EXPECT_EQ(error("Timeout"), "hook.conf:1: expected Key=Value, found 'Timeout'");
  EXPECT_EQ(error("Colour=red").substr(0, 34), "hook.conf:1: unknown key 'Colour' ");
  EXPECT_EQ(error("DefaultPattern=nosuch").substr(0, 29), "hook.conf:1: DefaultPattern: ");
}

TEST(HookConfigFile, ExampleFileNamesEveryKeyAndGivesTheDefaults) {
  const std::string path = std::string(IBSDN_SOURCE_DIR) + "/scheduler_hook/slurm-hook.conf";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string uncommented;
  for (const std::string& key : hook_config_keys()) {
    const auto at = text.find("#" + key + "=");
    ASSERT_NE(at, std::string::npos) << key;
    uncommented += text.substr(at + 1, text.find('\n', at) - at - 1) + "\n";
  }
  const HookConfig defaults;
  const HookConfig example = parse_hook_config(uncommented, path);
  EXPECT_EQ(example.socket, defaults.socket);
  EXPECT_EQ(example.connect_timeout, defaults.connect_timeout);
  EXPECT_EQ(example.timeout, defaults.timeout);
  EXPECT_EQ(example.strict, defaults.strict);
  EXPECT_EQ(example.default_pattern, defaults.default_pattern);
  EXPECT_EQ(example.state_dir, defaults.state_dir);
  EXPECT_EQ(example.log_file, defaults.log_file);
  EXPECT_EQ(example.slurm_timeout, defaults.slurm_timeout);
  EXPECT_EQ(example.reconcile_max_ends, defaults.reconcile_max_ends);
}

TEST(HookConfigFile, MissingDefaultFileGivesDefaultsOtherMissingFilesAreErrors) {
  TempDir dir;
  EXPECT_EQ(load_hook_config(dir.file("absent.conf"), true).timeout.count(), 5000);
  EXPECT_THROW(load_hook_config(dir.file("absent.conf"), false), HookConfigError);
}

}  // namespace
}  // namespace ibsdn::slurm_hook
