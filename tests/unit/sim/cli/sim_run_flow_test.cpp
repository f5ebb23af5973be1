// `ibsdn-sim run` on scenarios of the flow model (sim_backend/run/timing_runner.*, timing_report.*,
// timing_plots.*): the shipped flow-small.yaml's speedup column, the files and their hash,
// byte-identical outputs for the same scenario, link samples and slowdown against the job alone,
// and the plots' scripts and captions.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim_backend/apps/app_spec.hpp"
#include "sim_backend/run/static_report.hpp"
#include "sim_backend/run/timing_plots.hpp"
#include "sim_backend/run/timing_report.hpp"
#include "sim_backend/run/timing_runner.hpp"
#include "sim_backend/scenario/scenario.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sim/cli/sim_run.hpp"

namespace ibsdn {
namespace {

using test::sim;

const std::string kFlowSmall =
    std::string(IBSDN_SOURCE_DIR) + "/sim_backend/scenarios/flow-small.yaml";

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The rows of a CSV file after its banner, each split at commas (no quoted commas in the
/// columns read here), keyed by the header's names.
std::vector<std::map<std::string, std::string>> rows(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // banner
  const auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::string field;
    bool quoted = false;
    for (const char c : l) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        out.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    out.push_back(field);
    return out;
  };
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> out;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = split(line);
    EXPECT_EQ(f.size(), header.size()) << line;
    std::map<std::string, std::string> r;
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) r[header[i]] = f[i];
    out.push_back(std::move(r));
  }
  return out;
}

