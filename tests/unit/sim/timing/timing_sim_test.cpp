// The timing simulator (sim_backend/timing/timing_sim.hpp): the flow model's analytic cases — one
// message, FCFS against RR on one NIC, a message between GPUs of one node, a contention-free
// permutation on a full fat-tree — and the job life cycle (iterations, compute, waiting for nodes,
// samples).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/apps/app_spec.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {
namespace {

constexpr double kGbps = 100;
constexpr double kBandwidth = kGbps * 1e9 / 8;  // bytes/s
constexpr std::uint64_t kSize = 12'500'000;     // 1 ms at kBandwidth

void expect_time(double got, double want, const std::string& what = "") {
  EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::abs(want))) << "want " << want << " " << what;
}

/// XGFT(2;4,4;1,4): 4 leaves of 4 hosts, 4 spines; DmodK LFTs.
struct Tree {
  Fabric fabric;
  LftSet lfts;
  explicit Tree(std::uint32_t gpus = 1, std::vector<int> m = {4, 4}, std::vector<int> w = {1, 4}) {
    XgftParams p;
    p.h = 2;
    p.m = std::move(m);
    p.w = std::move(w);
    fabric = generate_xgft(p, static_cast<int>(gpus), kGbps);
    lfts = default_tables(fabric, sequential_lids(fabric)).lfts;
  }
  [[nodiscard]] NodeIdx host(std::size_t i) const { return fabric.hcas().at(i); }
};

TimingJob job_on(const Tree& t, std::uint64_t id, std::vector<std::size_t> hosts,
                 std::vector<RankFlow> messages, std::uint32_t iterations = 1, double compute = 0) {
  TimingJob j;
  j.id = id;
  for (const std::size_t h : hosts) j.nodes.push_back(t.host(h));
  TimingPhase p;
  p.name = "main";
  p.iterations = iterations;
  p.compute = {compute};
  p.messages = std::move(messages);
  j.phases.push_back(std::move(p));
  return j;
}

TimingResult run(const Tree& t, const std::vector<TimingJob>& jobs, TimingOptions options = {}) {
  const auto routes = lft_routes(t.fabric, t.lfts);
  return simulate_timing(t.fabric, jobs, *routes, options);
}

TEST(TimingSim, OneMessageTakesSizeOverBandwidthPlusLatency) {
  const Tree t;
  TimingOptions o;
  o.link_latency = 1e-6;
  // Hosts 0 and 5 are on different leaves: host -> leaf -> spine -> leaf -> host, 4 links.
  const TimingResult r = run(t, {job_on(t, 1, {0, 5}, {{0, 1, kSize}})}, o);
  ASSERT_EQ(r.jobs.size(), 1u);
  expect_time(r.jobs[0].end, 4e-6 + kSize / kBandwidth);
  expect_time(r.jobs[0].comm_time, 4e-6 + kSize / kBandwidth, "both ranks wait all along");
  EXPECT_EQ(r.jobs[0].network_bytes, kSize);
  EXPECT_EQ(r.messages, 1u);
}

// Node A sends to B and C, node D to B. FCFS: A->B shares B's link with D->B (half rate each,
// both done at 2 ms), then A->C alone: A is done at 3 ms. RR: A->B and A->C share A's link, D->B
// and A->B share B's: every flow at half rate, all done at 2 ms.
TEST(TimingSim, FcfsBlocksBehindTheHeadMessageRoundRobinDoesNot) {
  const Tree t;
  // Ranks 0..3 on hosts 0 (A), 4 (B), 8 (C), 12 (D).
  const std::vector<TimingJob> jobs{
      job_on(t, 1, {0, 4, 8, 12}, {{0, 1, kSize}, {0, 2, kSize}, {3, 1, kSize}})};
  const double ms = kSize / kBandwidth;
  TimingOptions o;
  expect_time(run(t, jobs, o).jobs[0].end, 3 * ms);
  o.nic = NicPolicy::parse("rr");
  expect_time(run(t, jobs, o).jobs[0].end, 2 * ms);
  o.nic = NicPolicy::parse("rr-1");
  expect_time(run(t, jobs, o).jobs[0].end, 3 * ms, "RR-1 is FCFS");
  o.nic = NicPolicy::parse("rr-2");
  expect_time(run(t, jobs, o).jobs[0].end, 2 * ms, "RR-2 has both of A's messages out");
}

