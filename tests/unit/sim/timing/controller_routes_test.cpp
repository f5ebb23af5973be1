// The controller's routes in the timing simulator (sim_backend/timing/controller_routes.hpp): the
// controller is told a job's traffic at its start, and the job's messages take the paths its
// entries install.
#include "sim_backend/timing/controller_routes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {
namespace {

constexpr double kGbps = 100;
constexpr double kBandwidth = kGbps * 1e9 / 8;  // bytes/s
constexpr std::uint64_t kSize = 12'500'000;     // 1 ms at kBandwidth

/// XGFT(2;4,4;1,4) with sequential LIDs and its DmodK LFTs.
struct Tree {
  Subnet subnet;
  LftSet lfts;
  Tree() {
    subnet.fabric = generate_xgft(XgftParams::parse("2;4,4;1,4"), 1, kGbps);
    subnet.lids = sequential_lids(subnet.fabric);
    lfts = default_tables(subnet.fabric, subnet.lids).lfts;
  }
};

/// One job on all 16 hosts whose two messages DmodK sends up one link of leaf 0: host 0 -> 4 and
/// host 1 -> 8 (destinations equal mod 4 take the same spine).
std::vector<TimingJob> colliding(const Tree& t) {
  TimingJob j;
  j.id = 7;
  j.nodes = t.subnet.fabric.hcas();
  TimingPhase p;
  p.name = "perm";
  p.messages = {{0, 4, kSize}, {1, 8, kSize}};
  j.phases.push_back(p);
  return {j};
}

ReplayOptions options(const std::string& routing) {
  ReplayOptions o;
  o.routing = routing;
  o.ranks_per_node = 1;
  return o;
}

void expect_time(double got, double want) {
  EXPECT_NEAR(got, want, 1e-12 * want) << "want " << want;
}

TEST(ControllerRoutes, SdnOptimalSeparatesWhatDmodKCollides) {
  const Tree t;
  const std::vector<TimingJob> jobs = colliding(t);
  const auto lft = lft_routes(t.subnet.fabric, t.lfts);
  expect_time(simulate_timing(t.subnet.fabric, jobs, *lft).jobs[0].end, 2 * kSize / kBandwidth);

  const auto sdn = controller_routes(t.subnet, t.lfts, options("sdn-optimal"));
  const TimingResult r = simulate_timing(t.subnet.fabric, jobs, *sdn);
  expect_time(r.jobs[0].end, kSize / kBandwidth);
  EXPECT_EQ(r.jobs[0].status, "ok");
  const double busiest = *std::max_element(r.link_bytes.begin(), r.link_bytes.end());
  EXPECT_EQ(busiest, static_cast<double>(kSize)) << "no link carries both messages";
}

// Elephants (thesis 4.1): the controller routes the pairs that send at least the threshold in one
// pass; below it a pair keeps the fabric's path, here DmodK's, and the two messages collide.
TEST(ControllerRoutes, PairsBelowTheElephantThresholdKeepTheFabricsPaths) {
  const Tree t;
  const std::vector<TimingJob> jobs = colliding(t);
  const auto at = controller_routes(t.subnet, t.lfts, options("sdn-optimal"), {}, kSize);
  expect_time(simulate_timing(t.subnet.fabric, jobs, *at).jobs[0].end, kSize / kBandwidth);
  const auto above = controller_routes(t.subnet, t.lfts, options("sdn-optimal"), {}, kSize + 1);
  const TimingResult r = simulate_timing(t.subnet.fabric, jobs, *above);
  expect_time(r.jobs[0].end, 2 * kSize / kBandwidth);
  const double busiest = *std::max_element(r.link_bytes.begin(), r.link_bytes.end());
  EXPECT_EQ(busiest, 2.0 * kSize) << "both messages on DmodK's shared up-link";
  for (const double bad : {-1.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THROW((void)controller_routes(t.subnet, t.lfts, options("sdn-optimal"), {}, bad),
                 std::invalid_argument);
  }
}

// The install backend (ReplayOptions::install_backend): hosts 0, 1 and 2 of leaf 0 send to 4, 8
// and 12, all on one up-link under DmodK; separating them takes two entries at leaf 0. A flow
// table of one entry leaves two messages sharing the link; the LFT has a slot for every DLID.
TEST(ControllerRoutes, TheJobsMessagesTakeTheRoutesOfTheInstallBackend) {
  const Tree t;
  TimingJob j;
  j.id = 7;
  j.nodes = t.subnet.fabric.hcas();
  TimingPhase p;
  p.name = "three";
  p.messages = {{0, 4, kSize}, {1, 8, kSize}, {2, 12, kSize}};
  j.phases.push_back(p);
  const std::vector<TimingJob> jobs = {j};
  const auto end_with = [&](InstallBackend backend, std::uint32_t capacity) {
    ReplayOptions o = options("sdn-optimal");
    o.install_backend = backend;
    o.table_capacity = capacity;
    const auto routes = controller_routes(t.subnet, t.lfts, o);
    const TimingResult r = simulate_timing(t.subnet.fabric, jobs, *routes);
    // One flow stays on the default route for want of room: the controller says degraded.
    EXPECT_EQ(r.jobs[0].status, backend == InstallBackend::kFlowTable ? "degraded" : "ok");
    return r.jobs[0].end;
  };
  const auto lft = lft_routes(t.subnet.fabric, t.lfts);
  expect_time(simulate_timing(t.subnet.fabric, jobs, *lft).jobs[0].end, 3 * kSize / kBandwidth);
  expect_time(end_with(InstallBackend::kFlowTable, 1), 2 * kSize / kBandwidth);
  expect_time(end_with(InstallBackend::kLft, 1), kSize / kBandwidth);
  expect_time(end_with(InstallBackend::kAuto, 4096), kSize / kBandwidth);
}

TEST(ControllerRoutes, TheNextJobStartsAfterTheControllerEndedThePrevious) {
  const Tree t;
  std::vector<TimingJob> jobs = colliding(t);
  TimingJob second = jobs[0];
  second.id = 8;
  jobs.push_back(second);
  const auto sdn = controller_routes(t.subnet, t.lfts, options("sdn-optimal"));
  const TimingResult r = simulate_timing(t.subnet.fabric, jobs, *sdn);
  expect_time(r.jobs[1].start, kSize / kBandwidth);
  expect_time(r.jobs[1].end, 2 * kSize / kBandwidth);
}

TEST(ControllerRoutes, DmodKIsNotAControllerRouting) {
  const Tree t;
  EXPECT_THROW((void)controller_routes(t.subnet, t.lfts, options("dmodk")), std::invalid_argument);
  EXPECT_THROW((void)controller_routes(t.subnet, t.lfts, options("no-such-routing")),
               std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn

namespace ibsdn {
namespace {

// SDN-adaptive (thesis 4.3.3): a demand of at most a permutation gets SDN-optimal's paths; a
// denser one (host 0 sends twice here) gets no entries and is left to the fabric's adaptive
// routing, which the timing model then applies: the same times and link bytes as routing the job
// adaptively outright.
TEST(ControllerRoutes, SdnAdaptiveIsSdnOptimalOnAPermutationAndAdaptiveOnADenserDemand) {
  const Tree t;
  const auto sdn_adaptive = [&] {
    return controller_routes(t.subnet, t.lfts, options("sdn-adaptive"));
  };
  const std::vector<TimingJob> permutation = colliding(t);
  const auto a = sdn_adaptive();
  expect_time(simulate_timing(t.subnet.fabric, permutation, *a).jobs[0].end, kSize / kBandwidth);

  std::vector<TimingJob> dense = colliding(t);
  dense[0].phases[0].messages = {{0, 4, kSize}, {0, 8, kSize}, {1, 4, kSize}};
  const auto b = sdn_adaptive();
  const TimingResult got = simulate_timing(t.subnet.fabric, dense, *b);
  const auto adaptive = adaptive_routes(t.subnet.fabric);
  const TimingResult want = simulate_timing(t.subnet.fabric, dense, *adaptive);
  EXPECT_EQ(got.jobs[0].end, want.jobs[0].end);
  EXPECT_EQ(got.link_bytes, want.link_bytes);
  const auto lft = lft_routes(t.subnet.fabric, t.lfts);
  const TimingResult dmodk = simulate_timing(t.subnet.fabric, dense, *lft);
  EXPECT_NE(got.link_bytes, dmodk.link_bytes) << "not DmodK's paths";
}

}  // namespace
}  // namespace ibsdn
