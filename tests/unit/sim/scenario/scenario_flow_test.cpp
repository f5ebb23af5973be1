// Scenario files of the flow model (`model: flow`, docs/simulation.md "The flow model in
// scenarios"): the application and timing keys, their defaults and sweeps, and every bad key or
// value refused at its FILE:LINE:COLUMN — timing, an application or adaptive routing with the
// static model included.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim_backend/scenario/scenario.hpp"
#include "tests/support/param_names.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sim/scenario/scenario_swept_head.hpp"

namespace ibsdn {
namespace {

Scenario parse(const std::string& text) {
  return parse_scenario(text, "f.yaml", std::filesystem::temp_directory_path());
}

constexpr const char* kFlow = R"(name: f
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
application: "stencil4d:bytes=1M,iter=10,compute=2ms"
workload: {jobs: [{nodes: 2, start: 0, end: 10}]}
)";

constexpr const char* kStatic = R"(name: s
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
pattern: ring
workload: {jobs: [{nodes: 2, start: 0, end: 10}]}
)";

TEST(ScenarioFlow, EveryTimingKey_Loads) {
  const Scenario s = parse(std::string(kFlow) + R"(timing:
  nic: rr-2
  gpu_link: 4
  link_latency: 100ns
  bandwidth_multiple: 0.5
  baseline: sdn-optimal
  alone: true
  sample_interval: 1ms
  elephants: 64K
  adaptive: {rule: ugal-g, bias: 2, split_slack: 0.5}
)");
  const ScenarioRun r = s.run(0);
  EXPECT_EQ(r.model, SimulationModel::kFlow);
  ASSERT_TRUE(r.application.has_value());
  EXPECT_EQ(r.application->spec.name, "stencil4d");
  EXPECT_EQ(r.application->spec.compute_s, 2e-3);
  const TimingSettings& t = r.timing;
  EXPECT_EQ(t.nic, NicPolicy::parse("rr-2"));
  EXPECT_EQ(t.gpu_link, 4);
  EXPECT_EQ(t.link_latency, 100e-9);
  EXPECT_EQ(t.bandwidth_multiple, 0.5);
  EXPECT_EQ(t.baseline, "sdn-optimal");
  EXPECT_TRUE(t.alone);
  EXPECT_EQ(t.sample_interval, 1e-3);
  EXPECT_EQ(t.elephant_bytes, 65536u);
  EXPECT_EQ(t.adaptive.dragonfly.rule, DragonflyAdaptiveRule::kUgalGlobal);
  EXPECT_EQ(t.adaptive.dragonfly.bias, 2);
  EXPECT_EQ(t.adaptive.fat_tree.split_slack, 0.5);
  EXPECT_EQ(topology_spec(r).gbps, 50) << "network links at link_bandwidth x the multiple";
}

TEST(ScenarioFlow, OmittedTiming_TakesTheDocumentedDefaults) {
  const ScenarioRun r = parse(kFlow).run(0);
  const TimingSettings& t = r.timing;
  EXPECT_EQ(t.nic, NicPolicy{});
  EXPECT_EQ(t.gpu_link, 2);
  EXPECT_EQ(t.link_latency, 0);
  EXPECT_EQ(t.bandwidth_multiple, 1);
  EXPECT_EQ(t.baseline, "dmodk");
  EXPECT_FALSE(t.alone);
  EXPECT_EQ(t.sample_interval, 0);
  EXPECT_EQ(t.elephant_bytes, 0u) << "every pair is the controller's";
  EXPECT_EQ(t.adaptive.dragonfly.rule, DragonflyAdaptiveRule::kProgressive);
  EXPECT_EQ(t.adaptive.dragonfly.bias, 3);
  EXPECT_EQ(t.adaptive.fat_tree.split_slack, 1);
  EXPECT_TRUE(r.pattern.text.empty()) << "no pattern needed beside an application";
}

