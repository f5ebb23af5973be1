// Simulation scenarios (docs/simulation.md): one YAML file says what to simulate — the
// fabric, its hosts' GPUs and link bandwidth, node allocation and rank placement, the routing, the
// switches' flow tables, the workload and its traffic. A list in a sweepable field runs the
// cartesian product; expand() gives every combination as a concrete ScenarioRun.
//
// Validation is strict, like the controller's configuration (common/yaml_reader.hpp): an unknown
// key, a wrong type, a value out of range, a missing key, a bad pattern or a missing file is a
// ConfigError "FILE:LINE:COLUMN: what", at load time, before anything runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/config_error.hpp"
#include "flowtable/install_backend.hpp"
#include "flowtable/match.hpp"
#include "routing/dragonfly.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "routing/patterns/pattern_spec.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/apps/app_spec.hpp"
#include "sim_backend/scenario/topology_spec.hpp"
#include "sim_backend/timing/adaptive_routes.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

/// Bounds known before anything is built.
inline constexpr std::size_t kMaxScenarioRuns = 10'000;  // product of the sweeps
inline constexpr std::size_t kMaxExplicitJobs = 10'000;  // workload.jobs entries
inline constexpr std::uint32_t kMaxGpusPerNode = 64;
inline constexpr std::uint32_t kMaxScenarioRanksPerNode = 1024;
inline constexpr double kMaxLinkBandwidthGbps = 1'000'000.0;
/// timing.alone runs every job once more by itself: at most this many jobs.
inline constexpr std::size_t kMaxAloneJobs = 200;

/// A file the scenario names: as written, and resolved against the scenario file's directory
/// (absolute, lexically normal). The hash covers the written form and the file's content, so a
/// scenario keeps its hash when its folder moves.
struct ScenarioFile {
  std::string written;
  std::string path;
  bool operator==(const ScenarioFile&) const = default;
};

enum class TopologyKind : std::uint8_t { kXgft, kDragonfly, kMegafly, kNetlist };

struct ScenarioTopology {
  TopologyKind kind = TopologyKind::kXgft;
  XgftParams xgft;            // kXgft
  DragonflyParams dragonfly;  // kDragonfly
  MegaflyParams megafly;      // kMegafly
  ScenarioFile netlist;       // kNetlist: an ibsim netlist or ibnetdiscover output
  /// Hosts the fabric has, and the first `hosts` of them (host order) the workload may use: all
  /// unless `hosts: N` says fewer (seed 002 uses the first 5904 of Curie's 6750).
  std::uint64_t fabric_hosts = 0;
  std::uint32_t hosts = 0;
  /// "XGFT(3;8,8,16;1,8,8)", "dragonfly(4,8,4,33)", "megafly(...)", or the netlist as written.
  [[nodiscard]] std::string label() const;
};

/// A job's traffic: a pattern (routing/patterns/pattern_spec.hpp), or seed 002's `dynamic`,
/// where each job draws one of dynamic_pattern_names() (job_pattern()).
struct ScenarioPattern {
  bool dynamic = false;
  /// The pattern when not dynamic. For `matrix:file=F`, spec.file is F resolved like every file
  /// of the scenario.
  PatternSpec spec;
  /// The canonical text: "dynamic", or spec.to_string() with the file as written.
  std::string text;
};

/// `static`: seed 002's link loads at job starts and ends; `flow`: the flow-level timing model
/// (timing_sim.hpp), jobs running their applications.
enum class SimulationModel : std::uint8_t { kStatic, kFlow };

/// A job's application for the flow model (app_spec.hpp). For `matrix:file=F`, spec.pattern.file
/// is F resolved like every file of the scenario.
struct ScenarioApplication {
  AppSpec spec;
  /// The canonical text (spec.to_string() with the file as written).
  std::string text;
};

/// One traffic class of `timing.classes` (seed 004's QoS). In the real system a class is the
/// service level its jobs' packets carry: class k of TimingSettings::classes is SL k.
struct ScenarioClass {
  static constexpr std::size_t kMax = 16;  // SLs 0..15
  std::string name;
  int priority = 0;    // 0..15: served before every class of a lower priority
  double cap = 1;      // (0, 1]: the most of every link its traffic takes while others want it
  bool borrow = true;  // above the cap, it still takes what no other class wants
  bool operator==(const ScenarioClass&) const = default;
};

/// `timing.background` — seed 004's uniform random background traffic (BackgroundTraffic).
struct BackgroundSettings {
  std::uint32_t nodes = 0;        // its nodes, allocated after the jobs that start at 0
  std::uint64_t bytes = 0;        // per message
  double load = 0;                // (0, 1]: of each node's link bandwidth
  double duration = 0;            // seconds; 0: as long as the other jobs run
  std::size_t traffic_class = 0;  // index into TimingSettings::classes
};

