#include "sim_backend/workload/trace_stats.hpp"

#include <algorithm>
#include <utility>

namespace ibsdn {

BusyPeak peak_busy(const std::vector<TraceJob>& jobs) {
  // (time, +nodes / -nodes); at equal times the negative (end) sorts first.
  std::vector<std::pair<double, long long>> events;
  events.reserve(2 * jobs.size());
  for (const TraceJob& j : jobs) {
    events.emplace_back(j.start_s, static_cast<long long>(j.nodes));
    events.emplace_back(j.end_s, -static_cast<long long>(j.nodes));
  }
  std::sort(events.begin(), events.end());
  BusyPeak peak;
  long long busy = 0;
  for (const auto& [t, delta] : events) {
    busy += delta;
    if (busy > static_cast<long long>(peak.nodes)) {
      peak.nodes = static_cast<std::size_t>(busy);
      peak.at_s = t;
    }
  }
  return peak;
}

TraceStats trace_stats(const std::vector<TraceJob>& jobs, std::size_t system_nodes) {
  TraceStats s;
  if (jobs.empty() || system_nodes == 0) return s;
  s.jobs = jobs.size();
  std::vector<std::size_t> sizes;
  sizes.reserve(jobs.size());
  s.first_submit_s = s.last_submit_s = jobs.front().submit_s;
  s.first_start_s = jobs.front().start_s;
  s.last_end_s = jobs.front().end_s;
  std::size_t single = 0;
  for (const TraceJob& j : jobs) {
    sizes.push_back(j.nodes);
    single += j.nodes == 1 ? 1 : 0;
    s.first_submit_s = std::min(s.first_submit_s, j.submit_s);
    s.last_submit_s = std::max(s.last_submit_s, j.submit_s);
    s.first_start_s = std::min(s.first_start_s, j.start_s);
    s.last_end_s = std::max(s.last_end_s, j.end_s);
    s.node_seconds += static_cast<double>(j.nodes) * (j.end_s - j.start_s);
  }
  std::sort(sizes.begin(), sizes.end());
  s.min_nodes = sizes.front();
  s.median_nodes = sizes[(sizes.size() - 1) / 2];
  s.max_nodes = sizes.back();
  s.single_node_share = static_cast<double>(single) / static_cast<double>(jobs.size());
  const auto capacity = [&](double span) { return static_cast<double>(system_nodes) * span; };
  if (s.last_submit_s > s.first_submit_s) {
    s.offered_utilisation = s.node_seconds / capacity(s.last_submit_s - s.first_submit_s);
  }
  if (s.last_end_s > s.first_start_s) {
    s.busy_utilisation = s.node_seconds / capacity(s.last_end_s - s.first_start_s);
  }
  s.peak = peak_busy(jobs);
  return s;
}

}  // namespace ibsdn
