// Two keys about a scenario's sweeps (docs/simulation.md, "Sweeps"): `zip`, sweeps that take
// their values together instead of in every combination (GPUs per node with the fabric that keeps
// the GPU count, thesis Table 3.1), and `reference`, the run every other run is compared with
// (speedup over 1 GPU per node, over FCFS). Used by scenario.cpp once every field is read.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "common/yaml_reader.hpp"
#include "sim_backend/scenario/scenario_draft.hpp"

namespace ibsdn {

/// Numbers the axes' groups (SweepAxis::group) from `zip` (null: none given) and fills
/// d.group_sizes. `zip` is a list of groups, each a list of at least two swept keys with equally
/// many values, or one such list. Refuses, at the offending entry, a key that is not swept, one in
/// two groups and groups of different lengths. Adds the groups to `canonical` when given.
void zip_sweeps(const YAML::Node* zip, Scenario::Draft& d, const YamlReader& r,
                nlohmann::json& canonical);

/// Reads `reference` (null: none given), a map from swept keys to one of their values, into
/// d.reference and d.reference_label. A value matches an axis' value by its text or, for numbers,
/// by its value (`1.0` is `1`). Refuses a key that is not swept, a value the sweep does not list
/// and two keys of one zip group that point at different runs. Needs zip_sweeps() first.
void reference_sweeps(const YAML::Node* reference, Scenario::Draft& d, const YamlReader& r,
                      nlohmann::json& canonical);

}  // namespace ibsdn