TEST(TimingSim, AMessageWithinANodeTakesTheGpuLink) {
  const Tree t(2);
  TimingJob j = job_on(t, 1, {3}, {{0, 1, kSize}, {1, 0, kSize}});
  j.ranks_per_node = 2;
  TimingOptions o;
  TimingResult r = run(t, {j}, o);
  expect_time(r.jobs[0].end, kSize / (2 * kBandwidth), "GPU links: 2x the network's");
  EXPECT_EQ(r.jobs[0].network_bytes, 0);
  EXPECT_EQ(r.jobs[0].gpu_link_bytes, 2.0 * kSize);
  EXPECT_TRUE(std::all_of(r.link_bytes.begin(), r.link_bytes.end(), [](double b) {
    return b == 0;
  })) << "nothing crossed the network";
  o.gpu_link_factor = 4;
  expect_time(run(t, {j}, o).jobs[0].end, kSize / (4 * kBandwidth));
}

// DmodK on XGFT(2;4,4;1,4) sends a packet for destination d up through spine d mod 4. A shift
// by one leaf (host i -> i + 4) gives the 4 sources of a leaf 4 distinct spines: no link is
// shared and all 16 messages take size / bandwidth. Two sources of a leaf sending to
// destinations equal mod 4 share an up-link: 2 ms.
TEST(TimingSim, AContentionFreePermutationOnAFullTreeTakesSizeOverBandwidth) {
  const Tree t;
  std::vector<std::size_t> hosts(16);
  for (std::size_t i = 0; i < 16; ++i) hosts[i] = i;
  std::vector<RankFlow> shift;
  for (std::uint32_t i = 0; i < 16; ++i) shift.push_back({i, (i + 4) % 16, kSize});
  const TimingResult r = run(t, {job_on(t, 1, hosts, shift)});
  expect_time(r.jobs[0].end, kSize / kBandwidth);
  const double busiest = *std::max_element(r.link_bytes.begin(), r.link_bytes.end());
  EXPECT_EQ(busiest, kSize) << "every link carries one message at most";

  std::vector<RankFlow> colliding{{0, 4, kSize}, {1, 8, kSize}};
  expect_time(run(t, {job_on(t, 2, hosts, colliding)}).jobs[0].end, 2 * kSize / kBandwidth);
}

TEST(TimingSim, IterationsAlternateComputeAndMessages) {
  const Tree t;
  const double c = 0.25e-3;
  const TimingResult r = run(t, {job_on(t, 1, {0, 5}, {{0, 1, kSize}, {1, 0, kSize}}, 3, c)});
  expect_time(r.jobs[0].end, 3 * (c + kSize / kBandwidth));
  expect_time(r.jobs[0].compute_time, 3 * c);
  expect_time(r.jobs[0].comm_time, 3 * kSize / kBandwidth);
  EXPECT_EQ(r.jobs[0].messages, 6u);
}

// Rank 0 sends to 1, rank 1 to 2, rank 2 to nobody: with Waitall per rank and no barrier, rank 2
// only waits for its receive, and ranks run ahead where their partners allow.
TEST(TimingSim, RanksProceedWithoutABarrier) {
  const Tree t;
  TimingJob j = job_on(t, 1, {0, 5, 10}, {{0, 1, kSize}, {1, 2, kSize}}, 2);
  j.phases[0].compute = {0, 0, 1e-3};  // rank 2 computes 1 ms per iteration
  const TimingResult r = run(t, {j});
  // Iteration 1: both messages at once (1 ms); rank 2 computes 1 ms, then finds its message.
  // Iteration 2 likewise: rank 2 ends at 2 ms, having waited 0.
  expect_time(r.jobs[0].end, 2e-3);
  expect_time(r.jobs[0].max_comm_time, 2e-3);
  expect_time(r.jobs[0].compute_time, 2e-3);
}

