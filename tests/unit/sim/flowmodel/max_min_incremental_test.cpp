// The incremental re-solve of MaxMinSharing (max_min_sharing.hpp): after every start and end of a
// flow, solve_touched() gives the rates a full re-solve gives, within 1e-9 relative, on random
// fabrics, flow sets, weights, caps and traffic classes (borrowing ones too), and reports every
// flow whose rate moved; and it re-solves what changes, not the connected component.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim_backend/flowmodel/max_min_sharing.hpp"

namespace ibsdn {
namespace {

using Slot = MaxMinSharing::FlowSlot;

std::vector<LinkId> route_of(std::initializer_list<int> links) {
  std::vector<LinkId> r;
  for (const int l : links) r.emplace_back(l);
  return r;
}

/// Each of `slots` has the rate at the same place in `want` (exact up to an ulp: hand-worked).
void expect_rates(const MaxMinSharing& sharing, const std::vector<Slot>& slots,
                  const std::vector<double>& want) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    EXPECT_DOUBLE_EQ(sharing.rate(slots[i]), want[i]) << "flow " << slots[i];
  }
}

// Links L0 (6 B/s) and L1 (10 B/s); A crosses L0, B both, C L1. L0 holds A and B at 3 each, C
// takes L1's other 7. When A ends only L0 is touched, yet C, which does not cross it, drops to 5:
// B is then bottlenecked on L1 with C at 5 each.
TEST(MaxMinIncremental, ReachesFlowsBeyondTheTouchedLinks) {
  MaxMinSharing sharing({6.0, 10.0});
  const Slot a = sharing.add(route_of({0}), 1.0, 0.0);
  const Slot b = sharing.add(route_of({0, 1}), 1.0, 0.0);
  const Slot c = sharing.add(route_of({1}), 1.0, 0.0);
  std::vector<Slot> changed;
  sharing.solve_touched(changed);
  expect_rates(sharing, {a, b, c}, {3.0, 3.0, 7.0});
  sharing.remove(a);
  changed.clear();
  sharing.solve_touched(changed);
  expect_rates(sharing, {b, c}, {5.0, 5.0});
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed, (std::vector<Slot>{b, c}));
  // A second A on L0: back to 3, 3, 7.
  const Slot a2 = sharing.add(route_of({0}), 1.0, 0.0);
  sharing.solve_touched(changed);
  expect_rates(sharing, {a2, b, c}, {3.0, 3.0, 7.0});
}

