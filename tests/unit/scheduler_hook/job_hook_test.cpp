// The prolog and epilog: a job's environment to its request, and the exit status under every
// kind of controller (ready, refusing, absent, hung, stopped), fail open and strict.
#include "scheduler_hook/job_hook.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>

#include "plugin/notice/request.hpp"
#include "tests/unit/scheduler_hook/fake_controller.hpp"

namespace ibsdn::slurm_hook {
namespace {

using namespace std::chrono_literals;
using test::FakeController;
using test::TempDir;
using Env = std::map<std::string, std::string>;
using Clock = std::chrono::steady_clock;

Environment env_of(const Env& vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

Env job_env(Env extra = {}) {
  Env e = {{"SLURM_JOB_ID", "4242"},
           {"SLURM_JOB_USER", "alice"},
           {"SLURM_JOB_UID", "1001"},
           {"SLURM_JOB_NODELIST", "node[01-03]"},
           {"SPANK_SDN_PATTERN", "3dnn"}};
  for (auto& [k, v] : extra) e[k] = v;
  return e;
}

std::string env_error(const Env& e, const HookConfig& c = {}) {
  try {
    job_start_from_environment(env_of(e), c);
  } catch (const std::exception& ex) {
    return ex.what();
  }
  return "";
}

HookConfig config_for(const std::string& socket, const TempDir& dir) {
  HookConfig c;
  c.socket = socket;
  c.state_dir = dir.file("state");
  c.connect_timeout = 300ms;
  c.timeout = 600ms;
  return c;
}

const char* kReady =
    R"({"v":1,"ok":true,"job":4242,"algorithm":"sdn-optimal","flows":6,"flows_on_default":0,)"
    R"("entries":12,"max_link_load":1.0,"bound":1.0,"degraded":false,"warnings":[]})";

long long ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// ---- The environment -----------------------------------------------------------------------

TEST(JobEnvironment, BuildsTheRequestFromSlurmAndSpankVariables) {
  const auto r = job_start_from_environment(env_of(job_env({{"SPANK_SDN_PATTERN", "shift:k=2"},
                                                            {"SPANK_SDN_RANKS_PER_NODE", "4"},
                                                            {"SPANK_SDN_MAPPING", "cyclic"},
                                                            {"SPANK_SDN_HINTS", "0:5,3:1"}})),
                                            HookConfig{});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->job, JobId(4242));
  EXPECT_EQ(r->user, "alice");
  EXPECT_EQ(r->uid, 1001u);
  EXPECT_EQ(r->nodes, (std::vector<std::string>{"node01", "node02", "node03"}));
  EXPECT_EQ(std::get<PatternSpec>(r->traffic).to_string(), "shift:k=2");
  EXPECT_EQ(r->ranks_per_node, 4u);
  EXPECT_EQ(r->mapping, Mapping::kCyclic);
  EXPECT_EQ(r->elephants, (std::vector<RankPair>{{0, 5}, {3, 1}}));
  // The SPANK plugin tells the job's tasks their LID offset: the controller may give one.
  EXPECT_TRUE(r->path_bits);
}

TEST(JobEnvironment, ReadsAMatrixWithItsSkippedPairs) {
  Env e = job_env();
  e.erase("SPANK_SDN_PATTERN");
  e["SPANK_SDN_MATRIX"] = "0 1 4096;1 2 8192";
  e["SPANK_SDN_MATRIX_SKIPPED"] = "1 100 2";
  const auto m = job_start_from_environment(env_of(e), HookConfig{});
  ASSERT_TRUE(m.has_value());
  const auto& tm = std::get<TrafficMatrix>(m->traffic);
  EXPECT_EQ(tm.flows, (std::vector<RankFlow>{{0, 1, 4096}, {1, 2, 8192}}));
  EXPECT_EQ(tm.skipped, (SkippedPairs{1, 100, 2}));
}

TEST(JobEnvironment, NoPatternMeansNoRequestUnlessADefaultIsConfigured) {
  Env e = job_env({{"SPANK_SDN_RANKS_PER_NODE", "2"}});
  e.erase("SPANK_SDN_PATTERN");
  EXPECT_FALSE(job_start_from_environment(env_of(e), HookConfig{}).has_value());
  HookConfig c;
  set_hook_config_key(c, "DefaultPattern", "ring");
  const auto r = job_start_from_environment(env_of(e), c);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(std::get<PatternSpec>(r->traffic).name, "ring");
  EXPECT_EQ(r->ranks_per_node, 2u);
  // No --sdn-pattern: the plugin asks nothing in slurmstepd, so the job stays on the base LIDs.
  EXPECT_FALSE(r->path_bits);
}

TEST(JobEnvironment, NamesTheVariableAtFault) {
  Env no_id = job_env();
  no_id.erase("SLURM_JOB_ID");
  EXPECT_EQ(env_error(no_id), "SLURM_JOB_ID is not set");
  EXPECT_EQ(env_error(job_env({{"SLURM_JOB_ID", "12x"}})),
            "SLURM_JOB_ID '12x' is not a job id (1..9223372036854775807)");
  EXPECT_EQ(env_error(job_env({{"SLURM_JOB_NODELIST", "bad[1-"}})),
            "SLURM_JOB_NODELIST: host list 'bad[1-': at character 7: expected a number in the "
            "brackets");
  EXPECT_EQ(env_error(job_env({{"SLURM_JOB_NODELIST", ""}})), "SLURM_JOB_NODELIST is not set");
  EXPECT_EQ(env_error(job_env({{"SLURM_JOB_USER", "no body"}})).substr(0, 26),
            "SLURM_JOB_USER 'no body': ");
  EXPECT_EQ(env_error(job_env({{"SLURM_JOB_UID", "-1"}})), "SLURM_JOB_UID '-1' is not a uid");
  EXPECT_EQ(env_error(job_env({{"SPANK_SDN_PATTERN", "nosuch"}})).substr(0, 19),
            "SPANK_SDN_PATTERN: ");
  EXPECT_EQ(env_error(job_env({{"SPANK_SDN_MAPPING", "diagonal"}})),
            "SPANK_SDN_MAPPING: 'diagonal' is not block or cyclic");
  EXPECT_EQ(env_error(job_env({{"SPANK_SDN_RANKS_PER_NODE", "0"}})),
            "SPANK_SDN_RANKS_PER_NODE: '0' is not in 1..4096");
  EXPECT_EQ(env_error(job_env({{"SPANK_SDN_HINTS", "1:1"}})).substr(0, 40),
            "the job's request is refused by the noti");
}

// ---- The prolog against controllers ----------------------------------------------------------

TEST(Prolog, SendsTheNoticeLibrarysRequestAndSucceedsOnReady) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string&) { return kReady; });
  ASSERT_TRUE(ctl.ok());
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_prolog(config_for(ctl.path(), dir), env_of(job_env()), log), kExitOk);
  const auto requests = ctl.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto expected = job_start_from_environment(env_of(job_env()), HookConfig{});
  EXPECT_EQ(requests[0], request_to_json(*expected).dump());
  const ParsedRequest parsed = parse_request(requests[0]);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(std::get<JobStartRequest>(parsed.request()), *expected);
  ASSERT_FALSE(log.lines().empty());
  EXPECT_NE(log.lines().back().find("info: prolog: job 4242 (3 nodes, 3dnn): ready after "),
            std::string::npos)
      << log.lines().back();
  std::ifstream note(dir.file("state") + "/4242");
  std::string traffic;
  std::getline(note, traffic);
  EXPECT_EQ(traffic, "3dnn");
}

