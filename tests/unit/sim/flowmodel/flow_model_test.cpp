// The flow-level model (sim_backend/flowmodel/flow_model.hpp, max_min_sharing.hpp): analytic cases
// worked by hand, the solver against a naive progressive filling, the incremental re-solve against
// the full one on random cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim_backend/flowmodel/flow_model.hpp"
#include "sim_backend/flowmodel/max_min_sharing.hpp"

namespace ibsdn {
namespace {

/// Equal within a few ulps: the analytic cases are exact up to the rounding of one division.
void expect_time(double got, double want) {
  EXPECT_NEAR(got, want, 1e-13 * std::max(1.0, std::abs(want))) << "want " << want;
}

FlowMessage message(std::uint64_t id, double start, double size, std::vector<int> route,
                    double cap = 0) {
  FlowMessage m;
  m.id = id;
  m.start = start;
  m.size = size;
  for (const int l : route) m.route.emplace_back(l);
  m.rate_cap = cap;
  return m;
}

TEST(FlowModel, OneFlowTakesLatencyPlusSizeOverBandwidth) {
  const std::vector<FlowLink> links{{"a", 1.25e9, 1e-6}, {"b", 2.5e9, 0.5e-6}};
  const std::vector<double> done = simulate_flows(links, {message(7, 0.25, 1e6, {0, 1})});
  // The route's latency is paid first, then the slower link sets the rate.
  expect_time(done[0], 0.25 + 1.5e-6 + 1e6 / 1.25e9);
}

TEST(FlowModel, FlowsOnOneLinkFinishTogether) {
  const double bw = 1.25e9;
  const double size = 4e6;
  const std::vector<FlowLink> links{{"l", bw, 2e-6}};
  for (const int n : {2, 3, 7}) {
    std::vector<FlowMessage> msgs;
    for (int i = 0; i < n; ++i)
      msgs.push_back(message(static_cast<std::uint64_t>(i), 0, size, {0}));
    FlowRunStats stats;
    const std::vector<double> done = simulate_flows(links, msgs, {}, &stats);
    for (const double d : done) expect_time(d, 2e-6 + n * size / bw);
    EXPECT_EQ(stats.events, 2u) << "one start, one end for all " << n;
  }
}

// Links L1 (10 B/s) and L2 (4 B/s); A crosses both, B only L1, C only L2. Max-min: L2 is the
// bottleneck at 2 each for A and C, B takes the 8 left on L1. A (4 B) ends at 2 having sent 4;
// B (24 B) has sent 16 and alone gets 10: ends at 2.8; C (8 B) has sent 4 and alone gets 4: 3.
TEST(FlowModel, ClassicMaxMinExampleOnTwoLinks) {
  const std::vector<FlowLink> links{{"L1", 10, 0}, {"L2", 4, 0}};
  const std::vector<FlowMessage> msgs{message(1, 0, 4, {0, 1}), message(2, 0, 24, {0}),
                                      message(3, 0, 8, {1})};
  for (const FlowSolve solve : {FlowSolve::kIncremental, FlowSolve::kFull}) {
    const std::vector<double> done = simulate_flows(links, msgs, {FlowSharing::kMaxMin, solve});
    expect_time(done[0], 2.0);
    expect_time(done[1], 2.8);
    expect_time(done[2], 3.0);
  }
}

TEST(FlowModel, RateCapBindsBelowTheFairShare) {
  // Alone: capped at 4 of the link's 10, so 8 bytes take 2 s.
  const std::vector<FlowLink> links{{"l", 10, 0}};
  expect_time(simulate_flows(links, {message(1, 0, 8, {0}, 4)})[0], 2.0);
  // Shared: A capped at 2 leaves 8 to B (not 5 each). A (4 B) ends at 2; B (24 B) has sent 16
  // and gets the whole link: 2.8.
  const std::vector<double> done =
      simulate_flows(links, {message(1, 0, 4, {0}, 2), message(2, 0, 24, {0})});
  expect_time(done[0], 2.0);
  expect_time(done[1], 2.8);
}

TEST(FlowModel, CapAboveTheFairShareDoesNotBind) {
  const std::vector<FlowLink> links{{"l", 10, 0}};
  const std::vector<double> done =
      simulate_flows(links, {message(1, 0, 10, {0}, 6), message(2, 0, 10, {0})});
  expect_time(done[0], 2.0);
  expect_time(done[1], 2.0);
}

// One link of 1 B/s and 1 s latency. A (10 B) starts at 0, active at 1, alone until B (10 B,
// start 5) is active at 6: A has sent 5. Both at 0.5: A ends at 16, B has sent 5 and alone
// sends the other 5 at 1 B/s: 21.
TEST(FlowModel, SecondFlowArrivingHalfwaySharesTheRest) {
  const std::vector<FlowLink> links{{"l", 1, 1}};
  const std::vector<double> done =
      simulate_flows(links, {message(1, 0, 10, {0}), message(2, 5, 10, {0})});
  expect_time(done[0], 16.0);
  expect_time(done[1], 21.0);
}

TEST(FlowModel, LatencyPhaseUsesNoBandwidth) {
  // B waits 100 s of latency on its private link before it shares L: A is alone meanwhile.
  const std::vector<FlowLink> links{{"L", 1, 0}, {"slow", 1, 100}};
  const std::vector<double> done =
      simulate_flows(links, {message(1, 0, 10, {0}), message(2, 0, 10, {1, 0})});
  expect_time(done[0], 10.0);
  expect_time(done[1], 110.0);
}

// SimGrid's CM02 weighs a flow by 1 / its route latency. L (3 B/s, 1 s) is shared by A over
// L and X (latency 2 s, weight 1/2) and B over L alone (1 s, weight 1), both active at 2:
// rates 1 and 2, A (2 B) and B (4 B) end at 4. Plain max-min gives 1.5 each: A ends at
// 2 + 4/3, B then has 2 B left at 3 B/s: 4.
TEST(FlowModel, Cm02SharesInverselyToRouteLatency) {
  const std::vector<FlowLink> links{{"L", 3, 1}, {"X", 100, 1}};
  const std::vector<FlowMessage> msgs{message(1, 0, 2, {0, 1}), message(2, 1, 4, {0})};
  const std::vector<double> cm02 = simulate_flows(links, msgs, {FlowSharing::kCm02});
  expect_time(cm02[0], 4.0);
  expect_time(cm02[1], 4.0);
  const std::vector<double> maxmin = simulate_flows(links, msgs, {FlowSharing::kMaxMin});
  expect_time(maxmin[0], 2.0 + 4.0 / 3.0);
  expect_time(maxmin[1], 4.0);
}

FlowMessage of_class(FlowMessage m, std::uint8_t c) {
  m.traffic_class = c;
  return m;
}

TEST(FlowModel, HighPriorityClassTakesWhatItNeedsFirst) {
  const std::vector<FlowLink> links{{"l", 10, 0}};
  FlowModelOptions options;
  options.classes = {TrafficClass{1, 1.0}, TrafficClass{0, 1.0}};  // class 0 above class 1
  // Uncapped, the high class takes the whole link: H (10 B) ends at 1, then L (10 B) at 2; one
  // class would end both at 2.
  std::vector<double> done = simulate_flows(
      links, {of_class(message(1, 0, 10, {0}), 0), of_class(message(2, 0, 10, {0}), 1)}, options);
  expect_time(done[0], 1.0);
  expect_time(done[1], 2.0);
  // Capped at 4, H needs only that: L gets the other 6 at once (12 B: ends at 2).
  done = simulate_flows(
      links, {of_class(message(1, 0, 8, {0}, 4), 0), of_class(message(2, 0, 12, {0}), 1)}, options);
  expect_time(done[0], 2.0);
  expect_time(done[1], 2.0);
}

TEST(FlowModel, CappedClassNeverExceedsItsShareOfASaturatedLink) {
  // Class 0: high priority but at most a quarter of every link; three of its flows share 2 of
  // the link's 8, class 1's flow gets the other 6.
  MaxMinSharing sharing({8.0}, {TrafficClass{1, 0.25}, TrafficClass{0, 1.0}});
  const std::vector<LinkId> route{LinkId(0)};
  for (int i = 0; i < 3; ++i) sharing.add(route, 1.0, 0.0, 0);
  const MaxMinSharing::FlowSlot low = sharing.add(route, 1.0, 0.0, 1);
  std::vector<MaxMinSharing::FlowSlot> changed;
  sharing.solve_all(changed);
  for (MaxMinSharing::FlowSlot f = 0; f < 3; ++f) EXPECT_DOUBLE_EQ(sharing.rate(f), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(sharing.rate(low), 6.0);
  // Over time: class 0's 2-byte messages end at 3, class 1's 12 bytes at 2; its end leaves class
  // 0 at its share.
  FlowModelOptions options;
  options.classes = {TrafficClass{1, 0.25}, TrafficClass{0, 1.0}};
  const std::vector<FlowLink> links{{"l", 8, 0}};
  const std::vector<double> done =
      simulate_flows(links,
                     {of_class(message(1, 0, 2, {0}), 0), of_class(message(2, 0, 2, {0}), 0),
                      of_class(message(3, 0, 2, {0}), 0), of_class(message(4, 0, 12, {0}), 1)},
                     options);
  for (int i = 0; i < 3; ++i) expect_time(done[i], 3.0);
  expect_time(done[3], 2.0);
}

// Seed 004's caps hold while a link is oversubscribed: a borrowing class above its share takes
// what no other class wants, and only that.
TEST(FlowModel, BorrowingClassIsCappedOnlyWhileOthersWantTheLink) {
  // Three class 0 flows on a link of 8, and a class 1 flow with cap `low_cap` unless absent.
  const auto rates = [](std::optional<double> low_cap) {
    MaxMinSharing sharing({8.0}, {TrafficClass{1, 0.25, true}, TrafficClass{0, 1.0}});
    const std::vector<LinkId> route{LinkId(0)};
    for (int i = 0; i < 3; ++i) sharing.add(route, 1.0, 0.0, 0);
    if (low_cap) sharing.add(route, 1.0, *low_cap, 1);
    std::vector<MaxMinSharing::FlowSlot> changed;
    sharing.solve_all(changed);
    std::vector<double> out;
    for (MaxMinSharing::FlowSlot f = 0; f < (low_cap ? 4u : 3u); ++f)
      out.push_back(sharing.rate(f));
    return out;
  };
  const auto expect_rates = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(got[i], want[i]) << i;
  };
  // Alone, class 0's three flows share the whole link.
  expect_rates(rates(std::nullopt), std::vector<double>(3, 8.0 / 3.0));
  // Against an uncapped class 1 flow: its share, 2, as without borrowing.
  expect_rates(rates(0.0), {2.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 6.0});
  // Class 1 wants only 1: class 0 takes its 2, then the 5 nobody wants: 7/3 per flow.
  expect_rates(rates(1.0), {7.0 / 3.0, 7.0 / 3.0, 7.0 / 3.0, 1.0});
}

TEST(FlowModel, RefusesMalformedMessages) {
  const std::vector<FlowLink> links{{"l", 1, 0}};
  EXPECT_THROW(simulate_flows(links, {message(1, 0, 0, {0})}), std::invalid_argument);
  EXPECT_THROW(simulate_flows(links, {message(1, -1, 1, {0})}), std::invalid_argument);
  EXPECT_THROW(simulate_flows(links, {message(1, 0, 1, {})}), std::invalid_argument);
  EXPECT_THROW(simulate_flows(links, {message(1, 0, 1, {1})}), std::invalid_argument);
  EXPECT_THROW(simulate_flows(links, {message(1, 0, 1, {0, 0})}), std::invalid_argument);
  EXPECT_THROW(simulate_flows(links, {of_class(message(1, 0, 1, {0}), 1)}), std::invalid_argument);
}

// A random system: links with capacities over a decade, flows over 1-6 distinct links with
// weights and some caps.
struct RandomSystem {
  std::vector<double> capacity;
  std::vector<std::vector<LinkId>> route;
  std::vector<double> weight;
  std::vector<double> cap;
  std::vector<std::uint8_t> cls;
  std::vector<TrafficClass> classes{TrafficClass{}};
};

std::vector<LinkId> random_route(std::mt19937_64& rng, std::size_t links) {
  std::uniform_int_distribution<std::size_t> hops(1, std::min<std::size_t>(6, links));
  std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(links - 1));
  std::vector<LinkId> r;
  for (std::size_t n = hops(rng); r.size() < n;) {
    const LinkId l(pick(rng));
    if (std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
  }
  return r;
}

RandomSystem random_system(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  RandomSystem s;
  const std::size_t links = 5 + rng() % 40;
  const std::size_t flows = 1 + rng() % 120;
  for (std::size_t l = 0; l < links; ++l) s.capacity.push_back(1e9 * (1 + 9 * unit(rng)));
  for (std::size_t f = 0; f < flows; ++f) {
    s.route.push_back(random_route(rng, links));
    s.weight.push_back(seed % 2 == 0 ? 1.0 : 0.2 + unit(rng));
    s.cap.push_back(unit(rng) < 0.2 ? 1e8 * (1 + 20 * unit(rng)) : 0.0);
    s.cls.push_back(seed % 3 == 0 ? static_cast<std::uint8_t>(rng() % 3) : 0);
  }
  // Every third seed: a low class, a capped top class, a middle one (index order is not
  // priority order).
  // Every sixth seed, the capped classes borrow what the others leave.
  if (seed % 3 == 0) {
    const bool borrow = seed % 2 == 0;
    s.classes = {TrafficClass{0, 1.0}, TrafficClass{5, 0.4, borrow}, TrafficClass{3, 0.9, borrow}};
  }
  return s;
}

/// Progressive filling done the slow way: raise the level to the lowest link saturation or cap,
/// fix what binds, repeat. O(flows x links) per step; written independently of MaxMinSharing.
std::vector<double> naive_max_min(const RandomSystem& s, const std::vector<double>& capacity,
                                  const std::vector<bool>& member) {
  const std::size_t n = s.route.size();
  std::vector<double> rate(n, 0);
  std::vector<bool> fixed(n, false);
  std::vector<double> remaining = capacity;
  std::size_t left = 0;
  for (std::size_t f = 0; f < n; ++f) {
    fixed[f] = !member[f];
    left += member[f] ? 1 : 0;
  }
  while (left > 0) {
    double level = INFINITY;
    for (std::size_t l = 0; l < remaining.size(); ++l) {
      double w = 0;
      for (std::size_t f = 0; f < n; ++f) {
        if (!fixed[f] &&
            std::find(s.route[f].begin(), s.route[f].end(), LinkId(l)) != s.route[f].end()) {
          w += s.weight[f];
        }
      }
      if (w > 0) level = std::min(level, std::max(remaining[l], 0.0) / w);
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (!fixed[f] && s.cap[f] > 0) level = std::min(level, s.cap[f] / s.weight[f]);
    }
    std::vector<std::size_t> now;
    for (std::size_t f = 0; f < n; ++f) {
      if (fixed[f]) continue;
      bool binds = s.cap[f] > 0 && s.cap[f] / s.weight[f] <= level * (1 + 1e-12);
      for (const LinkId l : s.route[f]) {
        double load = 0;
        for (std::size_t g = 0; g < n; ++g) {
          if (!member[g]) continue;
          if (std::find(s.route[g].begin(), s.route[g].end(), l) == s.route[g].end()) continue;
          load += fixed[g] ? rate[g] : level * s.weight[g];
        }
        binds = binds || load >= capacity[l.value()] * (1 - 1e-12);
      }
      if (binds) now.push_back(f);
    }
    for (const std::size_t f : now) {
      rate[f] = s.cap[f] > 0 ? std::min(s.cap[f], level * s.weight[f]) : level * s.weight[f];
      fixed[f] = true;
      for (const LinkId l : s.route[f]) remaining[l.value()] -= rate[f];
    }
    left -= now.size();
  }
  return rate;
}

/// Strict priority done the slow way: each class's naive filling over what the classes above it
/// left, capped by its share.
std::vector<double> naive_classes(const RandomSystem& s) {
  std::vector<double> rate(s.route.size(), 0);
  std::vector<double> left = s.capacity;
  std::vector<std::size_t> order(s.classes.size());
  for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.classes[a].priority > s.classes[b].priority;
  });
  for (const std::size_t c : order) {
    std::vector<double> capacity(left.size());
    for (std::size_t l = 0; l < left.size(); ++l) {
      capacity[l] = std::min(left[l], s.classes[c].link_share * s.capacity[l]);
    }
    std::vector<bool> member(s.route.size());
    for (std::size_t f = 0; f < member.size(); ++f) member[f] = s.cls[f] == c;
    const std::vector<double> r = naive_max_min(s, capacity, member);
    for (std::size_t f = 0; f < r.size(); ++f) {
      if (!member[f]) continue;
      rate[f] = r[f];
      for (const LinkId l : s.route[f]) left[l.value()] -= r[f];
    }
  }
  // Borrowing: one more filling of what is left, from each flow's rate up to its own cap.
  RandomSystem more = s;
  std::vector<bool> member(s.route.size());
  for (std::size_t f = 0; f < member.size(); ++f) {
    const TrafficClass& c = s.classes[s.cls[f]];
    member[f] = c.borrow && c.link_share < 1 && (s.cap[f] == 0 || rate[f] < s.cap[f]);
    if (s.cap[f] > 0) more.cap[f] = s.cap[f] - rate[f];
  }
  const std::vector<double> r = naive_max_min(more, left, member);
  for (std::size_t f = 0; f < r.size(); ++f) {
    if (member[f]) rate[f] += r[f];
  }
  return rate;
}

