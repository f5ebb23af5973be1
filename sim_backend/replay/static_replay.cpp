#include "sim_backend/replay/static_replay.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "plugin/controller/load_guard.hpp"

namespace ibsdn {
namespace {

void check_jobs(const Fabric& f, std::span<const ReplayJob> jobs, const std::string& routing) {
  std::set<std::uint64_t> ids;
  std::vector<bool> seen(f.num_nodes(), false);
  for (const ReplayJob& j : jobs) {
    if (!std::isfinite(j.start) || !std::isfinite(j.end) || j.end < j.start) {
      throw std::invalid_argument("job " + std::to_string(j.id) + ": ends (" +
                                  std::to_string(j.end) + ") before it starts (" +
                                  std::to_string(j.start) + ")");
    }
    check_replay_job(f, j, routing, ids, seen);
    ids.insert(j.id);
  }
}

/// At one time: the ends of jobs that ran, then the starts, then the ends of jobs that start and
/// end then (a job's own start always comes first).
enum class EventKind : std::uint8_t { kEnd, kStart, kInstantEnd };

struct Event {
  double time = 0;
  EventKind kind = EventKind::kEnd;
  std::size_t job = 0;  // index into the jobs
};

}  // namespace

ReplayResult replay_static(const Subnet& subnet, const LftSet& lfts,
                           std::span<const ReplayJob> jobs, const ReplayConfig& config) {
  check_jobs(subnet.fabric, jobs, config.routing);
  std::vector<Event> events;
  events.reserve(jobs.size() * 2);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    events.push_back({jobs[i].start, EventKind::kStart, i});
    events.push_back(
        {jobs[i].end, jobs[i].end == jobs[i].start ? EventKind::kInstantEnd : EventKind::kEnd, i});
  }
  std::sort(events.begin(), events.end(), [&](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return jobs[a.job].id < jobs[b.job].id;
  });

  ReplaySession session(subnet, lfts, config);
  // Every job the controller moved is traced again, reported in ascending id order.
  const auto report_moved = [&] {
    for (const std::uint64_t id : session.take_changed()) {
      if (!config.traced) continue;
      const SessionJob& moved = session.job(id);
      config.traced(id, moved.flows, moved.paths);
    }
  };
  ReplayResult result;
  result.jobs.resize(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ReplayedJob& r = result.jobs[i];
    r.id = jobs[i].id;
    r.start = jobs[i].start;
    r.end = jobs[i].end;
    r.nodes = jobs[i].nodes.size();
  }
  std::vector<std::size_t> running;  // job indices
  const std::size_t num_links = subnet.fabric.num_links();
  result.link_load_seconds.assign(num_links, 0.0);
  double since = events.empty() ? 0.0 : events.front().time;  // the current step's start
  for (std::size_t e = 0; e < events.size(); ++e) {
    const Event& ev = events[e];
    if (e > 0 && events[e - 1].time != ev.time) {
      // The load of the last step held from its time until this one.
      const double dt = ev.time - since;
      for (std::size_t l = 0; l < num_links; ++l) {
        result.link_load_seconds[l] +=
            session.load().weight(LinkId(static_cast<std::uint32_t>(l))) * dt;
      }
      since = ev.time;
    }
    if (ev.kind == EventKind::kStart) {
      const SessionJob& s = session.start_job(jobs[ev.job]);
      ReplayedJob& r = result.jobs[ev.job];
      r.status = s.status;
      r.entries = s.entries;
      r.algorithm = s.algorithm;
      r.flows = s.flows.size();
      if (config.traced) config.traced(s.id, s.flows, s.paths);
      running.push_back(ev.job);
    } else {
      session.end_job(jobs[ev.job].id, ev.time);
      running.erase(std::find(running.begin(), running.end(), ev.job));
    }
    report_moved();
    if (config.progress) config.progress(e + 1, events.size());
    // The network state of a time is the one after all its events.
    if (e + 1 < events.size() && events[e + 1].time == ev.time) continue;
    for (const std::size_t j : running) {
      ReplayedJob& r = result.jobs[j];
      r.pjml = std::max(r.pjml, session.job_max_load(r.id));
    }
    const double swml = session.load().max_weight();
    result.swml.push_back(
        {ev.time, swml, session.running_count(),
         session.guard_load(plugin::GuardMeasure::kFlows).max_weight(),
         session.guard_load(plugin::GuardMeasure::kBytes).max_seconds(subnet.fabric)});
    result.max_swml = std::max(result.max_swml, swml);
    result.peak_entries = std::max(result.peak_entries, session.entries());
    result.peak_lft_entries = std::max(result.peak_lft_entries, session.lft_entries());
  }
  result.mads = session.mads();
  result.lft_blocks = session.lft_blocks();
  const GuardCounts guard = session.guard();
  result.guard_reroutes = guard.reroutes;
  result.guard_fallbacks = guard.fallbacks;
  result.guard_restores = guard.restores;
  return result;
}

}  // namespace ibsdn
