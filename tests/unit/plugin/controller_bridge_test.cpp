// The controller through its C ABI, as the glue drives it
// (tests/unit/plugin/controller_harness.hpp: a fake glue answering with the agents' logic, a client
// on the real notice socket). The real-process version of these scenarios (ibsim, opensm, agents)
// is tests/integration/controller_ibsim.sh.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "flowtable/flow_text.hpp"
#include "mad/mad_codec.hpp"
#include "mad/switch_responder.hpp"
#include "osmsdn_abi.h"
#include "plugin/opensm/abi_fabric.hpp"
#include "plugin/opensm/sdn_engine.hpp"
#include "routing/xgft.hpp"
#include "tests/support/param_names.hpp"
#include "tests/unit/plugin/abi_test_fabric.hpp"
#include "tests/unit/plugin/controller_harness.hpp"

namespace ibsdn::plugin {
namespace {

using namespace std::chrono_literals;
using namespace test;
using nlohmann::json;

TEST(ControllerBridge, JobStartInstallsTheIntendedEntriesOnEverySwitchAndJobEndRemovesThem) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);

  const json ready = ask(box.socket(), job_start(42, "random-perm"));
  ASSERT_TRUE(ready.value("ok", false)) << ready.dump();
  EXPECT_EQ(ready.at("flows").get<int>(), 16);
  EXPECT_FALSE(ready.at("degraded").get<bool>()) << ready.dump();
  // SDN-optimal on a full-bisection fat-tree: L_D equals the bound.
  EXPECT_EQ(ready.at("max_link_load").get<double>(), ready.at("bound").get<double>());

  const auto intended = intent(box.socket());
  EXPECT_EQ(total(intended), ready.at("entries").get<std::size_t>());
  for (const Lid l : s.switch_lids()) {
    const auto it = intended.find(l.value());
    const std::vector<std::string> want =
        it == intended.end() ? std::vector<std::string>{} : it->second;
    EXPECT_EQ(glue.table(l), want) << "switch LID " << l.value();
  }
  const json audit = ask(box.socket(), {{"v", 1}, {"op", "audit"}});
  EXPECT_TRUE(audit.at("consistent").get<bool>()) << audit.dump();

  const json end = ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 42}});
  ASSERT_TRUE(end.value("ok", false)) << end.dump();
  for (const Lid l : s.switch_lids()) EXPECT_TRUE(glue.table(l).empty());
  EXPECT_EQ(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").size(), 0u);
}

json job_on(std::uint64_t job, const std::vector<std::string>& nodes, const std::string& pattern,
            const std::string& algorithm) {
  return {{"v", 1},
          {"op", "job_start"},
          {"job", job},
          {"user", "root"},
          {"nodes", nodes},
          {"pattern", pattern},
          {"algorithm", algorithm}};
}

class TwoJobs : public ::testing::TestWithParam<const char*> {};

TEST_P(TwoJobs, TheSecondJobRoutesAroundTheFirstJobsLoad) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  // Both jobs have two hosts on each of the first two leaves and send every flow across: four
  // flows leave each leaf over its four up links. Routed alone, each job takes up ports 5 and 6
  // of both leaves; one flow per link is only possible if the second job avoids the first's.
  const json a =
      ask(box.socket(), job_on(1, {"n0001", "n0002", "n0005", "n0006"}, "shift:k=2", GetParam()));
  const json b =
      ask(box.socket(), job_on(2, {"n0003", "n0004", "n0007", "n0008"}, "shift:k=2", GetParam()));
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  ASSERT_TRUE(b.value("ok", false)) << b.dump();
  EXPECT_EQ(b.at("max_link_load").get<double>(), 1.0) << b.dump();
  const json links = ask(box.socket(), {{"v", 1}, {"op", "links"}, {"top", 1}});
  EXPECT_EQ(links.at("links").at(0).at("flows").get<int>(), 1) << links.dump();
  EXPECT_EQ(links.at("swml_flows").get<int>(), 1) << links.dump();
}

INSTANTIATE_TEST_SUITE_P(Algorithms, TwoJobs, ::testing::Values("sdn-greedy", "sdn-optimal"),
                         testing_names::ByText());

TEST(ControllerBridge, ARepeatedJobStartGetsTheSameAnswerAndAConflictingOneARefusal) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  const json a = ask(box.socket(), job_start(1, "shift:k=4", 1, 8));
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  EXPECT_EQ(ask(box.socket(), job_start(1, "shift:k=4", 1, 8)), a);
  const json other = ask(box.socket(), job_start(1, "random-perm", 1, 8));
  EXPECT_EQ(other.at("error").at("code"), "invalid") << other.dump();
}

// The notice protocol checks only an algorithm name's syntax; the controller knows which exist and
// answers as the parser did when it still knew them: invalid, at /algorithm, nothing routed.
TEST(ControllerBridge, UnknownAlgorithm_IsRefusedInvalidAtTheAlgorithmField) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  json start = job_start(1, "ring", 1, 4);
  start["algorithm"] = "fastest";
  const json refused = ask(box.socket(), start);
  EXPECT_EQ(refused.at("error").at("code"), "invalid") << refused.dump();
  EXPECT_EQ(refused.at("error").at("at"), "/algorithm") << refused.dump();
  EXPECT_EQ(refused.at("error").at("message").get<std::string>().rfind(
                "at /algorithm: unknown routing algorithm 'fastest' (known: dmodk, ", 0),
            0u)
      << refused.dump();
  EXPECT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").empty());
  start["algorithm"] = "sdn-greedy";
  const json ready = ask(box.socket(), start);
  EXPECT_EQ(ready.value("algorithm", ""), "sdn-greedy") << ready.dump();
}

