#include "sim_backend/scenario/scenario.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "routing/netlist.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/workload/node_allocation.hpp"
#include "sim_backend/workload/swf_synthetic.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn {
namespace {

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// Two jobs in the archive's format (18 fields, header comments).
constexpr const char* kSwf =
    "; Version: 2.2\n"
    "; MaxNodes: 1024\n"
    "1 0 10 3600 64 -1 -1 64 7200 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 5 0 60 8 -1 -1 8 600 -1 1 2 1 -1 1 -1 -1 -1\n";

// A folder with the files scenarios name: a trace, a netlist of XGFT(2;4,4;1,4), a traffic matrix.
class ScenarioFiles {
 public:
  ScenarioFiles() {
    write_file(dir_.file("traces/two.swf"), kSwf);
    write_file(dir_.file("fabrics/tree.net"),
               export_ibsim_netlist(generate_xgft(XgftParams::parse("2;4,4;1,4"))));
    write_file(dir_.file("tm/pairs.txt"), "0 1 4096\n1 0 4096\n");
  }
  [[nodiscard]] const std::string& dir() const { return dir_.path(); }
  [[nodiscard]] std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  test::TempDir dir_{"ibsdn-scenario"};
};

Scenario parse(const std::string& text, const std::string& dir) {
  return parse_scenario(text, "s.yaml", dir);
}

constexpr const char* kFull = R"(# Every key of a scenario.
name: full-example
seed: 42
topology:
  xgft: "3;8,8,16;1,8,8"
  hosts: 1000
link_bandwidth: 200.5
gpus_per_node: 4
ranks_per_node: 2
placement: cyclic
allocation: tree
routing: sdn-greedy
table_capacity: 512
flow_level: slid-dlid-sl
load_guard: false
install_backend: lft
model: static
pattern: 3dnn
workload:
  jobs:
    - {nodes: 16, start: 0, end: 3600}
    - {nodes: 64, start: 10.5, end: 7200, pattern: "shift:k=3"}
    - {nodes: 2, start: 20, end: 30, pattern: "matrix:file=tm/pairs.txt"}
)";

TEST(Scenario, FullExample_LoadsEveryValue) {
  const ScenarioFiles files;
  const Scenario s = parse(kFull, files.dir());
  EXPECT_EQ(s.name(), "full-example");
  EXPECT_EQ(s.source(), "s.yaml");
  EXPECT_TRUE(s.axes().empty());
  ASSERT_EQ(s.run_count(), 1u);
  const std::vector<ScenarioRun> runs = expand(s);
  ASSERT_EQ(runs.size(), 1u);
  const ScenarioRun& r = runs[0];
  EXPECT_EQ(r.index, 0u);
  EXPECT_EQ(r.label, "");
  EXPECT_EQ(r.name, "full-example");
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.topology.kind, TopologyKind::kXgft);
  EXPECT_EQ(r.topology.xgft.to_string(), "XGFT(3;8,8,16;1,8,8)");
  EXPECT_EQ(r.topology.fabric_hosts, 1024u);
  EXPECT_EQ(r.topology.hosts, 1000u);
  EXPECT_EQ(r.topology.label(), "XGFT(3;8,8,16;1,8,8)");
  EXPECT_DOUBLE_EQ(r.link_bandwidth_gbps, 200.5);
  EXPECT_EQ(r.gpus_per_node, 4u);
  EXPECT_EQ(r.ranks_per_node, 2u);
  EXPECT_EQ(r.placement, Mapping::kCyclic);
  EXPECT_EQ(r.allocation, "tree");
  EXPECT_EQ(r.routing, "sdn-greedy");
  EXPECT_EQ(r.table_capacity, 512u);
  EXPECT_EQ(r.flow_level, FlowDefinitionLevel::kSlidDlidSl);
  EXPECT_FALSE(r.load_guard);
  EXPECT_EQ(r.install_backend, InstallBackend::kLft);
  EXPECT_EQ(r.model, SimulationModel::kStatic);
  EXPECT_FALSE(r.pattern.dynamic);
  EXPECT_EQ(r.pattern.spec.name, "3dnn");
  EXPECT_EQ(r.pattern.text, "3dnn");

  ASSERT_TRUE(std::holds_alternative<ExplicitJobs>(r.workload));
  const auto& jobs = *std::get<ExplicitJobs>(r.workload).jobs;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].nodes, 16u);
  EXPECT_DOUBLE_EQ(jobs[0].start, 0.0);
  EXPECT_DOUBLE_EQ(jobs[0].end, 3600.0);
  EXPECT_FALSE(jobs[0].pattern.has_value());
  EXPECT_EQ(jobs[1].nodes, 64u);
  EXPECT_DOUBLE_EQ(jobs[1].start, 10.5);
  ASSERT_TRUE(jobs[1].pattern.has_value());
  EXPECT_EQ(jobs[1].pattern->spec.name, "shift");
  EXPECT_EQ(jobs[1].pattern->spec.k, 3);
  ASSERT_TRUE(jobs[2].pattern.has_value());
  EXPECT_EQ(jobs[2].pattern->text, "matrix:file=tm/pairs.txt");
  EXPECT_EQ(jobs[2].pattern->spec.file,
            (std::filesystem::path(files.dir()) / "tm/pairs.txt").lexically_normal().string());

  const TopologySpec spec = topology_spec(r);
  EXPECT_EQ(spec.xgft, "XGFT(3;8,8,16;1,8,8)");
  EXPECT_EQ(spec.gpus_per_node, 4);
  EXPECT_DOUBLE_EQ(spec.gbps, 200.5);
}

