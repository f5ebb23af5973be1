#include "sim_backend/scenario/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <utility>

#include "common/config_error.hpp"
#include "common/quote_for_message.hpp"
#include "common/yaml_reader.hpp"
#include "flowtable/flow_table.hpp"
#include "routing/algorithm.hpp"
#include "routing/patterns/rng.hpp"
#include "sim_backend/io/content_hash.hpp"
#include "sim_backend/scenario/scenario_draft.hpp"
#include "sim_backend/scenario/scenario_fields.hpp"
#include "sim_backend/scenario/scenario_sweeps.hpp"
#include "sim_backend/workload/node_allocation.hpp"

namespace ibsdn {
namespace {

// Bumped when the meaning of a scenario changes, so that old hashes no longer match.
constexpr std::string_view kFormat = "ibsdn-scenario/3";  // 2: load_guard, 3: install_backend
constexpr std::size_t kMaxNameLength = 64;

constexpr std::array<std::string_view, 20> kTopKeys = {"name",          "seed",
                                                       "topology",      "link_bandwidth",
                                                       "gpus_per_node", "ranks_per_node",
                                                       "placement",     "allocation",
                                                       "routing",       "table_capacity",
                                                       "flow_level",    "load_guard",
                                                       "model",         "install_backend",
                                                       "pattern",       "application",
                                                       "timing",        "workload",
                                                       "zip",           "reference"};
constexpr std::array<std::string_view, 3> kRequiredKeys = {"name", "topology", "routing"};

// The allocation policies are those node_allocation registers.
const std::vector<std::string>& allocation_policies() {
  static const std::vector<std::string> names = node_allocation_names();
  return names;
}
constexpr std::array<std::string_view, 4> kDynamicPatterns = {"ring", "2dnn", "3dnn", "random4"};
constexpr std::array<std::string_view, 2> kModels = {"static", "flow"};

// The document: the top level, `zip` and `reference`, the defaults and the hash; its sections
// `topology:`, `workload:` and `timing:` are read by scenario_topology.cpp, scenario_workload.cpp
// and scenario_timing.cpp.
class Parser : FieldReader {
 public:
  Parser(std::string_view source, std::filesystem::path base_dir, Scenario::Draft& d)
      : FieldReader(source, std::move(base_dir), d) {}

  void parse(const YAML::Node& doc) {
    if (doc.IsNull())
      r_.fail_at(0, 0, "empty scenario: give at least " + join(kRequiredKeys, ", "));
    std::map<std::string, YAML::Node> given;
    r_.for_each_key(doc, YamlReader::kTopLevel, kTopKeys,
                    [&](const std::string& key, const YAML::Node& v) {
                      given.emplace(key, v);
                      top_level(key, v);
                    });
    for (std::string_view key : kRequiredKeys) {
      if (!given.contains(std::string(key))) missing(doc, YamlReader::kTopLevel, key);
    }
    if (!given.contains("workload")) missing(doc, YamlReader::kTopLevel, "workload");
    if (!given.contains("pattern") && !given.contains("application")) {
      r_.fail(doc, "top level: missing key 'pattern': the jobs' traffic, a pattern (" +
                       join(pattern_names(), ", ") +
                       ") or dynamic (with model flow: or an "
                       "application)");
    }
    defaults();
    check_flow_only(r_, d_);
    check_class_names(r_, d_, flow_model(d_));
    finish();
  }

 private:
  void top_level(const std::string& key, const YAML::Node& v) {
    if (key == "name") {
      d_.name = name(v);
      canonical_["name"] = d_.name;
    } else if (key == "seed") {
      read(v, key, d_.seed, integer<std::uint64_t>(0, ~std::uint64_t{0}));
    } else if (key == "topology") {
      read_topology(*this, v);
    } else if (key == "link_bandwidth") {
      read(v, key, d_.link_bandwidth_gbps, bandwidth());
    } else if (key == "gpus_per_node") {
      read(v, key, d_.gpus_per_node, integer<std::uint32_t>(1, kMaxGpusPerNode));
    } else if (key == "ranks_per_node") {
      read(v, key, d_.ranks_per_node, integer<std::uint32_t>(1, kMaxScenarioRanksPerNode));
    } else if (key == "placement") {
      read(v, key, d_.placement, placement());
    } else if (key == "allocation") {
      read(v, key, d_.allocation, one_of(allocation_policies()));
    } else if (key == "routing") {
      read(v, key, d_.routing, routing());
    } else if (key == "table_capacity") {
      read(v, key, d_.table_capacity, integer<std::size_t>(1, kMaxTableCapacity));
    } else if (key == "flow_level") {
      read(v, key, d_.flow_level, flow_level());
    } else if (key == "load_guard") {
      read(v, key, d_.load_guard, boolean());
    } else if (key == "install_backend") {
      read(v, key, d_.install_backend, install_backend());
    } else if (key == "model") {
      read(v, key, d_.model, model());
    } else if (key == "pattern") {
      read(v, key, d_.pattern, pattern());
    } else if (key == "application") {
      read(v, key, d_.application, application());
    } else if (key == "timing") {
      read_timing(*this, v);
    } else if (key == "zip") {
      zip_.emplace(v);  // emplace: assigning to a YAML::Node writes through to its node
    } else if (key == "reference") {
      reference_.emplace(v);
      d_.reference_at = where_of(v);
    } else {
      read_workload(*this, v);
    }
  }