TEST(ControllerBridge, JobsAndEntriesSurviveARestartAndAnEmptiedSwitchIsRepaired) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  std::map<std::uint16_t, std::vector<std::string>> before;
  {
    Running run(glue, box, s);
    ASSERT_TRUE(ask(box.socket(), job_start(7, "random-perm")).value("ok", false));
    before = intent(box.socket());
  }
  ASSERT_GT(total(before), 0u);
  // An agent restarted empty while the SM was down.
  const Lid emptied(before.begin()->first);
  s.attach_all(glue);  // fresh responders everywhere: all tables empty
  Running again(glue, box, s);
  EXPECT_EQ(intent(box.socket()), before);
  for (const Lid l : s.switch_lids()) {
    const auto it = before.find(l.value());
    EXPECT_EQ(glue.table(l), it == before.end() ? std::vector<std::string>{} : it->second)
        << "switch LID " << l.value();
  }
  EXPECT_GE(glue.count("repaired to its"), 1u);
  (void)emptied;
  const json jobs = ask(box.socket(), {{"v", 1}, {"op", "jobs"}});
  ASSERT_EQ(jobs.at("jobs").size(), 1u);
  EXPECT_EQ(jobs.at("jobs").at(0).at("job").get<int>(), 7);
}

// Profiler output lists self and zero pairs (skipped and counted, docs/routing.md "Volumes"): the
// job starts, its ready answer and the jobs query count them, and so does the job reloaded after a
// restart (the stored request carries the counts as "matrix_skipped").
TEST(ControllerBridge, AMatrixsSkippedPairsAreCountedInTheAnswersAlsoAfterARestart) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  json start = job_start(9, "ring", 1, 4);
  start.erase("pattern");
  start["ranks_per_node"] = 1;
  start["matrix"] = json::parse("[[0,1,100],[2,2,64],[1,0,0],[3,3,0],[2,2,1],[1,2,7]]");
  const json want = {{"pairs", 2}, {"self_pairs", 1}, {"intra_rank_bytes", 65}, {"zero_pairs", 2}};
  const json jobs = {{"v", 1}, {"op", "jobs"}};
  {
    Running run(glue, box, s);
    const json ready = ask(box.socket(), start);
    ASSERT_TRUE(ready.value("ok", false)) << ready.dump();
    EXPECT_EQ(ready.at("flows").get<int>(), 2);
    EXPECT_EQ(ready.at("matrix"), want);
    EXPECT_EQ(ask(box.socket(), jobs).at("jobs").at(0).at("matrix"), want);
  }
  s.attach_all(glue);
  Running again(glue, box, s);
  EXPECT_EQ(ask(box.socket(), jobs).at("jobs").at(0).at("matrix"), want);
}

TEST(ControllerBridge, ASilentSwitchGivesADegradedReadyInBoundedTimeWithNothingRelyingOnIt) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  // Entries sit where paths go up: at the leaves. A leaf that does not answer.
  const NodeIdx leaf = *s.fabric.find("l1s001");
  glue.detach_agent(s.lids.lid(leaf, PortNum(0)));
  const auto t0 = std::chrono::steady_clock::now();
  const json ready = ask(box.socket(), job_start(3, "random-perm"));
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(ready.value("ok", false)) << ready.dump();
  EXPECT_TRUE(ready.at("degraded").get<bool>());
  EXPECT_NE(ready.at("warnings").dump().find("l1s001"), std::string::npos) << ready.dump();
  EXPECT_LT(took, 5s);  // job_start_timeout_ms' default; the MAD timeouts are 40 ms here
  // Nothing is intended for the silent leaf: its hosts' flows take its default routes.
  for (const auto& [lid, entries] : intent(box.socket())) {
    EXPECT_NE(lid, s.lids.lid(leaf, PortNum(0)).value());
  }
}

TEST(ControllerBridge, RefusesJobNoticesFromOtherUsersAndBadNoticesLeavingStateIntact) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to send as another uid";
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  ::chmod(box.dir.c_str(), 0755);
  Running run(glue, box, s);
  ASSERT_TRUE(ask(box.socket(), job_start(5, "random-perm")).value("ok", false));
  const auto before = intent(box.socket());
  // The socket is 0600 root: "nobody" cannot even connect. The address is made before the fork:
  // the child of a process with threads only makes system calls (no allocation).
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, box.socket().c_str(), sizeof(addr.sun_path) - 1);
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ::_exit(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 ? 11 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "exit " << WEXITSTATUS(status);

  const json unknown = ask(box.socket(), job_start(6, "random-perm", 10, 8));
  EXPECT_EQ(unknown.at("error").at("code"), "unknown_host") << unknown.dump();
  EXPECT_NE(unknown.dump().find("n0017"), std::string::npos);
  const json not_active = ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 99}});
  EXPECT_EQ(not_active.at("error").at("code"), "unknown_job");
  const json phase =
      ask(box.socket(),
          {{"v", 1}, {"op", "phase"}, {"job", 5}, {"action", "begin"}, {"name", "undeclared"}});
  EXPECT_EQ(phase.at("error").at("code"), "unknown_phase") << phase.dump();
  EXPECT_EQ(intent(box.socket()), before);
  EXPECT_EQ(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").size(), 1u);
}

