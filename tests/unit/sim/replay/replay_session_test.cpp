#include "sim_backend/replay/replay_session.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/lft.hpp"
#include "routing/patterns/rng.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/replay/static_replay.hpp"
#include "tests/unit/sim/replay/replay_tree.hpp"

namespace ibsdn {
namespace {

using test::fresh_paths;
using test::TreeFabric;

ReplayJob make_job(const TreeFabric& t, std::uint64_t id, double start, double end,
                   const std::vector<std::size_t>& hosts, const std::string& pattern = "ring") {
  ReplayJob j;
  j.id = id;
  j.start = start;
  j.end = end;
  for (const std::size_t h : hosts) j.nodes.push_back(t.host(h));
  j.traffic = PatternSpec::parse(pattern);
  return j;
}

ReplayOptions options(const std::string& routing) {
  ReplayOptions o;
  o.routing = routing;
  o.ranks_per_node = 1;
  return o;
}

// XGFT(2;4,4;1,4): host 0 -> host 4 and host 1 -> host 8 share leaf 0's up-link under DmodK.
std::vector<ReplayJob> colliding_jobs(const TreeFabric& t) {
  return {make_job(t, 1, 0, 10, {0, 4}), make_job(t, 2, 5, 20, {1, 8})};
}

/// Every running job's paths are what the fabric carries now, and the session's load is theirs.
void expect_consistent(const TreeFabric& t, const ReplaySession& s,
                       const std::set<std::uint64_t>& running) {
  LinkLoad sum(t.subnet.fabric);
  for (const std::uint64_t id : running) {
    ASSERT_TRUE(s.running(id)) << "job " << id;
    const SessionJob& j = s.job(id);
    EXPECT_EQ(j.paths, fresh_paths(t, s, id)) << "job " << id;
    for (std::size_t k = 0; k < j.flows.size(); ++k) sum.add(j.paths[k], j.flows[k]);
  }
  EXPECT_EQ(s.running_count(), running.size());
  for (std::uint32_t l = 0; l < t.subnet.fabric.num_links(); ++l) {
    EXPECT_NEAR(s.load().weight(LinkId(l)), sum.weight(LinkId(l)), 1e-9) << "link " << l;
    EXPECT_EQ(s.load().flows(LinkId(l)), sum.flows(LinkId(l))) << "link " << l;
  }
}

TEST(ReplaySession, TwoJobsThenOneEnds_TracesThePathsReplayStaticTraces) {
  const TreeFabric t("2;4,4;1,4");
  const std::vector<ReplayJob> jobs = colliding_jobs(t);
  for (const std::string routing : {"dmodk", "sdn-greedy"}) {
    SCOPED_TRACE(routing);
    ReplayConfig c;
    static_cast<ReplayOptions&>(c) = options(routing);
    std::map<std::uint64_t, std::vector<Path>> traced;
    c.traced = [&](std::uint64_t job, std::span<const Flow>, std::span<const Path> paths) {
      traced[job].assign(paths.begin(), paths.end());
    };
    const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, c);

    ReplaySession s(t.subnet, t.lfts, options(routing));
    const SessionJob& one = s.start_job(jobs[0]);
    EXPECT_EQ(one.id, 1u);
    EXPECT_EQ(one.flows.size(), 2u);
    EXPECT_EQ(one.status, "ok");
    const SessionJob& two = s.start_job(jobs[1]);
    EXPECT_EQ(two.status, r.jobs[1].status);
    EXPECT_EQ(two.entries, r.jobs[1].entries);
    EXPECT_EQ(s.job(1).paths, traced[1]);
    EXPECT_EQ(s.job(2).paths, traced[2]);
    EXPECT_DOUBLE_EQ(s.load().max_weight(), r.swml[1].swml);
    EXPECT_DOUBLE_EQ(s.job_max_load(2), routing == "dmodk" ? 2.0 : 1.0);
    expect_consistent(t, s, {1, 2});
    if (routing == "sdn-greedy") {
      // Job 2 is routed around job 1 by entries on the switches.
      EXPECT_GT(two.entries, 0u);
      EXPECT_GT(s.entries(), 0u);
      EXPECT_GT(s.mads(), 0u);
      std::set<LinkId> first;
      for (const Path& p : s.job(1).paths) first.insert(p.begin(), p.end());
      for (const Path& p : s.job(2).paths) {
        for (const LinkId l : p) EXPECT_FALSE(first.contains(l)) << l.value();
      }
    }

    const std::vector<Path> before = s.job(2).paths;
    s.end_job(1, 10);
    EXPECT_FALSE(s.running(1));
    EXPECT_EQ(s.job(2).paths, before);  // job 2's traffic did not move
    EXPECT_TRUE(s.take_changed().empty());
    EXPECT_DOUBLE_EQ(s.load().max_weight(), r.swml[2].swml);
    expect_consistent(t, s, {2});
    s.end_job(2, 20);
    EXPECT_TRUE(s.load().empty_load());
    EXPECT_EQ(s.entries(), 0u);  // job_end removed job 2's entries
    EXPECT_EQ(s.now(), 20);
  }
}

TEST(ReplaySession, Dmodk_FollowsTheLftsWithoutAController) {
  const TreeFabric t("2;4,4;1,4");
  ReplaySession s(t.subnet, t.lfts, options("dmodk"));
  s.start_job(make_job(t, 1, 0, 0, {0, 4, 8, 12}, "all-to-all"));
  EXPECT_FALSE(s.forwarding());
  for (const Path& p : s.job(1).paths) EXPECT_EQ(p.size(), 4u);  // host, leaf, spine, leaf
  EXPECT_EQ(s.mads(), 0u);
  EXPECT_EQ(s.entries(), 0u);
  EXPECT_EQ(s.guard().reroutes + s.guard().fallbacks + s.guard().restores, 0u);
  expect_consistent(t, s, {1});
}

// The load guard moves running jobs when another job starts or ends (random overlapping jobs on
// a full-bisection 3-level tree under sdn-greedy, which counts flows and not seed 002's weights,
// so its routes can weigh more than DmodK's). After every call, every running job's paths must
// be what the switches' tables carry, the jobs reported by take_changed() exactly those whose
// paths differ from before the call, and the load the sum of the running jobs' paths.
TEST(ReplaySession, GuardMoves_AreReportedByTakeChanged_AsTheSwitchesCarryThem) {
  const TreeFabric t("3;4,4,4;1,4,4");
  const std::vector<std::string> patterns = {"ring", "random4", "random-perm", "all-to-all"};
  std::size_t reported = 0;
  std::uint64_t moves = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    PatternRng rng(seed);
    std::vector<ReplayJob> jobs;
    for (std::uint64_t id = 1; id <= 10; ++id) {
      const double start = static_cast<double>(rng.below(50));
      jobs.push_back(make_job(t, id, start, start + 1 + static_cast<double>(rng.below(50)), {},
                              patterns[rng.below(patterns.size())]));
    }
    // Ends before starts at one time, as replay_static orders them.
    std::vector<std::tuple<double, int, std::uint64_t>> events;
    for (const ReplayJob& j : jobs) {
      events.emplace_back(j.start, 1, j.id);
      events.emplace_back(j.end, 0, j.id);
    }
    std::sort(events.begin(), events.end());
    ReplayOptions o = options("sdn-greedy");
    ReplaySession s(t.subnet, t.lfts, o);
    std::set<std::uint64_t> running;
    std::set<NodeIdx> busy;
    for (const auto& [time, kind, id] : events) {
      std::map<std::uint64_t, std::vector<Path>> before;
      for (const std::uint64_t r : running) before[r] = s.job(r).paths;
      if (kind == 1) {
        // Nodes drawn from the free ones at the start, as a scheduler allocates them.
        std::vector<NodeIdx> free;
        for (const NodeIdx h : t.subnet.fabric.hcas()) {
          if (!busy.contains(h)) free.push_back(h);
        }
        const std::size_t n = std::min<std::size_t>(free.size(), 2 + rng.below(14));
        for (std::size_t k = 0; k < n; ++k)
          std::swap(free[k], free[k + rng.below(free.size() - k)]);
        jobs[id - 1].nodes.assign(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(n));
        busy.insert(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(n));
        s.start_job(jobs[id - 1]);
        running.insert(id);
      } else {
        s.end_job(id, time);
        running.erase(id);
        for (const NodeIdx h : jobs[id - 1].nodes) busy.erase(h);
      }
      const std::vector<std::uint64_t> changed = s.take_changed();
      EXPECT_TRUE(std::is_sorted(changed.begin(), changed.end()));
      std::vector<std::uint64_t> differ;
      for (const auto& [r, paths] : before) {
        if (running.contains(r) && s.job(r).paths != paths) differ.push_back(r);
      }
      // A job whose view changed but whose paths came out the same may be reported too.
      for (const std::uint64_t r : differ) {
        EXPECT_TRUE(std::binary_search(changed.begin(), changed.end(), r)) << "job " << r;
      }
      for (const std::uint64_t r : changed) {
        EXPECT_TRUE(running.contains(r) && r != (kind == 1 ? id : 0)) << "job " << r;
      }
      reported += changed.size();
      expect_consistent(t, s, running);
    }
    const GuardCounts g = s.guard();
    moves += g.reroutes + g.fallbacks + g.restores;
  }
  // Not vacuous: the guard moved jobs and the session reported them.
  EXPECT_GT(moves, 0u);
  EXPECT_GT(reported, 0u);
  std::printf("guard moves %llu, reported changes %zu\n", static_cast<unsigned long long>(moves),
              reported);
}