  std::string name(const YAML::Node& v) const {
    single(v, "name", "it cannot be swept");
    std::string n = r_.string(v, "name");
    const bool ok =
        !n.empty() && n.size() <= kMaxNameLength && std::all_of(n.begin(), n.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        });
    if (!ok) {
      r_.fail(v, "name: " + quote_for_message(n) + " is not 1-" + std::to_string(kMaxNameLength) +
                     " letters, digits, '.', '_' or '-' (it names output files)");
    }
    return n;
  }

  // --- value readers ----------------------------------------------------------------------

  ReadOne<double> bandwidth() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const double v = r_.number(n, key);
      if (!(v > 0.0) || v > kMaxLinkBandwidthGbps) {
        r_.fail(n, key + ": " + n.Scalar() + " is out of range: Gb/s above 0 and at most " +
                       number_text(kMaxLinkBandwidthGbps));
      }
      return std::pair<double, std::string>{v, number_text(v)};
    };
  }

  ReadOne<Mapping> placement() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = r_.string(n, key);
      try {
        const Mapping m = parse_mapping(v);
        return std::pair<Mapping, std::string>{m, std::string(to_string(m))};
      } catch (const std::invalid_argument&) {
        r_.fail(n, key + ": " + quote_for_message(v) + " is not one of block, cyclic");
      }
    };
  }

  ReadOne<FlowDefinitionLevel> flow_level() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = r_.string(n, key);
      const auto level = parse_flow_definition_level(v);
      if (!level) {
        r_.fail(n, key + ": " + quote_for_message(v) +
                       " is not one of dlid, slid-dlid, slid-dlid-sl, slid-dlid-sl-qp");
      }
      return std::pair<FlowDefinitionLevel, std::string>{*level, std::string(to_string(*level))};
    };
  }

  ReadOne<InstallBackend> install_backend() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = r_.string(n, key);
      const auto b = parse_install_backend(v);
      if (b == InstallBackend::kDryRun) {
        r_.fail(n, key +
                       ": 'dry_run' installs nothing, so the jobs would keep the LFTs' routes: "
                       "that is routing dmodk; give auto, flow_table or lft");
      }
      if (!b)
        r_.fail(n, key + ": " + quote_for_message(v) + " is not one of auto, flow_table, lft");
      return std::pair<InstallBackend, std::string>{*b, std::string(to_string(*b))};
    };
  }

  ReadOne<SimulationModel> model() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = one_of(kModels)(n, key).first;
      const SimulationModel m = v == "flow" ? SimulationModel::kFlow : SimulationModel::kStatic;
      return std::pair<SimulationModel, std::string>{m, std::string(to_string(m))};
    };
  }

  // --- after the document ---------------------------------------------------------------

  void defaults() {
    set_default(d_.seed, "seed", std::uint64_t{1}, "1");
    set_default(d_.link_bandwidth_gbps, "link_bandwidth", 100.0, "100");
    set_default(d_.gpus_per_node, "gpus_per_node", std::uint32_t{1}, "1");
    if (!d_.ranks_per_node.given()) canonical_["ranks_per_node"] = "gpus_per_node";
    set_default(d_.placement, "placement", Mapping::kBlock, "block");
    set_default(d_.allocation, "allocation", std::string("linear"), "linear");
    set_default(d_.table_capacity, "table_capacity", std::size_t{4096}, "4096");
    set_default(d_.flow_level, "flow_level", FlowDefinitionLevel::kSlidDlid,
                std::string(to_string(FlowDefinitionLevel::kSlidDlid)));
    set_default(d_.load_guard, "load_guard", std::uint8_t{1}, "true");
    set_default(d_.install_backend, "install_backend", InstallBackend::kAuto, "auto");
    set_default(d_.model, "model", SimulationModel::kStatic, "static");
    if (!d_.hosts.given()) canonical_["topology.hosts"] = "all";
    if (!flow_model(d_)) return;
    // Only for the flow model, so that static scenarios keep their hashes.
    set_timing_defaults(*this);
  }

  void finish() {
    zip_sweeps(zip_ ? &*zip_ : nullptr, d_, r_, canonical_);
    // The product, refused before any run is built when it is too large.
    std::size_t product = 1;
    bool overflow = false;
    std::string factors;
    for (std::size_t g = 0; g < d_.group_sizes.size(); ++g) {
      std::string keys;
      for (const SweepAxis& a : d_.axes) {
        if (a.group == g) keys += (keys.empty() ? "" : "+") + a.key;
      }
      const std::size_t n = d_.group_sizes[g];
      factors += (factors.empty() ? "" : " x ") + keys + " (" + std::to_string(n) + ")";
      overflow = overflow || product > std::numeric_limits<std::size_t>::max() / n;
      if (!overflow) product *= n;
    }
    if (overflow || product > kMaxScenarioRuns) {
      const SweepAxis& first = d_.axes.front();
      r_.fail_at(first.line, first.column,
                 "the sweeps make " + (overflow ? "more than 2^64" : std::to_string(product)) +
                     " runs (" + factors + "); at most " + std::to_string(kMaxScenarioRuns) +
                     " are allowed");
    }
    d_.run_count = product;
    reference_sweeps(reference_ ? &*reference_ : nullptr, d_, r_, canonical_);
    const nlohmann::json doc = {{"format", kFormat}, {"fields", canonical_}, {"files", files_}};
    d_.canonical_json = doc.dump();
    const std::string digest = sha256_hex(d_.canonical_json);
    std::uint64_t h = 0;
    (void)std::from_chars(digest.data(), digest.data() + 16, h, 16);
    d_.hash = h;
  }

  std::optional<YAML::Node> zip_;
  std::optional<YAML::Node> reference_;
};

}  // namespace