TEST(TimingSim, AJobWaitsForItsNodesAndThePhasesRunInOrder) {
  const Tree t;
  TimingJob a = job_on(t, 1, {0, 5}, {{0, 1, kSize}});
  TimingJob b = job_on(t, 2, {5, 9}, {{0, 1, kSize}});
  TimingPhase second;
  second.name = "second";
  second.compute = {1e-3};
  b.phases.push_back(second);
  b.start = 0.5e-3;
  const TimingResult r = run(t, {a, b});
  const double ms = kSize / kBandwidth;
  expect_time(r.jobs[1].start, ms, "host 5 is job 1's until it ends");
  expect_time(r.jobs[1].end, 2 * ms + 1e-3);
  expect_time(r.makespan, 2 * ms + 1e-3);
}

// The collision above, routed adaptively: each message is split over the leaf's 4 up-ports,
// every up-link carries a quarter of each, and both finish at size / bandwidth.
TEST(TimingSim, AdaptiveRoutingSpreadsWhatDmodKCollides) {
  const Tree t;
  std::vector<std::size_t> hosts(16);
  for (std::size_t i = 0; i < 16; ++i) hosts[i] = i;
  const std::vector<TimingJob> jobs{job_on(t, 2, hosts, {{0, 4, kSize}, {1, 8, kSize}})};
  const auto adaptive = adaptive_routes(t.fabric);
  const TimingResult r = simulate_timing(t.fabric, jobs, *adaptive);
  expect_time(r.jobs[0].end, kSize / kBandwidth);
  std::size_t used = 0;
  for (const double b : r.link_bytes) used += b > 0 ? 1 : 0;
  EXPECT_EQ(used, 4u + 4u + 2u * 4u) << "4 host links, the leaf's 4 up-links, 4 down per message";
}

TEST(TimingSim, ABarrierHoldsEveryRankUntilTheLastArrives) {
  const Tree t;
  TimingJob j = job_on(t, 1, {0, 5}, {});
  j.phases[0].compute = {1e-3, 0};
  TimingPhase exchange;
  exchange.name = "exchange";
  exchange.messages = {{1, 0, kSize}};
  j.phases.push_back(exchange);
  const double ms = kSize / kBandwidth;
  expect_time(run(t, {j}).jobs[0].end, std::max(1e-3, ms), "rank 1 sends at once");
  j.phases[1].barrier_before = true;
  expect_time(run(t, {j}).jobs[0].end, 1e-3 + ms, "rank 1 sends once rank 0 is done");
}

// Applications of the application model run phase by phase; a rank cannot send its iteration's
// bytes faster than its link, so for these symmetric exchanges (every rank sends what it
// receives) the job never beats the model's contention-free estimate.
TEST(TimingSim, ApplicationsNeverBeatTheirContentionFreeEstimate) {
  const Tree t;
  std::vector<std::size_t> hosts(16);
  for (std::size_t i = 0; i < 16; ++i) hosts[i] = i;
  for (const char* text : {"stencil4d:dims=2x2x2x2,bytes=1M,iter=3,compute=1ms,gpu=1",
                           "subcomm3d:dims=2x2x4,bytes=256K,iter=2,compute=0.5ms,gpu=2"}) {
    const AppProgram program = generate_app(AppSpec::parse(text), 16, 1);
    TimingJob j = job_on(t, 1, hosts, {});
    j.phases = timing_phases(program);
    for (const char* nic : {"fcfs", "rr"}) {
      TimingOptions o;
      o.nic = NicPolicy::parse(nic);
      const TimingResult r = run(t, {j}, o);
      const AppProfile bound = estimate_profile(program, kBandwidth);
      EXPECT_GE(r.jobs[0].end, (bound.compute_s + bound.comm_s) * (1 - 1e-12)) << text << nic;
      EXPECT_NEAR(r.jobs[0].compute_time, bound.compute_s, 1e-15) << text;
      std::uint64_t messages = 0;
      for (const AppPhase& p : program.phases) messages += p.messages.size() * p.iterations;
      EXPECT_EQ(r.jobs[0].messages, messages) << text;
    }
  }
}

