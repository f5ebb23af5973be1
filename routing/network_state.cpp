#include "routing/network_state.hpp"

#include <algorithm>
#include <stdexcept>

namespace ibsdn {

const NetworkState::Job& NetworkState::add_job(JobId id, std::vector<Flow> flows,
                                               const RoutingAlgorithm& alg, std::uint64_t seed) {
  if (jobs_.count(id)) {
    throw std::invalid_argument("job " + std::to_string(id.value()) + " is already active");
  }
  RouteRequest req{fabric_, flows, &load_, false, seed};
  Job job;
  job.paths = alg.route(req);
  job.id = id;
  job.algorithm = std::string(alg.name());
  job.quality = evaluate(fabric_, flows, job.paths);
  job.flows = std::move(flows);
  return restore_job(std::move(job));
}

const NetworkState::Job& NetworkState::restore_job(Job job) {
  if (jobs_.count(job.id)) {
    throw std::invalid_argument("job " + std::to_string(job.id.value()) + " is already active");
  }
  if (job.paths.size() != job.flows.size()) {
    throw std::invalid_argument("job " + std::to_string(job.id.value()) + ": one path per flow");
  }
  for (std::size_t i = 0; i < job.flows.size(); ++i) {
    const std::string why = validate_path(fabric_, job.flows[i], job.paths[i]);
    if (!why.empty()) {
      throw std::invalid_argument("job " + std::to_string(job.id.value()) + " flow " +
                                  std::to_string(i) + ": " + why);
    }
  }
  for (std::size_t i = 0; i < job.flows.size(); ++i) load_.add(job.paths[i], job.flows[i]);
  const JobId id = job.id;
  return jobs_.emplace(id, std::move(job)).first->second;
}

void NetworkState::remove_job(JobId id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end())
    throw std::invalid_argument("job " + std::to_string(id.value()) + " is not active");
  const Job& j = it->second;
  for (std::size_t i = 0; i < j.flows.size(); ++i) load_.remove(j.paths[i], j.flows[i]);
  jobs_.erase(it);
  if (jobs_.empty()) load_ = LinkLoad(fabric_);  // no rounding residue once the fabric is idle
}

const NetworkState::Job* NetworkState::job(JobId id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second;
}

std::vector<JobId> NetworkState::job_ids() const {
  std::vector<JobId> out;
  for (const auto& [id, j] : jobs_) out.push_back(id);
  return out;
}

double NetworkState::pjml(JobId id) const {
  const Job* j = job(id);
  if (!j) throw std::invalid_argument("job " + std::to_string(id.value()) + " is not active");
  double worst = 0.0;
  for (const Path& p : j->paths) {
    for (LinkId l : p) worst = std::max(worst, load_.weight(l));
  }
  return worst;
}

}  // namespace ibsdn
