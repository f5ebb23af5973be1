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
#include "routing/netlist.hpp"
#include "routing/patterns/rng.hpp"
#include "routing/patterns/traffic_matrix.hpp"
#include "sim_backend/io/content_hash.hpp"
#include "sim_backend/scenario/scenario_draft.hpp"
#include "sim_backend/scenario/scenario_fields.hpp"
#include "sim_backend/scenario/scenario_sweeps.hpp"
#include "sim_backend/workload/node_allocation.hpp"
#include "sim_backend/workload/swf_synthetic.hpp"

namespace ibsdn {
namespace {

// Bumped when the meaning of a scenario changes, so that old hashes no longer match.
constexpr std::string_view kFormat = "ibsdn-scenario/2";  // 2: load_guard
constexpr std::size_t kMaxNameLength = 64;

constexpr std::array<std::string_view, 19> kTopKeys = {
    "name",           "seed",       "topology",   "link_bandwidth", "gpus_per_node",
    "ranks_per_node", "placement",  "allocation", "routing",        "table_capacity",
    "flow_level",     "load_guard", "model",      "pattern",        "application",
    "timing",         "workload",   "zip",        "reference"};
constexpr std::array<std::string_view, 3> kRequiredKeys = {"name", "topology", "routing"};
constexpr std::array<std::string_view, 5> kTopologyKeys = {"xgft", "dragonfly", "megafly",
                                                           "netlist", "hosts"};
constexpr std::array<std::string_view, 4> kFabricKeys = {"xgft", "dragonfly", "megafly", "netlist"};
constexpr std::array<std::string_view, 3> kWorkloadKeys = {"trace", "synthetic", "jobs"};
constexpr std::array<std::string_view, 4> kTraceKeys = {"file", "cpus_per_node", "first",
                                                        "system_nodes"};
constexpr std::array<std::string_view, 3> kSyntheticKeys = {"preset", "jobs", "utilisation"};
constexpr std::array<std::string_view, 7> kJobKeys = {"nodes",   "ranks",       "start", "end",
                                                      "pattern", "application", "class"};

// The allocation policies and synthetic presets are those their implementations register.
const std::vector<std::string>& allocation_policies() {
  static const std::vector<std::string> names = node_allocation_names();
  return names;
}
const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = synthetic_preset_names();
  return names;
}
constexpr std::array<std::string_view, 4> kDynamicPatterns = {"ring", "2dnn", "3dnn", "random4"};
constexpr std::array<std::string_view, 2> kModels = {"static", "flow"};

// Upper bounds of the integer fields (the lower bound is 1 unless said).
constexpr std::uint64_t kMaxTraceJobs = 1'000'000'000;
constexpr std::uint64_t kMaxSyntheticJobs = 1'000'000;
constexpr std::uint32_t kMaxCpusPerNode = 4096;
constexpr int kMaxTopologyParameter = 100'000;  // the generators check the real limits

// The document; `timing:` is scenario_timing.cpp's.
class Parser : FieldReader {
 public:
  Parser(std::string_view source, std::filesystem::path base_dir, Scenario::Draft& d)
      : FieldReader(source, d), base_dir_(std::move(base_dir)) {}

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
    check_flow_only();
    check_class_names(r_, d_, flow());
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
      topology(v);
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
      workload(v);
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

