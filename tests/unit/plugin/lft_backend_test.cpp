// The LFT backend through the controller's C ABI: a fabric of switches without agents gets the
// jobs' routes as LFT entries (written through the glue's lft_write, as OpenSM would send them),
// the tables trace to the routes the controller reports, a job's end restores every table byte
// for byte, a dry run writes nothing and reports the blocks the real start then writes, and the
// entries come back from the store after a restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "plugin/opensm/abi_fabric.hpp"
#include "routing/lft.hpp"
#include "tests/unit/plugin/controller_harness.hpp"

namespace ibsdn::plugin::test {
namespace {

/// The LFT entries the controller intends (of one job, or of all), per switch GUID: DLID -> port.
std::map<std::uint64_t, std::map<std::uint16_t, std::uint8_t>> lft_intent(
    const std::string& sock, std::optional<std::uint64_t> job = std::nullopt) {
  json q = {{"v", 1}, {"op", "flows"}};
  if (job) q["job"] = *job;
  const json r = ask(sock, q);
  std::map<std::uint64_t, std::map<std::uint16_t, std::uint8_t>> out;
  for (const json& sw : r.at("switches")) {
    const std::uint64_t guid = std::stoull(sw.at("guid").get<std::string>(), nullptr, 16);
    for (const json& e : sw.at("entries")) {
      if (e.at("backend") != "lft") continue;
      const FlowEntry f = flow_from_json(e);
      out[guid][f.match.dlid->value] = f.action.output.value();
    }
  }
  return out;
}

/// Every LID where two table sets differ, per switch GUID.
std::map<std::uint64_t, std::set<std::uint16_t>> differing(
    const std::map<std::uint64_t, std::vector<std::uint8_t>>& a,
    const std::map<std::uint64_t, std::vector<std::uint8_t>>& b) {
  std::map<std::uint64_t, std::set<std::uint16_t>> out;
  for (const auto& [g, t] : a) {
    const auto& u = b.at(g);
    for (std::size_t lid = 0; lid < t.size() && lid < u.size(); ++lid) {
      if (t[lid] != u[lid]) out[g].insert(static_cast<std::uint16_t>(lid));
    }
  }
  return out;
}

struct LftBed {
  TestFabric s;
  FakeGlue glue;
  std::map<std::uint64_t, std::vector<std::uint8_t>> defaults;
  explicit LftBed(std::uint8_t lmc = 0) : s(lmc) {
    glue.enable_lfts(s.lfts);
    defaults = glue.lfts();
  }
};

TEST(LftBackend, AgentlessSwitchesTakeTheJobsRoutesInTheirLftsAndJobEndRestoresThemExactly) {
  LftBed b;
  Sandbox box;
  Running run(b.glue, box, b.s);
  const json r = ask(box.socket(), job_start(70, "random-perm"));
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  EXPECT_EQ(r.at("backend"), "auto");
  EXPECT_EQ(r.at("backends").at("flow_table").at("entries"), 0);
  const std::uint64_t lft_entries = r.at("backends").at("lft").at("entries").get<std::uint64_t>();
  ASSERT_GT(lft_entries, 0u) << r.dump();
  EXPECT_EQ(r.at("entries").get<std::uint64_t>(), lft_entries);
  EXPECT_EQ(r.at("backends").at("lft").at("blocks").get<std::size_t>(),
            b.glue.lft_blocks_written());

  // The tables hold exactly the intended LFT entries over the defaults.
  const auto now = b.glue.lfts();
  const auto intent = lft_intent(box.socket());
  const auto changed = differing(b.defaults, now);
  for (const auto& [g, lids] : changed) {
    for (const std::uint16_t lid : lids) {
      ASSERT_TRUE(intent.contains(g) && intent.at(g).contains(lid)) << "LID " << lid;
    }
  }
  for (const auto& [g, entries] : intent) {
    for (const auto& [lid, port] : entries) EXPECT_EQ(now.at(g).at(lid), port) << "LID " << lid;
  }
  // The jobs view says where the entries are.
  const json jobs = ask(box.socket(), {{"v", 1}, {"op", "jobs"}});
  EXPECT_EQ(jobs.at("jobs").at(0).at("lft_entries").get<std::uint64_t>(), lft_entries);

  const json end = ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 70}});
  ASSERT_TRUE(end.value("ok", false)) << end.dump();
  EXPECT_EQ(b.glue.lfts(), b.defaults);
}