TEST(ScenarioFlow, ApplicationAndTimingSweep_AdaptiveRoutingAndJobsOwnApplication) {
  const Scenario s = parse(R"(name: f
topology: {xgft: "2;4,4;1,4"}
routing: [dmodk, adaptive, sdn-adaptive]
model: flow
pattern: ring
application: ["random-perm:iter=2", "stencil3d:dims=1x1x2"]
timing: {nic: [fcfs, rr], gpu_link: [1, 2], bandwidth_multiple: [0.0625, 16]}
workload: {jobs: [{nodes: 2, start: 0, end: 10, application: "shift:k=2"}]}
)");
  EXPECT_EQ(s.run_count(), 3u * 2 * 2 * 2 * 2);
  const std::vector<std::string> sweepable = sweepable_scenario_keys();
  std::vector<std::string> keys;
  for (const SweepAxis& a : s.axes()) {
    keys.push_back(a.key);
    EXPECT_NE(std::find(sweepable.begin(), sweepable.end(), a.key), sweepable.end()) << a.key;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"routing", "application", "timing.nic",
                                            "timing.gpu_link", "timing.bandwidth_multiple"}));
  const ScenarioRun last = s.run(s.run_count() - 1);
  EXPECT_EQ(last.routing, "sdn-adaptive");
  EXPECT_EQ(last.application->text, "stencil3d:dims=1x1x2");
  EXPECT_EQ(last.timing.bandwidth_multiple, 16);
  const auto& jobs = *std::get<ExplicitJobs>(last.workload).jobs;
  ASSERT_TRUE(jobs[0].application.has_value());
  EXPECT_EQ(jobs[0].application->text, "shift:k=2");
}

TEST(ScenarioFlow, StaticScenariosKeepTheirHash_FlowKeysChangeIt) {
  const Scenario a = parse(kStatic);
  const Scenario b = parse(std::string(kStatic) + "model: static\n");
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.canonical_json().find("timing"), std::string::npos)
      << "a static scenario's canonical form has no timing fields: old hashes stay valid";
  const Scenario f = parse(kFlow);
  const Scenario g = parse(std::string(kFlow) + "timing: {nic: rr}\n");
  const Scenario h = parse(std::string(kFlow) + "timing: {nic: fcfs}\n");
  EXPECT_NE(f.hash(), g.hash());
  EXPECT_EQ(f.hash(), h.hash()) << "writing a default changes nothing";
}

constexpr const char* kQos = R"(name: q
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
application: nekbone
timing:
  classes:
    - {name: app, priority: 2, cap: 0.7}
    - {name: coll, priority: 3, cap: 0.1, borrow: false}
    - {name: default, priority: 1}
  collectives: coll
  qos: [true, false]
  background: {nodes: 4, bytes: 1M, load: [0.1, 0.3], class: default}
workload: {jobs: [{nodes: 8, start: 0, end: 10, class: app}, {nodes: 2, start: 0, end: 10}]}
)";

TEST(ScenarioFlow, TrafficClassesAndBackground_Load) {
  const Scenario s = parse(kQos);
  ASSERT_EQ(s.run_count(), 4u) << "timing.qos x timing.background.load";
  const ScenarioRun r = s.run(1);
  EXPECT_EQ(r.label, "timing.qos=true timing.background.load=0.3");
  const TimingSettings& t = r.timing;
  ASSERT_EQ(t.classes.size(), 3u) << "default is SL 0 whether listed or not";
  EXPECT_EQ(t.classes[0], (ScenarioClass{"default", 1, 1.0, true}));
  EXPECT_EQ(t.classes[1], (ScenarioClass{"app", 2, 0.7, true}));
  EXPECT_EQ(t.classes[2], (ScenarioClass{"coll", 3, 0.1, false}));
  EXPECT_TRUE(t.qos);
  EXPECT_EQ(t.collectives, std::optional<std::size_t>(2));
  ASSERT_TRUE(t.background.has_value());
  EXPECT_EQ(t.background->nodes, 4u);
  EXPECT_EQ(t.background->bytes, 1u << 20);
  EXPECT_EQ(t.background->load, 0.3);
  EXPECT_EQ(t.background->duration, 0);
  EXPECT_EQ(t.background->traffic_class, 0u);
  EXPECT_FALSE(s.run(2).timing.qos);
  const auto& jobs = *std::get<ExplicitJobs>(r.workload).jobs;
  EXPECT_EQ(jobs[0].traffic_class, "app");
  EXPECT_EQ(jobs[1].traffic_class, "");
  // Without the keys: one class, QoS on (it changes nothing), no background.
  const ScenarioRun plain = parse(kFlow).run(0);
  EXPECT_EQ(plain.timing.classes, std::vector<ScenarioClass>{ScenarioClass{"default"}});
  EXPECT_TRUE(plain.timing.qos);
  EXPECT_FALSE(plain.timing.collectives.has_value());
  EXPECT_FALSE(plain.timing.background.has_value());
}