  ReadOne<SimulationModel> model() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = one_of(kModels)(n, key).first;
      const SimulationModel m = v == "flow" ? SimulationModel::kFlow : SimulationModel::kStatic;
      return std::pair<SimulationModel, std::string>{m, std::string(to_string(m))};
    };
  }

  ReadOne<XgftParams> xgft() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = r_.string(n, key);
      try {
        XgftParams p = XgftParams::parse(v);
        // The canonical text without the XGFT(...) wrapper, as written in scenarios.
        std::string text = p.to_string();
        return std::pair<XgftParams, std::string>{std::move(p), text.substr(5, text.size() - 6)};
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
    };
  }

  // A file the scenario names, `written` as the scenario has it (`at` is where, for errors): it
  // must be a readable regular file. Its content's hash joins the scenario's; `content`, when not
  // null, receives the text.
  ScenarioFile file(const YAML::Node& at, const std::string& key, std::string written,
                    std::string* content) {
    ScenarioFile f;
    f.written = std::move(written);
    if (f.written.empty()) r_.fail(at, key + ": an empty path");
    if (f.written.find('\0') != std::string::npos) r_.fail(at, key + ": contains a NUL byte");
    std::error_code ec;
    std::filesystem::path p(f.written);
    if (p.is_relative()) p = base_dir_ / p;
    const std::filesystem::path abs = std::filesystem::absolute(p, ec);
    f.path = (ec ? p : abs).lexically_normal().string();
    const std::string why = key + ": cannot read " + quote_for_message(f.written, 256) +
                            " (resolved to " + quote_for_message(f.path, 256) + "): ";
    const auto status = std::filesystem::status(f.path, ec);
    if (ec) r_.fail(at, why + ec.message());
    if (!std::filesystem::is_regular_file(status)) r_.fail(at, why + "not a regular file");
    std::string digest;
    try {
      if (content != nullptr) {
        std::ifstream in(f.path, std::ios::binary);
        if (!in) throw std::runtime_error(std::strerror(errno));
        std::ostringstream text;
        text << in.rdbuf();
        if (in.bad()) throw std::runtime_error(std::string("read failed: ") + std::strerror(errno));
        *content = std::move(text).str();
        digest = sha256_hex(*content);
      } else {
        digest = file_sha256_hex(f.path);
      }
    } catch (const std::runtime_error& e) {
      r_.fail(at, why + e.what());
    }
    files_[f.written] = digest;
    return f;
  }

  ReadOne<ScenarioFile> plain_file() {
    return [this](const YAML::Node& n, const std::string& key) {
      ScenarioFile f = file(n, key, r_.string(n, key), nullptr);
      return std::pair<ScenarioFile, std::string>{f, f.written};
    };
  }

  ReadOne<ScenarioFile> netlist() {
    return [this](const YAML::Node& n, const std::string& key) {
      std::string text;
      ScenarioFile f = file(n, key, r_.string(n, key), &text);
      try {
        const Fabric fabric = parse_netlist(text, f.path);
        d_.netlist_hosts[f.path] = fabric.hcas().size();
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
      return std::pair<ScenarioFile, std::string>{f, f.written};
    };
  }

  ReadOne<ScenarioPattern> pattern() {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string text = r_.string(n, key);
      ScenarioPattern p;
      if (text == "dynamic") {
        p.dynamic = true;
        p.text = text;
        return std::pair<ScenarioPattern, std::string>{p, p.text};
      }
      try {
        p.spec = PatternSpec::parse(text);
        p.spec.validate();
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what() + " (or dynamic)");
      }
      p.text = p.spec.to_string();
      if (p.spec.name == "matrix") {
        // Relative to the scenario's folder like its other files; the text keeps it as written.
        const ScenarioFile f = file(n, key + ": matrix", p.spec.file, nullptr);
        try {
          (void)read_traffic_matrix(f.path, std::nullopt);
        } catch (const std::invalid_argument& e) {
          r_.fail(n, key + ": " + e.what());
        }
        p.spec.file = f.path;
      }
      return std::pair<ScenarioPattern, std::string>{p, p.text};
    };
  }

  ReadOne<ScenarioApplication> application() {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string text = r_.string(n, key);
      ScenarioApplication a;
      try {
        a.spec = AppSpec::parse(text);
        a.spec.validate();
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
      a.text = a.spec.to_string();
      if (a.spec.kind() == AppKind::kPattern && a.spec.pattern.name == "matrix") {
        const ScenarioFile f = file(n, key + ": matrix", a.spec.pattern.file, nullptr);
        try {
          (void)read_traffic_matrix(f.path, std::nullopt);
        } catch (const std::invalid_argument& e) {
          r_.fail(n, key + ": " + e.what());
        }
        a.spec.pattern.file = f.path;
      }
      return std::pair<ScenarioApplication, std::string>{a, a.text};
    };
  }

  // --- sections -----------------------------------------------------------------------

  // each_field() where exactly one of the `choices` keys must be given (the fabric, the
  // workload): it is recorded as the map's kind.
  void exactly_one(const YAML::Node& map, const std::string& what,
                   std::span<const std::string_view> known,
                   std::span<const std::string_view> choices,
                   const std::function<void(const std::string&, const YAML::Node&)>& on_key) {
    std::vector<std::string> chosen;
    each_field(map, what, known, [&](const std::string& key, const YAML::Node& v) {
      if (std::find(choices.begin(), choices.end(), key) != choices.end()) {
        chosen.push_back(key);
        if (chosen.size() > 1) {
          r_.fail(v, what + ": give exactly one of " + join(choices, ", ") + "; found " +
                         join(chosen, " and "));
        }
        canonical_[what] = key;
      }
      on_key(key, v);
    });
    if (chosen.empty()) r_.fail(map, what + ": give one of " + join(choices, ", "));
  }

  void topology(const YAML::Node& map) {
    exactly_one(map, "topology", kTopologyKeys, kFabricKeys,
                [&](const std::string& key, const YAML::Node& v) {
                  const std::string full = "topology." + key;
                  if (key == "hosts") {
                    read(v, full, d_.hosts, integer<std::uint32_t>(1, kMaxHosts));
                    return;
                  }
                  d_.topology_at = where_of(v);
                  if (key == "xgft") {
                    d_.topology_kind = TopologyKind::kXgft;
                    read(v, full, d_.xgft, xgft());
                  } else if (key == "dragonfly") {
                    d_.topology_kind = TopologyKind::kDragonfly;
                    parameters(v, full, kDragonflyKeys, d_.dragonfly);
                  } else if (key == "megafly") {
                    d_.topology_kind = TopologyKind::kMegafly;
                    parameters(v, full, kMegaflyKeys, d_.megafly);
                  } else {
                    d_.topology_kind = TopologyKind::kNetlist;
                    read(v, full, d_.netlist, netlist());
                  }
                });
  }

  // The integer parameters of a dragonfly or megafly map, every one required and sweepable; the
  // generator checks them together for every run (build_run).
  template <std::size_t N>
  void parameters(const YAML::Node& map, const std::string& what,
                  const std::array<std::string_view, N>& keys, std::array<Field<int>, N>& fields) {
    each_field(map, what, keys, [&](const std::string& key, const YAML::Node& v) {
      const auto i =
          static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
      read(v, what + "." + key, fields[i], integer<int>(1, kMaxTopologyParameter));
    });
    for (std::size_t i = 0; i < N; ++i) {
      if (!fields[i].given()) missing(map, what, keys[i]);
    }
  }

  void workload(const YAML::Node& map) {
    exactly_one(map, "workload", kWorkloadKeys, kWorkloadKeys,
                [&](const std::string& key, const YAML::Node& v) {
                  if (key == "trace") {
                    trace(v);
                  } else if (key == "synthetic") {
                    synthetic(v);
                  } else {
                    jobs(v);
                  }
                });
  }

  void trace(const YAML::Node& map) {
    d_.workload_kind = WorkloadKind::kTrace;
    each_field(map, "workload.trace", kTraceKeys, [&](const std::string& key, const YAML::Node& v) {
      const std::string full = "workload.trace." + key;
      if (key == "file") {
        read(v, full, d_.trace_file, plain_file());
      } else if (key == "cpus_per_node") {
        read(v, full, d_.trace_cpus_per_node, integer<std::uint32_t>(1, kMaxCpusPerNode));
      } else if (key == "first") {
        read(v, full, d_.trace_first, integer<std::uint64_t>(1, kMaxTraceJobs));
      } else {
        read(v, full, d_.trace_system_nodes, integer<std::uint32_t>(1, kMaxHosts));
      }
    });
    if (!d_.trace_file.given()) missing(map, "workload.trace", "file");
    if (!d_.trace_cpus_per_node.given()) missing(map, "workload.trace", "cpus_per_node");
  }

  void synthetic(const YAML::Node& map) {
    d_.workload_kind = WorkloadKind::kSynthetic;
    each_field(map, "workload.synthetic", kSyntheticKeys,
               [&](const std::string& key, const YAML::Node& v) {
                 const std::string full = "workload.synthetic." + key;
                 if (key == "preset") {
                   read(v, full, d_.synthetic_preset, one_of(preset_names()));
                 } else if (key == "jobs") {
                   read(v, full, d_.synthetic_jobs, integer<std::uint64_t>(1, kMaxSyntheticJobs));
                 } else {
                   read(v, full, d_.synthetic_utilisation, utilisation());
                 }
               });
    if (!d_.synthetic_preset.given()) missing(map, "workload.synthetic", "preset");
    if (!d_.synthetic_jobs.given()) missing(map, "workload.synthetic", "jobs");
  }

  ReadOne<double> utilisation() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const double v = r_.number(n, key);
      if (!(v > 0.0) || v > 1.0) {
        r_.fail(n, key + ": " + n.Scalar() +
                       " is out of range: a fraction above 0 and at most 1 (0.88, not 88)");
      }
      return std::pair<double, std::string>{v, number_text(v)};
    };
  }

  void jobs(const YAML::Node& list) {
    d_.workload_kind = WorkloadKind::kJobs;
    if (!list.IsSequence() || list.size() == 0) {
      r_.fail(list, "workload.jobs: expected a list of jobs ({nodes: N, start: S, end: E})");
    }
    if (list.size() > kMaxExplicitJobs) {
      r_.fail(list, "workload.jobs: " + std::to_string(list.size()) + " jobs; at most " +
                        std::to_string(kMaxExplicitJobs) + " (use a trace for more)");
    }
    auto jobs = std::make_shared<std::vector<ScenarioJob>>();
    nlohmann::json canonical = nlohmann::json::array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node& entry = list[i];
      const std::string what = "workload.jobs[" + std::to_string(i) + "]";
      ScenarioJob job;
      nlohmann::json c = nlohmann::json::object();
      std::optional<YAML::Node> start_at;
      std::optional<YAML::Node> end_at;
      std::optional<YAML::Node> ranks_at;
      r_.for_each_key(entry, what, kJobKeys, [&](const std::string& key, const YAML::Node& v) {
        const std::string full = what + "." + key;
        single(v, full, "explicit jobs are not swept (write one entry per job)");
        if (key == "nodes") {
          job.nodes = static_cast<std::uint32_t>(r_.integer(v, full, 1, kMaxHosts));
          if (job.nodes > jobs_largest_nodes_) {
            jobs_largest_nodes_ = job.nodes;
            d_.largest_job = i;
            d_.largest_job_at = where_of(v);
          }
          c[key] = std::to_string(job.nodes);
        } else if (key == "ranks") {
          job.ranks = static_cast<std::uint32_t>(r_.integer(v, full, 1, kMaxAppRanks));
          if (!d_.job_ranks_at) d_.job_ranks_at = where_of(v);
          if (!d_.most_ranks_job || job.ranks > jobs->at(*d_.most_ranks_job).ranks) {
            d_.most_ranks_job = i;
            d_.most_ranks_at = where_of(v);
          }
          ranks_at.emplace(v);
          c[key] = std::to_string(job.ranks);
        } else if (key == "start" || key == "end") {
          const double t = r_.number(v, full);
          if (t < 0.0 || t > kMaxJobTime) {
            r_.fail(v, full + ": " + v.Scalar() + " is out of range: seconds from 0 to " +
                           number_text(kMaxJobTime));
          }
          (key == "start" ? job.start : job.end) = t;
          // emplace: assigning to a YAML::Node writes through to the node it refers to.
          (key == "start" ? start_at : end_at).emplace(v);
          c[key] = number_text(t);
        } else if (key == "pattern") {
          auto [p, text] = pattern()(v, full);
          job.pattern = std::move(p);
          c[key] = text;
        } else if (key == "class") {
          job.traffic_class = read_class_name(r_, v, full, d_);
          c[key] = job.traffic_class;
        } else {
          auto [a, text] = application()(v, full);
          job.application = std::move(a);
          if (!d_.job_application_at) d_.job_application_at = where_of(v);
          c[key] = text;
        }
      });
      if (job.nodes == 0 && job.ranks == 0) {
        r_.fail(entry, what + ": missing key 'nodes' (or 'ranks', with model flow)");
      }
      if (job.nodes != 0 && ranks_at) {
        r_.fail(*ranks_at, what + ".ranks: give nodes or ranks, not both (a job of ranks gets " +
                               "ceil(ranks / ranks_per_node) nodes)");
      }
      if (!start_at) missing(entry, what, "start");
      if (!end_at) missing(entry, what, "end");
      if (!(job.end > job.start)) {
        r_.fail(*end_at, what + ".end: " + number_text(job.end) + " is not after start (" +
                             number_text(job.start) + ")");
      }
      jobs->push_back(std::move(job));
      canonical.push_back(std::move(c));
    }
    d_.jobs = std::move(jobs);
    canonical_["workload.jobs"] = std::move(canonical);
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
    set_default(d_.model, "model", SimulationModel::kStatic, "static");
    if (!d_.hosts.given()) canonical_["topology.hosts"] = "all";
    if (!flow()) return;
    // Only for the flow model, so that static scenarios keep their hashes.
    set_timing_defaults(*this);
  }

  /// The model is flow (it cannot be swept together with static: check_flow_only()).
  [[nodiscard]] bool flow() const {
    return std::find(d_.model.values.begin(), d_.model.values.end(), SimulationModel::kFlow) !=
           d_.model.values.end();
  }

  // What only the flow model takes, refused with the static one at the value that needs it.
  void check_flow_only() {
    const auto& models = d_.model.values;
    const bool has_static =
        std::find(models.begin(), models.end(), SimulationModel::kStatic) != models.end();
    if (flow() && has_static) {
      const Where w = d_.model.at.back();
      r_.fail_at(w.line, w.column,
                 "model: static and flow cannot be swept together (their outputs differ); write "
                 "two scenarios");
    }
    if (flow()) {
      if (d_.alone.given() && d_.alone.values[0] != 0 && d_.jobs &&
          d_.jobs->size() > kMaxAloneJobs) {
        const Where w = d_.alone.at[0];
        r_.fail_at(w.line, w.column,
                   "timing.alone: " + std::to_string(d_.jobs->size()) +
                       " jobs would each run once more alone; at most " +
                       std::to_string(kMaxAloneJobs));
      }
      return;
    }
    const auto refuse = [&](Where w, const std::string& what) {
      r_.fail_at(w.line, w.column,
                 what +
                     " is for model flow only (this scenario's model is "
                     "static)");
    };
    if (d_.timing_given) refuse(d_.timing_at, "timing");
    if (d_.application.given()) refuse(d_.application.at[0], "application");
    if (d_.job_application_at) refuse(*d_.job_application_at, "a job's application");
    if (d_.job_ranks_at) refuse(*d_.job_ranks_at, "a job's ranks");
    if (d_.reference_at) refuse(*d_.reference_at, "reference");
    if (!d_.pattern.given()) {
      r_.fail_at(0, 0, "top level: missing key 'pattern' (an application needs model flow)");
    }
    for (std::size_t i = 0; i < d_.routing.values.size(); ++i) {
      if (d_.routing.values[i] == kAdaptiveRouting) {
        refuse(d_.routing.at[i], "routing: adaptive (the fabric's adaptive routing)");
      }
    }
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

  std::filesystem::path base_dir_;
  nlohmann::json files_ = nlohmann::json::object();  // written path -> SHA-256 of the content
  std::uint32_t jobs_largest_nodes_ = 0;
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

TopologySpec topology_spec(const ScenarioRun& run) {
  TopologySpec spec;
  switch (run.topology.kind) {
    case TopologyKind::kXgft:
      spec.xgft = run.topology.xgft.to_string();
      break;
    case TopologyKind::kDragonfly:
      spec.dragonfly = run.topology.dragonfly.to_string();
      break;
    case TopologyKind::kMegafly:
      spec.megafly = run.topology.megafly.to_string();
      break;
    case TopologyKind::kNetlist:
      spec.netlist_in = run.topology.netlist.path;
      break;
  }
  spec.gpus_per_node = static_cast<int>(run.gpus_per_node);
  // The flow model's bandwidth multiple scales the network links only (timing_runner.cpp keeps
  // the GPU links at gpu_link x link_bandwidth).
  spec.gbps = run.link_bandwidth_gbps * run.timing.bandwidth_multiple;
  return spec;
}

std::string ScenarioTopology::label() const {
  switch (kind) {
    case TopologyKind::kXgft:
      return xgft.to_string();
    case TopologyKind::kDragonfly:
      return dragonfly.to_string();
    case TopologyKind::kMegafly:
      return megafly.to_string();
    case TopologyKind::kNetlist:
      return netlist.written;
  }
  return "?";
}

}  // namespace ibsdn