/// `timing:` — the flow model's settings (model flow only).
struct TimingSettings {
  NicPolicy nic;
  double gpu_link = 2.0;            // GPU pair links: x the unscaled network link bandwidth
  double link_latency = 0;          // seconds, every network link
  double bandwidth_multiple = 1.0;  // network links: link_bandwidth x this (1/16 .. 16)
  std::string baseline = "dmodk";   // the routing the speedup column is held against
  bool alone = false;               // also run every job alone (slowdown)
  double sample_interval = 0;       // seconds; 0: no link samples
  /// The controller is told only the rank pairs that send at least this many bytes in one pass
  /// of a job's program (thesis 4.1, user-identified elephants); 0: every pair.
  std::uint64_t elephant_bytes = 0;
  AdaptiveRoutingOptions adaptive;  // routing adaptive, and sdn-adaptive's adaptive jobs
  /// Traffic classes by SL: [0] is `default` (priority 0, cap 1 unless the scenario lists it),
  /// then the others in the order listed.
  std::vector<ScenarioClass> classes{ScenarioClass{"default"}};
  /// false: every message in one class, no priorities or caps (the same run without QoS).
  bool qos = true;
  /// The class of every job's collective messages (the allreduces); absent: the job's own.
  std::optional<std::size_t> collectives;
  std::optional<BackgroundSettings> background;
};

/// `trace:` — a Standard Workload Format file (seed 002 IV.A.1).
struct TraceWorkload {
  ScenarioFile file;
  std::uint32_t cpus_per_node = 0;     // SWF counts processors; a job's nodes = ceil(procs / this)
  std::optional<std::uint64_t> first;  // keep the first N jobs that pass the filters; all if absent
  std::uint32_t system_nodes = 0;      // jobs asking for more are dropped; the topology's hosts
};

/// `synthetic:` — a generated trace after one of the Table I systems of seed 002.
struct SyntheticWorkload {
  std::string preset;                 // synthetic_preset_names() (swf_synthetic.hpp)
  std::uint64_t jobs = 0;             // how many
  std::optional<double> utilisation;  // (0, 1]; the preset's own when absent
};

/// One entry of `jobs:`.
struct ScenarioJob {
  /// Exactly one of nodes and ranks is given. `ranks` (model flow): the job's rank count; it
  /// gets ceil(ranks / ranks_per_node) nodes, so its node count follows a swept ranks_per_node
  /// or gpus_per_node (thesis 3.1 keeps the GPUs fixed and changes how many share a node).
  std::uint32_t nodes = 0;
  std::uint32_t ranks = 0;
  double start = 0.0;                      // seconds
  double end = 0.0;                        // seconds, > start
  std::optional<ScenarioPattern> pattern;  // the run's pattern when absent
  /// Model flow: the job's application (see ScenarioRun::application for which one a job runs).
  std::optional<ScenarioApplication> application;
  /// Model flow: its traffic class, by name (timing.classes); empty: `default`.
  std::string traffic_class;
};

/// `jobs:` — explicit jobs, shared by every run of a sweep.
struct ExplicitJobs {
  std::shared_ptr<const std::vector<ScenarioJob>> jobs;
};

using ScenarioWorkload = std::variant<TraceWorkload, SyntheticWorkload, ExplicitJobs>;

/// One fully concrete run of a scenario.
struct ScenarioRun {
  std::size_t index = 0;  // position in expand()'s order, from 0
  /// The swept values in the file's order, "routing=sdn-greedy table_capacity=64"; empty when
  /// nothing is swept.
  std::string label;
  std::string name;
  std::uint64_t seed = 1;
  ScenarioTopology topology;
  double link_bandwidth_gbps = 100.0;
  std::uint32_t gpus_per_node = 1;
  std::uint32_t ranks_per_node = 1;  // gpus_per_node unless given
  Mapping placement = Mapping::kBlock;
  std::string allocation = "linear";  // node_allocation_names()
  std::string routing;                // routing/algorithms.def
  std::size_t table_capacity = 4096;
  FlowDefinitionLevel flow_level = FlowDefinitionLevel::kSlidDlid;
  /// The controller's load_guard (docs/routing.md, "The load guard").
  bool load_guard = true;
  /// Where the controller installs the jobs' routes: the switches' flow tables or their LFTs
  /// (auto: flow tables, as every simulated switch runs an agent); never dry_run.
  InstallBackend install_backend = InstallBackend::kAuto;
  SimulationModel model = SimulationModel::kStatic;
  /// The jobs' pattern (an explicit job may name its own); with model flow and an application
  /// it may be absent (empty text).
  ScenarioPattern pattern;
  /// Model flow: the jobs' application. A job runs its own application, else its own pattern as
  /// a one-phase application, else this, else the run's pattern as a one-phase application.
  std::optional<ScenarioApplication> application;
  TimingSettings timing;  // model flow
  ScenarioWorkload workload;
};