// Users mark phases and hints from inside their jobs (ibsdnctl job phase / hint, libibsdn-hints):
// the controller accepts them from the uid job_start named (the hook sends SLURM_JOB_UID), and
// refuses every other uid but root and the Slurm user, saying whose job it is. Nothing of the
// job changes on a refusal.
TEST(ControllerBridge, PhaseAndHint_AreForTheJobOwnersUidAndRefusedToOtherUsers) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to send as other uids";
  constexpr uid_t kOwner = 60001;
  constexpr uid_t kOther = 60002;
  constexpr gid_t kGroup = 65534;  // the socket's group: both users may connect
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box("socket_group: nogroup\n");
  ::chmod(box.dir.c_str(), 0755);
  Running run(glue, box, s);
  json start = job_start(11, "shift:k=1");
  start["user"] = "alice";
  start["uid"] = kOwner;
  start["phases"] = json::array({{{"name", "exchange"}, {"pattern", "random-perm"}}});
  ASSERT_TRUE(ask(box.socket(), start).value("ok", false));
  const auto base = intent(box.socket());
  const json begin = {
      {"v", 1}, {"op", "phase"}, {"job", 11}, {"action", "begin"}, {"name", "exchange"}};
  const json end = {
      {"v", 1}, {"op", "phase"}, {"job", 11}, {"action", "end"}, {"name", "exchange"}};
  const json hint = {{"v", 1}, {"op", "hint"}, {"job", 11}, {"elephants", {{0, 1}}}};

  for (const json& refused : {begin, end, hint}) {
    const json r = ask_as(kOther, kGroup, box.socket(), refused);
    ASSERT_EQ(r.at("error").at("code"), "forbidden") << r.dump();
    EXPECT_EQ(r.at("error").at("at"), "/job") << r.dump();
    EXPECT_NE(r.at("error").at("message").get<std::string>().find(
                  " for job 11 is for its owner alice (uid 60001), root or the Slurm user "
                  "(slurm); uid 60002 is none of them"),
              std::string::npos)
        << r.dump();
  }
  EXPECT_EQ(intent(box.socket()), base);
  EXPECT_GE(glue.count("phase from uid 60002"), 1u) << glue.log_text();
  // job_end stays the scheduler's, also for the owner.
  const json owner_end =
      ask_as(kOwner, kGroup, box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 11}});
  EXPECT_EQ(owner_end.at("error").at("code"), "forbidden") << owner_end.dump();
  // A job that is not active is named so, not "not yours": the jobs query lists jobs anyway.
  json other_job = begin;
  other_job["job"] = 12;
  const json unknown = ask_as(kOwner, kGroup, box.socket(), other_job);
  EXPECT_EQ(unknown.at("error").at("code"), "unknown_job") << unknown.dump();

  const json began = ask_as(kOwner, kGroup, box.socket(), begin);
  ASSERT_TRUE(began.value("ok", false)) << began.dump();
  EXPECT_NE(intent(box.socket()), base);
  const json hinted = ask_as(kOwner, kGroup, box.socket(), hint);
  ASSERT_TRUE(hinted.value("ok", false)) << hinted.dump();
  const json ended = ask_as(kOwner, kGroup, box.socket(), end);
  ASSERT_TRUE(ended.value("ok", false)) << ended.dump();
  EXPECT_EQ(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").at(0).at("phase"), "");
}

// Without "uid" in job_start the owner is the user's uid on the controller's host; a user the
// host does not know owns a job nobody but root and the Slurm user may change.
TEST(ControllerBridge, PhaseAndHint_WithoutAUidInJobStart_GoByTheUsersLocalUid) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to send as other uids";
  constexpr gid_t kGroup = 65534;
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box("socket_group: nogroup\n");
  ::chmod(box.dir.c_str(), 0755);
  Running run(glue, box, s);
  json by_name = job_start(21, "ring", 1, 4);
  by_name["user"] = "nobody";  // uid 65534 on Debian
  ASSERT_TRUE(ask(box.socket(), by_name).value("ok", false));
  json stranger = job_start(22, "ring", 5, 4);
  stranger["user"] = "no-such-user-here";
  ASSERT_TRUE(ask(box.socket(), stranger).value("ok", false));

  const json hint21 = {{"v", 1}, {"op", "hint"}, {"job", 21}, {"elephants", {{0, 1}}}};
  const json ok = ask_as(65534, kGroup, box.socket(), hint21);
  EXPECT_TRUE(ok.value("ok", false)) << ok.dump();
  const json hint22 = {{"v", 1}, {"op", "hint"}, {"job", 22}, {"elephants", {{0, 1}}}};
  const json refused = ask_as(65534, kGroup, box.socket(), hint22);
  ASSERT_EQ(refused.at("error").at("code"), "forbidden") << refused.dump();
  EXPECT_NE(refused.at("error").at("message").get<std::string>().find(
                "its owner no-such-user-here (whose uid the controller does not know"),
            std::string::npos)
      << refused.dump();
  EXPECT_TRUE(ask(box.socket(), hint22).value("ok", false));  // root may
}

TEST(ControllerBridge, PhasesSwapTheJobsEntriesAndRouteShowsWhereEntriesOverride) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  Running run(glue, box, s);
  json start = job_start(8, "shift:k=1");
  start["phases"] = json::array({{{"name", "exchange"}, {"pattern", "random-perm"}}});
  ASSERT_TRUE(ask(box.socket(), start).value("ok", false));
  const auto base = intent(box.socket());
  const json begin =
      ask(box.socket(),
          {{"v", 1}, {"op", "phase"}, {"job", 8}, {"action", "begin"}, {"name", "exchange"}});
  ASSERT_TRUE(begin.value("ok", false)) << begin.dump();
  const auto during = intent(box.socket());
  EXPECT_NE(during, base);
  for (const Lid l : s.switch_lids()) {
    const auto it = during.find(l.value());
    EXPECT_EQ(glue.table(l), it == during.end() ? std::vector<std::string>{} : it->second);
  }
  const json end =
      ask(box.socket(),
          {{"v", 1}, {"op", "phase"}, {"job", 8}, {"action", "end"}, {"name", "exchange"}});
  ASSERT_TRUE(end.value("ok", false)) << end.dump();
  EXPECT_EQ(intent(box.socket()), base);

  // route: the hops the packets take, entries marked with their job.
  bool any_entry = false;
  for (int d = 2; d <= 16 && !any_entry; ++d) {
    char dst[16];
    std::snprintf(dst, sizeof(dst), "n%04d", d);
    const json r = ask(box.socket(), {{"v", 1}, {"op", "route"}, {"src", "n0001"}, {"dst", dst}});
    ASSERT_TRUE(r.value("ok", false)) << r.dump();
    for (const json& h : r.at("hops")) {
      if (h.at("by") == "flow") {
        any_entry = true;
        EXPECT_EQ(h.at("cookie").get<int>(), 8);
      }
    }
  }
  EXPECT_TRUE(any_entry || total(base) == 0);
}

