// The scenario parser's field machinery (docs/simulation.md, "Sweeps"): one field or a sweep over
// it, each value with its canonical text (labels, duplicates, the hash), defaults, maps whose
// fields sweep, and the readers of values that more than one section takes (files the scenario
// names, patterns, applications). Shared by scenario.cpp (the document) and its sections,
// scenario_topology.cpp, scenario_workload.cpp and scenario_timing.cpp; nothing outside the
// scenario parser includes it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/quote_for_message.hpp"
#include "common/yaml_reader.hpp"
#include "sim_backend/scenario/scenario_draft.hpp"

namespace ibsdn {

// Upper bounds that several sections share.
inline constexpr std::uint64_t kMaxHosts = 1'000'000;
inline constexpr double kMaxJobTime = 1e12;  // seconds: ~31,700 years

// The routing the flow model adds to the controller's algorithms: the fabric's own adaptive
// routing (adaptive_routes()).
inline constexpr std::string_view kAdaptiveRouting = "adaptive";

std::string join(std::span<const std::string_view> names, std::string_view sep);
std::string join(const std::vector<std::string>& names, std::string_view sep);
/// The shortest text that reads back as `v` ("100", "12.5").
std::string number_text(double v);
inline Where where_of(const YAML::Node& n) {
  return Where{line_of(n), column_of(n)};
}

// A value read from one scalar node and its canonical text (labels, duplicates, the hash).
template <typename T>
using ReadOne = std::function<std::pair<T, std::string>(const YAML::Node&, const std::string&)>;

/// Reads fields of a scenario into its draft and their canonical text into `canonical()`.
class FieldReader {
 public:
  /// Files the scenario names resolve against `base_dir`.
  FieldReader(std::string_view source, std::filesystem::path base_dir, Scenario::Draft& d)
      : r_(source, "give a value, or leave the key out where it has a default"),
        d_(d),
        base_dir_(std::move(base_dir)) {}

  [[nodiscard]] const YamlReader& reader() const { return r_; }
  [[nodiscard]] Scenario::Draft& draft() { return d_; }
  [[nodiscard]] nlohmann::json& canonical() { return canonical_; }

  /// One value, or a sweep over a list of them (a new axis).
  template <typename T>
  void read(const YAML::Node& n, const std::string& key, Field<T>& f, const ReadOne<T>& one) {
    if (!n.IsSequence()) {
      auto [value, text] = one(n, key);
      f.values = {std::move(value)};
      f.at = {where_of(n)};
      canonical_[key] = text;
      return;
    }
    if (n.size() == 0) r_.fail(n, key + ": an empty list sweeps nothing; give at least one value");
    if (n.size() > kMaxScenarioRuns) {
      r_.fail(n, key + ": a sweep of " + std::to_string(n.size()) + " values; at most " +
                     std::to_string(kMaxScenarioRuns) + " runs are allowed");
    }
    SweepAxis axis{key, {}, line_of(n), column_of(n)};
    for (const YAML::Node& element : n) {
      if (!element.IsScalar()) {
        r_.fail(element, key + ": a sweep lists single values, not lists, maps or empty values");
      }
      auto [value, text] = one(element, key);
      const auto same = std::find(axis.values.begin(), axis.values.end(), text);
      if (same != axis.values.end()) {
        const Where w = f.at[static_cast<std::size_t>(same - axis.values.begin())];
        r_.fail(element, key + ": " + quote_for_message(text) +
                             " is listed twice in this sweep (first at " + std::to_string(w.line) +
                             ":" + std::to_string(w.column) + ")");
      }
      f.values.push_back(std::move(value));
      f.at.push_back(where_of(element));
      axis.values.push_back(std::move(text));
    }
    f.axis = static_cast<int>(d_.axes.size());
    canonical_[key] = axis.values;
    d_.axes.push_back(std::move(axis));
  }

  /// A field whose key cannot take a list (explicit jobs' entries, name).
  void single(const YAML::Node& n, const std::string& key, std::string_view why) const;

  template <typename T>
  void set_default(Field<T>& f, const std::string& key, T value, std::string text) {
    if (f.given()) return;
    f.values = {std::move(value)};
    f.at = {Where{}};
    canonical_[key] = std::move(text);
  }

  [[noreturn]] void missing(const YAML::Node& map, std::string_view what,
                            std::string_view key) const;

  /// A map whose fields sweep, not a list of maps: for_each_key over it.
  void each_field(const YAML::Node& map, const std::string& what,
                  std::span<const std::string_view> known,
                  const std::function<void(const std::string&, const YAML::Node&)>& on_key) const;