TEST(TimingSim, LinksAreSampledPerInterval) {
  const Tree t;
  TimingOptions o;
  o.sample_interval = 0.25e-3;
  const TimingResult r = run(t, {job_on(t, 1, {0, 5}, {{0, 1, kSize}})}, o);
  ASSERT_EQ(r.samples.size(), 4u * 4u) << "4 links x 4 intervals";
  for (const LinkSample& s : r.samples) EXPECT_NEAR(s.bytes, kSize / 4.0, 1e-6);
}

TEST(TimingSim, BadJobsAreRefusedNamingTheJob) {
  const Tree t;
  const auto refused = [&](TimingJob j, const std::string& what) {
    try {
      run(t, {j});
      ADD_FAILURE() << "taken: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("job 7"), std::string::npos) << e.what();
    }
  };
  refused(job_on(t, 7, {}, {}), "no nodes");
  refused(job_on(t, 7, {1, 1}, {}), "a node twice");
  refused(job_on(t, 7, {1, 2}, {{0, 2, 1}}), "rank 2 of 2");
  refused(job_on(t, 7, {1, 2}, {{0, 0, 1}}), "to itself");
  refused(job_on(t, 7, {1, 2}, {{0, 1, 0}}), "no bytes");
  refused(job_on(t, 7, {1, 2}, {}, 0), "0 iterations");
  refused(job_on(t, 7, {1, 2}, {}, 1, -1), "negative compute");
  TimingJob spine = job_on(t, 7, {1}, {});
  spine.nodes = {t.fabric.switches().front()};
  refused(spine, "a switch");
  EXPECT_THROW(run(t, {job_on(t, 7, {1}, {}), job_on(t, 7, {2}, {})}), std::invalid_argument);
}

TEST(TimingSim, NicPoliciesParseStrictly) {
  EXPECT_EQ(NicPolicy::parse("fcfs").limit(), 1u);
  EXPECT_EQ(NicPolicy::parse("rr-4").limit(), 4u);
  EXPECT_EQ(NicPolicy::parse("rr-4").to_string(), "rr-4");
  EXPECT_EQ(NicPolicy::parse("rr").to_string(), "rr");
  for (const char* bad : {"", "rr-", "rr-0", "rr-x", "rr-4x", "fifo", "RR", "rr-99999"}) {
    EXPECT_THROW(NicPolicy::parse(bad), std::invalid_argument) << bad;
  }
}

// --- Traffic classes and background traffic (seed 004) ---------------------------------

/// XGFT(2;2,2;1,1): two leaves of two hosts under one spine. Host 0 -> host 2 and host 1 -> host
/// 3 both cross leaf 0 -> spine -> leaf 1: two jobs that share links without sharing nodes.
Tree one_spine() {
  return Tree(1, {2, 2}, {1, 1});
}

TimingJob in_class(TimingJob j, std::uint8_t c) {
  j.traffic_class = c;
  return j;
}

TimingOptions with_classes(std::vector<TrafficClass> classes) {
  TimingOptions o;
  o.flow.classes = std::move(classes);
  return o;
}

TEST(TimingQos, HighPriorityJobRunsAsFastAsAlone) {
  const Tree t = one_spine();
  const double ms = kSize / kBandwidth;
  const std::vector<TimingJob> jobs{in_class(job_on(t, 1, {0, 2}, {{0, 1, kSize}}), 0),
                                    in_class(job_on(t, 2, {1, 3}, {{0, 1, kSize}}), 1)};
  // One class: the spine links are shared, both end at 2 ms.
  const TimingResult shared = run(t, {in_class(jobs[0], 0), in_class(jobs[1], 0)});
  expect_time(shared.jobs[0].end, 2 * ms);
  expect_time(shared.jobs[1].end, 2 * ms);
  // Class 0 above class 1: job 1 takes what it needs first (1 ms, its time alone), job 2 the rest.
  const TimingResult prio = run(t, jobs, with_classes({{1, 1.0}, {0, 1.0}}));
  expect_time(prio.jobs[0].end, ms);
  expect_time(prio.jobs[1].end, 2 * ms);
}