TEST(FlowModelRandom, SolverMatchesNaiveProgressiveFilling) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const RandomSystem s = random_system(seed);
    MaxMinSharing sharing(s.capacity, s.classes);
    for (std::size_t f = 0; f < s.route.size(); ++f) {
      sharing.add(s.route[f], s.weight[f], s.cap[f], s.cls[f]);
    }
    std::vector<MaxMinSharing::FlowSlot> changed;
    sharing.solve_touched(changed);
    const std::vector<double> want = naive_classes(s);
    for (std::size_t f = 0; f < want.size(); ++f) {
      EXPECT_NEAR(sharing.rate(static_cast<MaxMinSharing::FlowSlot>(f)), want[f],
                  s.capacity[0] * 1e-12 + want[f] * 1e-9)
          << "seed " << seed << " flow " << f;
    }
  }
}

TEST(FlowModelRandom, IncrementalSolveAfterRemovalsMatchesFullSolve) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const RandomSystem s = random_system(seed);
    MaxMinSharing inc(s.capacity, s.classes);
    inc.set_full_fallback(false);
    MaxMinSharing full(s.capacity, s.classes);
    std::vector<MaxMinSharing::FlowSlot> changed;
    for (std::size_t f = 0; f < s.route.size(); ++f) {
      inc.add(s.route[f], s.weight[f], s.cap[f], s.cls[f]);
      full.add(s.route[f], s.weight[f], s.cap[f], s.cls[f]);
    }
    inc.solve_touched(changed);
    full.solve_all(changed);
    // Remove every third flow, solving after each removal.
    for (std::size_t f = 0; f < s.route.size(); f += 3) {
      const auto slot = static_cast<MaxMinSharing::FlowSlot>(f);
      inc.remove(slot);
      full.remove(slot);
      inc.solve_touched(changed);
      full.solve_all(changed);
      for (std::size_t g = 0; g < s.route.size(); ++g) {
        if (g % 3 == 0 && g <= f) continue;
        const auto gs = static_cast<MaxMinSharing::FlowSlot>(g);
        EXPECT_NEAR(inc.rate(gs), full.rate(gs), 1e-9 * full.rate(gs) + 1e-12 * s.capacity[0])
            << "seed " << seed << " flow " << g;
      }
    }
  }
}