// One job of 16 ranks, 4 iterations of a 1 MiB random permutation at 12.5 GB/s: SDN-optimal and
// adaptive routing send every message at full bandwidth (4 x 2^20 / 12.5e9 s), DmodK shares
// links where the permutation collides.
TEST(SimRunFlow, FlowSmall_SpeedupColumnAgainstDmodK) {
  const test::TempDir dir("ibsdn-flow-run");
  const auto r = sim({"run", kFlowSmall, "--out", dir.path(), "-j", "1", "-q", "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Scenario s = load_scenario(kFlowSmall);
  for (const char* name : {"jobs.csv", "summary.csv", "link_samples.csv"}) {
    EXPECT_EQ(read(std::filesystem::path(dir.path()) / name).rfind(csv_banner(s) + "\n", 0), 0u)
        << name;
  }
  EXPECT_NE(read(std::filesystem::path(dir.path()) / "results.json").find(s.hash_text()),
            std::string::npos);
  const auto jobs = rows(read(std::filesystem::path(dir.path()) / "jobs.csv"));
  ASSERT_EQ(jobs.size(), 3u);
  std::map<std::string, std::map<std::string, std::string>> by_routing;
  for (const auto& j : jobs) by_routing[j.at("routing")] = j;
  const std::string full_bandwidth = format_number(4 * 1048576.0 / 12.5e9);
  EXPECT_EQ(by_routing.at("dmodk").at("speedup"), "1");
  EXPECT_EQ(by_routing.at("sdn-optimal").at("comm_time"), full_bandwidth);
  EXPECT_EQ(by_routing.at("adaptive").at("comm_time"), full_bandwidth);
  const double dmodk = std::stod(by_routing.at("dmodk").at("comm_time"));
  EXPECT_GT(dmodk, 4 * 1048576.0 / 12.5e9) << "the permutation collides under DmodK";
  for (const char* routing : {"sdn-optimal", "adaptive"}) {
    EXPECT_EQ(by_routing.at(routing).at("speedup"), format_number(dmodk / (4 * 1048576.0 / 12.5e9)))
        << routing;
    EXPECT_EQ(by_routing.at(routing).at("baseline_comm_time"),
              by_routing.at("dmodk").at("comm_time"));
  }
  const auto summary = rows(read(std::filesystem::path(dir.path()) / "summary.csv"));
  ASSERT_EQ(summary.size(), 3u);
  EXPECT_EQ(summary[1].at("mean_speedup"), by_routing.at("sdn-optimal").at("speedup"));
  EXPECT_EQ(summary[1].at("application"), "random-perm:iter=4");
}

TEST(SimRunFlow, TheSameScenarioGivesByteIdenticalFiles) {
  const test::TempDir a("ibsdn-flow-a");
  const test::TempDir b("ibsdn-flow-b");
  ASSERT_EQ(sim({"run", kFlowSmall, "--out", a.path(), "-j", "1", "-q", "--no-plots"}).status, 0);
  ASSERT_EQ(sim({"run", kFlowSmall, "--out", b.path(), "-j", "2", "-q", "--no-plots"}).status, 0);
  for (const char* name : {"jobs.csv", "summary.csv", "link_samples.csv", "results.json"}) {
    EXPECT_EQ(read(std::filesystem::path(a.path()) / name),
              read(std::filesystem::path(b.path()) / name))
        << name;
  }
}

// Two jobs on disjoint nodes under RR: alone, each takes what it takes with the other; the
// samples count every byte the links carried.
TEST(SimRunFlow, AloneGivesTheSlowdown_SamplesCarryTheBytes) {
  const test::TempDir dir("ibsdn-flow-alone");
  const std::string scenario = dir.file("two.yaml");
  std::ofstream(scenario) << R"(name: two
topology: {xgft: "2;4,4;1,4"}
routing: sdn-optimal
model: flow
pattern: ring
timing: {nic: rr, alone: true, sample_interval: 100us, baseline: adaptive}
workload:
  jobs:
    - {nodes: 4, start: 0, end: 1}
    - {nodes: 4, start: 0, end: 1, application: "shift:k=2,bytes=2M,iter=3"}
)";
  const auto r = sim({"run", scenario, "--out", dir.file("out"), "-j", "1", "-q", "--no-plots"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto jobs = rows(read(dir.file("out/jobs.csv")));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].at("application"), "ring");
  EXPECT_EQ(jobs[1].at("application"), AppSpec::parse("shift:k=2,bytes=2M,iter=3").to_string());
  for (const auto& j : jobs) EXPECT_EQ(j.at("slowdown"), "1") << "disjoint nodes, no shared link";
  const auto samples = rows(read(dir.file("out/link_samples.csv")));
  ASSERT_FALSE(samples.empty());
  double bytes = 0;
  for (const auto& row : samples) {
    bytes += std::stod(row.at("bytes"));
    EXPECT_LE(std::stod(row.at("utilisation")), 1 + 1e-9) << row.at("link");
  }
  EXPECT_GT(bytes, 0);
}

// vs_reference() finds a job's reference by id, whether the reference lists it at the same place
// (the usual case, looked up directly) or elsewhere (searched), and gives none for a job that did
// not run there or is missing.
TEST(SimRunFlow, VsReferenceFindsTheJobByIdWherever) {
  const auto outcome = [](std::vector<std::uint64_t> ids, std::vector<double> totals) {
    FlowOutcome o;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      FlowJob j;
      j.id = ids[i];
      if (totals[i] > 0) {
        j.sim = o.result.jobs.size();
        TimedJob t;
        t.id = ids[i];
        t.end = totals[i];
        o.result.jobs.push_back(t);
      }
      o.jobs.push_back(j);
    }
    return o;
  };
  const FlowOutcome own = outcome({1, 2, 3, 4}, {1.0, 2.0, 4.0, 1.0});
  const FlowOutcome same_order = outcome({1, 2, 3, 4}, {2.0, 2.0, 0.0, 3.0});
  const FlowOutcome other_order = outcome({4, 3, 1}, {3.0, 1.0, 2.0});
  EXPECT_EQ(vs_reference(own, own.jobs[0], &same_order), 2.0);
  EXPECT_EQ(vs_reference(own, own.jobs[1], &same_order), 1.0);
  EXPECT_EQ(vs_reference(own, own.jobs[2], &same_order), std::nullopt) << "did not run there";
  EXPECT_EQ(vs_reference(own, own.jobs[3], &same_order), 3.0);
  EXPECT_EQ(vs_reference(own, own.jobs[0], &other_order), 2.0);
  EXPECT_EQ(vs_reference(own, own.jobs[1], &other_order), std::nullopt) << "not there";
  EXPECT_EQ(vs_reference(own, own.jobs[2], &other_order), 0.25);
  EXPECT_EQ(vs_reference(own, own.jobs[3], &other_order), 3.0);
  EXPECT_EQ(vs_reference(own, own.jobs[0], nullptr), std::nullopt);
}