TEST(Prolog, AbsentControllerFailsOpenAtOnce) {
  TempDir dir;
  HookLog log(false, "", nullptr);
  const auto start = Clock::now();
  EXPECT_EQ(run_prolog(config_for(dir.file("missing.sock"), dir), env_of(job_env()), log), kExitOk);
  EXPECT_LT(ms_since(start), 300);
  ASSERT_EQ(log.lines().size(), 1u);
  EXPECT_NE(log.lines()[0].find("warning: prolog: job 4242: no answer after "), std::string::npos);
  EXPECT_NE(log.lines()[0].find("No such file or directory; failing open: the job runs on the "
                                "default routes"),
            std::string::npos)
      << log.lines()[0];
}

TEST(Prolog, AbsentControllerFailsTheJobWhenStrict) {
  TempDir dir;
  HookConfig c = config_for(dir.file("missing.sock"), dir);
  c.strict = true;
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_prolog(c, env_of(job_env()), log), kExitFailed);
  EXPECT_NE(log.lines()[0].find("error: prolog: job 4242: no answer"), std::string::npos);
  EXPECT_NE(log.lines()[0].find("Strict=yes: exit 1"), std::string::npos);
}

TEST(Prolog, HungControllerIsGivenUpOnAtTheTotalBound) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kSilent);
  ASSERT_TRUE(ctl.ok());
  HookLog log(false, "", nullptr);
  const auto start = Clock::now();
  EXPECT_EQ(run_prolog(config_for(ctl.path(), dir), env_of(job_env()), log), kExitOk);
  const long long took = ms_since(start);
  EXPECT_GE(took, 590);  // poll() counts whole milliseconds
  EXPECT_LT(took, 1500);
  EXPECT_NE(log.lines()[0].find("no response within 600 ms (TimeoutMs); failing open"),
            std::string::npos)
      << log.lines()[0];
}