TEST(Scenario, InstallBackend_SweepsBesideTheRouting) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: backends
topology: {xgft: "2;4,4;1,4"}
routing: [dmodk, sdn-volume]
install_backend: [flow_table, lft]
pattern: random4
workload: {jobs: [{nodes: 16, start: 0, end: 10}]}
)",
                           files.dir());
  const std::vector<ScenarioRun> runs = expand(s);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].label, "routing=dmodk install_backend=lft");
  EXPECT_EQ(runs[2].routing, "sdn-volume");
  EXPECT_EQ(runs[2].install_backend, InstallBackend::kFlowTable);
  EXPECT_EQ(runs[3].install_backend, InstallBackend::kLft);
}

TEST(Scenario, OmittedKeys_TakeTheDocumentedDefaults) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: minimal
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
pattern: ring
workload: {synthetic: {preset: thunder, jobs: 100}}
)",
                           files.dir());
  const ScenarioRun r = s.run(0);
  EXPECT_EQ(r.seed, 1u);
  EXPECT_EQ(r.topology.hosts, 16u);
  EXPECT_DOUBLE_EQ(r.link_bandwidth_gbps, 100.0);
  EXPECT_EQ(r.gpus_per_node, 1u);
  EXPECT_EQ(r.ranks_per_node, 1u);
  EXPECT_EQ(r.placement, Mapping::kBlock);
  EXPECT_EQ(r.allocation, "linear");
  EXPECT_EQ(r.table_capacity, 4096u);
  EXPECT_EQ(r.flow_level, FlowDefinitionLevel::kSlidDlid);
  EXPECT_TRUE(r.load_guard);
  EXPECT_EQ(r.install_backend, InstallBackend::kAuto);
  EXPECT_EQ(r.model, SimulationModel::kStatic);
  ASSERT_TRUE(std::holds_alternative<SyntheticWorkload>(r.workload));
  const auto& w = std::get<SyntheticWorkload>(r.workload);
  EXPECT_EQ(w.preset, "thunder");
  EXPECT_EQ(w.jobs, 100u);
  EXPECT_FALSE(w.utilisation.has_value());
}

TEST(Scenario, RanksPerNode_FollowsSweptGpusPerNodeUnlessGiven) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: gpus
topology: {xgft: "2;4,4;1,4"}
gpus_per_node: [1, 8]
routing: dmodk
pattern: ring
workload: {synthetic: {preset: thunder, jobs: 10}}
)",
                           files.dir());
  const auto runs = expand(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].ranks_per_node, 1u);
  EXPECT_EQ(runs[1].ranks_per_node, 8u);
}

TEST(Scenario, TraceWorkload_ResolvesItsFileAgainstTheScenarioFolder) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: trace
topology: {xgft: "3;8,8,16;1,8,8", hosts: 1000}
routing: dmodk
pattern: dynamic
workload:
  trace: {file: traces/two.swf, cpus_per_node: 4, first: 1000}
)",
                           files.dir());
  const ScenarioRun r = s.run(0);
  EXPECT_TRUE(r.pattern.dynamic);
  EXPECT_EQ(r.pattern.text, "dynamic");
  ASSERT_TRUE(std::holds_alternative<TraceWorkload>(r.workload));
  const auto& w = std::get<TraceWorkload>(r.workload);
  EXPECT_EQ(w.file.written, "traces/two.swf");
  EXPECT_EQ(w.file.path, files.file("traces/two.swf"));
  EXPECT_EQ(w.cpus_per_node, 4u);
  EXPECT_EQ(w.first, std::optional<std::uint64_t>(1000));
  EXPECT_EQ(w.system_nodes, 1000u);  // the hosts used, unless given
}

TEST(Scenario, NetlistTopology_CountsTheFabricsHosts) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: net
topology: {netlist: fabrics/tree.net, hosts: 10}
routing: sdn-optimal
pattern: ring
workload: {jobs: [{nodes: 10, start: 0, end: 1}]}
)",
                           files.dir());
  const ScenarioRun r = s.run(0);
  EXPECT_EQ(r.topology.kind, TopologyKind::kNetlist);
  EXPECT_EQ(r.topology.fabric_hosts, 16u);
  EXPECT_EQ(r.topology.hosts, 10u);
  EXPECT_EQ(topology_spec(r).netlist_in, files.file("fabrics/tree.net"));
}

TEST(Scenario, DragonflyAndMegafly_TakeTheGeneratorsParameters) {
  const ScenarioFiles files;
  const Scenario df = parse(R"(name: df
topology: {dragonfly: {p: 2, a: 4, h: 2, g: 9}}
routing: df-minimal
pattern: ring
workload: {jobs: [{nodes: 4, start: 0, end: 1}]}
)",
                            files.dir());
  const ScenarioRun r = df.run(0);
  EXPECT_EQ(r.topology.kind, TopologyKind::kDragonfly);
  EXPECT_EQ(r.topology.dragonfly.to_string(), "dragonfly(2,4,2,9)");
  EXPECT_EQ(r.topology.hosts, 72u);
  EXPECT_EQ(topology_spec(r).dragonfly, "dragonfly(2,4,2,9)");

  const Scenario mf = parse(R"(name: mf
topology:
  megafly: {nodes_per_leaf: 4, leaves: 4, spines: 4, global_per_spine: 2, groups: [5, 9]}
routing: df-valiant
pattern: ring
workload: {jobs: [{nodes: 4, start: 0, end: 1}]}
)",
                            files.dir());
  const auto runs = expand(mf);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].topology.megafly.to_string(), "megafly(4,4,4,2,5)");
  EXPECT_EQ(runs[1].topology.megafly.to_string(), "megafly(4,4,4,2,9)");
  EXPECT_EQ(runs[1].label, "topology.megafly.groups=9");
  EXPECT_EQ(runs[1].topology.hosts, 144u);
}