  /// each_field() where exactly one of the `choices` keys must be given (the fabric, the
  /// workload): it is recorded as the map's kind.
  void exactly_one(const YAML::Node& map, const std::string& what,
                   std::span<const std::string_view> known,
                   std::span<const std::string_view> choices,
                   const std::function<void(const std::string&, const YAML::Node&)>& on_key);

  // --- value readers ----------------------------------------------------------------------

  template <typename T>
  ReadOne<T> integer(std::uint64_t min, std::uint64_t max) const {
    return [this, min, max](const YAML::Node& n, const std::string& key) {
      const std::uint64_t v = r_.integer(n, key, min, max);
      return std::pair<T, std::string>{static_cast<T>(v), std::to_string(v)};
    };
  }

  /// `names`: a list with static storage (array of string_view or vector of string).
  template <typename Names>
  ReadOne<std::string> one_of(const Names& names) const {
    return [this, names](const YAML::Node& n, const std::string& key) {
      std::string v = r_.string(n, key);
      if (std::find(names.begin(), names.end(), v) == names.end()) {
        r_.fail(n, key + ": " + quote_for_message(v) + " is not one of " + join(names, ", "));
      }
      return std::pair<std::string, std::string>{v, v};
    };
  }

  [[nodiscard]] ReadOne<std::uint8_t> boolean() const;
  /// A routing algorithm, or the flow model's `adaptive` (the document checks the model).
  [[nodiscard]] ReadOne<std::string> routing() const;

  /// A file the scenario names, `written` as the scenario has it (`at` is where, for errors): it
  /// must be a readable regular file. Its content's hash joins the scenario's; `content`, when not
  /// null, receives the text.
  ScenarioFile file(const YAML::Node& at, const std::string& key, std::string written,
                    std::string* content);
  ReadOne<ScenarioFile> plain_file();
  /// A pattern or `dynamic`; an application. A `matrix:file=F` reads F like every file above.
  ReadOne<ScenarioPattern> pattern();
  ReadOne<ScenarioApplication> application();

 protected:
  YamlReader r_;
  Scenario::Draft& d_;
  nlohmann::json canonical_ = nlohmann::json::object();
  std::filesystem::path base_dir_;
  nlohmann::json files_ = nlohmann::json::object();  // written path -> SHA-256 of the content
};

/// A section of the document (`topology:`, `workload:`, `timing:`) read over its FieldReader.
class FieldSection {
 protected:
  explicit FieldSection(FieldReader& f) : f_(f), r_(f.reader()), d_(f.draft()) {}

  FieldReader& f_;
  const YamlReader& r_;
  Scenario::Draft& d_;
};

// scenario_topology.cpp: `topology:`, exactly one fabric and the hosts the workload may use.
inline constexpr std::array<std::string_view, 5> kTopologyKeys = {"xgft", "dragonfly", "megafly",
                                                                  "netlist", "hosts"};
void read_topology(FieldReader& f, const YAML::Node& map);

// scenario_workload.cpp: `workload:`, exactly one of a trace file, a synthetic trace and explicit
// jobs.
inline constexpr std::array<std::string_view, 3> kWorkloadKeys = {"trace", "synthetic", "jobs"};
inline constexpr std::array<std::string_view, 4> kTraceKeys = {"file", "cpus_per_node", "first",
                                                               "system_nodes"};
inline constexpr std::array<std::string_view, 3> kSyntheticKeys = {"preset", "jobs", "utilisation"};
inline constexpr std::array<std::string_view, 7> kJobKeys = {
    "nodes", "ranks", "start", "end", "pattern", "application", "class"};
void read_workload(FieldReader& f, const YAML::Node& map);

// scenario_timing.cpp: `timing:`, read whatever the model (the document refuses it unless the
// model is flow), and its defaults (the flow model's only, so that static scenarios keep their
// hashes).
inline constexpr std::array<std::string_view, 13> kTimingKeys = {
    "nic",      "gpu_link", "link_latency",    "bandwidth_multiple",
    "baseline", "alone",    "sample_interval", "adaptive",
    "classes",  "qos",      "collectives",     "background",
    "elephants"};
inline constexpr std::array<std::string_view, 3> kAdaptiveKeys = {"rule", "bias", "split_slack"};
void read_timing(FieldReader& f, const YAML::Node& map);
void set_timing_defaults(FieldReader& f);

}  // namespace ibsdn