TEST(Prolog, StoppedControllerIsGivenUpOnAtTheConnectBound) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kBacklogFull);
  ASSERT_TRUE(ctl.ok());
  HookConfig c = config_for(ctl.path(), dir);
  c.strict = true;
  c.timeout = 3000ms;
  HookLog log(false, "", nullptr);
  const auto start = Clock::now();
  EXPECT_EQ(run_prolog(c, env_of(job_env()), log), kExitFailed);
  const long long took = ms_since(start);
  EXPECT_GE(took, 290);
  EXPECT_LT(took, 2000);  // the connect bound, not the total one
  EXPECT_NE(log.lines()[0].find("no room in its backlog within 300 ms (ConnectTimeoutMs)"),
            std::string::npos)
      << log.lines()[0];
}

TEST(Prolog, ControllerRefusalFailsOpenWithItsMessage) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string&) {
    return R"({"v":1,"ok":false,"error":{"code":"unknown_host","message":"at /nodes/1: no HCA"}})";
  });
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_prolog(config_for(ctl.path(), dir), env_of(job_env()), log), kExitOk);
  EXPECT_NE(log.lines()[0].find("the controller refused job_start after "), std::string::npos);
  EXPECT_NE(log.lines()[0].find("unknown_host: at /nodes/1: no HCA; failing open"),
            std::string::npos);
}

TEST(Prolog, MalformedEnvironmentFailsOpenOrStrict) {
  TempDir dir;
  HookConfig c = config_for(dir.file("never-used.sock"), dir);
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_prolog(c, env_of(job_env({{"SLURM_JOB_NODELIST", "bad[1-"}})), log), kExitOk);
  c.strict = true;
  EXPECT_EQ(run_prolog(c, env_of(job_env({{"SLURM_JOB_NODELIST", "bad[1-"}})), log), kExitFailed);
}

TEST(Prolog, JobWithoutPatternSendsNothing) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string&) { return kReady; });
  Env e = job_env();
  e.erase("SPANK_SDN_PATTERN");
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_prolog(config_for(ctl.path(), dir), env_of(e), log), kExitOk);
  EXPECT_EQ(run_epilog(config_for(ctl.path(), dir), env_of(e), log), kExitOk);
  EXPECT_TRUE(ctl.requests().empty());
}

// ---- The epilog ------------------------------------------------------------------------------

TEST(Epilog, SendsJobEndAndRemovesTheNote) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string& line) {
    return line.find("\"job_start\"") != std::string::npos
               ? std::string(kReady)
               : R"({"v":1,"ok":true,"job":4242,"entries_removed":12,"warnings":[]})";
  });
  HookLog log(false, "", nullptr);
  const HookConfig c = config_for(ctl.path(), dir);
  EXPECT_EQ(run_prolog(c, env_of(job_env()), log), kExitOk);
  EXPECT_TRUE(std::filesystem::exists(dir.file("state") + "/4242"));
  EXPECT_EQ(run_epilog(c, env_of(job_env()), log), kExitOk);
  ASSERT_EQ(ctl.requests().size(), 2u);
  EXPECT_EQ(ctl.requests()[1], request_to_json(JobEndRequest{JobId(4242)}).dump());
  EXPECT_FALSE(std::filesystem::exists(dir.file("state") + "/4242"));
  EXPECT_NE(log.lines().back().find("epilog: job 4242: ended after "), std::string::npos);
  EXPECT_NE(log.lines().back().find(", 12 entries removed"), std::string::npos);
}

TEST(Epilog, UnknownJobIsNoFailureEvenWhenStrict) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string&) {
    return R"({"v":1,"ok":false,"error":{"code":"unknown_job","message":"no job 4242"}})";
  });
  HookConfig c = config_for(ctl.path(), dir);
  c.strict = true;
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_epilog(c, env_of(job_env()), log), kExitOk);
}

TEST(Epilog, HungControllerFailsOpenWithinTheBound) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kSilent);
  HookLog log(false, "", nullptr);
  const auto start = Clock::now();
  EXPECT_EQ(run_epilog(config_for(ctl.path(), dir), env_of(job_env()), log), kExitOk);
  EXPECT_LT(ms_since(start), 1500);
  EXPECT_NE(log.lines()[0].find("(reconcile ends it later); failing open"), std::string::npos)
      << log.lines()[0];
}

}  // namespace
}  // namespace ibsdn::slurm_hook