TEST(ScenarioSweep, ExpandsTheCartesianProduct_FirstListSlowest_WithLabels) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: sweep
topology: {xgft: ["2;4,4;1,4", "3;4,4,4;1,4,4"]}
routing: [dmodk, sdn-greedy]
table_capacity: [64, 128, 256]
pattern: 3dnn
workload: {synthetic: {preset: thunder, jobs: [10, 20]}}
)",
                           files.dir());
  ASSERT_EQ(s.axes().size(), 4u);
  EXPECT_EQ(s.axes()[0].key, "topology.xgft");
  EXPECT_EQ(s.axes()[1].key, "routing");
  EXPECT_EQ(s.axes()[2].key, "table_capacity");
  EXPECT_EQ(s.axes()[3].key, "workload.synthetic.jobs");
  EXPECT_EQ(s.axes()[2].values, (std::vector<std::string>{"64", "128", "256"}));
  EXPECT_EQ(s.axes()[1].line, 3u);
  EXPECT_EQ(s.axes()[1].column, 10u);
  ASSERT_EQ(s.run_count(), 24u);
  const std::vector<ScenarioRun> runs = expand(s);
  ASSERT_EQ(runs.size(), 24u);
  EXPECT_EQ(runs[0].label,
            "topology.xgft=2;4,4;1,4 routing=dmodk table_capacity=64 workload.synthetic.jobs=10");
  EXPECT_EQ(runs[1].label,
            "topology.xgft=2;4,4;1,4 routing=dmodk table_capacity=64 workload.synthetic.jobs=20");
  EXPECT_EQ(runs[2].label,
            "topology.xgft=2;4,4;1,4 routing=dmodk table_capacity=128 workload.synthetic.jobs=10");
  EXPECT_EQ(runs[6].label,
            "topology.xgft=2;4,4;1,4 routing=sdn-greedy table_capacity=64 "
            "workload.synthetic.jobs=10");
  EXPECT_EQ(runs[23].label,
            "topology.xgft=3;4,4,4;1,4,4 routing=sdn-greedy "
            "table_capacity=256 workload.synthetic.jobs=20");
  // Every combination once, each run's values those its label names.
  std::set<std::string> labels;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ScenarioRun& r = runs[i];
    EXPECT_EQ(r.index, i);
    labels.insert(r.label);
    const std::size_t tree = i / 12;
    const std::size_t routing = (i / 6) % 2;
    const std::size_t capacity = (i / 2) % 3;
    const std::size_t jobs = i % 2;
    EXPECT_EQ(r.topology.fabric_hosts, tree == 0 ? 16u : 64u) << r.label;
    EXPECT_EQ(r.routing, routing == 0 ? "dmodk" : "sdn-greedy") << r.label;
    EXPECT_EQ(r.table_capacity, std::size_t{64} << capacity) << r.label;
    EXPECT_EQ(std::get<SyntheticWorkload>(r.workload).jobs, jobs == 0 ? 10u : 20u) << r.label;
    EXPECT_EQ(s.run(i).label, r.label);
  }
  EXPECT_EQ(labels.size(), 24u);
}

TEST(ScenarioSweep, EverySweepableKeyTakesAList) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: all
seed: [1, 2]
topology: {xgft: ["2;4,4;1,4"], hosts: [8, 16]}
link_bandwidth: [100]
gpus_per_node: [1, 2]
ranks_per_node: [1]
placement: [block, cyclic]
allocation: [linear]
routing: [dmodk, sdn-greedy]
table_capacity: [64]
flow_level: [dlid, slid-dlid]
model: [static]
pattern: [ring, dynamic]
workload: {trace: {file: [traces/two.swf], cpus_per_node: [1, 4], first: [1],
                   system_nodes: [4, 8]}}
)",
                           files.dir());
  ASSERT_EQ(s.axes().size(), 17u);
  const std::vector<std::string> sweepable = sweepable_scenario_keys();
  for (const SweepAxis& a : s.axes()) {
    EXPECT_NE(std::find(sweepable.begin(), sweepable.end(), a.key), sweepable.end()) << a.key;
  }
  EXPECT_EQ(s.run_count(), std::size_t{1} << 9);
  EXPECT_EQ(s.run(0).label,
            "seed=1 topology.xgft=2;4,4;1,4 topology.hosts=8 link_bandwidth=100 gpus_per_node=1 "
            "ranks_per_node=1 placement=block allocation=linear routing=dmodk table_capacity=64 "
            "flow_level=dlid model=static pattern=ring workload.trace.file=traces/two.swf "
            "workload.trace.cpus_per_node=1 workload.trace.first=1 workload.trace.system_nodes=4");
  const ScenarioRun last = s.run(s.run_count() - 1);
  EXPECT_EQ(last.seed, 2u);
  EXPECT_EQ(last.topology.hosts, 16u);
  EXPECT_EQ(last.placement, Mapping::kCyclic);
  EXPECT_EQ(last.flow_level, FlowDefinitionLevel::kSlidDlid);
  EXPECT_TRUE(last.pattern.dynamic);
  EXPECT_EQ(std::get<TraceWorkload>(last.workload).system_nodes, 8u);
}

