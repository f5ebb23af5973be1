#include "sim_backend/run/static_plots.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "sim_backend/run/static_report.hpp"
#include "sim_backend/run/static_runner.hpp"
#include "sim_backend/run/subprocess.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn {
namespace {

// Three runs differing in routing only: run 0 is DmodK, the others carry it as their baseline.
constexpr const char* kScenario = R"(name: plot-check
topology:
  xgft: "2;4,4;1,4"
routing: [dmodk, sdn-optimal, sdn-greedy]
pattern: ring
workload:
  jobs:
    - {nodes: 8, start: 0, end: 100}
    - {nodes: 4, start: 50, end: 150}
)";

Scenario scenario(const std::string& text = kScenario) {
  return parse_scenario(text, "s.yaml", std::filesystem::temp_directory_path());
}

ReplayResult replay(double peak, std::vector<double> pjml) {
  ReplayResult r;
  r.swml = {{0, peak / 2, 1}, {50, peak, 2}, {100, peak / 2, 1}, {150, 0, 0}};
  r.max_swml = peak;
  for (std::size_t i = 0; i < pjml.size(); ++i) {
    ReplayedJob j;
    j.id = i + 1;
    j.nodes = 4;
    j.pjml = pjml[i];
    r.jobs.push_back(j);
  }
  return r;
}

LinkStats stats(double scale) {
  LinkStats s;
  s.links = 32;
  s.min = 0;
  s.q1 = 0.25 * scale;
  s.median = 0.5 * scale;
  s.mean = 0.55 * scale;
  s.q3 = 0.75 * scale;
  s.max = scale;
  return s;
}

/// A hand-made outcome for run `index` of `s`: DmodK peaks at 2, a routing at 1.
RunRecord record(const Scenario& s, std::size_t index) {
  RunRecord rec;
  rec.run = s.run(index);
  RunOutcome o;
  o.run = rec.run;
  o.topology = "XGFT(2;4,4;1,4)";
  o.counts.read = o.counts.selected = o.counts.placed = 2;
  o.job_patterns = {"ring", "ring"};
  const bool dmodk = rec.run.routing == "dmodk";
  o.replay = dmodk ? replay(2, {2, 1.5}) : replay(1, {1, 1});
  if (!dmodk) o.dmodk = replay(2, {2, 1.5});
  o.avg_pjml = dmodk ? 1.75 : 1;
  o.max_pjml = dmodk ? 2 : 1;
  o.dmodk_avg_pjml = 1.75;
  o.dmodk_max_pjml = 2;
  o.links = dmodk ? stats(2) : stats(1);
  o.dmodk_links = stats(2);
  rec.outcome = std::move(o);
  return rec;
}

std::vector<RunRecord> records(const Scenario& s) {
  std::vector<RunRecord> out;
  for (std::size_t i = 0; i < s.run_count(); ++i) out.push_back(record(s, i));
  return out;
}

const PlotFile* find(const PlotSet& set, const std::string& name) {
  for (const PlotFile& f : set.files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> names(const PlotSet& set) {
  std::vector<std::string> out;
  for (const PlotFile& f : set.files) out.push_back(f.name);
  return out;
}

/// A data file's blocks (separated by two blank lines), each its non-comment rows.
std::vector<std::vector<std::string>> blocks(const std::string& text) {
  std::vector<std::vector<std::string>> out(1);
  std::istringstream in(text);
  int blank = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      if (++blank == 2) out.emplace_back();
      continue;
    }
    blank = 0;
    if (line[0] != '#') out.back().push_back(line);
  }
  return out;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) out.push_back(line);
  }
  return out;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Plots, PerRunPlotsForEveryRoutingButTheDmodkRunItsTwinsCarry) {
  const Scenario s = scenario();
  const PlotSet set = make_plots(s, records(s));
  const std::vector<std::string> expected = {
      "swml-run-1.dat", "swml-run-1.gp", "pjml-cdf-run-1.dat", "pjml-cdf-run-1.gp",
      "swml-run-2.dat", "swml-run-2.gp", "pjml-cdf-run-2.dat", "pjml-cdf-run-2.gp",
      "table2.md",      "table2.dat",    "table2.gp",          "link-load.dat",
      "link-load.gp"};
  EXPECT_EQ(names(set), expected);
  EXPECT_EQ(set.scripts,
            (std::vector<std::string>{"swml-run-1.gp", "pjml-cdf-run-1.gp", "swml-run-2.gp",
                                      "pjml-cdf-run-2.gp", "table2.gp", "link-load.gp"}));
  EXPECT_TRUE(set.notes.empty());
}

