// The static load model's replay and the flow-level model agree on which links are loaded for the
// same trace. The static replay (static_replay.hpp) and the timing simulator (timing_sim.hpp)
// run the same jobs — same nodes, same patterns drawn with the same seeds (the job id), the same
// LFTs — and must load exactly the same set of links; the timing model's bytes on a link must
// be what the static model's flows through it carry.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/patterns/mapping.hpp"
#include "routing/patterns/pattern.hpp"
#include "routing/subnet.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/apps/app_spec.hpp"
#include "sim_backend/replay/static_replay.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {
namespace {

TEST(TimingStaticAgreement, Property_RandomTracesLoadTheSameLinksWithTheSameBytes) {
  Subnet subnet;
  subnet.fabric = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  subnet.lids = sequential_lids(subnet.fabric);
  const LftSet lfts = default_tables(subnet.fabric, subnet.lids).lfts;
  const Fabric& f = subnet.fabric;
  const std::vector<std::string> patterns{"ring",       "3dnn",    "random-perm",
                                          "all-to-all", "random4", "shift:k=3"};
  std::size_t compared_links = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::size_t> hosts(f.hcas().size());
    for (std::size_t i = 0; i < hosts.size(); ++i) hosts[i] = i;
    std::shuffle(hosts.begin(), hosts.end(), rng);
    std::vector<ReplayJob> replay;
    std::vector<TimingJob> timed;
    std::size_t next_host = 0;
    for (std::uint64_t id = 1; id <= 5; ++id) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(4, 12)(rng);
      const std::string pattern =
          patterns[std::uniform_int_distribution<std::size_t>(0, patterns.size() - 1)(rng)];
      ReplayJob r;
      r.id = id;
      r.start = std::uniform_real_distribution<double>(0, 1)(rng);
      r.end = r.start + 1;
      for (std::size_t i = 0; i < n; ++i) r.nodes.push_back(f.hcas()[hosts[next_host++]]);
      r.traffic = PatternSpec::parse(pattern);
      replay.push_back(r);

      TimingJob t;
      t.id = id;
      t.start = r.start;
      t.nodes = r.nodes;
      const AppProgram program = generate_app(
          AppSpec::parse(pattern + (pattern.find(':') == std::string::npos ? ":" : ",") + "iter=1"),
          static_cast<std::uint32_t>(n), id);
      t.phases = timing_phases(program);
      timed.push_back(t);
    }
    ReplayConfig config;
    config.ranks_per_node = 1;
    const ReplayResult s = replay_static(subnet, lfts, replay, config);
    const auto routes = lft_routes(f, lfts);
    const TimingResult t = simulate_timing(f, timed, *routes);

    // The bytes each link must carry: every job's host-pair flows along their LFT paths.
    std::vector<double> expected(f.num_links(), 0.0);
    for (const TimingJob& j : timed) {
      for (const TimingPhase& p : j.phases) {
        for (const RankFlow& m : p.messages) {
          const Trace tr = trace(f, lfts, j.nodes[m.src], j.nodes[m.dst]);
          ASSERT_TRUE(tr.ok());
          for (const LinkId l : tr.path) expected[l.value()] += static_cast<double>(m.bytes);
        }
      }
    }
    for (std::size_t l = 0; l < f.num_links(); ++l) {
      const bool static_loaded = s.link_load_seconds[l] > 0;
      const bool timed_loaded = t.link_bytes[l] > 0;
      EXPECT_EQ(static_loaded, timed_loaded) << "seed " << seed << " link " << l;
      EXPECT_NEAR(t.link_bytes[l], expected[l], 1e-6 * expected[l]) << "seed " << seed;
      compared_links += static_loaded ? 1 : 0;
    }
  }
  EXPECT_GT(compared_links, 500u) << "the traces must load a good part of the fabric";
}

}  // namespace
}  // namespace ibsdn