TEST(ScenarioSweep, NumbersAreLabelledCanonically) {
  const ScenarioFiles files;
  const Scenario s = parse(R"(name: bw
topology: {xgft: "2;4,4;1,4"}
link_bandwidth: [100.0, 12.5, 1e3]
routing: dmodk
pattern: ring
workload: {synthetic: {preset: curie, jobs: 5, utilisation: [0.29, 1]}}
)",
                           files.dir());
  EXPECT_EQ(s.axes()[0].values, (std::vector<std::string>{"100", "12.5", "1000"}));
  EXPECT_EQ(s.axes()[1].values, (std::vector<std::string>{"0.29", "1"}));
  EXPECT_EQ(s.run(5).label, "link_bandwidth=1000 workload.synthetic.utilisation=1");
  EXPECT_EQ(std::get<SyntheticWorkload>(s.run(4).workload).utilisation, 0.29);
}

// --- errors ---------------------------------------------------------------------------------

// Lines 1-5: a valid scenario the cases add a line to.
constexpr const char* kBase = R"(name: t
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
pattern: ring
workload: {jobs: [{nodes: 2, start: 0, end: 10}]}
)";

// The base with line `replaced` (1-based) replaced by `line`.
std::string base_with(int replaced, const std::string& line) {
  std::string out;
  std::size_t start = 0;
  for (int i = 1; start < std::string(kBase).size(); ++i) {
    const std::string text(kBase);
    const std::size_t end = text.find('\n', start);
    out += i == replaced ? line + "\n" : text.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

std::string numbers(int from, int count) {
  std::string out = "[";
  for (int i = 0; i < count; ++i) out += (i ? ", " : "") + std::to_string(from + i);
  return out + "]";
}

struct BadScenario {
  std::string name;  // what is wrong
  std::string text;
  std::size_t line;
  std::size_t column;
  std::string says;
};

class ScenarioRejects : public ::testing::TestWithParam<BadScenario> {};

TEST_P(ScenarioRejects, NamingFileLineAndColumn) {
  const BadScenario& bad = GetParam();
  const ScenarioFiles files;
  std::filesystem::create_directories(files.file("a-directory"));
  write_file(files.file("fabrics/bad.net"), "Switch 4 \"s1\"\n[9] \"n1\"[1]\n");
  try {
    (void)parse(bad.text, files.dir());
    FAIL() << "accepted:\n" << bad.text;
  } catch (const ConfigError& e) {
    std::string what = e.what();
    // Resolved paths differ per run: the test's folder reads as DIR.
    for (std::size_t at = what.find(files.dir()); at != std::string::npos;
         at = what.find(files.dir())) {
      what.replace(at, files.dir().size(), "DIR");
    }
    EXPECT_EQ(e.line(), bad.line) << what;
    EXPECT_EQ(e.column(), bad.column) << what;
    const std::string prefix = bad.line == 0 ? "s.yaml: "
                                             : "s.yaml:" + std::to_string(bad.line) + ":" +
                                                   std::to_string(bad.column) + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(bad.says), std::string::npos) << what << "\nexpected: " << bad.says;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ScenarioRejects,
    ::testing::Values(
        // Keys.
        BadScenario{"UnknownKeySuggestsTheKnownOne", std::string(kBase) + "tabel_capacity: 8\n", 6,
                    1, "top level: unknown key 'tabel_capacity' (did you mean 'table_capacity'?)"},
        BadScenario{"UnknownKeyListsTheKnownOnes", std::string(kBase) + "colour: red\n", 6, 1,
                    "unknown key 'colour' (known: name seed topology"},
        BadScenario{"UnknownNestedKey", base_with(2, "topology: {xgft: \"2;4,4;1,4\", host: 3}"), 2,
                    31, "topology: unknown key 'host' (did you mean 'hosts'?)"},
        BadScenario{"DuplicateKey", std::string(kBase) + "routing: sdn-greedy\n", 6, 1,
                    "duplicate key 'routing'"},
        BadScenario{"KeyWithoutValue", std::string(kBase) + "seed:\n", 6, 1, "seed: no value"},
        BadScenario{"MissingName", base_with(1, "seed: 3"), 1, 1, "missing key 'name'"},
        BadScenario{"MissingRouting", base_with(3, "seed: 3"), 1, 1, "missing key 'routing'"},
        BadScenario{"MissingTopology", base_with(2, "seed: 3"), 1, 1, "missing key 'topology'"},
        BadScenario{"MissingPattern", base_with(4, "seed: 3"), 1, 1,
                    "missing key 'pattern': the jobs' traffic"},
        BadScenario{"MissingWorkload", base_with(5, "seed: 3"), 1, 1, "missing key 'workload'"},
        BadScenario{"EmptyScenario", "# nothing\n", 0, 0, "empty scenario"},
        BadScenario{"NotAMap", "- name\n", 1, 1, "top level: expected a map"},
        // YAML itself.
        BadScenario{"YamlSyntax", std::string(kBase) + "seed: [1, 2\n", 7, 1, "YAML syntax"},
        BadScenario{"TwoDocuments", std::string(kBase) + "---\nname: u\n", 7, 1,
                    "only one YAML document"},
        BadScenario{"LoneCommaOnWhichYamlCppWouldLoop", ",\n", 1, 1,
                    "YAML syntax: text the parser cannot place"},
        // Types and ranges.
        BadScenario{"SeedNegative", std::string(kBase) + "seed: -1\n", 6, 7,
                    "seed: expected a decimal integer, got '-1'"},
        BadScenario{"SeedAbove64Bits", std::string(kBase) + "seed: 18446744073709551616\n", 6, 7,
                    "seed: 18446744073709551616 is out of range 0..18446744073709551615"},
        BadScenario{"TableCapacityZero", std::string(kBase) + "table_capacity: 0\n", 6, 17,
                    "table_capacity: 0 is out of range 1..1000000"},
        BadScenario{"TableCapacityAboveTheControllersLimit",
                    std::string(kBase) + "table_capacity: 1000001\n", 6, 17,
                    "out of range 1..1000000"},
        BadScenario{"TableCapacityQuoted", std::string(kBase) + "table_capacity: \"64\"\n", 6, 17,
                    "got the quoted string '64' (remove the quotes)"},
        BadScenario{"GpusPerNodeAbove64", std::string(kBase) + "gpus_per_node: 65\n", 6, 16,
                    "gpus_per_node: 65 is out of range 1..64"},
        BadScenario{"GpusPerNodeZero", std::string(kBase) + "gpus_per_node: 0\n", 6, 16,
                    "out of range 1..64"},
        BadScenario{"RanksPerNodeAMap", std::string(kBase) + "ranks_per_node: {a: 1}\n", 6, 17,
                    "ranks_per_node: expected a single value, not a list or map"},
        BadScenario{"LinkBandwidthZero", std::string(kBase) + "link_bandwidth: 0\n", 6, 17,
                    "link_bandwidth: 0 is out of range: Gb/s above 0"},
        BadScenario{"LinkBandwidthNegative", std::string(kBase) + "link_bandwidth: -100\n", 6, 17,
                    "out of range"},
        BadScenario{"LinkBandwidthInfinite", std::string(kBase) + "link_bandwidth: inf\n", 6, 17,
                    "expected a finite decimal number, got 'inf'"},
        BadScenario{"LinkBandwidthNotANumber", std::string(kBase) + "link_bandwidth: fast\n", 6, 17,
                    "expected a finite decimal number"},
        BadScenario{"HostsZero", base_with(2, "topology: {xgft: \"2;4,4;1,4\", hosts: 0}"), 2, 38,
                    "topology.hosts: 0 is out of range"},
        BadScenario{
            "UtilisationAsAPercentage",
            base_with(5, "workload: {synthetic: {preset: atlas, jobs: 9, utilisation: 64}}"), 5, 61,
            "(0.88, not 88)"},
        // Names.
        BadScenario{"NameWithASlash", base_with(1, "name: a/b"), 1, 7, "name: 'a/b' is not 1-64"},
        BadScenario{"RoutingUnknown", base_with(3, "routing: sdn-bogus"), 3, 10,
                    "routing: unknown routing algorithm 'sdn-bogus' (known: dmodk, smodk"},
        BadScenario{"AllocationUnknown", std::string(kBase) + "allocation: best\n", 6, 13,
                    "allocation: 'best' is not one of linear, random, tree, rdn"},
        BadScenario{"PlacementUnknown", std::string(kBase) + "placement: scatter\n", 6, 12,
                    "placement: 'scatter' is not one of block, cyclic"},
        BadScenario{"FlowLevelUnknown", std::string(kBase) + "flow_level: slid\n", 6, 13,
                    "flow_level: 'slid' is not one of dlid, slid-dlid"},
        BadScenario{"LoadGuardNotABoolean", std::string(kBase) + "load_guard: on\n", 6, 13,
                    "load_guard: expected true or false, got 'on'"},
        BadScenario{"InstallBackendUnknown", std::string(kBase) + "install_backend: lfts\n", 6, 18,
                    "install_backend: 'lfts' is not one of auto, flow_table, lft"},
        BadScenario{"InstallBackendDryRun",
                    std::string(kBase) + "install_backend: [lft, dry_run]\n", 6, 24,
                    "install_backend: 'dry_run' installs nothing, so the jobs would keep the "
                    "LFTs' routes: that is routing dmodk"},
        BadScenario{"InstallBackendLftOnADragonfly",
                    base_with(2, "topology: {dragonfly: {p: 2, a: 4, h: 2, g: 9}}") +
                        "install_backend: [flow_table, lft]\n",
                    6, 31,
                    "install_backend: lft needs a fat-tree (LFT entries are written only where "
                    "every route stays a shortest up*/down* path), and a dragonfly is not one "
                    "(run 2 of 2: install_backend=lft)"},
        BadScenario{"ModelUnknown", std::string(kBase) + "model: packet\n", 6, 8,
                    "model: 'packet' is not one of static"},
        BadScenario{"PresetUnknown",
                    base_with(5, "workload: {synthetic: {preset: summit, jobs: 9}}"), 5, 32,
                    "workload.synthetic.preset: 'summit' is not one of curie, thunder, atlas"},
        // Patterns: the parser's own message.
        BadScenario{"PatternUnknown", base_with(4, "pattern: ring5"), 4, 10,
                    "pattern: unknown pattern 'ring5'"},
        BadScenario{"PatternBadOption", base_with(4, "pattern: \"shift:k=x\""), 4, 10,
                    "pattern: pattern 'shift': option k"},
        BadScenario{"PatternOptionNotAccepted", base_with(4, "pattern: \"ring:k=2\""), 4, 10,
                    "pattern 'ring'"},
        BadScenario{"JobPatternBad",
                    base_with(5, "workload: {jobs: [{nodes: 2, start: 0, end: 1, pattern: x}]}"), 5,
                    57, "workload.jobs[0].pattern: unknown pattern 'x'"},
        BadScenario{"MatrixFileMissing", base_with(4, "pattern: \"matrix:file=tm/none.txt\""), 4,
                    10,
                    "pattern: matrix: cannot read 'tm/none.txt' (resolved to 'DIR/tm/none.txt'): "
                    "No such file or directory"},
        BadScenario{"MatrixFileMalformed", base_with(4, "pattern: \"matrix:file=traces/two.swf\""),
                    4, 10, "two.swf:1:"},
        // Topology.
        BadScenario{"TwoTopologies",
                    base_with(2, "topology: {xgft: \"2;4,4;1,4\", netlist: fabrics/tree.net}"), 2,
                    40,
                    "topology: give exactly one of xgft, dragonfly, megafly, netlist; found xgft "
                    "and netlist"},
        BadScenario{"NoTopology", base_with(2, "topology: {hosts: 4}"), 2, 11,
                    "topology: give one of xgft, dragonfly, megafly, netlist"},
        BadScenario{"TopologyNotAMap", base_with(2, "topology: xgft"), 2, 11,
                    "topology: expected a map"},
        BadScenario{"TopologyAList", base_with(2, "topology: [{xgft: \"2;4,4;1,4\"}]"), 2, 11,
                    "topology: takes one map; sweep inside it"},
        BadScenario{"XgftMalformed", base_with(2, "topology: {xgft: \"3;8,8;1,8,8\"}"), 2, 18,
                    "topology.xgft: XGFT: height 3 needs 3 m values"},
        BadScenario{"DragonflyMissingAParameter",
                    base_with(2, "topology: {dragonfly: {p: 2, a: 4, h: 2}}"), 2, 23,
                    "topology.dragonfly: missing key 'g'"},
        BadScenario{"DragonflyTooManyGroups",
                    base_with(2, "topology: {dragonfly: {p: 2, a: 4, h: 2, g: 10}}"), 2, 23,
                    "topology: dragonfly: 10 groups need at least 9 global ports"},
        BadScenario{"SweptDragonflyInvalidInOneRun",
                    base_with(2, "topology: {dragonfly: {p: 2, a: 4, h: 2, g: [9, 10]}}"), 2, 23,
                    "(run 2 of 2: topology.dragonfly.g=10)"},
        BadScenario{"HostsBeyondTheFabric",
                    base_with(2, "topology: {xgft: \"2;4,4;1,4\", hosts: 17}"), 2, 38,
                    "topology.hosts: 17 exceeds the 16 hosts of XGFT(2;4,4;1,4)"},
        BadScenario{"HostsBeyondOneSweptFabric",
                    base_with(2, "topology: {xgft: [\"3;4,4,4;1,4,4\", \"2;4,4;1,4\"], hosts: 20}"),
                    2, 57, "exceeds the 16 hosts of XGFT(2;4,4;1,4) (run 2 of 2: topology.xgft="},
        BadScenario{"NetlistMalformed", base_with(2, "topology: {netlist: fabrics/bad.net}"), 2, 21,
                    "topology.netlist: DIR/fabrics/bad.net:2:"},
        BadScenario{"NetlistMissing", base_with(2, "topology: {netlist: fabrics/none.net}"), 2, 21,
                    "topology.netlist: cannot read 'fabrics/none.net' (resolved to "
                    "'DIR/fabrics/none.net'): No such file or directory"},
        BadScenario{"NetlistADirectory", base_with(2, "topology: {netlist: a-directory}"), 2, 21,
                    "(resolved to 'DIR/a-directory'): not a regular file"},
        // Workloads.
        BadScenario{"TwoWorkloads",
                    base_with(5,
                              "workload: {synthetic: {preset: curie, jobs: 5}, jobs: "
                              "[{nodes: 1, start: 0, end: 1}]}"),
                    5, 55,
                    "workload: give exactly one of trace, synthetic, jobs; found synthetic "
                    "and jobs"},
        BadScenario{"NoWorkload", base_with(5, "workload: {}"), 5, 11,
                    "workload: give one of trace, synthetic, jobs"},
        BadScenario{"TraceFileMissing",
                    base_with(5, "workload: {trace: {file: none.swf, cpus_per_node: 4}}"), 5, 26,
                    "workload.trace.file: cannot read 'none.swf' (resolved to 'DIR/none.swf')"},
        BadScenario{"TraceWithoutCpusPerNode",
                    base_with(5, "workload: {trace: {file: traces/two.swf}}"), 5, 19,
                    "workload.trace: missing key 'cpus_per_node'"},
        BadScenario{"TraceSystemBeyondTheHosts",
                    base_with(5,
                              "workload: {trace: {file: traces/two.swf, cpus_per_node: 4, "
                              "system_nodes: 17}}"),
                    5, 74, "workload.trace.system_nodes: 17 exceeds the 16 hosts"},
        BadScenario{"JobsNotAList", base_with(5, "workload: {jobs: {nodes: 1}}"), 5, 18,
                    "workload.jobs: expected a list of jobs"},
        BadScenario{"JobWithoutEnd", base_with(5, "workload: {jobs: [{nodes: 2, start: 0}]}"), 5,
                    19, "workload.jobs[0]: missing key 'end'"},
        BadScenario{"JobEndingBeforeItStarts",
                    base_with(5, "workload: {jobs: [{nodes: 2, start: 5, end: 5}]}"), 5, 45,
                    "workload.jobs[0].end: 5 is not after start (5)"},
        BadScenario{"JobLargerThanTheHosts",
                    base_with(5,
                              "workload: {jobs: [{nodes: 2, start: 0, end: 1}, {nodes: 17, "
                              "start: 0, end: 1}]}"),
                    5, 57, "workload.jobs[1].nodes: 17 exceeds the 16 hosts"},
        BadScenario{"JobTimeNegative",
                    base_with(5, "workload: {jobs: [{nodes: 2, start: -1, end: 1}]}"), 5, 37,
                    "workload.jobs[0].start: -1 is out of range"},
        // Sweeps.
        BadScenario{"NameSwept", base_with(1, "name: [a, b]"), 1, 7,
                    "name: takes one value; it cannot be swept"},
        BadScenario{"JobFieldSwept",
                    base_with(5, "workload: {jobs: [{nodes: [2, 4], start: 0, end: 1}]}"), 5, 27,
                    "workload.jobs[0].nodes: takes one value; explicit jobs are not swept"},
        BadScenario{"EmptySweep", base_with(3, "routing: []"), 3, 10,
                    "routing: an empty list sweeps nothing"},
        BadScenario{"ValueTwiceInASweep", base_with(3, "routing: [dmodk, sdn-greedy, dmodk]"), 3,
                    30, "routing: 'dmodk' is listed twice in this sweep (first at 3:11)"},
        BadScenario{"SameNumberWrittenTwoWays", std::string(kBase) + "link_bandwidth: [100, 1e2]\n",
                    6, 23, "'100' is listed twice"},
        BadScenario{"ListInASweep", base_with(3, "routing: [[dmodk]]"), 3, 11,
                    "routing: a sweep lists single values"},
        BadScenario{"BadValueInASweep", std::string(kBase) + "table_capacity: [64, 0]\n", 6, 22,
                    "table_capacity: 0 is out of range"},
        BadScenario{"SweepsOverTheRunLimit",
                    std::string(kBase) + "seed: " + numbers(0, 101) +
                        "\ntable_capacity: " + numbers(1, 100) + "\n",
                    6, 7,
                    "the sweeps make 10100 runs (seed (101) x table_capacity (100)); at most "
                    "10000 are allowed"}),
    testing_names::ByCaseName{});

// --- the hash -------------------------------------------------------------------------------

constexpr const char* kHashed = R"(name: hashed
topology: {xgft: "2;4,4;1,4"}
routing: [dmodk, sdn-greedy]
table_capacity: 64
pattern: 3dnn
workload: {trace: {file: traces/two.swf, cpus_per_node: 4}}
)";

TEST(ScenarioHash, SameScenario_SameHash_Printed16HexDigits) {
  const ScenarioFiles files;
  const Scenario a = parse(kHashed, files.dir());
  const Scenario b = parse(kHashed, files.dir());
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash_text(), b.hash_text());
  ASSERT_EQ(a.hash_text().size(), 16u);
  EXPECT_EQ(a.hash_text().find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(std::stoull(a.hash_text(), nullptr, 16), a.hash());
}

TEST(ScenarioHash, CommentsLayoutKeyOrderAndExplicitDefaults_KeepTheHash) {
  const ScenarioFiles files;
  const Scenario a = parse(kHashed, files.dir());
  const Scenario b = parse(R"(# the same scenario, written differently
workload:
  trace:
    cpus_per_node: 4
    file: traces/two.swf   # relative to this file
pattern: 3dnn
table_capacity: 64
routing:
  - dmodk
  - sdn-greedy
topology:
  xgft: 2;4,4;1,4
name: hashed
seed: 1
flow_level: slid-dlid
install_backend: auto
)",
                           files.dir());
  EXPECT_EQ(a.hash_text(), b.hash_text()) << a.canonical_json() << "\n" << b.canonical_json();
}