TEST(ControllerBridge, ComputesTablesAndRefusesABrokenFabricWithoutTouchingThem) {
  TestFabric s;
  FakeGlue glue;
  Sandbox box;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<osmsdn_lft> lfts;
  for (const NodeIdx sw : s.fabric.switches()) {
    bytes.emplace_back(25, OSMSDN_NO_PATH);
    lfts.push_back(osmsdn_lft{s.fabric.node(sw).guid.value(), bytes.back().data(), 25});
  }
  ASSERT_EQ(osmsdn_compute_lfts(ctx, &s.abi.view, lfts.data(), 8), OSMSDN_OK);
  EXPECT_EQ(bytes[0][1], 1);  // l1s001 sends n0001 (LID 1) down port 1
  EXPECT_EQ(glue.count("sdn engine: dmodk on XGFT(2;4,4;1,4); 8 switch tables"), 1u);

  for (auto& b : bytes) std::fill(b.begin(), b.end(), OSMSDN_NO_PATH);
  s.abi.port(0, 1).peer_node_guid = 0x1234;  // a cable to nowhere
  EXPECT_EQ(osmsdn_compute_lfts(ctx, &s.abi.view, lfts.data(), 8), OSMSDN_ERR_INVALID);
  EXPECT_EQ(glue.count("('n0001 HCA-1') port 1 is cabled to unknown node 0x0000000000001234"), 1u);
  for (const auto& b : bytes) {
    for (const std::uint8_t e : b) EXPECT_EQ(e, OSMSDN_NO_PATH);
  }
  osmsdn_destroy(ctx);
}

TEST(ControllerBridge, RejectsBadOptionsConfigsAndAbiVersionsWithALogLine) {
  FakeGlue glue;
  osmsdn_ctx* ctx = reinterpret_cast<osmsdn_ctx*>(&glue);
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), "colour=blue", &ctx),
            OSMSDN_ERR_INVALID);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(glue.count("unknown option 'colour'"), 1u);
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION + 1, &glue.ops(), nullptr, &ctx), OSMSDN_ERR_INVALID);
  EXPECT_EQ(glue.count("rebuild libosmsdn.so"), 1u);

  Sandbox box("table_capacity: lots\n");
  EXPECT_NE(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(glue.count("ibsdn.yaml:6:"), 1u) << glue.log_text();
  Sandbox missing;
  std::filesystem::remove(missing.dir / "ibsdn.yaml");
  EXPECT_NE(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), missing.options.c_str(), &ctx),
            OSMSDN_OK);
  EXPECT_EQ(glue.count("cannot read"), 1u) << glue.log_text();
}

// A controller that does not start is what administrators must hear of: one line with its code,
// to OpenSM's log and syslog.
TEST(ControllerBridge, RefusalToStart_IsOneCodedLineForSyslogToo) {
  FakeGlue glue;
  Sandbox box("table_capacity: lots\n");
  osmsdn_ctx* ctx = nullptr;
  EXPECT_NE(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  EXPECT_EQ(glue.count_starting(OSMSDN_LOG_ERROR_SYS,
                                "ERR 5D10: osmsdn_create: cannot start the controller: "),
            1u)
      << glue.log_text();
  EXPECT_EQ(glue.count("cannot start the controller"), 1u) << glue.log_text();
  EXPECT_EQ(osmsdn_create(OSMSDN_ABI_VERSION + 1, &glue.ops(), nullptr, &ctx), OSMSDN_ERR_INVALID);
  EXPECT_EQ(glue.count_starting(OSMSDN_LOG_ERROR_SYS, "ERR 5D11: glue ABI version "), 1u)
      << glue.log_text();
}

// OpenSM 3.3.23 has no warning level.
TEST(ControllerBridge, Warnings_GoOutAtInfoMarkedAsWarnings) {
  FakeGlue glue;
  Sandbox box;  // its switch_key is written in the configuration file
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  EXPECT_EQ(glue.count_starting(OSMSDN_LOG_INFO, "warning: ",
                                "switch_key: the key is written in the configuration file"),
            1u)
      << glue.log_text();
  osmsdn_destroy(ctx);
}

TEST(ControllerBridge, IgnoresAnswersThatMatchNoRequest) {
  FakeGlue glue;
  Sandbox box;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  mad::SdnMad m;
  m.hdr.method = mad::Method::kGetResp;
  m.hdr.attr_id = mad::AttributeId::kTableInfo;
  m.hdr.tid = 0x0001000012345678;
  m.key = kKey;
  m.payload = mad::TableInfo{};
  const mad::MadBytes b = mad::encode(m);
  osmsdn_mad_received(ctx, 7, b.data());
  osmsdn_mad_send_failed(ctx, 7, b.data(), 1);
  const json stats = ask(box.socket(), {{"v", 1}, {"op", "stats"}});
  EXPECT_TRUE(stats.value("ok", false)) << stats.dump();
  osmsdn_stop(ctx);
  osmsdn_mad_received(ctx, 7, b.data());  // after stop: dropped quietly
  osmsdn_destroy(ctx);
}

// ---- Overlapping jobs -----------------------------------------------------------------------

namespace overlap {

/// "priority=99, dlid=0xf" of "cookie=0x2e, priority=99, dlid=0xf actions=output:1".
std::string rule_key(const std::string& text) {
  const std::size_t p = text.find("priority=");
  const std::size_t a = text.find(" actions=");
  return text.substr(p, a - p);
}

/// No switch is meant to hold two entries with the same match and priority.
void expect_no_collisions(const std::map<std::uint16_t, std::vector<std::string>>& intended) {
  for (const auto& [lid, entries] : intended) {
    std::set<std::string> keys;
    for (const std::string& e : entries) {
      EXPECT_TRUE(keys.insert(rule_key(e)).second)
          << "switch LID " << lid << " is meant to hold two entries for " << rule_key(e);
    }
  }
}

/// The switches hold exactly the intent and an audit finds nothing.
void expect_installed(const std::string& socket, FakeGlue& glue, const TestFabric& s) {
  const auto intended = intent(socket);
  expect_no_collisions(intended);
  for (const Lid l : s.switch_lids()) {
    const auto it = intended.find(l.value());
    std::vector<std::string> want = it == intended.end() ? std::vector<std::string>{} : it->second;
    std::vector<std::string> have = glue.table(l);
    std::sort(want.begin(), want.end());
    std::sort(have.begin(), have.end());
    EXPECT_EQ(have, want) << "switch LID " << l.value();
  }
  const json audit = ask(socket, {{"v", 1}, {"op", "audit"}});
  EXPECT_TRUE(audit.at("consistent").get<bool>()) << audit.dump();
}

/// The hops of src -> dst as the controller traces them (output ports and who decides).
std::string route_of(const std::string& socket, const std::string& src, const std::string& dst) {
  const json r = ask(socket, {{"v", 1}, {"op", "route"}, {"src", src}, {"dst", dst}});
  return r.at("hops").dump();
}

std::vector<std::string> hosts(int first, int count, int stride = 1) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "n%04d", first + i * stride);
    out.emplace_back(name);
  }
  return out;
}

}  // namespace overlap

