// The LFT backend through the controller's C ABI: a fabric of switches without agents gets the
// jobs' routes as LFT entries (written through the glue's lft_write, as OpenSM would send them),
// the tables trace to the routes the controller reports, a job's end restores every table byte
// for byte, a dry run writes nothing and reports the blocks the real start then writes, and the
// entries come back from the store after a restart.
#include <gtest/gtest.h>

#include "plugin/opensm/abi_fabric.hpp"
#include "routing/lft.hpp"
#include "tests/unit/plugin/controller_harness.hpp"

namespace ibsdn::plugin::test {
namespace {

/// The LFT entries the controller intends, per switch GUID: DLID -> port.
std::map<std::uint64_t, std::map<std::uint16_t, std::uint8_t>> lft_intent(const std::string& sock) {
  const json r = ask(sock, {{"v", 1}, {"op", "flows"}});
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
  LftBed() {
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