TEST(Plots, ADmodkRunWithoutTwinIsPlottedAlone) {
  const Scenario s = scenario();
  std::vector<RunRecord> only_dmodk = {record(s, 0)};
  const PlotSet set = make_plots(s, only_dmodk);
  const PlotFile* swml = find(set, "swml-run-0.dat");
  ASSERT_NE(swml, nullptr);
  EXPECT_EQ(blocks(swml->text).size(), 1u) << "no baseline block for DmodK itself";
}

TEST(Plots, SwmlDataHoldsEveryStepOfTheRoutingThenItsBaseline) {
  const Scenario s = scenario();
  const PlotSet set = make_plots(s, records(s));
  const PlotFile* swml = find(set, "swml-run-1.dat");
  ASSERT_NE(swml, nullptr);
  const auto b = blocks(swml->text);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], (std::vector<std::string>{"0 0.5 1", "50 1 2", "100 0.5 1", "150 0 0"}));
  EXPECT_EQ(b[1], (std::vector<std::string>{"0 1 1", "50 2 2", "100 1 1", "150 0 0"}));
  const PlotFile* gp = find(set, "swml-run-1.gp");
  ASSERT_NE(gp, nullptr);
  EXPECT_NE(gp->text.find("index 1 using 1:2 with steps"), std::string::npos)
      << "a 150 s replay is drawn in seconds";
  EXPECT_NE(gp->text.find("time in the trace (seconds)"), std::string::npos);
}