TEST(TimingQos, CappedClassStaysUnderItsCapOnEveryLinkAndBorrowsOnlyWhatIsLeft) {
  const Tree t = one_spine();
  const double ms = kSize / kBandwidth;
  const std::vector<TimingJob> jobs{in_class(job_on(t, 1, {0, 2}, {{0, 1, kSize}}), 0),
                                    in_class(job_on(t, 2, {1, 3}, {{0, 1, kSize}}), 1)};
  // Job 1 high but capped at a quarter; job 2 gets 3/4 and ends at 4/3 ms, when job 1 has sent a
  // third. A hard cap keeps job 1 at a quarter (2/3 more take 8/3 ms): 4 ms.
  TimingOptions o = with_classes({{1, 0.25}, {0, 1.0}});
  o.sample_interval = ms / 2;
  const TimingResult hard = run(t, jobs, o);
  expect_time(hard.jobs[1].end, 4 * ms / 3);
  expect_time(hard.jobs[0].end, 4 * ms);
  // After 4/3 ms the hard-capped class is alone: every half millisecond from 1.5 ms on, every
  // link it crosses carries exactly a quarter of its bandwidth.
  std::size_t checked = 0;
  for (const LinkSample& s : hard.samples) {
    if (s.interval < 3 || s.interval >= 8) continue;
    EXPECT_NEAR(s.bytes, 0.25 * kBandwidth * ms / 2, 1e-6) << "interval " << s.interval;
    ++checked;
  }
  EXPECT_EQ(checked, 5u * 4u) << "5 intervals x 4 links (host, leaf-spine, spine-leaf, host)";
  // Borrowing (seed 004: the cap holds while the link is oversubscribed): the rest at full rate.
  o.flow.classes[0].borrow = true;
  const TimingResult borrowing = run(t, jobs, o);
  expect_time(borrowing.jobs[1].end, 4 * ms / 3);
  expect_time(borrowing.jobs[0].end, 4 * ms / 3 + 2 * ms / 3);
}

TEST(TimingQos, CollectivesInAHighClassPassTheHaloOnTheNic) {
  const Tree t = one_spine();
  const double ms = kSize / kBandwidth;
  // Rank 0 posts a halo message, then an allreduce's (a hundredth of it) to the same rank.
  TimingJob j = job_on(t, 1, {0, 2}, {{0, 1, kSize}, {0, 1, kSize / 100}});
  j.phases[0].collective = {0, 1};
  std::vector<double> delivered;
  TimingOptions o = with_classes({{0, 1.0}, {1, 1.0}});
  o.on_delivered = [&](const DeliveredMessage& m) { delivered.push_back(m.delivered); };
  // FCFS, one class: the collective waits for the halo.
  (void)run(t, {j}, o);
  ASSERT_EQ(delivered.size(), 2u);
  expect_time(delivered[1], 1.01 * ms);
  // In class 1 (above 0) it has its own NIC queue and the links first.
  delivered.clear();
  j.collective_class = 1;
  const TimingResult r = run(t, {j}, o);
  ASSERT_EQ(delivered.size(), 2u);
  expect_time(delivered[0], 0.01 * ms);
  expect_time(r.jobs[0].end, 1.01 * ms);
}

TimingJob background_on(const Tree& t, std::uint64_t id, std::vector<std::size_t> hosts,
                        double load, double duration = 0) {
  TimingJob j;
  j.id = id;
  for (const std::size_t h : hosts) j.nodes.push_back(t.host(h));
  j.background =
      BackgroundTraffic{.bytes = kSize / 10.0, .load = load, .duration = duration, .seed = 7};
  return j;
}