struct BadFlow {
  std::string name;
  std::string text;
  std::size_t line;
  std::string needle;  // the column is where this starts on that line
  std::string says;
};

class ScenarioFlowRejects : public ::testing::TestWithParam<BadFlow> {};

TEST_P(ScenarioFlowRejects, NamingFileLineAndColumn) {
  const BadFlow& bad = GetParam();
  std::size_t start = 0;
  for (std::size_t i = 1; i < bad.line; ++i) start = bad.text.find('\n', start) + 1;
  const std::string line = bad.text.substr(start, bad.text.find('\n', start) - start);
  ASSERT_NE(line.find(bad.needle), std::string::npos) << line;
  const std::size_t column = line.find(bad.needle) + 1;
  try {
    (void)parse(bad.text);
    FAIL() << "accepted:\n" << bad.text;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.line(), bad.line) << what;
    EXPECT_EQ(e.column(), column) << what;
    const std::string prefix =
        "f.yaml:" + std::to_string(bad.line) + ":" + std::to_string(column) + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(bad.says), std::string::npos) << what << "\nexpected: " << bad.says;
  }
}

std::string flow(const std::string& line) {
  return std::string(kFlow) + line + "\n";
}

/// `{name: c0}, {name: c1}, ...`: n classes.
std::string classes(int n) {
  std::string list;
  for (int i = 0; i < n; ++i)
    list += (i ? ", " : "") + std::string("{name: c") + std::to_string(i) + "}";
  return list;
}

std::string many_jobs(std::size_t n) {
  std::string jobs;
  for (std::size_t i = 0; i < n; ++i) {
    jobs += std::string(i ? ", " : "") + "{nodes: 1, start: " + std::to_string(i) +
            ", end: " + std::to_string(i + 1) + "}";
  }
  return jobs;
}

// Zip, reference and ranks (scenario_sweeps_test.cpp): line 7 sweeps gpus_per_node, the
// tests' lines follow.
std::string swept(const std::string& lines) {
  return std::string(test::kSweptHead) + "gpus_per_node: [1, 2, 4]\n" + lines;
}

constexpr const char* kStaticSwept = R"(name: s
topology: {xgft: ["2;4,4;1,4", "2;4,2;1,4"]}
routing: dmodk
pattern: ring
)";

