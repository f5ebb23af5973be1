// libibsdn-hints against the controller itself (in-process,
// tests/unit/plugin/controller_harness.hpp) on its real notice socket: the calls reach the job in
// SLURM_JOB_ID, refusals come back with the controller's code and message, another user's process
// is refused, and a controller that does not answer costs the caller the timeout and nothing else.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "ibsdn/hints.h"
#include "tests/unit/plugin/controller_harness.hpp"

namespace ibsdn::plugin {
namespace {

using namespace std::chrono_literals;
using namespace test;

constexpr uid_t kOwner = 60001;
constexpr uid_t kOther = 60002;
constexpr gid_t kGroup = 65534;  // nogroup: the socket's group, so both users may connect

/// The environment a job step sees. Set before the controller starts its threads.
void enter_job(const std::string& socket, const std::string& job) {
  ::setenv("IBSDN_SOCKET", socket.c_str(), 1);
  ::setenv("SLURM_JOB_ID", job.c_str(), 1);
  ::unsetenv("IBSDN_TIMEOUT_MS");
  EXPECT_EQ(ibsdn_set_timeout_ms(0), IBSDN_OK);
}

/// A job of alice (uid kOwner) on the first 16 hosts, with the phase "exchange" declared.
json alices_job(std::uint64_t id) {
  json start = job_start(id, "shift:k=1");
  start["user"] = "alice";
  start["uid"] = kOwner;
  start["phases"] = json::array({{{"name", "exchange"}, {"pattern", "random-perm"}}});
  return start;
}

std::string phase_of(const std::string& socket, std::uint64_t job) {
  const json jobs = ask(socket, {{"v", 1}, {"op", "jobs"}});
  for (const json& j : jobs.at("jobs")) {
    if (j.at("job").get<std::uint64_t>() == job) return j.at("phase").get<std::string>();
  }
  return "(no job " + std::to_string(job) + " in " + jobs.dump() + ")";
}

struct Child {
  int status = -1;  // the exit status, or -1
  std::string out;
};

/// Runs ibsdn-hints-check with `args` as `uid` in the environment of job `job`. Everything the
/// child needs is made before the fork: the child of a process with threads only makes system
/// calls.
Child run_check_as(uid_t uid, const std::string& socket, const std::string& job,
                   std::vector<std::string> args) {
  args.insert(args.begin(), IBSDN_HINTS_CHECK);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string env_socket = "IBSDN_SOCKET=" + socket;
  std::string env_job = "SLURM_JOB_ID=" + job;
  std::vector<char*> envp = {env_socket.data(), env_job.data(), nullptr};
  int out[2];
  if (::pipe(out) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(kGroup) != 0 || ::setuid(uid) != 0) ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  Child c;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof(buf))) > 0;) {
    c.out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status)) c.status = WEXITSTATUS(status);
  return c;
}

TEST(HintsLibrary, PhasesAndHintsReachTheJobOfSlurmJobId) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  enter_job(box.socket(), "31");
  Running run(glue, box, s);
  ASSERT_TRUE(ask(box.socket(), alices_job(31)).value("ok", false));
  const auto base = intent(box.socket());

  ASSERT_EQ(ibsdn_phase_begin("exchange"), IBSDN_OK) << ibsdn_last_error();
  EXPECT_STREQ(ibsdn_last_error(), "");
  EXPECT_EQ(phase_of(box.socket(), 31), "exchange");
  EXPECT_NE(intent(box.socket()), base);
  for (const Lid l : s.switch_lids()) {
    const auto during = intent(box.socket());
    const auto it = during.find(l.value());
    EXPECT_EQ(glue.table(l), it == during.end() ? std::vector<std::string>{} : it->second);
  }
  ASSERT_EQ(ibsdn_phase_end("exchange"), IBSDN_OK) << ibsdn_last_error();
  EXPECT_EQ(phase_of(box.socket(), 31), "");
  EXPECT_EQ(intent(box.socket()), base);

  ASSERT_EQ(ibsdn_phase_begin_pattern("io", "ring"), IBSDN_OK) << ibsdn_last_error();
  EXPECT_EQ(phase_of(box.socket(), 31), "io");
  ASSERT_EQ(ibsdn_phase_end("io"), IBSDN_OK) << ibsdn_last_error();

  EXPECT_EQ(ibsdn_hint_elephant(0, 1), IBSDN_OK) << ibsdn_last_error();
  EXPECT_EQ(ibsdn_hint_elephant(2, 3), IBSDN_OK) << ibsdn_last_error();
  const std::uint32_t pairs[] = {4, 5, 6, 7};
  EXPECT_EQ(ibsdn_hint_elephants(pairs, 2), IBSDN_OK) << ibsdn_last_error();
  EXPECT_EQ(ibsdn_hint_clear(), IBSDN_OK) << ibsdn_last_error();
}