// A route too long for any traced path, or over a link that does not exist, is refused and
// leaves the flows as they were.
TEST(MaxMinIncremental, RefusesImpossibleRoutesAndKeepsTheOthers) {
  MaxMinSharing sharing({6.0, 10.0});
  const Slot a = sharing.add(route_of({0, 1}), 1.0, 0.0);
  std::vector<LinkId> long_route;
  for (std::uint32_t l = 0; l < 67; ++l) long_route.emplace_back(l % 2);
  EXPECT_THROW(sharing.add(long_route, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(sharing.add(route_of({1, 2}), 1.0, 0.0), std::out_of_range);
  EXPECT_EQ(sharing.active_flows(), 1U);
  std::vector<Slot> changed;
  sharing.solve_touched(changed);
  expect_rates(sharing, {a}, {6.0});
  EXPECT_EQ(changed, std::vector<Slot>{a});
}

// After an incremental solve that re-solved most flows (B and C of 2 when A ends), the next 16
// solve_touched() calls solve in full (each re-solves all 3 flows, though a new flow touches L0
// only), then it solves incrementally again; the rates are the same either way.
TEST(MaxMinIncremental, FallsBackToFullSolvesWhileMostFlowsMove) {
  for (const bool fallback : {true, false}) {
    MaxMinSharing sharing({6.0, 10.0});
    sharing.set_full_fallback(fallback);
    const Slot a = sharing.add(route_of({0}), 1.0, 0.0);
    const Slot b = sharing.add(route_of({0, 1}), 1.0, 0.0);
    const Slot c = sharing.add(route_of({1}), 1.0, 0.0);
    std::vector<Slot> changed;
    EXPECT_EQ(sharing.solve_touched(changed), 3U);  // all three are new
    sharing.remove(a);
    EXPECT_EQ(sharing.solve_touched(changed), 2U);
    expect_rates(sharing, {b, c}, {5.0, 5.0});
    // A capped flow on L0 alone: it takes its cap, nothing else moves.
    std::vector<std::size_t> solved;
    for (int i = 0; i < 17; ++i) {
      const Slot d = sharing.add(route_of({0}), 1.0, 0.5);
      solved.push_back(sharing.solve_touched(changed));
      expect_rates(sharing, {b, c, d}, {5.0, 5.0, 0.5});
      sharing.remove(d);
      sharing.solve_touched(changed);
    }
    // With the fallback the first 16 solves (8 adds, 8 removes) were full; the 9th add's was not.
    for (int i = 0; i < 17; ++i) {
      const std::size_t want = fallback && i < 8 ? 3 : 1;
      EXPECT_EQ(solved[static_cast<std::size_t>(i)], want)
          << "add " << i << " fallback " << fallback;
    }
  }
}

// A high class (priority 1, all of a link) on L0 only; a low class's flow D crosses L0 and L1
// beside E on L1 (8 B/s each). With H at 6, D gets 2 and E 6; when H ends, L1's low-class flows
// share it: D and E 4 each, although H never crossed L1.
TEST(MaxMinIncremental, FollowsAHigherClassIntoTheLowerOnes) {
  MaxMinSharing sharing({8.0, 8.0}, {TrafficClass{1, 1.0}, TrafficClass{0, 1.0}});
  const Slot h = sharing.add(route_of({0}), 1.0, 6.0, 0);
  const Slot d = sharing.add(route_of({0, 1}), 1.0, 0.0, 1);
  const Slot e = sharing.add(route_of({1}), 1.0, 0.0, 1);
  std::vector<Slot> changed;
  sharing.solve_touched(changed);
  expect_rates(sharing, {h, d, e}, {6.0, 2.0, 6.0});
  sharing.remove(h);
  sharing.solve_touched(changed);
  expect_rates(sharing, {d, e}, {4.0, 4.0});
}

// A borrowing class B (a quarter of a link of 8) beside a high class H. With H capped at 6, B has
// its 2 and nothing to borrow; when H ends, B's class still gets 2 and borrows the other 6; a new
// H capped at 3 leaves 5, B's 2 and 3 borrowed.
TEST(MaxMinIncremental, BorrowingFollowsWhatTheOtherClassesLeave) {
  MaxMinSharing sharing({8.0}, {TrafficClass{1, 1.0}, TrafficClass{0, 0.25, true}});
  const Slot h = sharing.add(route_of({0}), 1.0, 6.0, 0);
  const Slot b = sharing.add(route_of({0}), 1.0, 0.0, 1);
  std::vector<Slot> changed;
  sharing.solve_touched(changed);
  expect_rates(sharing, {h, b}, {6.0, 2.0});
  sharing.remove(h);
  changed.clear();
  sharing.solve_touched(changed);
  expect_rates(sharing, {b}, {8.0});
  EXPECT_EQ(changed, (std::vector<Slot>{b}));
  const Slot h2 = sharing.add(route_of({0}), 1.0, 3.0, 0);
  changed.clear();
  sharing.solve_touched(changed);
  expect_rates(sharing, {h2, b}, {3.0, 5.0});
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed, (std::vector<Slot>{std::min(h2, b), std::max(h2, b)}));
}

struct Fabric {
  std::size_t links;
  std::size_t flows;   // kept about this many active
  std::size_t events;  // starts and ends, each followed by a solve (or a few of them batched)
  bool classes;
  bool borrowing = false;  // two of the classes borrow (classes only)
};

/// Summed over the solves of a history.
struct Work {
  std::size_t solved = 0;  // flows the incremental solves re-solved
  std::size_t moved = 0;   // flows whose rate they changed
  std::size_t active = 0;  // active flows
};

/// Drives one random history through an incremental and a full solver and compares every live
/// flow's rate after every solve; the worst relative difference goes to `worst`.
Work compare_histories(const Fabric& fabric, std::uint64_t seed, double* worst) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> capacity(fabric.links);
  // Capacities from a few discrete rates (ties between levels, as on real fabrics) and some
  // continuous ones.
  for (double& c : capacity) {
    c = unit(rng) < 0.5 ? 1e9 * static_cast<double>(1 + rng() % 4) : 1e9 * (1 + 9 * unit(rng));
  }
  std::vector<TrafficClass> classes{TrafficClass{}};
  if (fabric.classes) {
    // Index order is not priority order; one class of equal priority with another (ties by
    // index), a capped top class.
    classes = {TrafficClass{0, 1.0}, TrafficClass{5, 0.4}, TrafficClass{3, 0.9},
               TrafficClass{3, 1.0}};
    // Borrowing: the capped top class and a capped low one borrow, the middle one stays capped.
    if (fabric.borrowing) {
      classes[1].borrow = true;
      classes.push_back(TrafficClass{-1, 0.5, true});
    }
  }
  MaxMinSharing inc(capacity, classes);
  inc.set_full_fallback(false);  // every solve_touched() incremental: it is what is tested
  MaxMinSharing full(capacity, classes);
  const bool weighted = seed % 2 == 1;
  const auto random_route = [&] {
    // Now and then a route longer than any before it, which widens every flow's route row
    // (max_min_sharing.cpp, widen_routes) with flows live.
    const std::size_t longest = rng() % 32 == 0 ? 20 : 6;
    const std::size_t hops = 1 + rng() % std::min(longest, fabric.links);
    std::vector<LinkId> r;
    while (r.size() < hops) {
      const LinkId l(static_cast<std::uint32_t>(rng() % fabric.links));
      if (std::find(r.begin(), r.end(), l) == r.end()) r.push_back(l);
    }
    return r;
  };
  std::vector<Slot> live;
  // Every flow's rate as the changes solve_touched() reported leave it.
  std::vector<double> reported;
  const auto start = [&] {
    const std::vector<LinkId> r = random_route();
    const double weight = weighted ? 0.2 + unit(rng) : 1.0;
    const double cap = unit(rng) < 0.2 ? 1e8 * (1 + 20 * unit(rng)) : 0.0;
    const auto cls = static_cast<std::uint8_t>(rng() % classes.size());
    const Slot s = inc.add(r, weight, cap, cls);
    EXPECT_EQ(full.add(r, weight, cap, cls), s);
    live.push_back(s);
    reported.resize(std::max<std::size_t>(reported.size(), s + 1));
    reported[s] = 0;
  };
  const auto end = [&] {
    const std::size_t i = rng() % live.size();
    inc.remove(live[i]);
    full.remove(live[i]);
    live[i] = live.back();
    live.pop_back();
  };
  for (std::size_t i = 0; i < fabric.flows; ++i) start();
  std::vector<Slot> changed;
  Work work;
  for (std::size_t e = 0; e < fabric.events; ++e) {
    // Mostly one start or end per solve; sometimes several together, as at one event time.
    const std::size_t batch = unit(rng) < 0.8 ? 1 : 2 + rng() % 4;
    for (std::size_t k = 0; k < batch; ++k) {
      const bool grow =
          live.size() < fabric.flows / 2 || (live.size() < 2 * fabric.flows && unit(rng) < 0.5);
      if (grow || live.empty()) {
        start();
      } else {
        end();
      }
    }
    changed.clear();
    work.solved += inc.solve_touched(changed);
    work.moved += changed.size();
    for (const Slot s : changed) reported[s] = inc.rate(s);
    work.active += live.size();
    full.solve_all(changed);
    for (const Slot s : live) {
      const double want = full.rate(s);
      const double got = inc.rate(s);
      const double err = std::abs(got - want) / std::max(want, 1e-3 * capacity[0]);
      *worst = std::max(*worst, err);
      if (err > 1e-9 || reported[s] != got) {
        ADD_FAILURE() << "seed " << seed << " event " << e << " flow " << s << ": incremental "
                      << got << " (reported " << reported[s] << "), full " << want;
        return work;
      }
    }
  }
  return work;
}