INSTANTIATE_TEST_SUITE_P(
    Cases, ScenarioFlowRejects,
    ::testing::Values(
        BadFlow{"TimingWithTheStaticModel", std::string(kStatic) + "timing: {nic: rr}\n", 6, "{",
                "timing is for model flow only"},
        BadFlow{"ApplicationWithTheStaticModel", std::string(kStatic) + "application: ring\n", 6,
                "ring", "application is for model flow only"},
        BadFlow{"JobsApplicationWithTheStaticModel",
                R"(name: s
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
pattern: ring
workload: {jobs: [{nodes: 2, start: 0, end: 10, application: ring}]}
)",
                5, "ring}", "a job's application is for model flow only"},
        BadFlow{"AdaptiveRoutingNeedsTheFlowModel",
                R"(name: s
topology: {xgft: "2;4,4;1,4"}
routing: [dmodk, adaptive]
pattern: ring
workload: {jobs: [{nodes: 2, start: 0, end: 10}]}
)",
                3, "adaptive",
                "routing: adaptive (the fabric's adaptive routing) is for model "
                "flow only"},
        BadFlow{"StaticAndFlowSweptTogether", std::string(kStatic) + "model: [static, flow]\n", 6,
                "flow", "static and flow cannot be swept together"},
        BadFlow{"UnknownTimingKey", flow("timing: {nics: rr}"), 7, "nics",
                "timing: unknown key 'nics' (did you mean 'nic'?)"},
        BadFlow{"UnknownNicPolicy", flow("timing: {nic: lifo}"), 7, "lifo", "timing.nic: "},
        BadFlow{"GpuLinkZero", flow("timing: {gpu_link: 0}"), 7, "0",
                "timing.gpu_link: 0 is out of range"},
        BadFlow{"BandwidthMultipleAbove16", flow("timing: {bandwidth_multiple: 32}"), 7, "32",
                "timing.bandwidth_multiple: 32 is out of range: a multiple of link_bandwidth "
                "from 0.0625 (x/16) to 16"},
        BadFlow{"BandwidthMultipleBelowASixteenth", flow("timing: {bandwidth_multiple: 0.01}"), 7,
                "0.01", "timing.bandwidth_multiple: 0.01 is out of range"},
        BadFlow{"LatencyWithoutUnit", flow("timing: {link_latency: 100}"), 7, "100",
                "timing.link_latency: '100' needs a unit"},
        BadFlow{"LatencySwept", flow("timing: {link_latency: [0, 1us]}"), 7, "[",
                "timing.link_latency: takes one value"},
        BadFlow{"UnknownBaseline", flow("timing: {baseline: best}"), 7, "best",
                "timing.baseline: unknown routing algorithm 'best'"},
        BadFlow{"AloneNotABoolean", flow("timing: {alone: yes}"), 7, "yes", "timing.alone"},
        BadFlow{"NegativeSampleInterval", flow("timing: {sample_interval: -1ms}"), 7, "-1ms",
                "timing.sample_interval: '-1ms' is negative"},
        BadFlow{"ElephantsNegative", flow("timing: {elephants: -1}"), 7, "-1",
                "timing.elephants: '-1'"},
        BadFlow{"ElephantsZeroWithAUnit", flow("timing: {elephants: 0K}"), 7, "0K",
                "timing.elephants: '0K' is out of range: 0, or 1 byte to 1024G"},
        BadFlow{"UnknownAdaptiveRule", flow("timing: {adaptive: {rule: minimal}}"), 7, "minimal",
                "timing.adaptive.rule: 'minimal' is not one of par, ugal-l, ugal-g"},
        BadFlow{"NegativeBias", flow("timing: {adaptive: {bias: -1}}"), 7, "-1",
                "timing.adaptive.bias: -1 is out of range"},
        BadFlow{"BadApplication",
                R"(name: f
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
application: "stencil4d:bytes=0"
workload: {jobs: [{nodes: 2, start: 0, end: 10}]}
)",
                5, "\"", "application: app 'stencil4d': option bytes"},
        BadFlow{"AloneWithTooManyJobs",
                std::string(R"(name: f
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
application: ring
timing: {alone: true}
workload: {jobs: [)") +
                    many_jobs(kMaxAloneJobs + 1) + "]}\n",
                6, "true", "timing.alone: 201 jobs would each run once more alone; at most 200"},
        BadFlow{"ClassesNotAList", flow("timing: {classes: {name: a}}"), 7, "{name",
                "timing.classes: expected a list of classes"},
        BadFlow{"ClassWithoutName", flow("timing: {classes: [{priority: 1}]}"), 7, "{priority",
                "timing.classes[0]: missing key 'name'"},
        BadFlow{"ClassNameWithASpace", flow("timing: {classes: [{name: 'a b'}]}"), 7, "'a b'",
                "timing.classes[0].name: 'a b' is not a class name"},
        BadFlow{"ClassListedTwice", flow("timing: {classes: [{name: a}, {name: a}]}"), 7, "a}]",
                "timing.classes[1].name: 'a' is listed twice (first at 7:27)"},
        BadFlow{"ClassPriorityAbove15", flow("timing: {classes: [{name: a, priority: 16}]}"), 7,
                "16", "timing.classes[0].priority: 16 is out of range"},
        BadFlow{"ClassCapAsAPercentage", flow("timing: {classes: [{name: a, cap: 30}]}"), 7, "30",
                "timing.classes[0].cap: 30 is out of range: a fraction of every link above 0 and "
                "at most 1 (0.3, not 30)"},
        BadFlow{"ClassCapZero", flow("timing: {classes: [{name: a, cap: 0}]}"), 7, "0}",
                "timing.classes[0].cap: 0 is out of range"},
        BadFlow{"ClassSwept", flow("timing: {classes: [{name: a, cap: [0.1, 0.2]}]}"), 7, "[0.1",
                "timing.classes[0].cap: takes one value"},
        BadFlow{"UnknownClassKey", flow("timing: {classes: [{name: a, prio: 1}]}"), 7, "prio",
                "timing.classes[0]: unknown key 'prio'"},
        BadFlow{"SeventeenClasses", flow("timing: {classes: [" + classes(17) + "]}"), 7, "[{",
                "timing.classes: 17 classes; at most 16"},
        BadFlow{"SixteenClassesBesidesDefault", flow("timing: {classes: [" + classes(16) + "]}"), 7,
                "{name: c15}", "a 17th class with default"},
        BadFlow{"UnknownJobClass",
                R"(name: f
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
model: flow
application: ring
workload: {jobs: [{nodes: 2, start: 0, end: 10, class: gold}]}
)",
                6, "gold",
                "workload.jobs[0].class: unknown class 'gold' (timing.classes has: "
                "default)"},
        BadFlow{"JobClassWithTheStaticModel",
                R"(name: s
topology: {xgft: "2;4,4;1,4"}
routing: dmodk
pattern: ring
workload: {jobs: [{nodes: 2, start: 0, end: 10, class: default}]}
)",
                5, "default", "workload.jobs[0].class is for model flow only"},
        BadFlow{"UnknownCollectivesClass", flow("timing: {collectives: fast}"), 7, "fast",
                "timing.collectives: unknown class 'fast'"},
        BadFlow{"QosNotABoolean", flow("timing: {qos: on}"), 7, "on", "timing.qos"},
        BadFlow{"BackgroundWithoutLoad", flow("timing: {background: {nodes: 4, bytes: 1M}}"), 7,
                "{nodes", "timing.background: missing key 'load'"},
        BadFlow{"BackgroundOnOneNode",
                flow("timing: {background: {nodes: 1, bytes: 1M, load: 0.1}}"), 7, "1,",
                "timing.background.nodes: 1 is out of range"},
        BadFlow{"BackgroundBeyondTheHosts",
                flow("timing: {background: {nodes: 17, bytes: 1M, load: 0.1}}"), 7, "17",
                "timing.background.nodes: 17 exceeds the 16 hosts the topology gives"},
        BadFlow{"BackgroundLoadAsAPercentage",
                flow("timing: {background: {nodes: 4, bytes: 1M, load: 20}}"), 7, "20",
                "timing.background.load: 20 is out of range: a share of the link bandwidth above "
                "0, at most 1 (0.2, not 20)"},
        BadFlow{"BackgroundLoadZero", flow("timing: {background: {nodes: 4, bytes: 1M, load: 0}}"),
                7, "0}", "timing.background.load: 0 is out of range"},
        BadFlow{"BackgroundBytesZero",
                flow("timing: {background: {nodes: 4, bytes: 0, load: 0.1}}"), 7, "0,",
                "timing.background.bytes: '0' is out of range: 1 byte to 1024G"},
        BadFlow{"BackgroundBytesAboveATebibyte",
                flow("timing: {background: {nodes: 4, bytes: 1025G, load: 0.1}}"), 7, "1025G",
                "timing.background.bytes: '1025G' is out of range: 1 byte to 1024G"},
        BadFlow{"BackgroundBytesMalformed",
                flow("timing: {background: {nodes: 4, bytes: 1X, load: 0.1}}"), 7, "1X",
                "timing.background.bytes: '1X'"},
        BadFlow{"BackgroundDurationWithoutUnit",
                flow("timing: {background: {nodes: 4, bytes: 1M, load: 0.1, duration: 5}}"), 7,
                "5}", "timing.background.duration: '5' needs a unit"},
        BadFlow{"BackgroundUnknownClass",
                flow("timing: {background: {nodes: 4, bytes: 1M, load: 0.1, class: bulk}}"), 7,
                "bulk", "timing.background.class: unknown class 'bulk'"},
        BadFlow{"BackgroundUnknownKey",
                flow("timing: {background: {nodes: 4, bytes: 1M, rate: 0.1}}"), 7, "rate",
                "timing.background: unknown key 'rate'"},
        BadFlow{"ZipOfAKeyNotSwept", swept("zip: [gpus_per_node, seed]\n"), 8, "seed",
                "zip[0]: 'seed' is not swept in this scenario (the swept keys: topology.xgft, "
                "routing, gpus_per_node)"},
        BadFlow{"ZipOfDifferentLengths", swept("zip: [gpus_per_node, routing]\n"), 8, "routing",
                "zip[0]: 'routing' sweeps 2 values, 'gpus_per_node' 3"},
        BadFlow{"ZipOfOneKey", swept("zip: [[gpus_per_node], [routing, topology.xgft]]\n"), 8,
                "[gpus_per_node]", "zip[0]: a group lists at least two swept keys"},
        BadFlow{"ZipKeyTwice", swept("zip: [[gpus_per_node, topology.xgft], [gpus_per_node, x]]\n"),
                8, "gpus_per_node, x",
                "zip[1]: 'gpus_per_node' is already zipped in another group"},
        BadFlow{"ZipNotAList", swept("zip: gpus_per_node\n"), 8, "gpus_per_node",
                "zip: expected a list of swept keys"},
        BadFlow{"ReferenceOfAKeyNotSwept", swept("reference: {seed: 1}\n"), 8, "seed",
                "reference: 'seed' is not swept"},
        BadFlow{"ReferenceValueNotSwept", swept("reference: {gpus_per_node: 8}\n"), 8, "8",
                "reference.gpus_per_node: '8' is not one of the sweep's values (1, 2, 4)"},
        BadFlow{"ReferenceZipPartnersDisagree",
                swept("zip: [gpus_per_node, topology.xgft]\n"
                      "reference: {gpus_per_node: 1, topology.xgft: \"2;4,4;1,4\"}\n"),
                9, "\"2;4", "is zipped with 'gpus_per_node', whose reference value is at another"},
        BadFlow{"ReferenceNotAMap", swept("reference: gpus_per_node\n"), 8, "gpus_per_node",
                "reference: expected a map from swept keys"},
        BadFlow{"ReferenceWithTheStaticModel",
                std::string(kStaticSwept) +
                    "workload: {jobs: [{nodes: 2, start: 0, end: 1}]}\nreference: {topology.xgft: "
                    "\"2;4,4;1,4\"}\n",
                6, "{topology", "reference is for model flow only"},
        BadFlow{"RanksWithTheStaticModel",
                std::string(kStaticSwept) + "workload: {jobs: [{ranks: 2, start: 0, end: 1}]}\n", 5,
                "2,", "a job's ranks is for model flow only"},
        BadFlow{"NodesAndRanks",
                swept("").replace(swept("").find("{ranks: 16"), 10, "{nodes: 2, ranks: 16"), 6,
                "16", "give nodes or ranks, not both"},
        BadFlow{"NeitherNodesNorRanks", swept("").replace(swept("").find("{ranks: 16, "), 12, "{"),
                6, "{start", "missing key 'nodes' (or 'ranks', with model flow)"},
        BadFlow{"RanksZero", swept("").replace(swept("").find("ranks: 16"), 9, "ranks: 0"), 6, "0,",
                "ranks"}),
    testing_names::ByCaseName{});

}  // namespace
}  // namespace ibsdn