/// Random4 sends to each destination from several sources: the routes must fit one port per
/// destination on every LFT switch, so no flow is left on its default route for want of one.
TEST(LftBackend, ManySourcesPerDestinationAreRoutedToFitTheLft) {
  LftBed b;
  Sandbox box("install_backend: lft\nalgorithms: {fat_tree: sdn-volume}\n");
  Running run(b.glue, box, b.s);
  const json r = ask(box.socket(), job_start(74, "random4"));
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  EXPECT_FALSE(r.at("off_path_counts").contains("no_entry")) << r.dump();
  EXPECT_GT(r.at("backends").at("lft").at("entries").get<std::uint64_t>(), 0u) << r.dump();
}

/// `flows --from-switch` reads the LFT blocks: an entry is listed while the switch's LFT holds its
/// port, and no longer once the table was changed behind the controller's back.
TEST(LftBackend, FlowsFromTheSwitchesListTheLftEntriesTheTablesHold) {
  LftBed b;
  Sandbox box;
  Running run(b.glue, box, b.s);
  ASSERT_TRUE(ask(box.socket(), job_start(75, "random-perm")).value("ok", false));
  const json from_switch = {{"v", 1}, {"op", "flows"}, {"job", 75}, {"from_switch", true}};
  const auto texts = [](const json& r) {
    std::multiset<std::string> out;
    for (const json& sw : r.at("switches")) {
      for (const json& e : sw.at("entries")) {
        EXPECT_EQ(e.at("backend"), "lft") << e.dump();
        out.insert(sw.at("name").get<std::string>() + " " + e.at("text").get<std::string>());
      }
    }
    return out;
  };
  const json intent = ask(box.socket(), {{"v", 1}, {"op", "flows"}, {"job", 75}});
  const json held = ask(box.socket(), from_switch);
  ASSERT_TRUE(held.value("ok", false)) << held.dump();
  EXPECT_EQ(held.at("source"), "switch");
  ASSERT_FALSE(texts(intent).empty());
  EXPECT_EQ(texts(held), texts(intent));

  // One entry's LID changed on its switch: that entry is no longer held there.
  const json& sw = intent.at("switches").at(0);
  const std::uint64_t g = std::stoull(sw.at("guid").get<std::string>(), nullptr, 16);
  const FlowEntry e = flow_from_json(sw.at("entries").at(0));
  auto table = b.glue.lfts().at(g);
  table.at(e.match.dlid->value) = static_cast<std::uint8_t>(e.action.output.value() + 1);
  b.glue.set_lft(g, table);
  EXPECT_EQ(texts(ask(box.socket(), from_switch)).size(), texts(intent).size() - 1);
  // A switch that does not answer: its blocks are named in a warning.
  b.glue.silence_lft(g);
  const json silent = ask(box.socket(), from_switch);
  EXPECT_NE(silent.at("warnings").dump().find("not read"), std::string::npos) << silent.dump();
}

/// Two jobs sharing nodes without LMC: an LFT entry serves every source of its DLID, so the
/// second job keeps the first one's trees towards the shared nodes, says which flows that
/// affects, and never overwrites the first job's entries; the tables always hold one job's port
/// per (switch, DLID), and ending both restores the defaults.
TEST(LftBackend, ASecondJobOnSharedNodesKeepsTheFirstOwnersTreesAndSaysSo) {
  LftBed b;
  Sandbox box("install_backend: lft\n");
  Running run(b.glue, box, b.s);
  const json first = ask(box.socket(), job_start(76, "random-perm"));
  ASSERT_TRUE(first.value("ok", false)) << first.dump();
  ASSERT_GT(first.at("backends").at("lft").at("entries").get<std::uint64_t>(), 0u);
  const auto after_first = b.glue.lfts();
  const auto first_intent = lft_intent(box.socket());
  // The same nodes (Slurm's OverSubscribe), every pair: each of the first job's LFT entries is on
  // the way of some of the second job's flows to that destination.
  const json second = ask(box.socket(), job_start(77, "all-to-all"));
  ASSERT_TRUE(second.value("ok", false)) << second.dump();
  // The first job's entries are still on the switches, each with its port.
  const auto now = b.glue.lfts();
  for (const auto& [g, entries] : first_intent) {
    for (const auto& [lid, port] : entries) EXPECT_EQ(now.at(g).at(lid), port) << "LID " << lid;
  }
  // The listed flows do follow one of the first job's LFT entries (ibsdnctl route says so).
  ASSERT_GT(second.at("off_path_counts").value("shared_destination", 0), 0) << second.dump();
  EXPECT_NE(second.at("warnings").dump().find("follow that job's tree"), std::string::npos);
  for (const json& o : second.at("off_path")) {
    if (o.at("reason") != "shared_destination") continue;
    EXPECT_EQ(o.at("job"), 76) << o.dump();
    const json route =
        ask(box.socket(), {{"v", 1}, {"op", "route"}, {"src", o.at("src")}, {"dst", o.at("dst")}});
    bool by_first = false;
    for (const json& h : route.at("hops")) {
      by_first = by_first || (h.value("cookie", 0) == 76 && h.value("backend", "") == "lft");
    }
    EXPECT_TRUE(by_first) << o.dump() << " " << route.dump();
  }
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 77}}).value("ok", false));
  EXPECT_EQ(b.glue.lfts(), after_first);
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 76}}).value("ok", false));
  EXPECT_EQ(b.glue.lfts(), b.defaults);
}

