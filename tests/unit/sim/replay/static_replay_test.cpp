#include "sim_backend/replay/static_replay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/lft.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

// XGFT(2;4,4;1,4): 4 leaves of 4 hosts, 4 spines; every leaf has one cable to every spine.
struct SmallTree {
  Subnet subnet;
  LftSet lfts;
  SmallTree() : lfts(make()) {}

 private:
  LftSet make() {
    subnet.fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"));
    subnet.lids = sequential_lids(subnet.fabric);
    return default_tables(subnet.fabric, subnet.lids).lfts;
  }

 public:
  [[nodiscard]] NodeIdx host(std::size_t i) const { return subnet.fabric.hcas().at(i); }
};

ReplayJob ring_job(const SmallTree& t, std::uint64_t id, double start, double end,
                   std::vector<std::size_t> hosts) {
  ReplayJob j;
  j.id = id;
  j.start = start;
  j.end = end;
  for (const std::size_t h : hosts) j.nodes.push_back(t.host(h));
  j.traffic = PatternSpec::parse("ring");
  return j;
}

ReplayConfig config(const std::string& routing) {
  ReplayConfig c;
  c.routing = routing;
  c.ranks_per_node = 1;
  return c;
}

// The destination's LFT decides DmodK's spine: hosts 4 and 8 are reached over the same spine
// from leaf 0 (their indices agree mod 4), so host 0 -> host 4 and host 1 -> host 8 share leaf
// 0's up-link under DmodK.
std::vector<ReplayJob> colliding_jobs(const SmallTree& t) {
  return {ring_job(t, 1, 0, 10, {0, 4}), ring_job(t, 2, 5, 20, {1, 8})};
}

std::vector<std::pair<double, double>> steps(const ReplayResult& r) {
  std::vector<std::pair<double, double>> out;
  for (const SwmlStep& s : r.swml) out.emplace_back(s.time, s.swml);
  return out;
}

TEST(StaticReplay, DmodK_TwoRingsSharingAnUpLink_SwmlStepsAtTheirStartsAndEnds) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = colliding_jobs(t);
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config("dmodk"));
  // Each ring of two puts weight 1 on each direction; both cross leaf 0 -> spine 0 from 5 to 10.
  const std::vector<std::pair<double, double>> want = {{0, 1}, {5, 2}, {10, 1}, {20, 0}};
  EXPECT_EQ(steps(r), want);
  EXPECT_DOUBLE_EQ(r.max_swml, 2);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.jobs[0].pjml, 2);
  EXPECT_DOUBLE_EQ(r.jobs[1].pjml, 2);
  EXPECT_EQ(r.jobs[0].flows, 2u);
  EXPECT_EQ(r.jobs[0].entries, 0u);
  EXPECT_EQ(r.mads, 0u);
}

TEST(StaticReplay, Controller_RoutesTheSecondRingAroundTheFirstWithEntriesOnTheSwitches) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = colliding_jobs(t);
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config("sdn-greedy"));
  const std::vector<std::pair<double, double>> want = {{0, 1}, {5, 1}, {10, 1}, {20, 0}};
  EXPECT_EQ(steps(r), want);
  EXPECT_DOUBLE_EQ(r.jobs[0].pjml, 1);
  EXPECT_DOUBLE_EQ(r.jobs[1].pjml, 1);
  EXPECT_GT(r.jobs[1].entries, 0u);  // its path is not the LFT's
  EXPECT_EQ(r.jobs[1].status, "ok");
  EXPECT_GT(r.mads, 0u);
  EXPECT_GT(r.peak_entries, 0u);
}

// job_start's algorithm for one job: the second ring asks for dmodk and takes the first one's
// up-link as on the LFTs, where the replay's routing (sdn-greedy) routes it around.
TEST(StaticReplay, JobsOwnAlgorithm_RoutesThatJobInsteadOfTheReplays) {
  const SmallTree t;
  std::vector<ReplayJob> jobs = colliding_jobs(t);
  jobs[1].algorithm = "dmodk";
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config("sdn-greedy"));
  const std::vector<std::pair<double, double>> want = {{0, 1}, {5, 2}, {10, 1}, {20, 0}};
  EXPECT_EQ(steps(r), want);
  EXPECT_EQ(r.jobs[1].entries, 0u);
  EXPECT_EQ(r.jobs[1].status, "ok");
}