TEST(ScenarioHash, AnyValueChange_ChangesTheHash) {
  const ScenarioFiles files;
  const std::string base = parse(kHashed, files.dir()).hash_text();
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"table_capacity: 64", "table_capacity: 65"},
      {"routing: [dmodk, sdn-greedy]", "routing: [sdn-greedy, dmodk]"},
      {"routing: [dmodk, sdn-greedy]", "routing: [dmodk]"},
      {"name: hashed", "name: hashed2"},
      {"pattern: 3dnn", "pattern: dynamic"},
      {"cpus_per_node: 4", "cpus_per_node: 8"},
      {"2;4,4;1,4", "2;4,4;1,2"},
      {"table_capacity: 64", "table_capacity: 64\ninstall_backend: lft"},
      {"table_capacity: 64", "table_capacity: 64\ninstall_backend: flow_table"},
  };
  std::set<std::string> seen = {base};
  for (const auto& [from, to] : changes) {
    std::string text = kHashed;
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const std::string h = parse(text, files.dir()).hash_text();
    EXPECT_NE(h, base) << to;
    EXPECT_TRUE(seen.insert(h).second) << to;
  }
  const std::string with_seed = parse(std::string(kHashed) + "seed: 2\n", files.dir()).hash_text();
  EXPECT_NE(with_seed, base);
}