/// A job whose tasks send with the path bits the controller gives (`path_bits`, what the Slurm
/// hook sets for a job with the SPANK plugin's options).
json path_bits_job(std::uint64_t job, const std::string& pattern) {
  json r = job_start(job, pattern);
  r["path_bits"] = true;
  return r;
}

/// With LMC 1 every host answers two LIDs: the second job on the same nodes gets LID offset 1
/// (its tasks' path bits), routes on the hosts' second LIDs with LFT entries of its own, and
/// follows no tree of the first job; the first job's entries stay as they were. A job whose tasks
/// would not be told an offset stays on the base LIDs and follows the first job's trees there,
/// as without LMC; so does a job that finds both offsets taken on its nodes.
TEST(LftBackend, WithLmcEachJobOnSharedNodesGetsItsOwnLidsAndTrees) {
  LftBed b(1);
  Sandbox box("install_backend: lft\n");
  Running run(b.glue, box, b.s);
  const json first = ask(box.socket(), path_bits_job(76, "random-perm"));
  ASSERT_TRUE(first.value("ok", false)) << first.dump();
  EXPECT_EQ(first.at("lid_offset"), 0);
  const auto after_first = b.glue.lfts();
  const auto first_intent = lft_intent(box.socket(), 76);
  ASSERT_FALSE(first_intent.empty());
  const json unaware = ask(box.socket(), job_start(78, "all-to-all"));
  ASSERT_TRUE(unaware.value("ok", false)) << unaware.dump();
  EXPECT_EQ(unaware.at("lid_offset"), 0) << unaware.dump();
  EXPECT_GT(unaware.at("off_path_counts").value("shared_destination", 0), 0) << unaware.dump();
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 78}}).value("ok", false));
  EXPECT_EQ(b.glue.lfts(), after_first);
  const json second = ask(box.socket(), path_bits_job(77, "all-to-all"));
  ASSERT_TRUE(second.value("ok", false)) << second.dump();
  EXPECT_EQ(second.at("lid_offset"), 1) << second.dump();
  EXPECT_FALSE(second.at("off_path_counts").contains("shared_destination")) << second.dump();
  EXPECT_FALSE(second.at("off_path_counts").contains("no_entry")) << second.dump();
  // Base LIDs are even, the aliases odd: each job's entries are on its own LIDs only.
  const auto second_intent = lft_intent(box.socket(), 77);
  ASSERT_FALSE(second_intent.empty());
  for (const auto& [g, entries] : first_intent) {
    for (const auto& [lid, port] : entries) EXPECT_EQ(lid % 2, 0) << "LID " << lid;
  }
  for (const auto& [g, entries] : second_intent) {
    for (const auto& [lid, port] : entries) EXPECT_EQ(lid % 2, 1) << "LID " << lid;
  }
  const auto now = b.glue.lfts();
  for (const auto& [g, entries] : first_intent) {
    for (const auto& [lid, port] : entries) EXPECT_EQ(now.at(g).at(lid), port) << "LID " << lid;
  }
  for (const auto& [g, entries] : second_intent) {
    for (const auto& [lid, port] : entries) EXPECT_EQ(now.at(g).at(lid), port) << "LID " << lid;
  }
  // `route --job 77` follows the second job's LIDs and entries; without --job the base LIDs.
  const json jobs = ask(box.socket(), {{"v", 1}, {"op", "jobs"}});
  ASSERT_EQ(jobs.at("jobs").size(), 2u);
  EXPECT_EQ(jobs.at("jobs").at(1).at("lid_offset"), 1) << jobs.dump();
  std::size_t by_second = 0;
  for (int d = 2; d <= 16; ++d) {
    char dst[16];
    std::snprintf(dst, sizeof(dst), "n%04d", d);
    const json route =
        ask(box.socket(), {{"v", 1}, {"op", "route"}, {"src", "n0001"}, {"dst", dst}, {"job", 77}});
    ASSERT_TRUE(route.value("ok", false)) << route.dump();
    EXPECT_EQ(route.at("lid_offset"), 1);
    EXPECT_EQ(route.at("dlid").get<int>() % 2, 1) << route.dump();
    for (const json& h : route.at("hops")) {
      EXPECT_NE(h.value("cookie", 0), 76) << route.dump();
      by_second += h.value("cookie", 0) == 77 ? 1 : 0;
    }
    const json base =
        ask(box.socket(), {{"v", 1}, {"op", "route"}, {"src", "n0001"}, {"dst", dst}});
    EXPECT_EQ(base.at("dlid").get<int>(), route.at("dlid").get<int>() - 1);
  }
  EXPECT_GT(by_second, 0u);
  const json unknown = ask(
      box.socket(), {{"v", 1}, {"op", "route"}, {"src", "n0001"}, {"dst", "n0002"}, {"job", 99}});
  EXPECT_EQ(unknown.at("error").at("code"), "unknown_job") << unknown.dump();

  const json third = ask(box.socket(), path_bits_job(79, "all-to-all"));
  ASSERT_TRUE(third.value("ok", false)) << third.dump();
  EXPECT_EQ(third.at("lid_offset"), 0);
  EXPECT_GT(third.at("off_path_counts").value("shared_destination", 0), 0) << third.dump();
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 79}}).value("ok", false));

  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 77}}).value("ok", false));
  EXPECT_EQ(b.glue.lfts(), after_first);
  ASSERT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "job_end"}, {"job", 76}}).value("ok", false));
  EXPECT_EQ(b.glue.lfts(), b.defaults);
}

