// The flow-level model's online engine (sim_backend/flowmodel/flow_engine.hpp): messages split over
// several routes, re-routes in flight, link accounting, and incremental against full re-solves with
// messages started while others run. simulate_flows() over the engine: flow_model_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "sim_backend/flowmodel/flow_engine.hpp"

namespace ibsdn {
namespace {

void expect_time(double got, double want) {
  EXPECT_NEAR(got, want, 1e-13 * std::max(1.0, std::abs(want))) << "want " << want;
}

std::vector<FlowLink> links_of(std::vector<double> bandwidths, double latency = 0) {
  std::vector<FlowLink> links;
  for (std::size_t i = 0; i < bandwidths.size(); ++i) {
    links.push_back({"l" + std::to_string(i), bandwidths[i], latency});
  }
  return links;
}

EngineMessage message(std::uint64_t id, double size, std::vector<std::vector<int>> routes) {
  EngineMessage m;
  m.id = id;
  m.size = size;
  for (const auto& r : routes) {
    m.routes.emplace_back();
    for (const int l : r) m.routes.back().emplace_back(l);
  }
  return m;
}

/// Runs the engine until nothing is left; returns each message's completion time by id.
std::map<std::uint64_t, double> run_out(FlowEngine& engine) {
  std::map<std::uint64_t, double> done;
  std::vector<std::uint64_t> ids;
  while (engine.next_event_time() != FlowEngine::kNever) {
    ids.clear();
    const double t = engine.advance(engine.next_event_time(), ids);
    for (const std::uint64_t id : ids) done[id] = t;
  }
  return done;
}

TEST(FlowEngine, AMessageSplitOverTwoFreeRoutesUsesBoth) {
  FlowEngine engine(links_of({2, 3}, 0.5));
  engine.start(message(1, 10, {{0}, {1}}));
  // Alone on its link, each half-weight sub-flow still takes the whole link: 5 B/s together.
  expect_time(run_out(engine).at(1), 0.5 + 10.0 / 5);
}

// A is split over links 0 and 1, B uses link 0 only. Weighted max-min: A's sub-flows have weight
// 1/2, so on link 0 (3 B/s) A gets 1 and B 2; on link 1 (3 B/s) A's other half is alone: 3.
// A (8 B) sends at 4 B/s and ends at 2; B (8 B) has sent 4 by then, takes link 0 alone: 2 + 4/3.
TEST(FlowEngine, ASplitMessageCompetesAsOneFlow) {
  FlowEngine engine(links_of({3, 3}));
  engine.start(message(1, 8, {{0}, {1}}));
  engine.start(message(2, 8, {{0}}));
  const auto done = run_out(engine);
  expect_time(done.at(1), 2);
  expect_time(done.at(2), 2 + 4.0 / 3);
}

TEST(FlowEngine, ARerouteMovesTheRemainingBytes) {
  FlowEngine engine(links_of({1, 2}));
  engine.start(message(1, 2, {{0}}));
  std::vector<std::uint64_t> done;
  engine.advance(engine.next_event_time(), done);  // active at 0
  ASSERT_EQ(engine.advance(1, done), 1);
  engine.reroute(1, {{LinkId{1}}});
  // 1 B sent on link 0; the other 1 B at 2 B/s on link 1.
  expect_time(run_out(engine).at(1), 1.5);
}

// A and B share link 0 (2 B/s) at 1 B/s each. At t = 1 A moves to link 1 whose latency is 1:
// B must get the whole link at once, not at A's next event. B (3 B): 1 sent, 2 left at 2 B/s,
// ends at 2. A (3 B): 2 left, active on link 1 (2 B/s) at 2, ends at 3.
TEST(FlowEngine, ARerouteReSolvesTheLinksLeftAtOnce) {
  std::vector<FlowLink> links = links_of({2, 2});
  links[1].latency = 1;
  FlowEngine engine(links);
  engine.start(message(1, 3, {{0}}));
  engine.start(message(2, 3, {{0}}));
  std::vector<std::uint64_t> done;
  engine.advance(engine.next_event_time(), done);
  engine.advance(1, done);
  engine.reroute(1, {{LinkId{1}}});
  EXPECT_EQ(engine.next_event_time(), 1) << "the re-solve of link 0 is due now";
  const auto ends = run_out(engine);
  expect_time(ends.at(2), 2);
  expect_time(ends.at(1), 3);
}

TEST(FlowEngine, LinksCountTheirBytesAndUtilisation) {
  FlowEngine engine(links_of({4, 8}));
  engine.start(message(1, 8, {{0, 1}}));
  std::vector<std::uint64_t> done;
  engine.advance(engine.next_event_time(), done);
  engine.advance(1, done);
  EXPECT_DOUBLE_EQ(engine.link_bytes(LinkId{0}), 4);
  EXPECT_DOUBLE_EQ(engine.link_bytes(LinkId{1}), 4);
  EXPECT_DOUBLE_EQ(engine.link_utilisation()[0], 1);
  EXPECT_DOUBLE_EQ(engine.link_utilisation()[1], 0.5);
  run_out(engine);
  EXPECT_EQ(engine.now(), 2);
  EXPECT_DOUBLE_EQ(engine.link_bytes(LinkId{0}), 8);
  EXPECT_EQ(engine.link_utilisation()[0], 0) << "nothing crosses it any more: exactly 0";
  EXPECT_EQ(engine.unfinished(), 0u);
}

TEST(FlowEngine, SimultaneousCompletionsComeInIdOrder) {
  FlowEngine engine(links_of({1, 1, 1}));
  int link = 0;
  for (const std::uint64_t id : {9, 3, 5}) engine.start(message(id, 1, {{link++}}));
  std::vector<std::uint64_t> done;
  engine.advance(engine.next_event_time(), done);
  engine.advance(engine.next_event_time(), done);
  EXPECT_EQ(done, (std::vector<std::uint64_t>{3, 5, 9}));
}

TEST(FlowEngine, AdvanceStopsAtTheNextEventAndNeverGoesBack) {
  FlowEngine engine(links_of({1}));
  engine.start(message(1, 1, {{0}}));
  std::vector<std::uint64_t> done;
  EXPECT_EQ(engine.advance(5, done), 0) << "activation at 0";
  EXPECT_EQ(engine.advance(5, done), 1) << "completion at 1, not 5";
  EXPECT_EQ(done, std::vector<std::uint64_t>{1});
  EXPECT_EQ(engine.advance(5, done), 5);
  EXPECT_THROW(engine.advance(4, done), std::invalid_argument);
  EXPECT_THROW(engine.advance(FlowEngine::kNever, done), std::invalid_argument);
}

TEST(FlowEngine, BadMessagesAreRefusedAndLeaveTheEngineAsItWas) {
  FlowEngine engine(links_of({1, 1}));
  engine.start(message(1, 2, {{0}}));
  EXPECT_THROW(engine.start(message(1, 1, {{1}})), std::invalid_argument) << "id unfinished";
  EXPECT_THROW(engine.start(message(2, 0, {{1}})), std::invalid_argument) << "size";
  EXPECT_THROW(engine.start(message(2, 1, {})), std::invalid_argument) << "no route";
  EXPECT_THROW(engine.start(message(2, 1, {{0}, {}})), std::invalid_argument) << "empty route";
  EXPECT_THROW(engine.start(message(2, 1, {{1, 1}})), std::invalid_argument) << "link twice";
  EXPECT_THROW(engine.start(message(2, 1, {{2}})), std::invalid_argument) << "no link 2";
  EXPECT_THROW(engine.reroute(7, {{LinkId{0}}}), std::invalid_argument) << "unknown id";
  EXPECT_THROW(engine.reroute(1, {}), std::invalid_argument) << "no route";
  try {
    engine.start(message(42, 1, {{0}, {5}}));
    FAIL() << "a route naming link 5 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "flow model: message 42: no such link (route 1)");
  }
  EXPECT_EQ(engine.unfinished(), 1u);
  expect_time(run_out(engine).at(1), 2);
  EXPECT_THROW(FlowEngine(links_of({0})), std::invalid_argument);
  std::vector<FlowLink> bad = links_of({1});
  bad[0].latency = -1;
  EXPECT_THROW(FlowEngine{bad}, std::invalid_argument);
}

/// Random messages, some split over up to 3 routes, started at random times while others run,
/// some re-routed in flight: the engine re-solving incrementally gives the same completion times,
/// within 1e-9 relative, as re-solving everything at every event.
TEST(FlowEngine, Property_IncrementalEqualsFullWithStartsAndReroutesInFlight) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    const int num_links = 12;
    std::vector<FlowLink> links;
    for (int l = 0; l < num_links; ++l) {
      links.push_back({"l", std::uniform_real_distribution<double>(1, 10)(rng),
                       std::uniform_real_distribution<double>(0, 0.01)(rng)});
    }
    const auto route = [&] {
      std::vector<LinkId> r;
      const int len = std::uniform_int_distribution<int>(1, 4)(rng);
      while (static_cast<int>(r.size()) < len) {
        const LinkId l{std::uniform_int_distribution<int>(0, num_links - 1)(rng)};
        if (std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
      }
      return r;
    };
    struct Action {
      double time;
      bool reroute;
      EngineMessage m;
    };
    std::vector<Action> actions;
    for (std::uint64_t id = 0; id < 40; ++id) {
      EngineMessage m;
      m.id = id;
      m.size = std::uniform_real_distribution<double>(1, 20)(rng);
      const int k = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int i = 0; i < k; ++i) m.routes.push_back(route());
      const double t = std::uniform_real_distribution<double>(0, 5)(rng);
      actions.push_back({t, false, m});
      if (id % 4 == 0) {
        EngineMessage r = m;
        r.routes = {route()};
        actions.push_back({t + 0.5, true, r});
      }
    }
    std::sort(actions.begin(), actions.end(),
              [](const Action& a, const Action& b) { return a.time < b.time; });
    const auto run = [&](FlowSolve solve) {
      FlowEngine engine(links, {.solve = solve});
      std::map<std::uint64_t, double> done;
      std::vector<std::uint64_t> ids;
      std::size_t next = 0;
      while (next < actions.size() || engine.next_event_time() != FlowEngine::kNever) {
        const double t = next < actions.size() ? actions[next].time : FlowEngine::kNever;
        ids.clear();
        const double now = engine.advance(std::min(t, engine.next_event_time()), ids);
        for (const std::uint64_t id : ids) done[id] = now;
        while (next < actions.size() && actions[next].time <= now) {
          const Action& a = actions[next++];
          if (!a.reroute) {
            engine.start(a.m);
          } else if (!done.contains(a.m.id)) {
            engine.reroute(a.m.id, a.m.routes);
          }
        }
      }
      EXPECT_EQ(done.size(), 40u);
      return done;
    };
    const std::map<std::uint64_t, double> inc = run(FlowSolve::kIncremental);
    const std::map<std::uint64_t, double> full = run(FlowSolve::kFull);
    ASSERT_EQ(inc.size(), full.size()) << "seed " << seed;
    for (const auto& [id, done] : full) {
      EXPECT_NEAR(inc.at(id), done, 1e-9 * done) << "seed " << seed << " message " << id;
    }
  }
}

}  // namespace
}  // namespace ibsdn