TEST(ReplaySession, BadInput_IsRefusedNamingTheJob_AndTheSessionStaysUsable) {
  const TreeFabric t("2;4,4;1,4");
  ReplaySession s(t.subnet, t.lfts, options("sdn-greedy"));
  s.start_job(make_job(t, 1, 0, 0, {0, 4}));
  // What a refused call must leave as it was.
  std::map<std::uint64_t, std::vector<Path>> paths;
  std::size_t entries = 0;
  const auto keep = [&] {
    paths.clear();
    for (const std::uint64_t id : {1, 2, 3, 4}) {
      if (s.running(id)) paths[id] = s.job(id).paths;
    }
    entries = s.entries();
  };
  keep();
  const auto refused = [&](const auto& call, const std::string& what) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    EXPECT_EQ(s.running_count(), paths.size());
    for (const auto& [id, p] : paths) EXPECT_EQ(s.job(id).paths, p) << "job " << id;
    EXPECT_EQ(s.entries(), entries);
    EXPECT_TRUE(s.take_changed().empty());
  };
  refused([&] { s.end_job(99, 1); }, "job 99: is not running");
  refused([&] { (void)s.job(99); }, "job 99: is not running");
  refused([&] { s.start_job(make_job(t, 1, 1, 0, {1, 8})); }, "job 1: the id is given twice");
  refused([&] { s.start_job(make_job(t, 0, 1, 0, {1, 8})); }, "job 0: job ids start at 1");
  ReplayJob beyond = make_job(t, 3, 1, 0, {1});
  beyond.nodes.push_back(NodeIdx(static_cast<std::uint32_t>(t.subnet.fabric.num_nodes() + 5)));
  refused([&] { s.start_job(beyond); }, "job 3: node");
  ReplayJob on_switch = make_job(t, 3, 1, 0, {1});
  on_switch.nodes.push_back(t.subnet.fabric.switches().front());
  refused([&] { s.start_job(on_switch); }, "job 3: node");
  refused([&] { s.start_job(make_job(t, 3, 1, 0, {1, 8, 1})); }, "job 3: node");
  ReplayJob unknown = make_job(t, 3, 1, 0, {1, 8});
  unknown.algorithm = "no-such-routing";
  refused([&] { s.start_job(unknown); }, "job 3: algorithm 'no-such-routing'");
  refused([&] { s.end_job(1, -1); }, "job 1: ends (-1.000000) before it starts");

  // Job 3 runs on the nodes the refused attempts named, as if they had not been made.
  s.start_job(make_job(t, 3, 2, 0, {1, 8}));
  EXPECT_EQ(s.job(3).status, "ok");
  expect_consistent(t, s, {1, 3});
  keep();
  refused([&] { s.start_job(make_job(t, 4, 1, 0, {2, 12})); }, "job 4: starts at 1.000000, before");
  s.end_job(1, 3);
  keep();
  refused([&] { s.end_job(1, 4); }, "job 1: is not running (it ended)");
  refused([&] { s.start_job(make_job(t, 1, 5, 0, {0, 4})); }, "job 1: the id is given twice");
}

TEST(ReplaySession, UnknownRouting_IsRefused) {
  const TreeFabric t("2;4,4;1,4");
  EXPECT_THROW(ReplaySession(t.subnet, t.lfts, options("no-such-routing")), std::invalid_argument);
  ReplaySession s(t.subnet, t.lfts, options("dmodk"));
  ReplayJob own = make_job(t, 1, 0, 0, {0, 4});
  own.algorithm = "sdn-greedy";
  EXPECT_THROW(s.start_job(own), std::invalid_argument);
  EXPECT_EQ(s.running_count(), 0u);
}

}  // namespace
}  // namespace ibsdn