TEST(LftBackend, ADryRunWritesNothingAndReportsTheBlocksTheStartThenWrites) {
  LftBed b;
  Sandbox box;
  Running run(b.glue, box, b.s);
  json dry = job_start(71, "random-perm");
  dry["backend"] = "dry_run";
  const json d = ask(box.socket(), dry);
  ASSERT_TRUE(d.value("ok", false)) << d.dump();
  EXPECT_EQ(d.at("dry_run").at("written"), false);
  EXPECT_EQ(b.glue.lfts(), b.defaults);
  EXPECT_EQ(b.glue.lft_blocks_written(), 0u);
  EXPECT_TRUE(ask(box.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").empty());
  // The dry run's block changes are what the start writes.
  const json r = ask(box.socket(), job_start(71, "random-perm"));
  ASSERT_TRUE(r.value("ok", false)) << r.dump();
  const auto now = b.glue.lfts();
  std::size_t changes = 0;
  for (const json& blk : d.at("dry_run").at("lft_blocks")) {
    const std::uint64_t g = std::stoull(blk.at("guid").get<std::string>(), nullptr, 16);
    for (const json& c : blk.at("changes")) {
      const auto lid = c.at("lid").get<std::size_t>();
      EXPECT_EQ(now.at(g).at(lid), c.at("port").get<std::uint8_t>());
      EXPECT_EQ(b.defaults.at(g).at(lid), c.at("default_port").get<std::uint8_t>());
      ++changes;
    }
  }
  std::size_t differ = 0;
  for (const auto& [g, lids] : differing(b.defaults, now)) differ += lids.size();
  EXPECT_EQ(changes, differ);
  EXPECT_EQ(d.at("dry_run").at("lft_blocks_total"), r.at("backends").at("lft").at("blocks"));
  EXPECT_EQ(d.at("max_link_load"), r.at("max_link_load"));
  EXPECT_LE(d.at("dry_run").at("planned").at("max_link_load").get<double>(),
            d.at("dry_run").at("lft_only").at("max_link_load").get<double>() + 1e-9);
}

TEST(LftBackend, TheEntriesComeBackFromTheStoreWhenARestartedOpenSmWroteTheDefaults) {
  LftBed b;
  Sandbox box;
  std::map<std::uint64_t, std::vector<std::uint8_t>> installed;
  {
    Running run(b.glue, box, b.s);
    ASSERT_TRUE(ask(box.socket(), job_start(72, "random-perm")).value("ok", false));
    installed = b.glue.lfts();
    ASSERT_NE(installed, b.defaults);
  }
  // opensm restarted: its engine knew no job and wrote the defaults.
  for (const auto& [g, t] : b.defaults) b.glue.set_lft(g, t);
  Running again(b.glue, box, b.s);
  EXPECT_EQ(b.glue.lfts(), installed) << b.glue.log_text();
}

/// The controller reloads its store when opensm creates it: the engine's first tables after a
/// restart, asked before any SUBNET UP, already hold the stored jobs' LFT entries.
TEST(LftBackend, ARestartedOpenSmsFirstSweepAlreadyWritesTheStoredJobsEntries) {
  LftBed b;
  Sandbox box;
  std::map<std::uint64_t, std::vector<std::uint8_t>> installed;
  {
    Running run(b.glue, box, b.s);
    ASSERT_TRUE(ask(box.socket(), job_start(81, "random-perm")).value("ok", false));
    installed = b.glue.lfts();
    ASSERT_NE(installed, b.defaults);
  }
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &b.glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<osmsdn_lft> tables;
  bytes.reserve(b.s.lfts.size());
  for (const osmsdn_lft& t : b.s.lfts) {
    bytes.emplace_back(t.size, OSMSDN_NO_PATH);
    tables.push_back(osmsdn_lft{t.switch_guid, bytes.back().data(), t.size});
  }
  ASSERT_EQ(osmsdn_compute_lfts(ctx, &b.s.abi.view, tables.data(),
                                static_cast<std::uint32_t>(tables.size())),
            OSMSDN_OK);
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::vector<std::uint8_t>& want = installed.at(tables[i].switch_guid);
    ASSERT_GE(want.size(), bytes[i].size());
    EXPECT_TRUE(std::equal(bytes[i].begin(), bytes[i].end(), want.begin())) << i;
  }
  EXPECT_GE(b.glue.count("jobs' LFT entries kept"), 1u) << b.glue.log_text();
  osmsdn_destroy(ctx);
}

/// A new master after a standby term takes jobs over from the flow tables' cookies; an LFT entry
/// carries none, so a job that only the other master knew is not taken over from the LFTs: the
/// log says so (and the reconcile names such jobs).
TEST(LftBackend, ANewMasterSaysItCannotTakeJobsOverFromLfts) {
  LftBed b;
  Sandbox a;
  Sandbox other;
  {
    Running run(b.glue, a, b.s);  // a is master: job 79 in the LFTs
    ASSERT_TRUE(ask(a.socket(), job_start(79, "random-perm")).value("ok", false));
  }
  b.glue.set_sm_state(OSMSDN_SM_STANDBY);
  Running run(b.glue, other, b.s, false);
  for (int i = 0;
       i < 200 &&
       ask(other.socket(), {{"v", 1}, {"op", "ping"}}).value("sm_state", "") != "STANDBY";
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  b.glue.set_sm_state(OSMSDN_SM_MASTER);
  run.subnet_up();
  EXPECT_GE(b.glue.count("which carry no job id"), 1u) << b.glue.log_text();
  EXPECT_TRUE(ask(other.socket(), {{"v", 1}, {"op", "jobs"}}).at("jobs").empty());
}

TEST(LftBackend, IsRefusedWhenOpenSmRunsAnotherRoutingEngine) {
  LftBed b;
  Sandbox box("install_backend: lft\n");
  FakeGlue& glue = b.glue;
  osmsdn_ctx* ctx = nullptr;
  ASSERT_EQ(osmsdn_create(OSMSDN_ABI_VERSION, &glue.ops(), box.options.c_str(), &ctx), OSMSDN_OK);
  glue.set_ctx(ctx);
  ASSERT_EQ(osmsdn_fabric_updated(ctx, &b.s.abi.view, b.s.lfts.data(),
                                  static_cast<std::uint32_t>(b.s.lfts.size()), "ftree"),
            OSMSDN_OK);
  ASSERT_TRUE(glue.wait_for("audit after SUBNET UP"));
  const json r = ask(box.socket(), job_start(73, "random-perm"));
  EXPECT_FALSE(r.value("ok", true)) << r.dump();
  EXPECT_NE(r.dump().find("routing_engine sdn"), std::string::npos) << r.dump();
  EXPECT_EQ(glue.lfts(), b.defaults);
  osmsdn_stop(ctx);
  glue.join();
  glue.set_ctx(nullptr);
  osmsdn_destroy(ctx);
}

}  // namespace
}  // namespace ibsdn::plugin::test
