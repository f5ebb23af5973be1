#include "sim_backend/timing_plots.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "sim_backend/plot_script.hpp"
#include "sim_backend/run_report.hpp"

namespace ibsdn {
namespace {

constexpr std::string_view kBaselineColour = "#c0392b";
constexpr std::array<std::string_view, 6> kPalette = {"#1f5fa8", "#2e8b57", "#e08a00",
                                                      "#7b3fa0", "#00838f", "#8d6e63"};
constexpr std::size_t kCaptionWidth = 110;

std::string num(double v) {
  return format_number(v);
}

std::string distinct(const std::vector<std::string>& values) {
  std::vector<std::string> seen;
  for (const std::string& v : values) {
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  }
  std::string text;
  for (const std::string& v : seen) text += (text.empty() ? "" : " / ") + v;
  if (text.size() <= 60) return text;
  return std::to_string(seen.size()) + " values (see the labels)";
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

/// The run's swept values without the routing: the bars of one group.
std::string case_label(const ScenarioRun& r) {
  const std::string token = "routing=" + r.routing;
  std::string out;
  std::size_t i = 0;
  while (i < r.label.size()) {
    const std::size_t j = std::min(r.label.find(' ', i), r.label.size());
    const std::string w = r.label.substr(i, j - i);
    if (!w.empty() && w != token) out += (out.empty() ? "" : " ") + w;
    i = j + 1;
  }
  return out;
}

std::vector<std::string> applications(const FlowOutcome& o) {
  std::vector<std::string> out;
  for (const FlowJob& j : o.jobs) out.push_back(j.application);
  return out;
}

/// Scenario, hash, run; topology, application, routing against its baseline, jobs.
std::string caption(const Scenario& s, const std::vector<const FlowRecord*>& runs,
                    const std::string& first) {
  std::vector<std::string> topo, apps, routing, baseline;
  std::size_t jobs = 0;
  for (const FlowRecord* rec : runs) {
    topo.push_back(rec->outcome->topology);
    for (std::string& a : applications(*rec->outcome)) apps.push_back(std::move(a));
    routing.push_back(rec->run.routing);
    baseline.push_back(rec->run.timing.baseline);
    jobs = std::max(jobs, rec->outcome->jobs.size());
  }
  std::vector<std::string> lines =
      pack({"scenario " + s.name() + ", hash " + s.hash_text() + ", " + first}, kCaptionWidth);
  for (std::string& l : pack({distinct(topo), "application " + distinct(apps),
                              "routing " + distinct(routing) + " vs baseline " +
                                  distinct(baseline) + " on the same nodes",
                              std::to_string(jobs) + (jobs == 1 ? " job" : " jobs") +
                                  (runs.size() > 1 ? " per run" : "")},
                             kCaptionWidth)) {
    lines.push_back(std::move(l));
  }
  return join_lines(lines);
}

void add_cdf(PlotSet& set, const Scenario& s, const FlowRecord& rec) {
  const FlowOutcome& o = *rec.outcome;
  const std::string idx = std::to_string(rec.run.index);
  const std::string base = "comm-cdf-run-" + idx;
  const std::string data = base + ".dat";
  std::vector<double> own, ref;
  for (const FlowJob& j : o.jobs) {
    if (!j.sim) continue;
    own.push_back(o.result.jobs[*j.sim].comm_time);
    ref.push_back(o.reference().jobs[*j.sim].comm_time);
  }
  if (own.empty()) {
    set.notes.push_back("plots: run " + idx + " ran no job: no " + base);
    return;
  }
  const bool baseline = o.baseline.has_value();
  double top = 0;
  for (const double v : own) top = std::max(top, v);
  for (const double v : ref) top = std::max(top, v);
  const double x_end = top > 0 ? top * 1.05 : 1.0;
  std::string d = csv_banner(s) + "\n";
  d += "# Communication time of run " + idx +
       (rec.run.label.empty() ? "" : " (" + one_line(rec.run.label) + ")") + "'s " +
       std::to_string(own.size()) + " jobs, seconds.\n";
  d += "# Block 0: routing " + rec.run.routing +
       (baseline ? "; block 1: the baseline, " + rec.run.timing.baseline + ".\n"
                 : std::string(".\n"));
  d += cdf_block(own, x_end, "comm_time_s");
  if (baseline) d += "\n\n" + cdf_block(ref, x_end, "comm_time_s");

  const std::string title = "Communication time per job: " + rec.run.routing +
                            (baseline ? " against " + rec.run.timing.baseline : std::string());
  std::string body = "plot ";
  if (baseline) {
    body += gp_quote(data) + " index 1 using 1:2 with steps lw 3.5 lc rgb \"" +
            std::string(kBaselineColour) + "\" title " + gp_quote(rec.run.timing.baseline) +
            ", \\\n     ";
  }
  body += gp_quote(data) + " index 0 using 1:2 with steps lw 1.5 lc rgb \"" +
          std::string(baseline ? kPalette[0] : kBaselineColour) + "\" title " +
          gp_quote(rec.run.routing) + "\n";
  std::string g = script_head(s, base, title + ", run " + idx,
                              {"Data: " + data + " (block 0 the routing" +
                               (baseline ? std::string(", block 1 the baseline") : std::string()) +
                               "; each row: a time and the share of jobs at or below it)."});
  g += "set title " +
       gp_quote(title + "\n" +
                caption(s, {&rec},
                        "run " + idx + " of " + std::to_string(s.run_count()) +
                            (rec.run.label.empty() ? "" : " (" + rec.run.label + ")"))) +
       "\n";
  g +=
      "set xlabel " + gp_quote("communication time: the ranks' mean time not computing (s)") + "\n";
  g += "set ylabel " + gp_quote("share of jobs at or below x") + "\n";
  g += "set xrange [0:" + num(x_end) + "]\n";
  g += "set yrange [0:1.05]\nset ytics 0.2\n";
  g += "set grid\nset key below horizontal\nset border 3\nset tics nomirror\n";
  g += render_loop(base, 1100, 650, body);
  set.add_chart(data, std::move(d), base, std::move(g));
}

/// The speedup chart: a group of bars per set of swept values (the routing aside) and
/// application, a bar per routing: the mean over the group's jobs of baseline / routing
/// communication time, a line at 1.
void add_speedup(PlotSet& set, const Scenario& s, const std::vector<const FlowRecord*>& runs,
                 const PlotLimits& limits) {
  struct Bar {
    std::size_t group = 0;
    std::string routing;
    double speedup = 0;
    std::size_t run = 0;
  };
  std::vector<std::string> groups;
  std::vector<std::string> routings;
  std::vector<Bar> bars;
  std::vector<const FlowRecord*> drawn;
  for (const FlowRecord* rec : runs) {
    for (const ApplicationSummary& a : summarise_applications(*rec->outcome)) {
      if (bars.size() == limits.chart_entries) break;
      std::string g = case_label(rec->run);
      g += (g.empty() ? "" : " ") + a.application;
      auto it = std::find(groups.begin(), groups.end(), g);
      if (it == groups.end()) it = groups.insert(groups.end(), g);
      if (std::find(routings.begin(), routings.end(), rec->run.routing) == routings.end()) {
        routings.push_back(rec->run.routing);
      }
      bars.push_back({static_cast<std::size_t>(it - groups.begin()), rec->run.routing,
                      a.mean_speedup, rec->run.index});
      if (std::find(drawn.begin(), drawn.end(), rec) == drawn.end()) drawn.push_back(rec);
    }
  }
  if (bars.empty()) return;
  std::size_t total = 0;
  for (const FlowRecord* rec : runs) total += summarise_applications(*rec->outcome).size();
  if (total > bars.size()) {
    set.notes.push_back("plots: speedup draws the first " + std::to_string(bars.size()) + " of " +
                        std::to_string(total) + " bars; summary.csv lists them all");
  }
  const auto x_of = [&](const Bar& b) {
    const auto r = static_cast<std::size_t>(std::find(routings.begin(), routings.end(), b.routing) -
                                            routings.begin());
    return static_cast<double>(b.group * (routings.size() + 1) + r);
  };
  std::string d = csv_banner(s) + "\n";
  d += "# Mean communication speedup over the baseline: a block per routing, a row per bar.\n";
  double top = 1;
  for (std::size_t k = 0; k < routings.size(); ++k) {
    if (k > 0) d += "\n\n";
    d += "# block " + std::to_string(k) + ": " + routings[k] + "\n# x speedup run\n";
    for (const Bar& b : bars) {
      if (b.routing != routings[k]) continue;
      d += num(x_of(b)) + " " + num(b.speedup) + " " + std::to_string(b.run) + "\n";
      top = std::max(top, b.speedup);
    }
  }
  std::string tics = "set xtics scale 0 rotate by 20 right (";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double centre = static_cast<double>(g * (routings.size() + 1)) +
                          static_cast<double>(routings.size() - 1) / 2;
    tics +=
        (g ? ", " : "") + gp_quote(groups[g].empty() ? "all jobs" : groups[g]) + " " + num(centre);
  }
  tics += ")\n";
  const std::string title = "Communication speedup over the baseline per application";
  std::string body = "plot ";
  for (std::size_t k = 0; k < routings.size(); ++k) {
    body += std::string(k ? ", \\\n     " : "") + "\"speedup.dat\" index " + std::to_string(k) +
            " using 1:2 with boxes lc rgb \"" + std::string(kPalette[k % kPalette.size()]) +
            "\" title " + gp_quote(routings[k]);
  }
  body += ", \\\n     1 with lines dt 2 lw 2 lc rgb \"" + std::string(kBaselineColour) +
          "\" title \"baseline (1)\"\n";
  std::string g =
      script_head(s, "speedup", title,
                  {"Data: speedup.dat, a block per routing; summary.csv has every number."});
  g += "set title " +
       gp_quote(title + "\n" +
                caption(s, drawn,
                        std::to_string(drawn.size()) + " of " + std::to_string(s.run_count()) +
                            (s.run_count() == 1 ? " run" : " runs"))) +
       "\n";
  g += "set ylabel " + gp_quote("mean speedup: baseline / routing communication time") + "\n";
  g += "set xrange [-1:" + num(static_cast<double>(groups.size() * (routings.size() + 1)) - 1) +
       "]\n";
  g += "set yrange [0:" + num(top * 1.15) + "]\n";
  g += tics;
  g += "set bmargin 8\nset boxwidth 0.9 absolute\nset style fill solid 0.85 border rgb "
       "\"black\"\n";
  g += "set grid ytics\nset key below horizontal\nset border 3\nset tics nomirror\n";
  const int width = std::clamp(300 + static_cast<int>(bars.size() + groups.size()) * 40, 900, 4200);
  g += render_loop("speedup", width, 700, body);
  set.add_chart("speedup.dat", std::move(d), "speedup", std::move(g));
}

}  // namespace

PlotSet make_flow_plots(const Scenario& s, const std::vector<FlowRecord>& records,
                        const PlotLimits& limits) {
  PlotSet set;
  std::vector<const FlowRecord*> runs;
  for (const FlowRecord& rec : records) {
    if (rec.outcome) runs.push_back(&rec);
  }
  if (runs.size() <= limits.runs) {
    for (const FlowRecord* rec : runs) add_cdf(set, s, *rec);
  } else {
    set.notes.push_back("plots: " + std::to_string(runs.size()) + " runs to plot, more than " +
                        std::to_string(limits.runs) +
                        ": only the speedup chart; `--run N` plots chosen runs");
  }
  add_speedup(set, s, runs, limits);
  return set;
}

}  // namespace ibsdn