TEST(Plots, SwmlTimeIsInDaysOverTwoDaysAndInHoursOverTwoHours) {
  const Scenario s = scenario();
  std::vector<RunRecord> recs = records(s);
  for (const auto& [end, unit, divisor] :
       {std::tuple{3.0 * 86'400, "days", "86400"}, std::tuple{5.0 * 3600, "hours", "3600"}}) {
    recs[1].outcome->replay.swml.back().time = end;
    const PlotSet set = make_plots(s, recs);
    const std::string& gp = find(set, "swml-run-1.gp")->text;
    EXPECT_NE(gp.find(std::string("time in the trace (") + unit + ")"), std::string::npos) << unit;
    EXPECT_NE(gp.find(std::string("using ($1/") + divisor + "):2"), std::string::npos) << unit;
  }
}

TEST(Plots, PjmlCdfRisesAtEachDistinctValueToOne) {
  const Scenario s = scenario();
  std::vector<RunRecord> recs = records(s);
  RunOutcome& o = *recs[1].outcome;
  o.replay = replay(1, {0, 1, 1, 0.5});  // a 1-node job (0), two at 1, one at 0.5
  o.max_pjml = 1;
  const PlotSet set = make_plots(s, recs);
  const auto b = blocks(find(set, "pjml-cdf-run-1.dat")->text);
  ASSERT_EQ(b.size(), 2u);
  // The plot reaches 2 x 1.05 (DmodK's max is 2): each curve ends there at 1.
  EXPECT_EQ(b[0], (std::vector<std::string>{"0 0", "0 0.25", "0.5 0.5", "1 1", "2.1 1"}));
  EXPECT_EQ(b[1], (std::vector<std::string>{"0 0", "1.5 0.5", "2 1", "2.1 1"}));
}

TEST(Plots, EveryPlotsTitleCarriesTheScenarioNameAndHash) {
  const Scenario s = scenario();
  const PlotSet set = make_plots(s, records(s));
  ASSERT_FALSE(set.scripts.empty());
  for (const std::string& name : set.scripts) {
    const std::string& text = find(set, name)->text;
    std::vector<std::string> titles = lines_starting(text, "set title");
    for (std::string& l : lines_starting(text, "  set multiplot")) titles.push_back(l);
    const bool captioned = std::any_of(titles.begin(), titles.end(), [&](const std::string& t) {
      return t.find("scenario plot-check, hash " + s.hash_text()) != std::string::npos;
    });
    EXPECT_TRUE(captioned) << name;
  }
}

TEST(Plots, PerRunCaptionSaysWhatRan) {
  const Scenario s = scenario();
  const PlotSet set = make_plots(s, records(s));
  const std::string title = lines_starting(find(set, "swml-run-2.gp")->text, "set title").at(0);
  for (const std::string& part :
       {std::string("run 2 of 3 (routing=sdn-greedy)"), std::string("XGFT(2;4,4;1,4)"),
        std::string("pattern ring"), std::string("allocation linear"),
        std::string("routing sdn-greedy vs DmodK"), std::string("2 jobs placed")}) {
    EXPECT_NE(title.find(part), std::string::npos) << part << " in " << title;
  }
}

TEST(Plots, AMinHopBaselineIsNotCalledDmodK) {
  const Scenario s = scenario();
  std::vector<RunRecord> recs = records(s);
  for (RunRecord& rec : recs) rec.outcome->lft_routing = "minhop";
  const PlotSet set = make_plots(s, recs);
  const std::string& swml = find(set, "swml-run-1.gp")->text;
  EXPECT_NE(swml.find("SWML over time: sdn-optimal against min-hop LFTs"), std::string::npos);
  EXPECT_NE(swml.find("title \"min-hop LFTs (max 2.000)\""), std::string::npos) << swml;
  EXPECT_EQ(swml.find("DmodK"), std::string::npos) << swml;
  EXPECT_NE(find(set, "table2.gp")->text.find("title \"min-hop LFTs\""), std::string::npos);
  EXPECT_NE(find(set, "table2.md")->text.find("| sdn-optimal | min-hop LFTs |"), std::string::npos);
}

TEST(Plots, QuotesAndBackslashesInALabelAreEscapedForGnuplot) {
  const Scenario s = scenario();
  std::vector<RunRecord> recs = records(s);
  recs[1].run.label = "routing=sdn-optimal file=a\"b\\c";
  const PlotSet set = make_plots(s, recs);
  const std::string title = lines_starting(find(set, "swml-run-1.gp")->text, "set title").at(0);
  EXPECT_NE(title.find("file=a\\\"b\\\\c"), std::string::npos) << title;
}

TEST(Plots, Table2HasTheDeltasOfSeed002) {
  const Scenario s = scenario();
  const PlotSet set = make_plots(s, records(s));
  const std::string& md = find(set, "table2.md")->text;
  // (1.75 - 1) / 1 = +75 %, (2 - 1) / 1 = +100 %.
  EXPECT_NE(
      md.find(
          "| 1 | routing=sdn-optimal | sdn-optimal | DmodK | XGFT(2;4,4;1,4) | ring | linear | 2 "
          "| 1.750 | 1.000 | +75.0% | 2.000 | 1.000 | +100.0% | ok |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("Not listed: 1 DmodK run"), std::string::npos) << md;
  EXPECT_NE(md.find(s.hash_text()), std::string::npos);
  // A bar per routing, DmodK once: the runs differ only in routing.
  const auto b = blocks(find(set, "table2.dat")->text);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0], (std::vector<std::string>{"0 1.75 2 0 0 \"\" \"\" 1"}));
  EXPECT_EQ(b[1], (std::vector<std::string>{"1 1 1 75 100 \"+75.0%\" \"+100.0%\" 1"}));
  EXPECT_EQ(b[2], (std::vector<std::string>{"2 1 1 75 100 \"+75.0%\" \"+100.0%\" 2"}));
}

// DmodK, LFT-installed and flow-table-installed routes side by side: runs that differ only in the
// install backend are one group of bars, DmodK once, each routing named with its backend.
TEST(Plots, Table2GroupsTheInstallBackendsWithOneDmodkBar) {
  const Scenario s = scenario(R"(name: backends
topology:
  xgft: "2;4,4;1,4"
routing: sdn-volume
install_backend: [flow_table, lft]
pattern: [ring, 3dnn]
workload:
  jobs:
    - {nodes: 8, start: 0, end: 100}
)");
  std::vector<RunRecord> recs = records(s);
  recs[2].outcome->avg_pjml = 1.25;  // pattern=ring with the LFTs
  const PlotSet set = make_plots(s, recs);
  const auto b = blocks(find(set, "table2.dat")->text);
  ASSERT_EQ(b.size(), 3u) << "blocks: dmodk, sdn-volume (flow_table), sdn-volume (lft)";
  EXPECT_EQ(b[0].size(), 2u) << "one DmodK bar per pattern";
  EXPECT_EQ(b[1].size(), 2u);
  EXPECT_EQ(b[2].size(), 2u);
  EXPECT_EQ(b[2][0].substr(0, 7), "2 1.25 ") << "the ring group: DmodK at 0, table at 1, lft at 2";
  const std::string& gp = find(set, "table2.gp")->text;
  EXPECT_NE(gp.find("title \"sdn-volume (lft)\""), std::string::npos) << gp;
  EXPECT_NE(gp.find("title \"sdn-volume (flow_table)\""), std::string::npos) << gp;
  EXPECT_NE(find(set, "table2.md")->text.find("| sdn-volume (lft) | DmodK |"), std::string::npos);
}

TEST(RunNames, TheBackendNamesARoutingThatRunsTheController) {
  ScenarioRun r;
  r.routing = "sdn-volume";
  r.label = "routing=sdn-volume install_backend=lft pattern=3dnn";
  r.install_backend = InstallBackend::kLft;
  EXPECT_EQ(routing_name(r), "sdn-volume (lft)");
  EXPECT_EQ(case_label(r), "pattern=3dnn");
  r.install_backend = InstallBackend::kAuto;
  EXPECT_EQ(routing_name(r), "sdn-volume");
  r.install_backend = InstallBackend::kFlowTable;
  for (const std::string plain : {"dmodk", "adaptive"}) {
    r.routing = plain;
    EXPECT_EQ(routing_name(r), plain);
  }
}

TEST(Plots, LinkBoxesShowDmodkOnceForRunsThatDifferOnlyInRouting) {
  const Scenario s = scenario();
  const PlotSet set = make_plots(s, records(s));
  const auto b = blocks(find(set, "link-load.dat")->text);
  ASSERT_EQ(b.size(), 3u) << "a block per routing: dmodk, sdn-optimal, sdn-greedy";
  EXPECT_EQ(b[0], (std::vector<std::string>{"0 0 0.5 1 1.1 1.5 2 32 1"}));
  EXPECT_EQ(b[1], (std::vector<std::string>{"1 0 0.25 0.5 0.55 0.75 1 32 1"}));
  EXPECT_EQ(b[2], (std::vector<std::string>{"2 0 0.25 0.5 0.55 0.75 1 32 2"}));
}

TEST(Plots, LinkBoxesKeepADifferingBaseline) {
  const Scenario s = scenario();
  std::vector<RunRecord> recs = records(s);
  recs[2].outcome->dmodk_links = stats(3);
  const auto b = blocks(find(make_plots(s, recs), "link-load.dat")->text);
  EXPECT_EQ(b.at(0).size(), 2u);
}

TEST(Plots, OverTheRunLimitOnlyTheAggregatePlotsAndANote) {
  const Scenario s = scenario();
  PlotLimits limits;
  limits.runs = 1;
  const PlotSet set = make_plots(s, records(s), limits);
  EXPECT_EQ(set.scripts, (std::vector<std::string>{"table2.gp", "link-load.gp"}));
  ASSERT_EQ(set.notes.size(), 1u);
  EXPECT_NE(set.notes[0].find("2 runs to plot, more than 1"), std::string::npos) << set.notes[0];
}

TEST(Plots, AChartDrawsAtMostItsEntryLimit) {
  const Scenario s = scenario();
  PlotLimits limits;
  limits.chart_entries = 1;
  const PlotSet set = make_plots(s, records(s), limits);
  EXPECT_EQ(blocks(find(set, "table2.dat")->text).at(0).size(), 1u);
  EXPECT_EQ(blocks(find(set, "link-load.dat")->text).size(), 1u);
  EXPECT_EQ(set.notes.size(), 2u);
  EXPECT_NE(find(set, "table2.md")->text.find("| 2 | routing=sdn-greedy"), std::string::npos)
      << "the table lists every run";
}

TEST(Plots, FailedRunsAreLeftOutAndCounted) {
  const Scenario s = scenario();
  std::vector<RunRecord> recs = records(s);
  recs[2].outcome.reset();
  recs[2].error = "no fabric";
  const PlotSet set = make_plots(s, recs);
  EXPECT_EQ(find(set, "swml-run-2.gp"), nullptr);
  EXPECT_NE(find(set, "table2.md")->text.find("1 failed run"), std::string::npos);
}

TEST(Plots, WithoutGnuplotTheScriptsAreWrittenAndOneWarningSaysSo) {
  const Scenario s = scenario();
  const test::TempDir dir("ibsdn-plots");
  RenderOptions options;
  options.gnuplot = "/nonexistent/gnuplot";
  const PlotOutput out = write_plots(make_plots(s, records(s)), dir.path(), options);
  EXPECT_FALSE(out.gnuplot_found);
  EXPECT_TRUE(out.images.empty());
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("gnuplot not found"), std::string::npos);
  EXPECT_EQ(read(std::filesystem::path(dir.path()) / "plots" / "table2.gp"),
            find(make_plots(s, records(s)), "table2.gp")->text);
}

TEST(Plots, AfterMaxFailuresTheOtherScriptsAreNotTried) {
  PlotSet set;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "s" + std::to_string(i) + ".gp";
    set.files.push_back({name, "plot x\n"});
    set.scripts.push_back(name);
  }
  const test::TempDir dir("ibsdn-plots");
  RenderOptions options;
  options.gnuplot = "/bin/false";  // fails every script, whatever it says
  options.max_failures = 2;
  const PlotOutput out = write_plots(set, dir.path(), options);
  ASSERT_EQ(out.warnings.size(), 3u);
  EXPECT_NE(
      out.warnings[0].find("gnuplot failed on " + dir.path() + "/plots/s0.gp (exit status 1)"),
      std::string::npos)
      << out.warnings[0];
  EXPECT_NE(out.warnings[2].find("3 more scripts not rendered after 2 failures"), std::string::npos)
      << out.warnings[2];
}