/// One swept field: its dotted key and its values' canonical texts, in the file's order.
struct SweepAxis {
  std::string key;  // "routing", "workload.synthetic.preset", "topology.dragonfly.g"
  std::vector<std::string> values;
  std::size_t line = 0;  // where the list is
  std::size_t column = 0;
  /// Axes of one `zip` group take their values together (the i-th of each in the same run):
  /// they share a group number. Groups are numbered in the order their first axis appears; an
  /// axis outside `zip` is a group of its own.
  std::size_t group = 0;
};

/// A loaded scenario: checked, with every run valid (load expands them all once).
class Scenario {
 public:
  struct Draft;  // the parsed fields, sweeps unexpanded (scenario_draft.hpp)
  explicit Scenario(std::shared_ptr<const Draft> draft);

  [[nodiscard]] const std::string& name() const;
  /// The file name errors and outputs cite.
  [[nodiscard]] const std::string& source() const;
  /// The swept fields in the order they appear in the file.
  [[nodiscard]] const std::vector<SweepAxis>& axes() const;
  /// The product of the groups' sizes (zipped axes count once): 1 without sweeps, at most
  /// kMaxScenarioRuns.
  [[nodiscard]] std::size_t run_count() const;
  /// `reference:` (model flow): the run that run `index` is compared with, the one with the
  /// reference's values on the axes it names and run `index`'s values on every other axis;
  /// nullopt without `reference`.
  [[nodiscard]] std::optional<std::size_t> reference_run(std::size_t index) const;
  /// The reference's values as a label, "gpus_per_node=1 timing.nic=fcfs"; empty without one.
  [[nodiscard]] const std::string& reference_label() const;
  /// A stable hash of the canonical scenario (every value, defaults included, and every
  /// referenced file's content); independent of comments, layout, key order and where the
  /// scenario's folder is. Every output file carries hash_text().
  [[nodiscard]] std::uint64_t hash() const;
  [[nodiscard]] std::string hash_text() const;  // 16 lower-case hex digits
  /// What the hash covers, as canonical JSON (for outputs that want to show it).
  [[nodiscard]] const std::string& canonical_json() const;
  /// Run `index` (< run_count()) of expand()'s order.
  [[nodiscard]] ScenarioRun run(std::size_t index) const;

 private:
  std::shared_ptr<const Draft> draft_;
};

/// Every run, in a deterministic order: the cartesian product of the axes' groups (see
/// SweepAxis::group), the first varying slowest (nested loops in the file's order).
std::vector<ScenarioRun> expand(const Scenario& s);

/// Parses scenario text; relative paths resolve against `base_dir`, `source_name` is cited in
/// errors. Reads every referenced file (existence, content, hash). Throws ConfigError.
Scenario parse_scenario(std::string_view text, std::string_view source_name,
                        const std::filesystem::path& base_dir);

/// Reads and parses the scenario file at `path` (base directory: the file's). Throws ConfigError
/// ("PATH: cannot read: why" for an unreadable file).
Scenario load_scenario(const std::string& path);

/// What build_topology() (topology_spec.hpp) takes to build the run's fabric: its generator or
/// netlist, GPUs per node and link bandwidth. The run's `topology.hosts` first hosts are the
/// workload's to use.
TopologySpec topology_spec(const ScenarioRun& run);

/// Every key a scenario accepts, nested ones dotted ("workload.trace.file"), and the sweepable
/// ones: what docs/simulation.md must describe.
std::vector<std::string> scenario_keys();
std::vector<std::string> sweepable_scenario_keys();

/// The names a scenario accepts beyond those of the registries (node_allocation_names(),
/// synthetic_preset_names() (swf_synthetic.hpp), the routing algorithms and patterns).
std::span<const std::string_view> dynamic_pattern_names();   // ring 2dnn 3dnn random4
std::span<const std::string_view> simulation_model_names();  // static flow
std::string_view to_string(SimulationModel m);

/// The pattern job `job_index` (0-based, in workload order) plays in a run seeded `seed`: the
/// pattern itself, or for `dynamic` one of dynamic_pattern_names() drawn uniformly — the
/// job_index-th output of SplitMix64(seed), so a job's draw depends on nothing but its index.
PatternSpec job_pattern(const ScenarioPattern& p, std::uint64_t seed, std::uint64_t job_index);

}  // namespace ibsdn
