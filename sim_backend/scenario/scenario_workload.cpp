// `workload:` of a scenario (docs/simulation.md, "Workloads"): exactly one of its three kinds — a
// Standard Workload Format trace file (`trace`), a trace generated after one of seed 002's Table I
// systems (`synthetic`), or jobs listed one by one with their times, sizes and own patterns or
// applications (`jobs`).
#include <yaml-cpp/yaml.h>

#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim_backend/apps/app_spec.hpp"
#include "sim_backend/scenario/scenario_fields.hpp"
#include "sim_backend/workload/swf_synthetic.hpp"

namespace ibsdn {
namespace {

// Upper bounds of the integer fields (the lower bound is 1 unless said).
constexpr std::uint64_t kMaxTraceJobs = 1'000'000'000;
constexpr std::uint64_t kMaxSyntheticJobs = 1'000'000;
constexpr std::uint32_t kMaxCpusPerNode = 4096;

// The synthetic presets are those swf_synthetic registers.
const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = synthetic_preset_names();
  return names;
}

class WorkloadSection : FieldSection {
 public:
  explicit WorkloadSection(FieldReader& f) : FieldSection(f) {}

  void read(const YAML::Node& map) {
    f_.exactly_one(map, "workload", kWorkloadKeys, kWorkloadKeys,
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

 private:
  void trace(const YAML::Node& map) {
    d_.workload_kind = WorkloadKind::kTrace;
    f_.each_field(
        map, "workload.trace", kTraceKeys, [&](const std::string& key, const YAML::Node& v) {
          const std::string full = "workload.trace." + key;
          if (key == "file") {
            f_.read(v, full, d_.trace_file, f_.plain_file());
          } else if (key == "cpus_per_node") {
            f_.read(v, full, d_.trace_cpus_per_node, f_.integer<std::uint32_t>(1, kMaxCpusPerNode));
          } else if (key == "first") {
            f_.read(v, full, d_.trace_first, f_.integer<std::uint64_t>(1, kMaxTraceJobs));
          } else {
            f_.read(v, full, d_.trace_system_nodes, f_.integer<std::uint32_t>(1, kMaxHosts));
          }
        });
    if (!d_.trace_file.given()) f_.missing(map, "workload.trace", "file");
    if (!d_.trace_cpus_per_node.given()) f_.missing(map, "workload.trace", "cpus_per_node");
  }

  void synthetic(const YAML::Node& map) {
    d_.workload_kind = WorkloadKind::kSynthetic;
    f_.each_field(map, "workload.synthetic", kSyntheticKeys,
                  [&](const std::string& key, const YAML::Node& v) {
                    const std::string full = "workload.synthetic." + key;
                    if (key == "preset") {
                      f_.read(v, full, d_.synthetic_preset, f_.one_of(preset_names()));
                    } else if (key == "jobs") {
                      f_.read(v, full, d_.synthetic_jobs,
                              f_.integer<std::uint64_t>(1, kMaxSyntheticJobs));
                    } else {
                      f_.read(v, full, d_.synthetic_utilisation, utilisation());
                    }
                  });
    if (!d_.synthetic_preset.given()) f_.missing(map, "workload.synthetic", "preset");
    if (!d_.synthetic_jobs.given()) f_.missing(map, "workload.synthetic", "jobs");
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
        f_.single(v, full, "explicit jobs are not swept (write one entry per job)");
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
          auto [p, text] = f_.pattern()(v, full);
          job.pattern = std::move(p);
          c[key] = text;
        } else if (key == "class") {
          job.traffic_class = read_class_name(r_, v, full, d_);
          c[key] = job.traffic_class;
        } else {
          auto [a, text] = f_.application()(v, full);
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
      if (!start_at) f_.missing(entry, what, "start");
      if (!end_at) f_.missing(entry, what, "end");
      if (!(job.end > job.start)) {
        r_.fail(*end_at, what + ".end: " + number_text(job.end) + " is not after start (" +
                             number_text(job.start) + ")");
      }
      jobs->push_back(std::move(job));
      canonical.push_back(std::move(c));
    }
    d_.jobs = std::move(jobs);
    f_.canonical()["workload.jobs"] = std::move(canonical);
  }

  std::uint32_t jobs_largest_nodes_ = 0;
};

}  // namespace

void read_workload(FieldReader& f, const YAML::Node& map) {
  WorkloadSection(f).read(map);
}

}  // namespace ibsdn