TEST(StaticReplay, TablesTooSmall_LeaveAThirdRingOnTheLftsWhereItCollides) {
  const SmallTree t;
  // A third ring from leaf 0 whose DmodK route takes the same up-link again (host 12).
  std::vector<ReplayJob> jobs = colliding_jobs(t);
  jobs.push_back(ring_job(t, 3, 6, 9, {2, 12}));
  const ReplayResult roomy = replay_static(t.subnet, t.lfts, jobs, config("sdn-greedy"));
  ReplayConfig c = config("sdn-greedy");
  c.table_capacity = 1;
  const ReplayResult tiny = replay_static(t.subnet, t.lfts, jobs, c);
  const ReplayResult dmodk = replay_static(t.subnet, t.lfts, jobs, config("dmodk"));
  EXPECT_DOUBLE_EQ(dmodk.max_swml, 3);
  EXPECT_DOUBLE_EQ(roomy.max_swml, 1);
  // Leaf 0's one entry is job 2's detour: job 3 gets none there and follows the LFTs.
  EXPECT_DOUBLE_EQ(tiny.max_swml, 2);
  EXPECT_EQ(tiny.jobs[2].status, "degraded");
  EXPECT_LE(tiny.peak_entries, t.subnet.fabric.switches().size());
}

// Each ring of two sends weight 1 each way over 4 links (host, leaf, spine, leaf, host): 80 load
// seconds for job 1 over [0, 10), 120 for job 2 over [5, 20); the shared up-link carries 2 from 5
// to 10. The controller's detour for job 2 is as long, so the total is the same.
TEST(StaticReplay, LinkLoadSeconds_IntegrateEachLinksLoadOverTime) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = colliding_jobs(t);
  for (const std::string routing : {"dmodk", "sdn-greedy"}) {
    const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config(routing));
    ASSERT_EQ(r.link_load_seconds.size(), t.subnet.fabric.num_links()) << routing;
    double total = 0;
    double most = 0;
    for (const double v : r.link_load_seconds) {
      total += v;
      most = std::max(most, v);
    }
    EXPECT_DOUBLE_EQ(total, 200) << routing;
    EXPECT_DOUBLE_EQ(most, routing == "dmodk" ? 25.0 : 15.0) << routing;
    EXPECT_DOUBLE_EQ(r.span(), 20) << routing;
  }
}

TEST(StaticReplay, Traced_ReportsEveryJobsPathsAsTheLoadCountsThem) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = colliding_jobs(t);
  ReplayConfig c = config("sdn-greedy");
  std::map<std::uint64_t, std::vector<Path>> last;
  c.traced = [&](std::uint64_t job, std::span<const Flow> flows, std::span<const Path> paths) {
    ASSERT_EQ(flows.size(), paths.size());
    last[job].assign(paths.begin(), paths.end());
  };
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, c);
  ASSERT_EQ(last.size(), 2u);
  // The controller keeps job 2's ring off every link of job 1's (max load 1).
  std::set<LinkId> one;
  for (const Path& p : last[1]) one.insert(p.begin(), p.end());
  EXPECT_EQ(one.size(), 8u);
  for (const Path& p : last[2]) {
    EXPECT_EQ(p.size(), 4u);
    for (const LinkId l : p) EXPECT_FALSE(one.contains(l)) << l.value();
  }
  EXPECT_DOUBLE_EQ(r.max_swml, 1);
}

TEST(StaticReplay, AJobEndingTakesExactlyItsLoadAway) {
  const SmallTree t;
  // Job 2 alone from 10 on: the SWML then is what job 2 alone gives, under both routings.
  const std::vector<ReplayJob> both = colliding_jobs(t);
  const std::vector<ReplayJob> second = {both[1]};
  for (const char* routing : {"dmodk", "sdn-greedy"}) {
    SCOPED_TRACE(routing);
    const ReplayResult r = replay_static(t.subnet, t.lfts, both, config(routing));
    const ReplayResult alone = replay_static(t.subnet, t.lfts, second, config(routing));
    ASSERT_EQ(r.swml.size(), 4u);
    EXPECT_DOUBLE_EQ(r.swml[2].swml, alone.swml[0].swml);
    EXPECT_EQ(r.swml[2].active_jobs, 1u);
    EXPECT_DOUBLE_EQ(r.swml.back().swml, 0);
    EXPECT_EQ(r.swml.back().active_jobs, 0u);
  }
}

