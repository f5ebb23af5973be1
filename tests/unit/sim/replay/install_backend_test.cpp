// The replay's install backends (ReplayOptions::install_backend): a job's routes as per-flow
// entries in the switches' flow tables (bounded by their capacity) or as destination entries in
// their LFTs (one port per (switch, DLID), no capacity), traced as packets go and restored at the
// job's end.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/default_tables.hpp"
#include "routing/dragonfly.hpp"
#include "routing/lft.hpp"
#include "routing/per_destination.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/replay/replay_lfts.hpp"
#include "sim_backend/replay/replay_session.hpp"
#include "sim_backend/replay/static_replay.hpp"
#include "tests/unit/sim/replay/replay_tree.hpp"

namespace ibsdn {
namespace {

using Tree = test::TreeFabric;

ReplayOptions options(const std::string& routing, InstallBackend backend,
                      std::uint32_t capacity = 4096) {
  ReplayOptions o;
  o.routing = routing;
  o.install_backend = backend;
  o.table_capacity = capacity;
  o.ranks_per_node = 1;
  return o;
}

/// A job on `hosts` (ranks in that order) whose rank pairs are `pairs`, one byte each.
ReplayJob matrix_job(const Tree& t, std::uint64_t id, const std::vector<std::size_t>& hosts,
                     const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  ReplayJob j;
  j.id = id;
  for (const std::size_t h : hosts) j.nodes.push_back(t.host(h));
  TrafficMatrix m;
  for (const auto& [s, d] : pairs) m.flows.push_back(RankFlow{s, d, 1});
  j.traffic = m;
  return j;
}

ReplayJob pattern_job(const Tree& t, std::uint64_t id, const std::vector<std::size_t>& hosts,
                      const std::string& pattern) {
  ReplayJob j;
  j.id = id;
  for (const std::size_t h : hosts) j.nodes.push_back(t.host(h));
  j.traffic = PatternSpec::parse(pattern);
  return j;
}

/// XGFT(2;4,4;1,4): hosts 0, 1 and 2 of leaf 0 send to hosts 4, 8 and 12, whose DmodK up port at
/// leaf 0 is the same (their indices agree mod 4): all three flows on one up-link under the LFTs.
/// Routing them apart takes an entry at leaf 0 for two of them.
ReplayJob three_on_one_uplink(const Tree& t) {
  return matrix_job(t, 1, {0, 1, 2, 4, 8, 12}, {{0, 3}, {1, 4}, {2, 5}});
}

TEST(ReplayInstallBackend, SmallFlowTables_LeaveFlowsOnTheLft_WhereLftEntriesHaveNoCapacity) {
  const Tree t("2;4,4;1,4");
  const ReplayJob job = three_on_one_uplink(t);
  const auto load_with = [&](const ReplayOptions& o) {
    ReplaySession s(t.subnet, t.lfts, o);
    s.start_job(job);
    return s.job_max_load(job.id);
  };
  EXPECT_DOUBLE_EQ(load_with(options("dmodk", InstallBackend::kAuto)), 3.0);
  // One entry fits leaf 0's table: one flow moves, two still share the up-link.
  EXPECT_DOUBLE_EQ(load_with(options("sdn-optimal", InstallBackend::kFlowTable, 1)), 2.0);
  // With room for both, the flow tables reach the bound too.
  EXPECT_DOUBLE_EQ(load_with(options("sdn-optimal", InstallBackend::kFlowTable)), 1.0);

  ReplaySession s(t.subnet, t.lfts, options("sdn-optimal", InstallBackend::kLft, 1));
  const SessionJob& j = s.start_job(job);
  EXPECT_EQ(j.status, "ok");
  EXPECT_DOUBLE_EQ(s.job_max_load(job.id), 1.0);
  EXPECT_EQ(j.entries, 2u);
  EXPECT_EQ(s.entries(), 0u);  // no flow entry on any switch
  EXPECT_EQ(s.lft_entries(), 2u);
  EXPECT_GT(s.lft_blocks(), 0u);
  EXPECT_EQ(s.mads() > 0, true);  // the controller still talks to the agents (audit)
  // The job's end writes the default entries back.
  const std::size_t blocks = s.lft_blocks();
  s.end_job(job.id, 1);
  EXPECT_EQ(s.lft_entries(), 0u);
  EXPECT_GT(s.lft_blocks(), blocks);
  EXPECT_TRUE(s.load().empty_load());
}

TEST(ReplayInstallBackend,
     SeveralSourcesPerDestination_LftRoutesDifferButStayOneTreePerDestination) {
  // All-to-all among two hosts of each of four leaves of a 3-level tree: every destination has
  // seven sources, two per leaf, whose flows per-flow entries may split at their leaf and above.
  const Tree t("3;4,4,2;1,4,2");
  const std::vector<std::size_t> hosts = {0, 1, 4, 5, 16, 17, 20, 21};
  for (const std::string routing : {"sdn-optimal", "sdn-volume"}) {
    SCOPED_TRACE(routing);
    const ReplayJob job = pattern_job(t, 5, hosts, "all-to-all");
    ReplaySession table(t.subnet, t.lfts, options(routing, InstallBackend::kFlowTable));
    const SessionJob& a = table.start_job(job);
    ReplaySession lft(t.subnet, t.lfts, options(routing, InstallBackend::kLft));
    const SessionJob& b = lft.start_job(job);
    ASSERT_EQ(a.flows.size(), b.flows.size());
    for (std::size_t i = 0; i < a.flows.size(); ++i) {
      ASSERT_EQ(a.flows[i].src, b.flows[i].src);
      ASSERT_EQ(a.flows[i].dst, b.flows[i].dst);
    }
    std::string why;
    EXPECT_FALSE(per_destination_consistent(t.subnet.fabric, a.flows, a.paths, &why))
        << "the per-flow routes fit one port per destination already: no case";
    EXPECT_TRUE(per_destination_consistent(t.subnet.fabric, b.flows, b.paths, &why)) << why;
    EXPECT_NE(a.paths, b.paths);
    EXPECT_EQ(b.status, "ok");
    EXPECT_EQ(lft.entries(), 0u);
    EXPECT_GT(lft.lft_entries(), 0u);
    // What the session reports is what the fabric carries, and every path is as short as the
    // default one (shortest up*/down*: the LFT entries keep the tree deadlock-free).
    EXPECT_EQ(b.paths, test::fresh_paths(t, lft, job.id));
    std::size_t moved = 0;  // flows the LFT entries take off DmodK's path
    for (std::size_t i = 0; i < b.flows.size(); ++i) {
      const Trace plain = trace(t.subnet.fabric, t.lfts, b.flows[i].src, b.flows[i].dst);
      ASSERT_TRUE(plain.ok());
      EXPECT_EQ(b.paths[i].size(), plain.path.size()) << "flow " << i;
      moved += b.paths[i] != plain.path ? 1 : 0;
    }
    EXPECT_GT(moved, 0u);
    // Per-flow entries are never worse here; the constraint costs at most what DmodK would.
    ReplaySession dmodk(t.subnet, t.lfts, options("dmodk", InstallBackend::kAuto));
    dmodk.start_job(job);
    EXPECT_LE(table.job_max_load(job.id), lft.job_max_load(job.id) + 1e-9);
    EXPECT_LE(lft.job_max_load(job.id), dmodk.job_max_load(job.id) + 1e-9);
  }
}

TEST(ReplayInstallBackend, Auto_IsTheFlowTables_AsEverySimulatedSwitchRunsAnAgent) {
  const Tree t("2;4,4;1,4");
  const ReplayJob job = three_on_one_uplink(t);
  ReplaySession a(t.subnet, t.lfts, options("sdn-optimal", InstallBackend::kAuto));
  ReplaySession f(t.subnet, t.lfts, options("sdn-optimal", InstallBackend::kFlowTable));
  EXPECT_EQ(a.start_job(job).paths, f.start_job(job).paths);
  EXPECT_EQ(a.entries(), f.entries());
  EXPECT_GT(a.entries(), 0u);
  EXPECT_EQ(a.lft_blocks(), 0u);
}

TEST(ReplayInstallBackend, StaticReplay_CountsLftBlocksAndEntries) {
  const Tree t("2;4,4;1,4");
  std::vector<ReplayJob> jobs = {three_on_one_uplink(t)};
  jobs[0].start = 0;
  jobs[0].end = 10;
  ReplayConfig c;
  static_cast<ReplayOptions&>(c) = options("sdn-optimal", InstallBackend::kLft);
  const ReplayResult r = replay_static(t.subnet, t.lfts, jobs, c);
  EXPECT_DOUBLE_EQ(r.max_swml, 1.0);
  EXPECT_EQ(r.peak_entries, 0u);
  EXPECT_EQ(r.peak_lft_entries, 2u);
  EXPECT_GE(r.lft_blocks, 2u);  // written at the start, written back at the end
  EXPECT_EQ(r.jobs[0].entries, 2u);
}

TEST(ReplayInstallBackend, DryRunAndLftOffAFatTree_AreRefused) {
  const Tree t("2;4,4;1,4");
  try {
    ReplaySession s(t.subnet, t.lfts, options("sdn-optimal", InstallBackend::kDryRun));
    ADD_FAILURE() << "dry_run accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dry_run"), std::string::npos) << e.what();
  }
  Subnet df;
  df.fabric = generate_dragonfly(DragonflyParams{2, 4, 2, 5});
  df.lids = sequential_lids(df.fabric);
  const LftSet lfts = default_tables(df.fabric, df.lids).lfts;
  try {
    ReplaySession s(df, lfts, options("df-minimal", InstallBackend::kLft));
    ADD_FAILURE() << "lft accepted on a dragonfly";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a fat-tree"), std::string::npos) << e.what();
  }
  // The LFTs alone need no controller: dmodk replays whatever the backend.
  EXPECT_NO_THROW(ReplaySession(t.subnet, t.lfts, options("dmodk", InstallBackend::kLft)));
}