class MaxMinIncrementalRandom : public ::testing::TestWithParam<Fabric> {};

TEST_P(MaxMinIncrementalRandom, EqualsFullResolveAfterEveryEvent) {
  double worst = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    compare_histories(GetParam(), seed, &worst);
    if (HasFailure()) return;
  }
  std::ostringstream text;
  text << worst;
  RecordProperty("worst_relative_difference", text.str());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, MaxMinIncrementalRandom,
                         ::testing::Values(Fabric{8, 12, 300, false}, Fabric{40, 150, 300, false},
                                           Fabric{300, 600, 200, false}, Fabric{8, 12, 300, true},
                                           Fabric{40, 150, 300, true}, Fabric{300, 600, 200, true},
                                           Fabric{8, 12, 300, true, true},
                                           Fabric{40, 150, 300, true, true},
                                           Fabric{300, 600, 200, true, true}),
                         [](const ::testing::TestParamInfo<Fabric>& p) {
                           return std::to_string(p.param.links) + "_links_" +
                                  std::to_string(p.param.flows) + "_flows" +
                                  (p.param.classes ? "_classes" : "") +
                                  (p.param.borrowing ? "_borrowing" : "");
                         });

// 2,000 to 8,000 flows of 1-6 links over 2,000 links form one connected component, but a start or
// an end moves a fifth of the rates: the incremental solves re-solve little more than those, not
// the component (which the solver re-solved whole before).
TEST(MaxMinIncremental, ReSolvesAboutWhatMovesNotTheComponent) {
  double worst = 0;
  const Work work = compare_histories(Fabric{2000, 4000, 100, false}, 7, &worst);
  EXPECT_LT(work.solved, work.active / 4);
  EXPECT_LT(work.solved, work.moved + work.moved / 4);
}

}  // namespace
}  // namespace ibsdn