/// MADs that do not time out on a loaded machine (a timeout excludes a switch: the degraded path
/// that other tests cover).
constexpr const char* kPatientMads = "mad: {timeout_ms: 2000, retries: 2}\n";

TEST(ControllerBridge, OverlappingJobsShareHostPairsWithoutCollidingEntriesOrMovingEachOther) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box(kPatientMads);
  Running run(glue, box, s);
  // The review's case: a 16-host permutation, then a ring on four of its hosts.
  const json a = ask(box.socket(), job_on(46, overlap::hosts(1, 16), "random-perm", "sdn-optimal"));
  ASSERT_TRUE(a.value("ok", false)) << a.dump();
  std::map<std::pair<std::string, std::string>, std::string> routes_a;
  for (const std::string& src : overlap::hosts(1, 16)) {
    for (const std::string& dst : overlap::hosts(1, 4, 5)) {
      if (src != dst) routes_a[{src, dst}] = overlap::route_of(box.socket(), src, dst);
    }
  }
  const json b = ask(box.socket(), job_on(47, overlap::hosts(1, 4, 5), "ring", "sdn-optimal"));
  ASSERT_TRUE(b.value("ok", false)) << b.dump();
  overlap::expect_installed(box.socket(), glue, s);
  // Job 47's entries moved none of job 46's traffic.
  for (const auto& [pair, hops] : routes_a) {
    const json ra =
        ask(box.socket(), {{"v", 1}, {"op", "route"}, {"src", pair.first}, {"dst", pair.second}});
    bool by_47 = false;
    for (const json& h : ra.at("hops")) by_47 = by_47 || h.value("cookie", 0) == 47;
    if (!by_47) {
      EXPECT_EQ(ra.at("hops").dump(), hops) << pair.first << " -> " << pair.second;
    }
  }
  // Every flow of job 47 that job 46 also carries is named, with job 46.
  for (const json& off : b.at("off_path")) {
    if (off.at("reason") == "shared") {
      EXPECT_EQ(off.at("job").get<int>(), 46) << b.dump();
    }
  }
  // The same 16 hosts twice, all-to-all: the second job rides entirely on the first's paths.
  const json c = ask(box.socket(), job_on(48, overlap::hosts(1, 16), "all-to-all", "sdn-greedy"));
  const json d = ask(box.socket(), job_on(49, overlap::hosts(1, 16), "all-to-all", "sdn-greedy"));
  ASSERT_TRUE(c.value("ok", false)) << c.dump();
  ASSERT_TRUE(d.value("ok", false)) << d.dump();
  EXPECT_EQ(d.at("off_path_counts").value("shared", 0), 240) << d.dump();
  EXPECT_EQ(d.at("entries").get<int>(), 0) << d.dump();
  overlap::expect_installed(box.socket(), glue, s);
  // The first owner ends: the jobs after it take over its pairs and still agree with the switches.
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 46}}).value("ok", false));
  overlap::expect_installed(box.socket(), glue, s);
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 48}}).value("ok", false));
  overlap::expect_installed(box.socket(), glue, s);
  const json jobs = ask(box.socket(), {{"v", 1}, {"op", "jobs"}});
  EXPECT_EQ(jobs.at("jobs").size(), 2u) << jobs.dump();
}

TEST(ControllerBridge, RandomOverlappingJobsKeepTheSwitchesEqualToACollisionFreeIntent) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box(kPatientMads);
  Running run(glue, box, s);
  std::mt19937_64 rng(8);
  const std::vector<std::string> patterns = {"ring", "random-perm", "all-to-all", "random4",
                                             "shift:k=3"};
  const std::vector<std::string> algorithms = {"sdn-optimal", "sdn-greedy", "dmodk"};
  std::vector<std::uint64_t> active;
  for (std::uint64_t step = 1; step <= 24; ++step) {
    if (active.size() >= 4 || (!active.empty() && rng() % 3 == 0)) {
      const std::size_t k = rng() % active.size();
      const json end = ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", active[k]}});
      ASSERT_TRUE(end.value("ok", false)) << end.dump();
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      std::vector<std::string> all = overlap::hosts(1, 16);
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(4 + rng() % 13);
      const json r = ask(box.socket(), job_on(100 + step, all, patterns[rng() % patterns.size()],
                                              algorithms[rng() % algorithms.size()]));
      ASSERT_TRUE(r.value("ok", false)) << r.dump();
      active.push_back(100 + step);
    }
    SCOPED_TRACE("step " + std::to_string(step));
    overlap::expect_installed(box.socket(), glue, s);
  }
}

TEST(ControllerBridge, AHugeAllToAllIsRoutedAtHostLevelWithinTheFlowLimitAndSaysSo) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box(std::string("limits: {max_flows_per_job: 100}\n") + kPatientMads);
  Running run(glue, box, s);
  // 16 hosts x 1024 ranks: 268 million rank pairs, 240 host pairs.
  json req = job_start(50, "all-to-all");
  req["ranks_per_node"] = 1024;
  const json r = ask(box.socket(), req);
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  EXPECT_EQ(r.at("flows").get<int>(), 240) << r.dump();
  EXPECT_TRUE(r.at("degraded").get<bool>()) << r.dump();
  EXPECT_EQ(r.at("off_path_counts").value("flow_limit", 0), 140) << r.dump();
  EXPECT_LE(r.at("off_path").size(), 64u);
  overlap::expect_installed(box.socket(), glue, s);
  // A sparse pattern over max_rank_flows is refused before anything is built.
  Sandbox small("limits: {max_rank_flows: 1000}\n");
  json spread = job_start(51, "spread");
  spread["ranks_per_node"] = 1024;
  run.stop();
  Running again(glue, small, s);
  const json refused = ask(small.socket(), spread);
  EXPECT_EQ(refused.at("error").at("code"), "too_large") << refused.dump();
}

