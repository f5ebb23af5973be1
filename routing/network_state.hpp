// Global link usage across active jobs (seed 002's controller view): a job is routed on top of
// the load of every other active job, and removing it takes away exactly its own load.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn {

class NetworkState {
 public:
  struct Job {
    JobId id{};
    std::string algorithm;
    std::vector<Flow> flows;
    std::vector<Path> paths;
    RouteQuality quality;  // of the job's own flows
  };

  explicit NetworkState(const Fabric& f) : fabric_(f), load_(f) {}

  /// Routes `flows` with `alg` on top of the current load and records the job. Throws
  /// std::invalid_argument if the id is active already or the flows are invalid; the state is
  /// unchanged then.
  const Job& add_job(JobId id, std::vector<Flow> flows, const RoutingAlgorithm& alg,
                     std::uint64_t seed = 1);
  /// Records a job whose paths were computed elsewhere (e.g. reloaded from a state store).
  const Job& restore_job(Job job);
  /// Removes the job's load. Throws std::invalid_argument for an unknown id.
  void remove_job(JobId id);

  [[nodiscard]] const Job* job(JobId id) const;
  [[nodiscard]] std::vector<JobId> job_ids() const;
  [[nodiscard]] const LinkLoad& load() const { return load_; }
  [[nodiscard]] const Fabric& fabric() const { return fabric_; }
  /// System-wide maximum load (SWML) in flows and in seed 002 weights.
  [[nodiscard]] std::int32_t swml_flows() const { return load_.max_flows(); }
  [[nodiscard]] double swml_weight() const { return load_.max_weight(); }
  /// Per-job maximum load (PJML): the largest total weight on any link the job uses.
  [[nodiscard]] double pjml(JobId id) const;

 private:
  const Fabric& fabric_;
  LinkLoad load_;
  std::map<JobId, Job> jobs_;
};

}  // namespace ibsdn