TEST(ScenarioHash, AReferencedFilesContent_ChangesTheHash) {
  const ScenarioFiles files;
  const std::string before = parse(kHashed, files.dir()).hash_text();
  write_file(files.file("traces/two.swf"), std::string(kSwf) + "; one more comment\n");
  const std::string after = parse(kHashed, files.dir()).hash_text();
  EXPECT_NE(before, after);
}

TEST(ScenarioHash, MovingTheScenariosFolder_KeepsTheHash) {
  const ScenarioFiles here;
  const ScenarioFiles there;
  EXPECT_EQ(parse(kHashed, here.dir()).hash_text(), parse(kHashed, there.dir()).hash_text());
}

// --- dynamic patterns -----------------------------------------------------------------------

TEST(ScenarioDynamicPattern, EachJobDrawsRingTwoDThreeDOrRandom4Uniformly) {
  ScenarioPattern dynamic;
  dynamic.dynamic = true;
  std::map<std::string, int> counts;
  constexpr int kJobs = 4000;
  for (int j = 0; j < kJobs; ++j) counts[job_pattern(dynamic, 7, j).name]++;
  ASSERT_EQ(counts.size(), 4u);
  for (std::string_view name : dynamic_pattern_names()) {
    const int n = counts[std::string(name)];
    // Binomial(4000, 1/4): mean 1000, standard deviation ~27; 6 sigma either side.
    EXPECT_GT(n, 840) << name;
    EXPECT_LT(n, 1160) << name;
  }
}