bool has_gnuplot() {
  return find_program("gnuplot").has_value();
}

/// The shipped two-jobs scenario, run for real.
std::vector<RunRecord> run_two_jobs(const Scenario& s) {
  std::vector<RunRecord> recs;
  for (std::size_t i = 0; i < s.run_count(); ++i) {
    RunRecord rec;
    rec.run = s.run(i);
    rec.outcome = run_scenario(rec.run);
    recs.push_back(std::move(rec));
  }
  return recs;
}

Scenario two_jobs() {
  return load_scenario(std::string(IBSDN_SOURCE_DIR) + "/sim_backend/scenarios/two-jobs.yaml");
}

// docs/simulation-static.md, "Outputs and plots", names every column `ibsdn-sim run` writes and
// every plot file.
TEST(OutputsDoc, SimulationMdNamesEveryCsvColumnAndPlotFile) {
  std::ifstream in(std::string(IBSDN_SOURCE_DIR) + "/docs/simulation-static.md");
  const std::string doc{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_FALSE(doc.empty());
  const Scenario s = two_jobs();
  const std::vector<RunRecord> recs = run_two_jobs(s);
  const test::TempDir dir("ibsdn-outputs");
  for (const std::filesystem::path& file : write_run_files(s, recs, dir.path())) {
    EXPECT_NE(doc.find("`" + file.filename().string() + "`"), std::string::npos) << file;
    if (file.extension() != ".csv") continue;
    std::istringstream text(read(file));
    std::string banner, header;
    std::getline(text, banner);
    std::getline(text, header);
    for (std::size_t at = 0; at <= header.size();) {
      const std::size_t end = std::min(header.find(',', at), header.size());
      const std::string column = header.substr(at, end - at);
      EXPECT_NE(doc.find("`" + column + "`"), std::string::npos) << file << ": " << column;
      at = end + 1;
    }
  }
  for (const PlotFile& f : make_plots(s, recs).files) {
    std::string stem = f.name.substr(0, f.name.find('.'));
    if (const std::size_t n = stem.find("-run-"); n != std::string::npos)
      stem.replace(n, std::string::npos, "-run-N");
    EXPECT_NE(doc.find("`" + stem + "."), std::string::npos) << f.name;
  }
}

// Renders the plots of the real two-jobs scenario: every script gives a PNG and an SVG, gnuplot
// says nothing, and a second rendering gives the same bytes.
TEST(PlotsRender, TwoJobsScenarioRendersPngAndSvgAndTheSameBytesTwice) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot not installed (scripts/install-deps.sh)";
  const Scenario s = two_jobs();
  const std::vector<RunRecord> recs = run_two_jobs(s);
  const PlotSet set = make_plots(s, recs);
  ASSERT_EQ(set.scripts.size(), 4u) << "SWML and PJML of sdn-optimal, table2, link-load";
  const test::TempDir a("ibsdn-plots"), b("ibsdn-plots");
  const PlotOutput out = write_plots(set, a.path());
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.at(0);
  EXPECT_TRUE(write_plots(set, b.path()).warnings.empty());
  ASSERT_EQ(out.images.size(), 2 * set.scripts.size());
  for (const std::filesystem::path& img : out.images) {
    const std::string bytes = read(img);
    ASSERT_GT(bytes.size(), 1000u) << img;
    if (img.extension() == ".png") {
      EXPECT_EQ(bytes.substr(0, 8), "\x89PNG\r\n\x1a\n") << img;
    } else {
      EXPECT_NE(bytes.find("<svg"), std::string::npos) << img;
      EXPECT_NE(bytes.find(s.hash_text()), std::string::npos) << img << ": the caption's hash";
    }
    EXPECT_EQ(bytes, read(std::filesystem::path(b.path()) / "plots" / img.filename())) << img;
  }
}

