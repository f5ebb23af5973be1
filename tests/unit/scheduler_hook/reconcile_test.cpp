// Reconcile: which jobs it ends, reports and forgets, decided from injected lists, and one run
// against a fake controller; nothing is ended when Slurm cannot be asked.
#include "scheduler_hook/reconcile.hpp"

#include <gtest/gtest.h>

#include "plugin/notice/request.hpp"
#include "scheduler_hook/job_records.hpp"
#include "tests/unit/scheduler_hook/fake_controller.hpp"

namespace ibsdn::slurm_hook {
namespace {

using namespace std::chrono_literals;
using test::FakeController;
using test::TempDir;
using Ids = std::vector<std::uint64_t>;

TEST(ReconcilePlan, EndsControllerJobsSlurmNoLongerRuns) {
  const ReconcilePlan p = plan_reconcile({1, 2, 3, 7}, {2, 3, 4}, {});
  EXPECT_EQ(p.end, (Ids{1, 7}));
  EXPECT_TRUE(p.missing.empty());
  EXPECT_TRUE(p.stale_records.empty());
}

TEST(ReconcilePlan, ReportsRunningJobsWithANoteTheControllerLacks) {
  // 4 runs and asked for routes, the controller lacks it; 5 asked but ended (stale note);
  // 6 runs without a note (no --sdn-pattern): nothing to say.
  const ReconcilePlan p = plan_reconcile({2}, {2, 4, 6}, {2, 4, 5});
  EXPECT_TRUE(p.end.empty());
  EXPECT_EQ(p.missing, (Ids{4}));
  EXPECT_EQ(p.stale_records, (Ids{5}));
}

TEST(ReconcilePlan, EmptyControllerOrSlurmLists) {
  EXPECT_EQ(plan_reconcile({1, 2}, {}, {}).end, (Ids{1, 2}));
  EXPECT_TRUE(plan_reconcile({}, {1, 2}, {}).end.empty());
}

std::string jobs_answer(const Ids& ids) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto id : ids) jobs.push_back({{"job", id}, {"user", "alice"}});
  return nlohmann::json({{"v", 1}, {"ok", true}, {"jobs", jobs}}).dump();
}

TEST(Reconcile, EndsLeakedJobsAndForgetsStaleNotes) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string& line) {
    if (line.find("\"jobs\"") != std::string::npos) return jobs_answer({10, 11, 12});
    return std::string(R"({"v":1,"ok":true,"job":11,"entries_removed":5,"warnings":[]})");
  });
  HookConfig c;
  c.socket = ctl.path();
  c.state_dir = dir.file("state");
  ASSERT_EQ(write_job_record(c.state_dir, 12, "ring"), "");
  ASSERT_EQ(write_job_record(c.state_dir, 13, "ring"), "");  // runs, unknown to the controller
  ASSERT_EQ(write_job_record(c.state_dir, 14, "ring"), "");  // ended: a stale note
  HookLog log(false, "", nullptr);
  const int status = run_reconcile(
      c,
      [] {
        return SlurmJobs{std::set<std::uint64_t>{10, 12, 13}, ""};
      },
      log);
  EXPECT_EQ(status, 0);
  const auto requests = ctl.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0], request_to_json(JobsQuery{}).dump());
  EXPECT_EQ(requests[1], request_to_json(JobEndRequest{JobId(11)}).dump());
  const auto notes = read_job_records(c.state_dir, 100);
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_TRUE(notes.contains(12) && notes.contains(13));
  bool reported = false;
  for (const auto& l : log.lines())
    reported |= l.find("does not have") != std::string::npos && l.find(": 13") != std::string::npos;
  EXPECT_TRUE(reported);
}

TEST(Reconcile, EndsNothingWhenSlurmCannotBeAsked) {
  TempDir dir;
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string&) {
    return jobs_answer({10, 11});
  });
  HookConfig c;
  c.socket = ctl.path();
  c.state_dir = dir.file("state");
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_reconcile(
                c,
                [] {
                  return SlurmJobs{std::nullopt, "slurmctld down"};
                },
                log),
            1);
  EXPECT_EQ(ctl.requests().size(), 1u);  // the jobs query only
  EXPECT_EQ(log.lines().back(),
            "error: reconcile: cannot list Slurm's jobs: slurmctld down; nothing ended");
}

TEST(Reconcile, HungControllerEndsTheRunWithinTheBound) {
  FakeController ctl(FakeController::Mode::kSilent);
  HookConfig c;
  c.socket = ctl.path();
  c.state_dir.clear();
  c.timeout = 300ms;
  HookLog log(false, "", nullptr);
  bool asked_slurm = false;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run_reconcile(
                c,
                [&] {
                  asked_slurm = true;
                  return SlurmJobs{std::set<std::uint64_t>{}, ""};
                },
                log),
            1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_FALSE(asked_slurm);
}

TEST(Reconcile, EndsAtMostReconcileMaxEndsPerRun) {
  FakeController ctl(FakeController::Mode::kAnswer, [](const std::string& line) {
    if (line.find("\"jobs\"") != std::string::npos) return jobs_answer({1, 2, 3, 4, 5});
    return std::string(R"({"v":1,"ok":true,"job":1,"entries_removed":0,"warnings":[]})");
  });
  HookConfig c;
  c.socket = ctl.path();
  c.state_dir.clear();
  c.reconcile_max_ends = 2;
  HookLog log(false, "", nullptr);
  EXPECT_EQ(run_reconcile(
                c,
                [] {
                  return SlurmJobs{std::set<std::uint64_t>{}, ""};
                },
                log),
            0);
  EXPECT_EQ(ctl.requests().size(), 3u);
}

}  // namespace
}  // namespace ibsdn::slurm_hook
