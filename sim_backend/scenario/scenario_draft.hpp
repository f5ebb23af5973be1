// A parsed scenario before expansion: every field with its value, or its sweep's values, and
// where each was written, so that a check that only a combination can fail (hosts beyond a swept
// topology's) still names the line and column. Shared by the parsing (scenario.cpp and its
// sections, scenario_qos.cpp, scenario_sweeps.cpp, scenario_flow_checks.cpp) and
// scenario_expand.cpp (runs); nothing outside the scenario code includes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/yaml_reader.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

struct Where {
  std::size_t line = 0;
  std::size_t column = 0;
};

/// One field: a single value, a sweep's values (axis >= 0), or none (an optional field left out).
template <typename T>
struct Field {
  std::vector<T> values;
  std::vector<Where> at;  // each value's position
  int axis = -1;          // index into Scenario::Draft::axes when swept

  [[nodiscard]] bool given() const { return !values.empty(); }
  /// Which of the values a run takes; `choice` holds one index per axis.
  [[nodiscard]] std::size_t pick(std::span<const std::size_t> choice) const {
    return axis < 0 ? 0 : choice[static_cast<std::size_t>(axis)];
  }
  [[nodiscard]] const T& value(std::span<const std::size_t> choice) const {
    return values.at(pick(choice));
  }
  [[nodiscard]] Where where(std::span<const std::size_t> choice) const {
    return at.at(pick(choice));
  }
};

enum class WorkloadKind : std::uint8_t { kTrace, kSynthetic, kJobs };

/// The dragonfly's p, a, h, g and the megafly's five parameters, in the generators' order.
inline constexpr std::array<std::string_view, 4> kDragonflyKeys = {"p", "a", "h", "g"};
inline constexpr std::array<std::string_view, 5> kMegaflyKeys = {
    "nodes_per_leaf", "leaves", "spines", "global_per_spine", "groups"};

struct Scenario::Draft {
  std::string source;
  std::string name;
  std::vector<SweepAxis> axes;
  std::vector<std::size_t> group_sizes;  // values per group (SweepAxis::group), in group order
  std::size_t run_count = 1;
  /// `reference:`: the group and the position in it each named axis fixes; its label.
  std::vector<std::pair<std::size_t, std::size_t>> reference;
  std::string reference_label;
  std::string canonical_json;  // what the hash covers
  std::uint64_t hash = 0;

  Field<std::uint64_t> seed;

  TopologyKind topology_kind = TopologyKind::kXgft;
  Where topology_at;  // the generator's key, for checks of swept parameters together
  Field<XgftParams> xgft;
  std::array<Field<int>, kDragonflyKeys.size()> dragonfly;
  std::array<Field<int>, kMegaflyKeys.size()> megafly;
  Field<ScenarioFile> netlist;
  std::map<std::string, std::uint64_t> netlist_hosts;  // by resolved path
  Field<std::uint32_t> hosts;                          // absent: all of the fabric's

  Field<double> link_bandwidth_gbps;
  Field<std::uint32_t> gpus_per_node;
  Field<std::uint32_t> ranks_per_node;  // absent: gpus_per_node
  Field<Mapping> placement;
  Field<std::string> allocation;
  Field<std::string> routing;
  Field<std::size_t> table_capacity;
  Field<FlowDefinitionLevel> flow_level;
  Field<std::uint8_t> load_guard;  // 0 or 1: std::vector<bool> has no element references
  Field<InstallBackend> install_backend;
  Field<SimulationModel> model;
  Field<ScenarioPattern> pattern;  // may be absent with model flow and an application