TEST(ControllerBridge, SwitchesWithoutAnAgentAreProbedOnceAndJobsDoNotRelyOnThem) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  // The spines have no agent (as on a fabric of stock switches).
  std::vector<Lid> spines;
  for (const NodeIdx sw : s.fabric.switches()) {
    if (s.fabric.node(sw).name.starts_with("l2")) spines.push_back(s.lids.lid(sw, PortNum(0)));
  }
  for (const Lid l : spines) glue.detach_agent(l);
  Sandbox box("audit_interval_ms: 50\n");
  Running run(glue, box, s);
  EXPECT_EQ(glue.count("not SDN-capable"), spines.size()) << glue.log_text();
  std::map<std::uint16_t, std::size_t> probed;
  for (const Lid l : spines) probed[l.value()] = glue.sent_to(l);
  // Many periodic checks later, a job: nothing more was sent to the spines, the job relies on no
  // entry there, and its flows that need one stay on default routes, saying so.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const json r = ask(box.socket(), job_start(60, "random-perm"));
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  for (const Lid l : spines) {
    EXPECT_EQ(glue.sent_to(l), probed[l.value()]) << "MADs to spine LID " << l.value();
  }
  const auto intended = intent(box.socket());
  for (const Lid l : spines) EXPECT_FALSE(intended.contains(l.value()));
  const json stats = ask(box.socket(), {{"v", 1}, {"op", "stats"}});
  EXPECT_EQ(stats.at("stats").at("switches_not_sdn_capable").get<std::size_t>(), spines.size());
  EXPECT_EQ(glue.count("not SDN-capable"), spines.size()) << "logged more than once";
}

TEST(ControllerBridge, AnUnreadableStoredJobIsQuarantinedWithItsEntriesAndTheOthersReload) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box(kPatientMads);
  std::map<std::uint16_t, std::vector<std::string>> before;
  {
    Running run(glue, box, s);
    ASSERT_TRUE(ask(box.socket(), job_start(46, "random-perm", 1, 8)).value("ok", false));
    ASSERT_TRUE(ask(box.socket(), job_start(48, "random-perm", 9, 8)).value("ok", false));
    before = intent(box.socket());
  }
  // One of job 48's stored entries becomes unreadable while opensm is down.
  const std::string db = (box.dir / "state" / "ibsdn-state.sqlite3").string();
  const std::string sql =
      "UPDATE flow_entries SET entry = 'garbage' WHERE job_id = 48 AND seq = "
      "(SELECT MIN(seq) FROM flow_entries WHERE job_id = 48);";
  ASSERT_EQ(std::system(("sqlite3 '" + db + "' \"" + sql + "\"").c_str()), 0);
  std::map<Lid, std::vector<std::string>> tables;
  for (const Lid l : s.switch_lids()) tables[l] = glue.table(l);
  Running again(glue, box, s);
  for (int i = 0; i < 500 && glue.count("audit after SUBNET UP") < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(glue.count("job 48 is quarantined"), 1u) << glue.log_text();
  const json jobs = ask(box.socket(), {{"v", 1}, {"op", "jobs"}});
  ASSERT_EQ(jobs.at("jobs").size(), 1u) << jobs.dump();
  EXPECT_EQ(jobs.at("jobs").at(0).at("job").get<int>(), 46);
  // Job 48's entries are still on the switches, and the audit leaves them alone.
  for (const Lid l : s.switch_lids()) EXPECT_EQ(glue.table(l), tables[l]) << "LID " << l.value();
  const json audit = ask(box.socket(), {{"v", 1}, {"op", "audit"}, {"repair", true}});
  EXPECT_TRUE(audit.at("consistent").get<bool>()) << audit.dump();
  for (const Lid l : s.switch_lids()) EXPECT_EQ(glue.table(l), tables[l]) << "LID " << l.value();
  // Its id is not reusable until an operator releases it.
  const json again48 = ask(box.socket(), job_start(48, "ring", 9, 8));
  EXPECT_EQ(again48.at("error").at("code"), "invalid") << again48.dump();
}

/// Entries with `cookie` on each switch (by LID; switches without any are left out).
std::map<Lid, std::size_t> held_by(FakeGlue& glue, const TestFabric& s, std::uint64_t cookie) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "cookie=0x%llx,", static_cast<unsigned long long>(cookie));
  std::map<Lid, std::size_t> out;
  for (const Lid l : s.switch_lids()) {
    for (const std::string& e : glue.table(l)) {
      if (e.starts_with(prefix)) ++out[l];
    }
  }
  return out;
}

std::size_t sum(const std::map<Lid, std::size_t>& m) {
  std::size_t n = 0;
  for (const auto& [l, k] : m) n += k;
  return n;
}

json release(const std::string& socket, std::uint64_t job, bool delete_entries) {
  json r = {{"v", 1}, {"op", "quarantine_release"}, {"job", job}};
  if (delete_entries) r["delete_entries"] = true;
  return ask(socket, r);
}