/// A random flow case: starts over 1 ms, sizes over four decades, latencies up to 10 us.
std::pair<std::vector<FlowLink>, std::vector<FlowMessage>> random_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<FlowLink> links(4 + rng() % 60);
  for (std::size_t l = 0; l < links.size(); ++l) {
    links[l] = {"l" + std::to_string(l), 1e9 * (1 + 9 * unit(rng)), 1e-5 * unit(rng)};
  }
  std::vector<FlowMessage> msgs(20 + rng() % 300);
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    FlowMessage& m = msgs[i];
    m.id = (i * 7919) % msgs.size() + 1000 * (seed % 3);
    // Some share a start time, as a collective's messages do.
    m.start = unit(rng) < 0.3 ? 0.0 : 1e-3 * unit(rng);
    m.size = std::pow(10.0, 3 + 4 * unit(rng));
    m.route = random_route(rng, links.size());
    m.rate_cap = unit(rng) < 0.1 ? 1e8 * (1 + 20 * unit(rng)) : 0.0;
    // Every third seed: three traffic classes (random_options).
    m.traffic_class = seed % 3 == 0 ? static_cast<std::uint8_t>(rng() % 3) : 0;
  }
  return {links, msgs};
}

TEST(FlowModelRandom, IncrementalEqualsFullResolve) {
  std::size_t inc_solved = 0;
  std::size_t full_solved = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto [links, msgs] = random_case(seed);
    for (const FlowSharing sharing : {FlowSharing::kMaxMin, FlowSharing::kCm02}) {
      FlowModelOptions options{sharing, FlowSolve::kIncremental};
      if (seed % 3 == 0) {
        // A capped top class, an uncapped middle one, a bottom one.
        options.classes = {TrafficClass{2, 0.3}, TrafficClass{1, 1.0}, TrafficClass{0, 0.8}};
      }
      FlowRunStats inc_stats;
      FlowRunStats full_stats;
      const std::vector<double> inc = simulate_flows(links, msgs, options, &inc_stats);
      options.solve = FlowSolve::kFull;
      const std::vector<double> full = simulate_flows(links, msgs, options, &full_stats);
      for (std::size_t i = 0; i < msgs.size(); ++i) {
        ASSERT_TRUE(std::isfinite(inc[i])) << "seed " << seed << " message " << msgs[i].id;
        EXPECT_GE(inc[i], msgs[i].start + msgs[i].size / 1e10);
        EXPECT_NEAR(inc[i], full[i], 1e-9 * full[i])
            << "seed " << seed << " message " << msgs[i].id;
      }
      EXPECT_EQ(inc_stats.events, full_stats.events);
      EXPECT_LE(inc_stats.solved_flows, full_stats.solved_flows);
      inc_solved += inc_stats.solved_flows;
      full_solved += full_stats.solved_flows;
    }
  }
  // The random cases have separate components: the incremental path re-solves fewer flows.
  EXPECT_LT(inc_solved, full_solved);
}

TEST(FlowModelRandom, DisjointFlowsAreNotResolvedTogether) {
  // Ten flows on ten separate links: each event re-solves one flow, not ten.
  std::vector<FlowLink> links;
  std::vector<FlowMessage> msgs;
  for (int i = 0; i < 10; ++i) {
    links.push_back({"l" + std::to_string(i), 1e9, 0});
    msgs.push_back(message(static_cast<std::uint64_t>(i), i * 1e-3, 1e5 * (i + 1), {i}));
  }
  FlowRunStats stats;
  const std::vector<double> done = simulate_flows(links, msgs, {}, &stats);
  for (int i = 0; i < 10; ++i) expect_time(done[i], i * 1e-3 + 1e-4 * (i + 1));
  EXPECT_EQ(stats.solved_flows, 10u);
}

}  // namespace
}  // namespace ibsdn