  // Model flow (the timing simulator).
  Field<ScenarioApplication> application;
  bool timing_given = false;
  Where timing_at;
  Field<NicPolicy> nic;
  Field<double> gpu_link;
  Field<double> link_latency;
  Field<double> bandwidth_multiple;
  Field<std::string> baseline;
  Field<std::uint8_t> alone;
  Field<double> sample_interval;
  Field<std::uint64_t> elephant_bytes;
  Field<DragonflyAdaptiveRule> adaptive_rule;
  Field<double> adaptive_bias;
  Field<double> split_slack;
  // Traffic classes and background traffic (scenario_qos.cpp).
  std::vector<ScenarioClass> classes{ScenarioClass{"default"}};
  Field<std::uint8_t> qos;
  std::string collectives;  // a class name; empty: each job's own
  bool background_given = false;
  Where background_at;
  Field<std::uint32_t> background_nodes;
  Field<std::uint64_t> background_bytes;
  Field<double> background_load;
  Field<double> background_duration;
  std::string background_class = "default";
  /// Every class a key names (jobs' `class`, `collectives`, the background's), for the check
  /// after the document: classes may be listed after the keys that name them.
  struct ClassRef {
    std::string key;
    std::string name;
    Where at;
  };
  std::vector<ClassRef> class_refs;

  WorkloadKind workload_kind = WorkloadKind::kJobs;
  Field<ScenarioFile> trace_file;
  Field<std::uint32_t> trace_cpus_per_node;
  Field<std::uint64_t> trace_first;         // absent: all
  Field<std::uint32_t> trace_system_nodes;  // absent: the topology's hosts
  Field<std::string> synthetic_preset;
  Field<std::uint64_t> synthetic_jobs;
  Field<double> synthetic_utilisation;  // absent: the preset's
  std::shared_ptr<const std::vector<ScenarioJob>> jobs;
  std::size_t largest_job = 0;                // index of the job with the most nodes
  std::optional<Where> job_application_at;    // the first explicit job's own application
  Where largest_job_at;                       // its `nodes`
  std::optional<std::size_t> most_ranks_job;  // the job with the most `ranks`, if any has
  Where most_ranks_at;                        // its `ranks`
  std::optional<Where> job_ranks_at;          // the first `ranks` (model flow only)
  std::optional<Where> reference_at;          // `reference` (model flow only)
};

/// Builds run `index` (< draft.run_count) and checks what only the combination can fail.
/// Throws ConfigError at the offending value, naming the run.
ScenarioRun build_run(const Scenario::Draft& draft, std::size_t index);

// scenario_qos.cpp: traffic classes and background traffic.
inline constexpr std::array<std::string_view, 4> kClassKeys = {"name", "priority", "cap", "borrow"};
inline constexpr std::array<std::string_view, 5> kBackgroundKeys = {"nodes", "bytes", "load",
                                                                    "duration", "class"};
/// `timing.classes`: a list of classes; returns their canonical form. Throws ConfigError.
nlohmann::json read_traffic_classes(const YamlReader& r, const YAML::Node& list,
                                    Scenario::Draft& d);
/// A class name as `class:` and `collectives:` write it, recorded for check_class_names().
std::string read_class_name(const YamlReader& r, const YAML::Node& n, const std::string& key,
                            Scenario::Draft& d);
/// After the document: every class named exists, and only the flow model names any.
void check_class_names(const YamlReader& r, const Scenario::Draft& d, bool flow);
/// The run's classes, QoS switch, collectives' class and background.
void build_qos(const Scenario::Draft& d, std::span<const std::size_t> choice, TimingSettings& t);
/// The index of class `name` (check_class_names() made sure it exists).
std::size_t class_index(const Scenario::Draft& d, const std::string& name);

// scenario_flow_checks.cpp: what only the flow model takes.
/// The model is flow (check_flow_only() refuses it swept together with static).
bool flow_model(const Scenario::Draft& d);
/// After the document: flow and static are not swept together, a static scenario names nothing
/// only the flow model takes (refused at the value), and timing.alone stays within
/// kMaxAloneJobs jobs.
void check_flow_only(const YamlReader& r, const Scenario::Draft& d);

/// Run `index`'s position in every group (the odometer: the last group turns fastest), and back.
std::vector<std::size_t> group_positions(const Scenario::Draft& draft, std::size_t index);
std::size_t run_index(const Scenario::Draft& draft, std::span<const std::size_t> positions);

}  // namespace ibsdn