TEST(PlotsRender, AFailingScriptIsReportedWithGnuplotsMessage) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot not installed (scripts/install-deps.sh)";
  PlotSet set;
  set.files.push_back({"broken.gp", "plot nosuchfunction(x)\n"});
  set.scripts.push_back("broken.gp");
  const test::TempDir dir("ibsdn-plots");
  const PlotOutput out = write_plots(set, dir.path());
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("gnuplot failed on"), std::string::npos) << out.warnings[0];
  EXPECT_NE(out.warnings[0].find("nosuchfunction"), std::string::npos) << out.warnings[0];
}

TEST(Subprocess, ReportsTheExitStatusAndStderr) {
  const ProgramResult r =
      run_program("/bin/sh", {"-c", "echo oops >&2; exit 3"}, "/", std::chrono::seconds(10));
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err_output, "oops\n");
  EXPECT_EQ(r.describe(), "exit status 3");
}

TEST(Subprocess, KillsAProgramAtTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  const ProgramResult r =
      run_program("/bin/sh", {"-c", "exec sleep 30"}, "/", std::chrono::milliseconds(200));
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(Subprocess, AProgramThatCannotRunSaysWhy) {
  const ProgramResult r = run_program("/nonexistent/program", {}, "/", std::chrono::seconds(10));
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("No such file"), std::string::npos) << r.error;
}

TEST(Subprocess, FindsAProgramOnPath) {
  EXPECT_TRUE(find_program("sh").has_value());
  EXPECT_FALSE(find_program("ibsdn-no-such-program").has_value());
  EXPECT_EQ(find_program("/bin/sh"), std::filesystem::path("/bin/sh"));
}

}  // namespace
}  // namespace ibsdn
