// JobController: the load guard (config `load_guard`, docs/routing.md "The load guard").
//
// Each job is routed on top of the running ones and is not moved for the sake of later ones, so
// after some starts and ends the fabric's busiest link can carry more than the default routes
// (the LFTs: DmodK on fat-trees) would give the same running jobs; seed 002 claims SDN never
// does. After every change the guard compares, in each measure (load_guard.hpp: bytes for the
// jobs whose flows' byte volumes differ, seed 002's weights for the others), the busiest link's
// load of the jobs it measures with what the default routes would give the same jobs. While one
// is above:
//  1. re-route: one of that measure's jobs with the most load on the busiest link is routed again
//     on top of all the others, when the plan (nothing installed yet) lowers the excess over the
//     default routes' maximum;
//  2. otherwise fall back: the job with the most load on the busiest link, among those that do
//     not yet take their default routes there, is moved to its default routes (no entries; its
//     ready answer lists the flows with reason load_guard).
// With every job on the default routes both loads are the same, so the loop ends with each
// measure at most the default routes'. A guarded job is planned again after a job_end, a few per
// end in turn, and routed when that keeps the bound.
//
// Bounded like a notice: re-route plans stop when job_start_timeout_ms has passed since the guard
// began (then only fallbacks, which route nothing, bring the load down), and so do restores.
// The gap, the excess of a plan and whose turn it is to be restored: load_guard.hpp.
#include <algorithm>
#include <chrono>
#include <exception>

#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn::plugin {
namespace {

using Clock = std::chrono::steady_clock;

std::string load_text(double w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", w);
  return buf;
}

/// A load as the log says it: a weight, or the milliseconds a link needs for its bytes.
std::string load_text(GuardMeasure m, double v) {
  return m == GuardMeasure::kBytes ? load_text(v * 1e3) + " ms" : load_text(v);
}

/// "the busiest link carries X ... would carry Y", in the gap's measure.
std::string gap_text(const LoadGap& g) {
  return g.measure == GuardMeasure::kBytes
             ? "in bytes, the busiest link needs " + load_text(g.measure, g.sdn_max) +
                   " for the jobs measured in bytes, the default routes would need " +
                   load_text(g.measure, g.lft_max)
             : "in flows, the busiest link carries " + load_text(g.measure, g.sdn_max) +
                   ", the default routes would carry " + load_text(g.measure, g.lft_max) +
                   " for the same jobs";
}

}  // namespace

void JobController::ensure_lft_paths(Job& j) const {
  if (j.lft.size() == j.flows.size()) return;
  const Fabric& f = fabric_->subnet.fabric;
  j.lft.clear();
  j.lft.reserve(j.flows.size());
  std::optional<LidMap> shifted;
  TraceOptions to;
  to.lids = &lids_of(j, shifted, nullptr);
  for (const Flow& fl : j.flows) {
    Trace t = trace(f, fabric_->lfts, fl.src, fl.dst, to);
    j.lft.push_back(t.ok() ? std::move(t.path) : Path{});
  }
}

JobController::GuardLoads JobController::guard_loads() {
  const Fabric& f = fabric_->subnet.fabric;
  GuardLoads out{{LinkLoad(f), LinkLoad(f)}, {LinkLoad(f), LinkLoad(f)}};
  for (auto& [id, j] : jobs_) {
    if (!j.routed || j.adopted) continue;
    ensure_lft_paths(j);
    const auto m = static_cast<std::size_t>(guard_measure(j.flows));
    for (std::size_t i = 0; i < j.flows.size(); ++i) {
      if (i < j.effective.size()) out.sdn[m].add(j.effective[i], j.flows[i]);
      out.lft[m].add(j.lft[i], j.flows[i]);
    }
  }
  return out;
}

LoadGap JobController::load_gap(const GuardLoads& loads, GuardMeasure m) const {
  const Fabric& f = fabric_->subnet.fabric;
  const auto k = static_cast<std::size_t>(m);
  return LoadGuard::gap(m, link_values(f, loads.sdn[k], m), link_values(f, loads.lft[k], m));
}

LoadGap JobController::load_gap(const GuardLoads& loads) const {
  LoadGap first;
  for (const GuardMeasure m : kGuardMeasures) {
    LoadGap g = load_gap(loads, m);
    if (!g.above.empty()) return g;
    if (m == kGuardMeasures.front()) first = std::move(g);
  }
  return first;
}