TEST(TimingQos, BackgroundSlowsAJobUnlessItsClassIsAbove) {
  const Tree t = one_spine();
  const double ms = kSize / kBandwidth;
  const TimingJob fg = job_on(t, 1, {0, 2}, {{0, 1, kSize}});
  TimingJob bg = in_class(background_on(t, 2, {1, 3}, 0.8), 1);
  // Same class: the background's messages share the spine links; the job takes longer.
  const TimingResult same = run(t, {fg, in_class(bg, 0)});
  EXPECT_GT(same.jobs[0].end, 1.2 * ms);
  // Above the background: exactly its time alone. The background stops when the job ends.
  const TimingResult above = run(t, {fg, bg}, with_classes({{1, 1.0}, {0, 1.0}}));
  expect_time(above.jobs[0].end, ms);
  EXPECT_EQ(above.jobs[1].end, above.jobs[0].end);
  EXPECT_EQ(above.jobs[1].status, "background");
  // Each node offers 0.8 of its link in tenth-millisecond messages: one every 0.125 ms from an
  // offset below that, 8 in the job's 1 ms. Host 1's cross the spine behind the job and none
  // arrives; host 3's go the other way, 0.1 ms each one after the other: 6 to 8 arrive.
  const TimedJob& b = above.jobs[1];
  EXPECT_EQ(b.messages + b.unfinished, 16u);
  EXPECT_GE(b.messages, 6u);
  EXPECT_LE(b.messages, 8u);
  expect_time(b.max_comm_time, 0.1 * ms);
}

TEST(TimingQos, BackgroundWithADurationStopsAndDrains) {
  const Tree t = one_spine();
  const double ms = kSize / kBandwidth;
  // 0.2 ms of background at half load in tenth-millisecond messages, then nothing: the job (10
  // ms of compute, then a small message) outlasts it.
  const TimingJob fg = job_on(t, 1, {0, 2}, {{0, 1, 1000}}, 1, 10 * ms);
  const TimingResult r = run(t, {fg, background_on(t, 2, {1, 3}, 0.5, 0.2 * ms)});
  const TimedJob& b = r.jobs[1];
  // A message every 0.2 ms per node from an offset below 0.2 ms: one each before the end. They
  // cross the spine in opposite directions: 0.1 ms each, undisturbed.
  EXPECT_EQ(b.unfinished, 0u);
  EXPECT_EQ(b.messages, 2u);
  expect_time(b.comm_time, 0.1 * ms);
  expect_time(b.max_comm_time, 0.1 * ms);
  // It ends at its first injection time past the duration (the last delivery is before it).
  EXPECT_GE(b.end, 0.2 * ms);
  EXPECT_LT(b.end, 0.4 * ms);
  expect_time(r.jobs[0].end, 10 * ms + 1000 / kBandwidth);
}

TEST(TimingQos, RefusesBadBackgroundJobs) {
  const Tree t = one_spine();
  const auto refused = [&](TimingJob j, const std::string& says) {
    try {
      (void)run(t, {j});
      ADD_FAILURE() << "accepted: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(background_on(t, 1, {1}, 0.5), "2 nodes or more");
  refused(background_on(t, 1, {1, 3}, 0), "load not in (0, 1]");
  refused(background_on(t, 1, {1, 3}, 1.5), "load not in (0, 1]");
  refused(background_on(t, 1, {1, 3}, 0.5, -1), "duration");
  TimingJob phased = background_on(t, 1, {1, 3}, 0.5);
  phased.phases = job_on(t, 1, {1, 3}, {}).phases;
  refused(phased, "no phases");
  TimingJob flags = job_on(t, 1, {0, 2}, {{0, 1, kSize}});
  flags.phases[0].collective = {1, 0};
  refused(flags, "collective flags for 2 of 1 messages");
}

}  // namespace
}  // namespace ibsdn