Scenario parse_scenario(std::string_view text, std::string_view source_name,
                        const std::filesystem::path& base_dir) {
  auto draft = std::make_shared<Scenario::Draft>();
  draft->source = std::string(source_name);
  const YAML::Node doc = load_single_document(text, draft->source);
  Parser(draft->source, base_dir, *draft).parse(doc);
  Scenario scenario(std::move(draft));
  // Every run once, so that a combination that cannot run is refused now, at its line.
  for (std::size_t i = 0; i < scenario.run_count(); ++i) (void)scenario.run(i);
  return scenario;
}

Scenario load_scenario(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ConfigError(path, 0, 0, "is a directory");
  return parse_scenario(read_config_file(path), path, std::filesystem::path(path).parent_path());
}

std::vector<std::string> scenario_keys() {
  std::vector<std::string> out(kTopKeys.begin(), kTopKeys.end());
  add_dotted_keys(out, "timing", kTimingKeys);
  add_dotted_keys(out, "timing.adaptive", kAdaptiveKeys);
  add_dotted_keys(out, "timing.classes[]", kClassKeys);
  add_dotted_keys(out, "timing.background", kBackgroundKeys);
  add_dotted_keys(out, "topology", kTopologyKeys);
  add_dotted_keys(out, "topology.dragonfly", kDragonflyKeys);
  add_dotted_keys(out, "topology.megafly", kMegaflyKeys);
  add_dotted_keys(out, "workload", kWorkloadKeys);
  add_dotted_keys(out, "workload.trace", kTraceKeys);
  add_dotted_keys(out, "workload.synthetic", kSyntheticKeys);
  add_dotted_keys(out, "workload.jobs[]", kJobKeys);
  return out;
}

std::vector<std::string> sweepable_scenario_keys() {
  std::vector<std::string> out;
  for (const std::string& k : scenario_keys()) {
    const bool container = k == "topology" || k == "workload" || k == "topology.dragonfly" ||
                           k == "topology.megafly" || k.starts_with("workload.jobs") ||
                           k == "workload.trace" || k == "workload.synthetic";
    const bool single = k == "timing" || k == "timing.background" ||
                        k == "timing.background.class" ||
                        (k.starts_with("timing.") && k != "timing.nic" && k != "timing.gpu_link" &&
                         k != "timing.bandwidth_multiple" && k != "timing.qos" &&
                         k != "timing.elephants" && !k.starts_with("timing.background."));
    if (k != "name" && k != "zip" && k != "reference" && !container && !single) out.push_back(k);
  }
  return out;
}

std::span<const std::string_view> dynamic_pattern_names() {
  return kDynamicPatterns;
}

std::span<const std::string_view> simulation_model_names() {
  return kModels;
}

std::string_view to_string(SimulationModel m) {
  switch (m) {
    case SimulationModel::kStatic:
      return "static";
    case SimulationModel::kFlow:
      return "flow";
  }
  return "?";
}

PatternSpec job_pattern(const ScenarioPattern& p, std::uint64_t seed, std::uint64_t job_index) {
  if (!p.dynamic) return p.spec;
  // SplitMix64's state after job_index steps is seed + job_index * its increment: the draw of
  // one job needs no other job's.
  constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
  PatternRng rng(seed + job_index * kGolden);
  PatternSpec spec;
  spec.name = std::string(kDynamicPatterns[rng.below(kDynamicPatterns.size())]);
  return spec;
}

}  // namespace ibsdn