TEST(HintsLibrary, RefusalsCarryTheControllersCodeAndMessage) {
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box;
  enter_job(box.socket(), "32");
  Running run(glue, box, s);
  ASSERT_TRUE(ask(box.socket(), alices_job(32)).value("ok", false));

  EXPECT_EQ(ibsdn_phase_begin("undeclared"), IBSDN_ERR_REFUSED);
  EXPECT_STREQ(ibsdn_last_error_code(), "unknown_phase");
  EXPECT_NE(std::string(ibsdn_last_error()).find("unknown_phase: "), std::string::npos)
      << ibsdn_last_error();
  // A rank beyond the job (16 nodes, one rank each) is the controller's to refuse.
  EXPECT_EQ(ibsdn_hint_elephant(0, 99), IBSDN_ERR_REFUSED);
  EXPECT_STREQ(ibsdn_last_error_code(), "invalid");
  // The refused pair did not join the process's set: the next hint does not carry it.
  EXPECT_EQ(ibsdn_hint_elephant(0, 1), IBSDN_OK) << ibsdn_last_error();
  EXPECT_STREQ(ibsdn_last_error_code(), "");

  ::setenv("SLURM_JOB_ID", "33", 1);
  EXPECT_EQ(ibsdn_phase_end("exchange"), IBSDN_ERR_REFUSED);
  EXPECT_STREQ(ibsdn_last_error_code(), "unknown_job");
  EXPECT_NE(std::string(ibsdn_last_error()).find("job 33 is not active"), std::string::npos)
      << ibsdn_last_error();
}

// The controller goes by the peer's uid: alice's own processes may, another user's may not.
TEST(HintsLibrary, AnotherUsersProcessIsRefusedAndTheOwnersAccepted) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run as other uids";
  TestFabric s;
  FakeGlue glue;
  s.attach_all(glue);
  Sandbox box("socket_group: nogroup\n");
  ::chmod(box.dir.c_str(), 0755);
  enter_job(box.socket(), "34");
  Running run(glue, box, s);
  ASSERT_TRUE(ask(box.socket(), alices_job(34)).value("ok", false));

  const Child other = run_check_as(kOther, box.socket(), "34", {"phase-begin", "exchange"});
  EXPECT_EQ(other.status, IBSDN_ERR_REFUSED) << other.out;
  EXPECT_NE(other.out.find("4 forbidden: forbidden: phase for job 34 is for its owner alice (uid "
                           "60001), root or the Slurm user (slurm); uid 60002 is none of them"),
            std::string::npos)
      << other.out;
  EXPECT_EQ(phase_of(box.socket(), 34), "");
  const Child other_hint = run_check_as(kOther, box.socket(), "34", {"hint", "0", "1"});
  EXPECT_EQ(other_hint.status, IBSDN_ERR_REFUSED) << other_hint.out;

  const Child owner = run_check_as(kOwner, box.socket(), "34", {"phase-begin", "exchange"});
  EXPECT_EQ(owner.status, IBSDN_OK) << owner.out;
  EXPECT_EQ(owner.out, "0 : \n");
  EXPECT_EQ(phase_of(box.socket(), 34), "exchange");
}

// A listening socket nobody serves (a hung opensm): the call gives up at its timeout.
TEST(HintsLibrary, AControllerThatDoesNotAnswerCostsTheTimeoutAndNothingElse) {
  Sandbox box;
  const std::string path = (box.dir / "hung.sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  enter_job(path, "35");
  ::setenv("IBSDN_TIMEOUT_MS", "300", 1);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ibsdn_phase_begin("halo"), IBSDN_ERR_NO_ANSWER);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 3s);
  EXPECT_NE(std::string(ibsdn_last_error()).find(path + ": no response within 300 ms"),
            std::string::npos)
      << ibsdn_last_error();
  EXPECT_STREQ(ibsdn_last_error_code(), "");
  // ibsdn_set_timeout_ms() goes before the environment.
  ::setenv("IBSDN_TIMEOUT_MS", "20000", 1);
  ASSERT_EQ(ibsdn_set_timeout_ms(100), IBSDN_OK);
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(ibsdn_hint_clear(), IBSDN_ERR_NO_ANSWER);
  EXPECT_LT(std::chrono::steady_clock::now() - t1, 5s);
  EXPECT_NE(std::string(ibsdn_last_error()).find("no response within 100 ms"), std::string::npos)
      << ibsdn_last_error();
  ::setenv("IBSDN_TIMEOUT_MS", "soon", 1);
  ASSERT_EQ(ibsdn_set_timeout_ms(0), IBSDN_OK);
  EXPECT_EQ(ibsdn_hint_clear(), IBSDN_ERR_ENVIRONMENT);
  EXPECT_STREQ(ibsdn_last_error(), "$IBSDN_TIMEOUT_MS is 'soon', not a number 1..3600000");
  ::close(fd);

  ::unsetenv("IBSDN_TIMEOUT_MS");
  ::setenv("IBSDN_SOCKET", (box.dir / "none.sock").string().c_str(), 1);
  EXPECT_EQ(ibsdn_phase_end("halo"), IBSDN_ERR_NO_ANSWER);
  EXPECT_NE(std::string(ibsdn_last_error()).find("none.sock: No such file or directory"),
            std::string::npos)
      << ibsdn_last_error();
}

}  // namespace
}  // namespace ibsdn::plugin