void JobController::guard_load(const std::string& occasion) {
  if (!config_.load_guard || !fabric_ || !master_) return;
  const Fabric& f = fabric_->subnet.fabric;
  GuardLoads loads = guard_loads();
  LoadGap gap = load_gap(loads);
  if (gap.above.empty()) return;
  log(LogLevel::kInfo, "load guard " + occasion + ": " + gap_text(gap));
  std::set<JobId> failed;  // place() refused: not tried again in this call
  std::size_t reroutes = 0;
  const Deadline budget = deadline_from(Clock::now());
  // Every fallback guards one more job, and a re-route step lowers the excess: bounded by both.
  for (std::size_t step = 0;
       step < jobs_.size() + LoadGuard::kRerouteSteps + 1 && !gap.above.empty(); ++step) {
    const LinkId hottest = gap.above.front();
    // The jobs of the gap's measure with load on the busiest link that could move off it, the
    // heaviest first.
    std::vector<std::pair<double, JobId>> movers;
    for (auto& [id, j] : jobs_) {
      if (!j.routed || j.adopted || j.guarded || failed.contains(id)) continue;
      if (guard_measure(j.flows) != gap.measure) continue;
      ensure_lft_paths(j);
      double w = 0;  // what moving it to its default routes could take off the link
      for (std::size_t i = 0; i < j.flows.size() && i < j.effective.size(); ++i) {
        // A flow on its default route already, or riding on an earlier job's path, stays.
        if (j.effective[i] == j.lft[i] ||
            (i < j.off_path.size() && j.off_path[i] == OffPath::kShared)) {
          continue;
        }
        const Path& path = j.effective[i];
        if (std::find(path.begin(), path.end(), hottest) != path.end()) {
          w += flow_share(j.flows[i], gap.measure);
        }
      }
      if (w > LoadGuard::kEps) movers.emplace_back(w, id);
    }
    if (movers.empty()) {
      log(LogLevel::kWarn, "load guard " + occasion + ": no job can move off the busiest link (" +
                               gap_text(gap) + ")");
      break;
    }
    std::stable_sort(movers.begin(), movers.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });

    // 1. A re-route on top of everything else that lowers the excess.
    std::optional<JobId> rerouted;
    if (reroutes < LoadGuard::kRerouteSteps && !budget.expired()) {
      for (std::size_t k = 0; k < movers.size() && k < LoadGuard::kReroutePlans && !rerouted; ++k) {
        const JobId id = movers[k].second;
        try {
          const Job& now = jobs_.at(id);
          const Plan p = plan(id, now, {}, false, budget);
          const auto m = static_cast<std::size_t>(gap.measure);
          const double excess =
              LoadGuard::excess_with(f, gap.measure, loads.sdn[m], {now.flows, now.effective},
                                     {p.flows, p.effective}, gap.lft_max);
          if (excess < gap.excess - gap.tolerance) rerouted = id;
        } catch (const std::exception& e) {
          log(LogLevel::kDebug, "load guard: planning " + job_text(id) + " again: " + e.what());
        }
      }
    }
    const JobId id = rerouted ? *rerouted : movers.front().second;
    Job& j = jobs_.at(id);
    j.guarded = !rerouted;
    try {
      place(id, j, deadline_from(Clock::now()));
    } catch (const std::exception& e) {
      j.guarded = false;
      failed.insert(id);
      log(LogLevel::kWarn, "load guard: " + job_text(id) + " could not be " +
                               (rerouted ? "re-routed" : "moved to the default routes") + ": " +
                               e.what());
      continue;
    }
    if (rerouted) {
      ++reroutes;
      ++counters_["guard_reroutes"];
    } else {
      ++counters_["guard_fallbacks"];
    }
    log(LogLevel::kInfo,
        "load guard: " + job_text(id) + (rerouted ? " re-routed" : " moved to the default routes"));
    reconcile(order_of(id, j), false);
    loads = guard_loads();
    gap = load_gap(loads);
  }
  if (!gap.above.empty()) {
    log(LogLevel::kWarn,
        "load guard " + occasion + ": still above the default routes: " + gap_text(gap));
  }
}

void JobController::restore_guarded() {
  if (!config_.load_guard || !fabric_ || !master_) return;
  std::vector<std::pair<JobId, Job*>> guarded;
  for (auto& [id, j] : ordered_jobs()) {
    if (j->guarded && j->routed && !j->adopted) guarded.emplace_back(id, j);
  }
  if (guarded.empty()) return;
  // In start order, beginning after the job tried last time.
  load_guard_.take_turns(guarded, [](const auto& g) { return order_of(g.first, *g.second); });
  const Deadline budget = deadline_from(Clock::now());
  const Fabric& f = fabric_->subnet.fabric;
  for (auto& [id, jp] : guarded) {
    if (budget.expired()) return;
    Job& j = *jp;
    load_guard_.had_turn(order_of(id, j));
    const GuardLoads loads = guard_loads();
    if (!load_gap(loads).above.empty()) return;  // guard_load's work first
    Job candidate = j;
    candidate.guarded = false;
    try {
      const Plan p = plan(id, candidate, {}, false, budget);
      // Its own routes against the default routes' maximum in its measure.
      const GuardMeasure m = guard_measure(p.flows);
      const LoadGap gap = load_gap(loads, m);
      const auto k = static_cast<std::size_t>(m);
      if (LoadGuard::excess_with(f, m, loads.sdn[k], {j.flows, j.effective}, {p.flows, p.effective},
                                 gap.lft_max) > 0) {
        continue;
      }
      j.guarded = false;
      place(id, j, deadline_from(Clock::now()));
    } catch (const std::exception& e) {
      j.guarded = true;
      log(LogLevel::kDebug,
          "load guard: " + job_text(id) + " stays on the default routes: " + e.what());
      continue;
    }
    ++counters_["guard_restores"];
    log(LogLevel::kInfo, "load guard: " + job_text(id) + " takes its own routes again");
    reconcile(order_of(id, j), false);
  }
}

}  // namespace ibsdn::plugin