// GPUs per node zipped with the tree that keeps the GPU count, compared with 1 GPU per node:
// every job's vs_reference is its total time in the reference run (the run with 1 GPU per node
// and the same routing) over its own, the reference run's own are 1, summary.csv averages them
// per application and rank count, and the vs-reference chart draws a bar per run.
TEST(SimRunFlow, ReferenceRun_JobsAreComparedWithTheSameJobThere) {
  const test::TempDir dir("ibsdn-flow-reference");
  const std::string scenario = dir.file("gpus.yaml");
  std::ofstream(scenario) << R"(name: gpus
topology: {xgft: ["2;4,4;1,4", "2;4,2;1,4", "2;4,1;1,4"]}
gpus_per_node: [1, 2, 4]
zip: [gpus_per_node, topology.xgft]
reference: {gpus_per_node: 1}
routing: [dmodk, sdn-optimal]
model: flow
application: "random-perm:bytes=1M,iter=2"
workload:
  jobs:
    - {ranks: 8, start: 0, end: 1, application: "stencil3d:bytes=1M,iter=2,dims=2x2x2"}
    - {ranks: 8, start: 0, end: 1}
)";
  const auto r = sim({"run", scenario, "--out", dir.file("out"), "-j", "2", "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto jobs = rows(read(dir.file("out/jobs.csv")));
  ASSERT_EQ(jobs.size(), 12u) << "3 x 2 runs x 2 jobs";
  std::map<std::string, const std::map<std::string, std::string>*> at;  // run,job -> row
  for (const auto& j : jobs) at[j.at("run") + "," + j.at("job")] = &j;
  const std::vector<std::string> reference_of = {"0", "1", "0", "1", "0", "1"};
  for (const auto& j : jobs) {
    const auto& ref = *at.at(reference_of.at(std::stoul(j.at("run"))) + "," + j.at("job"));
    const double want = std::stod(ref.at("total_time")) / std::stod(j.at("total_time"));
    EXPECT_NEAR(std::stod(j.at("vs_reference")), want, 1e-9 * want) << j.at("run");
    if (&ref == &j) {
      EXPECT_EQ(j.at("vs_reference"), "1");
    }
  }
  EXPECT_EQ(at.at("4,1")->at("nodes"), "2") << "8 ranks at 4 per node";
  EXPECT_EQ(at.at("4,1")->at("ranks"), "8");
  const auto summary = rows(read(dir.file("out/summary.csv")));
  ASSERT_EQ(summary.size(), 12u) << "a row per run and application";
  for (const auto& row : summary) {
    for (const auto& j : jobs) {
      if (j.at("run") == row.at("run") && j.at("application") == row.at("application")) {
        EXPECT_EQ(row.at("mean_vs_reference"), j.at("vs_reference"));
        EXPECT_EQ(row.at("ranks"), "8");
      }
    }
  }
  const std::string chart = read(dir.file("out/plots/vs-reference.dat"));
  EXPECT_NE(chart.find("block 5: topology.xgft=2;4,1;1,4 gpus_per_node=4 routing=sdn-optimal"),
            std::string::npos)
      << chart;
  EXPECT_NE(read(dir.file("out/results.json")).find("\"reference\": \"gpus_per_node=1\""),
            std::string::npos);
}

TEST(SimRunFlow, PlotsNameTheScenarioHashTopologyApplicationAndRouting) {
  const Scenario s = load_scenario(kFlowSmall);
  std::vector<FlowRecord> records;
  for (std::size_t i = 0; i < s.run_count(); ++i) {
    FlowRecord rec;
    rec.run = s.run(i);
    rec.outcome = run_flow_scenario(rec.run);
    records.push_back(std::move(rec));
  }
  const PlotSet a = make_flow_plots(s, records);
  const PlotSet b = make_flow_plots(s, records);
  ASSERT_EQ(a.files.size(), b.files.size());
  for (std::size_t i = 0; i < a.files.size(); ++i) EXPECT_EQ(a.files[i].text, b.files[i].text);
  EXPECT_EQ(a.scripts, (std::vector<std::string>{"comm-cdf-run-0.gp", "comm-cdf-run-1.gp",
                                                 "comm-cdf-run-2.gp", "speedup.gp"}));
  for (const PlotFile& f : a.files) {
    if (!f.name.ends_with(".gp")) continue;
    EXPECT_NE(f.text.find(s.hash_text()), std::string::npos) << f.name;
    EXPECT_NE(f.text.find("XGFT(2;4,4;1,4)"), std::string::npos) << f.name;
    EXPECT_NE(f.text.find("random-perm:iter=4"), std::string::npos) << f.name;
    EXPECT_NE(f.text.find("vs baseline dmodk"), std::string::npos) << f.name;
  }
}

}  // namespace
}  // namespace ibsdn