TEST(ScenarioDynamicPattern, ADrawDependsOnTheSeedAndTheJobIndexOnly) {
  ScenarioPattern dynamic;
  dynamic.dynamic = true;
  std::vector<std::string> a;
  std::vector<std::string> b;
  for (int j = 0; j < 64; ++j) a.push_back(job_pattern(dynamic, 7, j).name);
  for (int j = 63; j >= 0; --j) b.insert(b.begin(), job_pattern(dynamic, 7, j).name);
  EXPECT_EQ(a, b);
  std::vector<std::string> other;
  for (int j = 0; j < 64; ++j) other.push_back(job_pattern(dynamic, 8, j).name);
  EXPECT_NE(a, other);
  ScenarioPattern fixed;
  fixed.spec = PatternSpec::parse("shift:k=2");
  EXPECT_EQ(job_pattern(fixed, 7, 3), fixed.spec);
}

// --- what other code and the documentation rely on -----------------------------------------

TEST(ScenarioNames, AreThoseOfTheIssue) {
  const auto names = [](std::span<const std::string_view> s) {
    return std::vector<std::string>(s.begin(), s.end());
  };
  EXPECT_EQ(node_allocation_names(), (std::vector<std::string>{"linear", "random", "tree", "rdn",
                                                               "rdr", "rdc", "rdg", "rrn", "rrr"}));
  EXPECT_EQ(synthetic_preset_names(), (std::vector<std::string>{"curie", "thunder", "atlas"}));
  EXPECT_EQ(names(dynamic_pattern_names()),
            (std::vector<std::string>{"ring", "2dnn", "3dnn", "random4"}));
  // Every dynamic draw is a pattern the parser knows.
  for (std::string_view n : dynamic_pattern_names()) {
    EXPECT_NO_THROW((void)PatternSpec::parse(n)) << n;
  }
}

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(IBSDN_SOURCE_DIR) + "/" + relative);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ScenarioDocs, SimulationMdDescribesEveryKey) {
  const std::string doc = read_source("docs/simulation.md");
  ASSERT_FALSE(doc.empty());
  for (const std::string& key : scenario_keys()) {
    const std::string leaf = key.substr(key.rfind('.') + 1);
    const bool named = doc.find("`" + key + "`") != std::string::npos ||
                       doc.find("`" + leaf + "`") != std::string::npos ||
                       doc.find("`" + leaf + ":") != std::string::npos;
    EXPECT_TRUE(named) << key;
  }
  for (const std::string& key : sweepable_scenario_keys()) {
    EXPECT_NE(doc.find(key), std::string::npos) << "sweepable " << key;
  }
  for (const std::string& name : node_allocation_names()) {
    EXPECT_NE(doc.find("`" + std::string(name) + "`"), std::string::npos) << name;
  }
}