TEST(ControllerBridge, AnOperatorListsQuarantinedJobsAndReleasesThemKeepingOrDeletingEntries) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box(kPatientMads);
  {
    Running run(glue, box, s);
    ASSERT_TRUE(ask(box.socket(), job_start(46, "random-perm", 1, 8)).value("ok", false));
    ASSERT_TRUE(ask(box.socket(), job_start(48, "random-perm", 9, 8)).value("ok", false));
    EXPECT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "quarantine"}}).at("quarantine").empty());
    // An active job is not quarantined: nothing to release, and the answer says what it is.
    const json active = release(box.socket(), 46, false);
    EXPECT_EQ(active.at("error").at("code"), "unknown_job") << active.dump();
    EXPECT_NE(active.dump().find("it is an active job"), std::string::npos) << active.dump();
  }
  // Both jobs' stored entries become unreadable while opensm is down.
  const std::string db = (box.dir / "state" / "ibsdn-state.sqlite3").string();
  for (const int job : {46, 48}) {
    const std::string sql =
        "UPDATE flow_entries SET entry = 'garbage' WHERE job_id = " + std::to_string(job) +
        " AND seq = (SELECT MIN(seq) FROM flow_entries " + "WHERE job_id = " + std::to_string(job) +
        ");";
    ASSERT_EQ(std::system(("sqlite3 '" + db + "' \"" + sql + "\"").c_str()), 0);
  }
  const std::map<Lid, std::size_t> held46 = held_by(glue, s, 46);
  const std::map<Lid, std::size_t> held48 = held_by(glue, s, 48);
  ASSERT_GT(sum(held46), 0u);
  ASSERT_GT(sum(held48), 0u);
  Running again(glue, box, s);
  for (int i = 0; i < 500 && glue.count("audit after SUBNET UP") < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  // The list: both jobs, why, what the store kept and what the switches' audit found.
  const json list = ask(box.socket(), {{"v", 1}, {"op", "quarantine"}});
  ASSERT_EQ(list.at("quarantine").size(), 2u) << list.dump();
  for (const json& q : list.at("quarantine")) {
    const std::uint64_t job = q.at("job");
    const auto& held = job == 46 ? held46 : held48;
    EXPECT_NE(
        q.at("reason").get<std::string>().find("flow_entries row (job_id " + std::to_string(job)),
        std::string::npos)
        << q.dump();
    EXPECT_EQ(q.at("entries_stored").get<std::size_t>(), sum(held)) << q.dump();
    EXPECT_EQ(q.at("entries_on_switches").get<std::size_t>(), sum(held)) << q.dump();
    EXPECT_EQ(q.at("switches").get<std::size_t>(), held.size()) << q.dump();
  }

  // Unknown ids are refused, naming the field; nothing changes.
  const json unknown = release(box.socket(), 99, true);
  EXPECT_EQ(unknown.at("error").at("code"), "unknown_job") << unknown.dump();
  EXPECT_EQ(unknown.at("error").at("at"), "/job");
  EXPECT_EQ(held_by(glue, s, 46), held46);
  EXPECT_EQ(held_by(glue, s, 48), held48);

  // Released without --delete-entries: the switches keep the entries for now, the answer says
  // how many, and they are the controller's no longer: the audit finds them unexpected, and its
  // repair removes them.
  const json kept = release(box.socket(), 46, false);
  ASSERT_TRUE(kept.value("ok", false)) << kept.dump();
  EXPECT_FALSE(kept.at("entries_deleted").get<bool>());
  EXPECT_EQ(kept.at("entries_on_switches").get<std::size_t>(), sum(held46));
  EXPECT_EQ(kept.at("switches").get<std::size_t>(), held46.size());
  EXPECT_EQ(held_by(glue, s, 46), held46);
  const json listed = ask(box.socket(), {{"v", 1}, {"op", "quarantine"}});
  ASSERT_EQ(listed.at("quarantine").size(), 1u) << listed.dump();
  EXPECT_EQ(listed.at("quarantine").at(0).at("job"), 48);
  const json audit = ask(box.socket(), {{"v", 1}, {"op", "audit"}});
  EXPECT_EQ(audit.at("findings").size(), sum(held46)) << audit.dump();
  for (const json& f : audit.at("findings")) {
    EXPECT_EQ(f.at("kind"), "unexpected") << f.dump();
    EXPECT_TRUE(f.at("detail").get<std::string>().starts_with("cookie=0x2e,")) << f.dump();
  }
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "audit"}, {"repair", true}}).value("ok", false));
  EXPECT_TRUE(held_by(glue, s, 46).empty());
  EXPECT_EQ(held_by(glue, s, 48), held48);  // still quarantined: untouched
  EXPECT_GE(glue.count("job 46 released from quarantine by uid"), 1u) << glue.log_text();

  // Released with --delete-entries: gone from every switch at once, counted.
  const json deleted = release(box.socket(), 48, true);
  ASSERT_TRUE(deleted.value("ok", false)) << deleted.dump();
  EXPECT_TRUE(deleted.at("entries_deleted").get<bool>());
  EXPECT_EQ(deleted.at("entries_removed").get<std::size_t>(), sum(held48));
  EXPECT_EQ(deleted.at("switches_removed").get<std::size_t>(), held48.size());
  EXPECT_TRUE(deleted.at("warnings").empty()) << deleted.dump();
  EXPECT_TRUE(held_by(glue, s, 48).empty());
  EXPECT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "quarantine"}}).at("quarantine").empty());
  EXPECT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "audit"}}).at("consistent").get<bool>());

  // A second release of the same job: it is not quarantined any more. Its id is usable again.
  EXPECT_EQ(release(box.socket(), 48, true).at("error").at("code"), "unknown_job");
  EXPECT_TRUE(ask(box.socket(), job_start(48, "random-perm", 9, 8)).value("ok", false));
}

}  // namespace
}  // namespace ibsdn::plugin

