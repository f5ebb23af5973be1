// The static model's plots of one run (docs/simulation-static.md, "plots/"): seed 002's SWML over
// time (Figs. 8-13) and the distribution of its jobs' PJML, each against the run's baseline, the
// same jobs on the same nodes over the fabric's LFTs alone. make_plots() (static_plots.cpp) draws
// them for every plotted run.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "sim_backend/run/plot_script.hpp"
#include "sim_backend/run/static_plots_internal.hpp"

namespace ibsdn::static_plots {
namespace {

constexpr std::string_view kRoutingColour = "#1f5fa8";

std::string jobs_text(const WorkloadCounts& c) {
  std::string t = std::to_string(c.placed) + (c.placed == 1 ? " job placed" : " jobs placed");
  if (c.placed != c.selected) t += " of " + std::to_string(c.selected);
  return t;
}

/// What one run was: scenario, hash, run and its swept values; fabric, pattern, allocation,
/// routing and jobs.
std::string run_caption(const Scenario& s, const RunRecord& rec) {
  const RunOutcome& o = *rec.outcome;
  const ScenarioRun& r = rec.run;
  std::string first = scenario_line(s) + ", run " + std::to_string(r.index) + " of " +
                      std::to_string(s.run_count());
  if (!r.label.empty()) first += " (" + r.label + ")";
  std::vector<std::string> segments = {
      o.topology, "pattern " + r.pattern.text, "allocation " + r.allocation,
      "routing " + routing_name(r) +
          (is_dmodk_run(o) ? "" : " vs " + baseline_name(o) + " on the same nodes"),
      jobs_text(o.counts)};
  std::vector<std::string> lines = pack({first}, kCaptionWidth);
  for (std::string& l : pack(segments, kCaptionWidth)) lines.push_back(std::move(l));
  return join(lines, "\n");
}

struct TimeUnit {
  double seconds;
  std::string_view name;
};

/// Seed 002's figures count days; a short replay reads better in hours, minutes or seconds.
TimeUnit time_unit(double span) {
  if (span > 2 * 86'400) return {86'400, "days"};
  if (span > 2 * 3'600) return {3'600, "hours"};
  if (span > 10 * 60) return {60, "minutes"};
  return {1, "seconds"};
}

std::string scaled_time(const TimeUnit& u) {
  return u.seconds == 1 ? std::string("1") : "($1/" + num(u.seconds) + ")";
}

}  // namespace

void add_swml_plot(PlotSet& set, const Scenario& s, const RunRecord& rec) {
  const RunOutcome& o = *rec.outcome;
  const std::string idx = std::to_string(rec.run.index);
  const std::string base = "swml-run-" + idx;
  const std::string data = base + ".dat";
  const bool baseline = !is_dmodk_run(o);
  const ReplayResult& r = o.replay;
  if (r.swml.empty()) {
    set.notes.push_back("plots: run " + idx + " has no SWML step (no job placed): no " + base);
    return;
  }

  std::string d = "# ibsdn-sim run: scenario " + s.name() + " hash " + s.hash_text() + "\n";
  d += "# SWML steps of run " + idx +
       (rec.run.label.empty() ? "" : " (" + one_line(rec.run.label) + ")") +
       ": the SWML from time_s until the next row's time.\n";
  d += "# Block 0: routing " + routing_name(rec.run) +
       (baseline ? "; block 1: its baseline, " + baseline_name(o) +
                       " (the same jobs on the same nodes, the LFTs alone).\n"
                 : std::string(".\n"));
  const auto block = [&d](const ReplayResult& res) {
    d += "# time_s swml active_jobs\n";
    for (const SwmlStep& st : res.swml) {
      d += num(st.time) + " " + num(st.swml) + " " + std::to_string(st.active_jobs) + "\n";
    }
  };
  block(r);
  double max_swml = r.max_swml;
  if (baseline) {
    d += "\n\n";
    block(*o.dmodk);
    max_swml = std::max(max_swml, o.dmodk->max_swml);
  }

  const double t0 = r.swml.front().time;
  const double t1 = r.swml.back().time;
  const TimeUnit u = time_unit(t1 - t0);
  const double lo = t0 / u.seconds;
  // A little room on the right, so that the last step (all jobs ended) is not the border.
  const double hi = t1 > t0 ? (t1 + 0.02 * (t1 - t0)) / u.seconds : lo + 1;
  const std::string x = scaled_time(u);
  const std::string title =
      baseline ? "SWML over time: " + routing_name(rec.run) + " against " + baseline_name(o)
               : "SWML over time: " + routing_name(rec.run);
  std::string body;
  body += "plot ";
  if (baseline) {
    body += gp_quote(data) + " index 1 using " + x + ":2 with steps lw 3.5 lc rgb \"" +
            std::string(kDmodkColour) + "\" title " +
            gp_quote(baseline_name(o) + " (max " + fixed(o.dmodk->max_swml, 3) + ")") +
            ", \\\n     ";
  }
  body += gp_quote(data) + " index 0 using " + x + ":2 with steps lw 1.5 lc rgb \"" +
          std::string(baseline ? kRoutingColour : kDmodkColour) + "\" title " +
          gp_quote(routing_name(rec.run) + " (max " + fixed(r.max_swml, 3) + ")") + "\n";

  std::string g = script_head(
      s, base, title + ", run " + idx,
      {"Data: " + data + " (block 0 the routing" +
       (baseline ? ", block 1 " + baseline_name(o) : std::string()) + "; time in seconds" +
       (u.seconds == 1 ? std::string() : ", drawn in " + std::string(u.name)) + ")."});
  g += "set title " + gp_quote(title + "\n" + run_caption(s, rec)) + "\n";
  g += "set xlabel " + gp_quote("time in the trace (" + std::string(u.name) + ")") + "\n";
  g += "set ylabel " + gp_quote("SWML: the largest link load (1 = link bandwidth)") + "\n";
  g += "set xrange [" + num(lo) + ":" + num(hi) + "]\n";
  g += "set yrange [0:" + upper(max_swml, 1.1) + "]\n";
  g += "set grid\nset key below horizontal\nset border 3\nset tics nomirror\n";
  g += render_loop(base, 1100, 650, body);

  set.add_chart(data, std::move(d), base, std::move(g));
}

void add_pjml_plot(PlotSet& set, const Scenario& s, const RunRecord& rec) {
  const RunOutcome& o = *rec.outcome;
  const std::string idx = std::to_string(rec.run.index);
  const std::string base = "pjml-cdf-run-" + idx;
  const std::string data = base + ".dat";
  const bool baseline = !is_dmodk_run(o);
  if (o.replay.jobs.empty()) {
    set.notes.push_back("plots: run " + idx + " replayed no job: no " + base);
    return;
  }
  const auto pjmls = [](const ReplayResult& r) {
    std::vector<double> v;
    v.reserve(r.jobs.size());
    for (const ReplayedJob& j : r.jobs) v.push_back(j.pjml);
    return v;
  };
  const double max_pjml = std::max(o.max_pjml, o.dmodk_max_pjml);
  const double x_end = max_pjml > 0 ? max_pjml * 1.05 : 1.0;

  std::string d = "# ibsdn-sim run: scenario " + s.name() + " hash " + s.hash_text() + "\n";
  d += "# PJML distribution of run " + idx +
       (rec.run.label.empty() ? "" : " (" + one_line(rec.run.label) + ")") + ", " +
       std::to_string(o.replay.jobs.size()) + " jobs (1-node jobs have PJML 0).\n";
  d += "# Block 0: routing " + routing_name(rec.run) +
       (baseline ? "; block 1: its baseline, " + baseline_name(o) + ".\n" : std::string(".\n"));
  d += cdf_block(pjmls(o.replay), x_end, "pjml");
  if (baseline) d += "\n\n" + cdf_block(pjmls(*o.dmodk), x_end, "pjml");

  const std::string title =
      baseline ? "PJML distribution: " + routing_name(rec.run) + " against " + baseline_name(o)
               : "PJML distribution: " + routing_name(rec.run);
  std::string body = "plot ";
  if (baseline) {
    body += gp_quote(data) + " index 1 using 1:2 with steps lw 3.5 lc rgb \"" +
            std::string(kDmodkColour) + "\" title " +
            gp_quote(baseline_name(o) + " (average " + fixed(o.dmodk_avg_pjml, 3) + ", max " +
                     fixed(o.dmodk_max_pjml, 3) + ")") +
            ", \\\n     ";
  }
  body += gp_quote(data) + " index 0 using 1:2 with steps lw 1.5 lc rgb \"" +
          std::string(baseline ? kRoutingColour : kDmodkColour) + "\" title " +
          gp_quote(routing_name(rec.run) + " (average " + fixed(o.avg_pjml, 3) + ", max " +
                   fixed(o.max_pjml, 3) + ")") +
          "\n";

  std::string g = script_head(s, base, title + ", run " + idx,
                              {"Data: " + data + " (block 0 the routing" +
                               (baseline ? ", block 1 " + baseline_name(o) : std::string()) +
                               "; each row: a PJML and the share of jobs at or below it)."});
  g += "set title " + gp_quote(title + "\n" + run_caption(s, rec)) + "\n";
  g += "set xlabel " +
       gp_quote("PJML: the largest load on a link the job's flows cross (1 = link bandwidth)") +
       "\n";
  g += "set ylabel " +
       gp_quote("share of the " + std::to_string(o.replay.jobs.size()) +
                " jobs with PJML at or below x") +
       "\n";
  g += "set xrange [0:" + num(x_end) + "]\n";
  g += "set yrange [0:1.05]\nset ytics 0.2\n";
  g += "set grid\nset key below horizontal\nset border 3\nset tics nomirror\n";
  g += render_loop(base, 1100, 650, body);

  set.add_chart(data, std::move(d), base, std::move(g));
}

}  // namespace ibsdn::static_plots