TEST(ReplayLfts, WritesOnlyTheSwitchesItHas_AndReadsBackWhatItWrote) {
  const Tree t("2;4,4;1,4");
  ReplayLfts l(t.subnet.fabric, t.lfts);
  const NodeIdx leaf = t.subnet.fabric.switches().front();
  const Guid g = t.subnet.fabric.node(leaf).guid;
  plugin::LftBlock b{g, 0, {}};
  for (std::size_t i = 0; i < kLftBlockSize; ++i) {
    b.ports[i] = t.lfts.table(leaf).out(Lid(static_cast<std::uint16_t>(i))).value();
  }
  const Lid dlid = t.subnet.lids.lid(t.host(4));
  const PortNum other(b.ports[dlid.value()] == 5 ? 6 : 5);
  b.ports[dlid.value()] = other.value();
  const plugin::LftWriteResult w =
      l.write(std::vector<plugin::LftBlock>{b, plugin::LftBlock{Guid(0xdead), 0, {}}},
              std::chrono::milliseconds(1));
  EXPECT_EQ(w.blocks, 1u);
  ASSERT_EQ(w.failed.size(), 1u);
  EXPECT_TRUE(w.failed.contains(Guid(0xdead)));
  EXPECT_EQ(l.changed_port(leaf, dlid), other);
  EXPECT_EQ(l.changed_entries(), 1u);
  std::vector<plugin::LftBlock> back = {plugin::LftBlock{g, 0, {}}};
  EXPECT_EQ(l.read(back, std::chrono::milliseconds(1)), std::vector<bool>{true});
  EXPECT_EQ(back[0], b);
}

}  // namespace
}  // namespace ibsdn