TEST(StaticReplay, JobStartingWhenAnotherEnds_NeverOverlapsIt) {
  const SmallTree t;
  // Job 2 starts on job 1's nodes the moment job 1 ends: ends come first.
  const std::vector<ReplayJob> jobs = {ring_job(t, 1, 0, 10, {0, 4}),
                                       ring_job(t, 2, 10, 20, {0, 4})};
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config("dmodk"));
  const std::vector<std::pair<double, double>> want = {{0, 1}, {10, 1}, {20, 0}};
  EXPECT_EQ(steps(r), want);
  EXPECT_DOUBLE_EQ(r.jobs[1].pjml, 1);
}

TEST(StaticReplay, ZeroLengthJob_StartsAndEndsAtItsTime) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = {ring_job(t, 1, 0, 10, {0, 4}), ring_job(t, 2, 5, 5, {1, 8})};
  for (const char* routing : {"dmodk", "sdn-greedy"}) {
    SCOPED_TRACE(routing);
    const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config(routing));
    const std::vector<std::pair<double, double>> want = {{0, 1}, {5, 1}, {10, 0}};
    EXPECT_EQ(steps(r), want);
  }
}

TEST(StaticReplay, SingleNodeJob_HasNoFlowsAndNoLoad) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = {ring_job(t, 1, 0, 10, {3})};
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, config("sdn-greedy"));
  EXPECT_EQ(r.jobs[0].flows, 0u);
  EXPECT_DOUBLE_EQ(r.jobs[0].pjml, 0);
  EXPECT_DOUBLE_EQ(r.max_swml, 0);
}

// When a job ends the controller checks every later job's paths; a job whose traffic did not
// move keeps its published view, so the replay traces it no second time (the 1000-job replay of
// bench/README.md traced every running job again at every end).
TEST(StaticReplay, SdnGreedy_AJobsEnd_RetracesNoJobWhoseTrafficItDidNotMove) {
  const SmallTree t;
  const std::vector<ReplayJob> jobs = {ring_job(t, 1, 0, 10, {0, 4}), ring_job(t, 2, 5, 20, {1, 8}),
                                       ring_job(t, 3, 6, 20, {2, 12})};
  std::map<std::uint64_t, int> traces;
  ReplayConfig c = config("sdn-greedy");
  c.traced = [&](std::uint64_t job, std::span<const Flow>, std::span<const Path>) {
    ++traces[job];
  };
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, c);
  const std::map<std::uint64_t, int> once = {{1, 1}, {2, 1}, {3, 1}};
  EXPECT_EQ(traces, once);
  for (const ReplayedJob& j : r.jobs) EXPECT_EQ(j.status, "ok") << "job " << j.id;
}

TEST(StaticReplay, BadJobs_AreRefusedNamingTheJob) {
  const SmallTree t;
  const auto refused = [&](std::vector<ReplayJob> jobs, const std::string& what) {
    try {
      replay_static(t.subnet, t.lfts, jobs, config("dmodk"));
      ADD_FAILURE() << "accepted; expected: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused({ring_job(t, 1, 10, 5, {0, 4})}, "job 1: ends (5.000000) before it starts");
  refused({ring_job(t, 1, 0, 5, {0, 4}), ring_job(t, 1, 6, 7, {1, 2})},
          "job 1: the id is given twice");
  refused({ring_job(t, 3, 0, 5, {0, 0})}, "job 3: node");
  ReplayJob on_switch = ring_job(t, 4, 0, 5, {0});
  on_switch.nodes.push_back(t.subnet.fabric.switches().front());
  refused({on_switch}, "job 4: node");
  ReplayJob own = ring_job(t, 5, 0, 5, {0, 4});
  own.algorithm = "sdn-greedy";
  refused({own}, "job 5: algorithm 'sdn-greedy' needs the controller");
  ReplayConfig c = config("no-such-routing");
  EXPECT_THROW(replay_static(t.subnet, t.lfts, colliding_jobs(t), c), std::invalid_argument);
  own.algorithm = "no-such-routing";
  EXPECT_THROW(replay_static(t.subnet, t.lfts, std::vector<ReplayJob>{own}, config("sdn-greedy")),
               std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