namespace ibsdn::plugin {
namespace {

json jobs_of(const std::string& socket) {
  return ask(socket, {{"v", 1}, {"op", "jobs"}}).at("jobs");
}

TEST(ControllerFailover, ANewMasterWithoutAStoreAdoptsTheEntriesOnTheSwitchesByCookie) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  std::map<std::uint16_t, std::vector<std::string>> before;
  {
    Sandbox old_master;
    Running run(glue, old_master, s);
    ASSERT_TRUE(ask(old_master.socket(), job_start(7, "random-perm")).value("ok", false));
    ASSERT_TRUE(ask(old_master.socket(),
                    job_on(8, {"n0001", "n0006", "n0011", "n0016"}, "ring", "sdn-greedy"))
                    .value("ok", false));
    for (const Lid l : s.switch_lids()) before[l.value()] = glue.table(l);
  }
  ASSERT_GT(total(before), 0u);
  Sandbox new_master;  // another SM's empty store, the same switches
  Running run(glue, new_master, s);
  const json jobs = jobs_of(new_master.socket());
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump();
  for (const json& j : jobs) {
    EXPECT_EQ(j.at("algorithm"), "adopted") << j.dump();
    EXPECT_EQ(j.at("pattern"), "unknown") << j.dump();
  }
  EXPECT_EQ(jobs.at(1).at("nodes").get<int>(), 4) << "hosts rebuilt from the entries' DLIDs";
  for (const Lid l : s.switch_lids()) EXPECT_EQ(glue.table(l), before[l.value()]);
  EXPECT_TRUE(ask(new_master.socket(), {{"v", 1}, {"op", "audit"}}).at("consistent").get<bool>());
  const json phase = ask(new_master.socket(),
                         {{"v", 1}, {"op", "phase"}, {"job", 7}, {"action", "end"}, {"name", "x"}});
  EXPECT_FALSE(phase.value("ok", true)) << phase.dump();
  // Stored: a restart of the new master keeps them.
  run.stop();
  Running again(glue, new_master, s);
  ASSERT_EQ(jobs_of(new_master.socket()).size(), 2u);
  ASSERT_TRUE(
      ask(new_master.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 7}}).value("ok", false));
  ASSERT_TRUE(
      ask(new_master.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 8}}).value("ok", false));
  for (const Lid l : s.switch_lids()) EXPECT_TRUE(glue.table(l).empty()) << l.value();
}

/// With LMC, a job on shared nodes sends to its hosts' second LIDs: a new master adopts its flow
/// entries with that LID offset (so that no new job takes it on those nodes) and finds its hosts
/// through the aliases.
TEST(ControllerFailover, AJobOnALidOffsetIsAdoptedWithItsOffsetAndHosts) {
  TestFabric s(1);
  FakeGlue glue;
  s.attach_all(glue);
  {
    Sandbox old_master;
    Running run(glue, old_master, s);
    ASSERT_TRUE(ask(old_master.socket(), job_start(7, "random-perm")).value("ok", false));
    json with_path_bits = job_start(8, "all-to-all");
    with_path_bits["path_bits"] = true;
    const json second = ask(old_master.socket(), with_path_bits);
    ASSERT_TRUE(second.value("ok", false)) << second.dump();
    ASSERT_EQ(second.at("lid_offset"), 1);
    ASSERT_GT(second.at("entries").get<int>(), 0);
  }
  Sandbox new_master;
  Running run(glue, new_master, s);
  const json jobs = jobs_of(new_master.socket());
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump();
  EXPECT_EQ(jobs.at(0).at("lid_offset"), 0) << jobs.dump();
  EXPECT_EQ(jobs.at(1).at("lid_offset"), 1) << jobs.dump();
  EXPECT_GT(jobs.at(1).at("nodes").get<int>(), 0) << "hosts rebuilt through the aliases";
  // With job 7 gone, a job on the same nodes takes offset 0, not the adopted job's 1.
  ASSERT_TRUE(
      ask(new_master.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 7}}).value("ok", false));
  json ring = job_start(9, "ring");
  ring["path_bits"] = true;
  const json third = ask(new_master.socket(), ring);
  ASSERT_TRUE(third.value("ok", false)) << third.dump();
  EXPECT_EQ(third.at("lid_offset"), 0) << third.dump();
}

TEST(ControllerFailover, AStandbyRefusesJobNoticesAndLeavesTheSwitchesAlone) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  glue.set_sm_state(OSMSDN_SM_STANDBY);
  Running run(glue, box, s, false);
  json ping;
  for (int i = 0; i < 200; ++i) {
    ping = ask(box.socket(), {{"v", 1}, {"op", "ping"}});
    if (ping.value("sm_state", "") == "STANDBY") break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(ping.value("sm_state", ""), "STANDBY") << ping.dump();
  const json refused = ask(box.socket(), job_start(9, "ring"));
  EXPECT_EQ(refused.at("error").at("code"), "not_master") << refused.dump();
  EXPECT_EQ(glue.sent_total(), 0u);
}

TEST(ControllerFailover, AfterAStandbyTermTheSwitchesAreTheTruth) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox a;
  Sandbox b;
  {
    Running run(glue, a, s);  // a is master: jobs 7 and 8
    ASSERT_TRUE(ask(a.socket(), job_start(7, "random-perm")).value("ok", false));
    ASSERT_TRUE(
        ask(a.socket(), job_on(8, {"n0002", "n0007"}, "ring", "sdn-greedy")).value("ok", false));
  }
  {
    Running run(glue, b, s);  // a is gone; b adopts both and ends 7
    ASSERT_TRUE(ask(b.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 7}}).value("ok", false));
  }
  std::map<std::uint16_t, std::vector<std::string>> before;
  for (const Lid l : s.switch_lids()) before[l.value()] = glue.table(l);
  // a returns: standby first (b is master), then master again.
  glue.set_sm_state(OSMSDN_SM_STANDBY);
  Running run(glue, a, s, false);
  for (int i = 0;
       i < 200 && ask(a.socket(), {{"v", 1}, {"op", "ping"}}).value("sm_state", "") != "STANDBY";
       ++i) {
    std::this_thread::sleep_for(10ms);
  }
  glue.set_sm_state(OSMSDN_SM_MASTER);
  run.subnet_up();
  const json jobs = jobs_of(a.socket());
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump() << glue.log_text();
  EXPECT_EQ(jobs.at(0).at("job").get<int>(), 8);
  EXPECT_NE(jobs.at(0).at("algorithm"), "adopted") << "its own stored job keeps its request";
  EXPECT_GE(glue.count("job 7 ended while another SM was master"), 1u) << glue.log_text();
  for (const Lid l : s.switch_lids()) EXPECT_EQ(glue.table(l), before[l.value()]) << l.value();
}

}  // namespace
}  // namespace ibsdn::plugin