// Every ```yaml block of the simulation pages (docs/simulation.md and the page of each model) is a
// scenario that loads, its files taken from sim_backend/scenarios/.
TEST(ScenarioDocs, EveryExampleInSimulationMdLoads) {
  int examples = 0;
  for (const char* page :
       {"docs/simulation.md", "docs/simulation-static.md", "docs/simulation-flow.md",
        "docs/simulation-timing.md", "docs/simulation-reproductions.md"}) {
    const std::string doc = read_source(page);
    ASSERT_FALSE(doc.empty()) << page;
    const std::string open = "```yaml\n";
    for (std::size_t at = doc.find(open); at != std::string::npos; at = doc.find(open, at)) {
      at += open.size();
      const std::size_t end = doc.find("```", at);
      ASSERT_NE(end, std::string::npos);
      const std::string text = doc.substr(at, end - at);
      ++examples;
      try {
        (void)parse_scenario(text, std::string(page) + " example " + std::to_string(examples),
                             std::string(IBSDN_SOURCE_DIR) + "/sim_backend/scenarios");
      } catch (const ConfigError& e) {
        ADD_FAILURE() << e.what() << "\n" << text;
      }
      at = end + 3;
    }
  }
  EXPECT_GE(examples, 3);
}

std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> out;
  const std::filesystem::path dir =
      std::filesystem::path(IBSDN_SOURCE_DIR) / "sim_backend/scenarios";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ScenarioShipped, ThereAreExamples) {
  EXPECT_GE(shipped_scenarios().size(), 4u);
}

class ShippedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedScenario, Loads) {
  const std::string path =
      std::string(IBSDN_SOURCE_DIR) + "/sim_backend/scenarios/" + GetParam() + ".yaml";
  try {
    const Scenario s = load_scenario(path);
    EXPECT_EQ(s.name(), GetParam()) << "a scenario is named after its file";
    EXPECT_EQ(expand(s).size(), s.run_count());
  } catch (const ConfigError& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ShippedScenario, ::testing::ValuesIn(shipped_scenarios()),
                         testing_names::ByText{});

TEST(ScenarioLoad, AMissingFile_NamesIt) {
  try {
    (void)load_scenario("/nonexistent/scenario.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/scenario.yaml: cannot read: No such file or directory");
  }
}

TEST(ScenarioLoad, RelativePathsResolveAgainstTheScenarioFilesFolder) {
  const ScenarioFiles files;
  write_file(files.file("s.yaml"), kHashed);
  const Scenario s = load_scenario(files.file("s.yaml"));
  EXPECT_EQ(std::get<TraceWorkload>(s.run(0).workload).file.path, files.file("traces/two.swf"));
  EXPECT_EQ(s.hash_text(), parse(kHashed, files.dir()).hash_text());
}

}  // namespace
}  // namespace ibsdn
