#include "sim_backend/workload/replay_jobs.hpp"

#include <stdexcept>

namespace ibsdn {

std::optional<std::size_t> job_nodes(const SwfJob& job, std::size_t cpus_per_node) {
  const std::int64_t procs =
      job.allocated_procs != kSwfUnknown ? job.allocated_procs : job.requested_procs;
  if (procs <= 0 || cpus_per_node == 0) return std::nullopt;
  const auto p = static_cast<std::size_t>(procs);
  return (p + cpus_per_node - 1) / cpus_per_node;
}

ReplaySelection select_replay_jobs(const SwfTrace& trace, const ReplayFilter& filter) {
  if (filter.system_nodes == 0 || filter.cpus_per_node == 0) {
    throw std::invalid_argument("replay filter: system nodes and CPUs per node must be > 0");
  }
  ReplaySelection out;
  ReplayCounts& c = out.counts;
  for (const SwfJob& j : trace.jobs) {
    ++c.read;
    if (j.run_s <= 0) {  // 0, or -1 unknown
      ++c.no_run_time;
      continue;
    }
    if (j.status == SwfStatus::kUnknown) {
      ++c.status_unknown;
      continue;
    }
    const std::optional<std::size_t> nodes = job_nodes(j, filter.cpus_per_node);
    if (!nodes) {
      ++c.no_size;
      continue;
    }
    if (*nodes > filter.system_nodes) {
      ++c.too_large;
      continue;
    }
    if (j.submit_s == kSwfUnknown || j.wait_s == kSwfUnknown) {
      ++c.no_start;
      continue;
    }
    if (filter.first != 0 && out.jobs.size() == filter.first) {
      ++c.beyond_first;
      continue;
    }
    TraceJob r;
    r.id = j.id;
    r.nodes = *nodes;
    r.submit_s = j.submit_s;
    r.start_s = j.submit_s + j.wait_s;
    r.end_s = r.start_s + j.run_s;
    r.line = j.line;
    out.jobs.push_back(r);
  }
  c.kept = out.jobs.size();
  return out;
}

std::optional<std::size_t> header_cpus_per_node(const SwfHeader& header) {
  if (!header.max_nodes || !header.max_procs) return std::nullopt;
  const std::int64_t nodes = *header.max_nodes;
  const std::int64_t procs = *header.max_procs;
  if (nodes <= 0 || procs < nodes || procs % nodes != 0) return std::nullopt;
  return static_cast<std::size_t>(procs / nodes);
}

}  // namespace ibsdn
