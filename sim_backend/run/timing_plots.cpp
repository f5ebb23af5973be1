#include "sim_backend/run/timing_plots.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "sim_backend/run/plot_script.hpp"
#include "sim_backend/run/static_report.hpp"

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
    routing.push_back(routing_name(rec->run));
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
  d += "# Block 0: routing " + routing_name(rec.run) +
       (baseline ? "; block 1: the baseline, " + rec.run.timing.baseline + ".\n"
                 : std::string(".\n"));
  d += cdf_block(own, x_end, "comm_time_s");
  if (baseline) d += "\n\n" + cdf_block(ref, x_end, "comm_time_s");

  const std::string title = "Communication time per job: " + routing_name(rec.run) +
                            (baseline ? " against " + rec.run.timing.baseline : std::string());
  std::string body = "plot ";
  if (baseline) {
    body += gp_quote(data) + " index 1 using 1:2 with steps lw 3.5 lc rgb \"" +
            std::string(kBaselineColour) + "\" title " + gp_quote(rec.run.timing.baseline) +
            ", \\\n     ";
  }
  body += gp_quote(data) + " index 0 using 1:2 with steps lw 1.5 lc rgb \"" +
          std::string(baseline ? kPalette[0] : kBaselineColour) + "\" title " +
          gp_quote(routing_name(rec.run)) + "\n";
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

/// Grouped bars: a group per x label, a bar per series in each, a dashed line at 1.
struct BarChart {
  struct Bar {
    std::size_t group = 0;
    std::size_t series = 0;
    double value = 0;
    std::size_t run = 0;
  };
  std::string base;   // file names: BASE.dat, BASE.gp
  std::string title;  // first line of the title
  std::string what;   // the data file's first comment line
  std::string ylabel;
  std::string one;  // the line at 1's key title
  std::vector<std::string> groups;
  std::vector<std::string> series;
  std::vector<Bar> bars;
  std::vector<const FlowRecord*> drawn;  // the runs the bars come from
  std::size_t total = 0;                 // bars there would be without the limit

  /// The bar's group and series, added when new; false when the chart is full.
  bool add(const std::string& group, const std::string& name, double value, const FlowRecord* rec,
           const PlotLimits& limits) {
    ++total;
    if (bars.size() == limits.chart_entries) return false;
    const auto index = [](std::vector<std::string>& v, const std::string& x) {
      auto it = std::find(v.begin(), v.end(), x);
      if (it == v.end()) it = v.insert(v.end(), x);
      return static_cast<std::size_t>(it - v.begin());
    };
    bars.push_back({index(groups, group), index(series, name), value, rec->run.index});
    if (std::find(drawn.begin(), drawn.end(), rec) == drawn.end()) drawn.push_back(rec);
    return true;
  }
};

void draw(PlotSet& set, const Scenario& s, const BarChart& c) {
  if (c.bars.empty()) return;
  if (c.total > c.bars.size()) {
    set.notes.push_back("plots: " + c.base + " draws the first " + std::to_string(c.bars.size()) +
                        " of " + std::to_string(c.total) + " bars; summary.csv lists them all");
  }
  const std::size_t width_of_group = c.series.size() + 1;
  const auto x_of = [&](const BarChart::Bar& b) {
    return static_cast<double>(b.group * width_of_group + b.series);
  };
  const std::string data = c.base + ".dat";
  std::string d = csv_banner(s) + "\n";
  d += "# " + c.what + ": a block per series, a row per bar.\n";
  double top = 1;
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    if (k > 0) d += "\n\n";
    d += "# block " + std::to_string(k) + ": " + c.series[k] + "\n# x value run\n";
    for (const BarChart::Bar& b : c.bars) {
      if (b.series != k) continue;
      d += num(x_of(b)) + " " + num(b.value) + " " + std::to_string(b.run) + "\n";
      top = std::max(top, b.value);
    }
  }
  std::string tics = "set xtics scale 0 rotate by 20 right (";
  for (std::size_t g = 0; g < c.groups.size(); ++g) {
    const double centre =
        static_cast<double>(g * width_of_group) + static_cast<double>(c.series.size() - 1) / 2;
    tics += (g ? ", " : "") + gp_quote(c.groups[g].empty() ? "all jobs" : c.groups[g]) + " " +
            num(centre);
  }
  tics += ")\n";
  std::string body = "plot ";
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    body += std::string(k ? ", \\\n     " : "") + gp_quote(data) + " index " + std::to_string(k) +
            " using 1:2 with boxes lc rgb \"" + std::string(kPalette[k % kPalette.size()]) +
            "\" title " + gp_quote(c.series[k]);
  }
  body += ", \\\n     1 with lines dt 2 lw 2 lc rgb \"" + std::string(kBaselineColour) +
          "\" title " + gp_quote(c.one) + "\n";
  std::string g =
      script_head(s, c.base, c.title,
                  {"Data: " + data + ", a block per series; summary.csv has every number."});
  g += "set title " +
       gp_quote(c.title + "\n" +
                caption(s, c.drawn,
                        std::to_string(c.drawn.size()) + " of " + std::to_string(s.run_count()) +
                            (s.run_count() == 1 ? " run" : " runs"))) +
       "\n";
  g += "set ylabel " + gp_quote(c.ylabel) + "\n";
  g += "set xrange [-1:" + num(static_cast<double>(c.groups.size() * width_of_group) - 1) + "]\n";
  g += "set yrange [0:" + num(top * 1.15) + "]\n";
  g += tics;
  g += "set bmargin 8\nset boxwidth 0.9 absolute\nset style fill solid 0.85 border rgb "
       "\"black\"\n";
  g += "set grid ytics\nset key below horizontal\nset border 3\nset tics nomirror\n";
  const int width =
      std::clamp(300 + static_cast<int>(c.bars.size() + c.groups.size()) * 40, 900, 4200);
  g += render_loop(c.base, width, 700, body);
  set.add_chart(data, std::move(d), c.base, std::move(g));
}

std::string app_label(const ApplicationSummary& a) {
  return a.application + " (" + std::to_string(a.ranks) + ")";
}

/// The speedup chart: a group of bars per set of swept values (the routing aside) and
/// application, a bar per routing: the mean over the group's jobs of baseline / routing
/// communication time, a line at 1.
void add_speedup(PlotSet& set, const Scenario& s, const std::vector<const FlowRecord*>& runs,
                 const PlotLimits& limits) {
  BarChart c;
  c.base = "speedup";
  c.title = "Communication speedup over the baseline per application";
  c.what = "Mean communication speedup over the baseline";
  c.ylabel = "mean speedup: baseline / routing communication time";
  c.one = "baseline (1)";
  for (const FlowRecord* rec : runs) {
    for (const ApplicationSummary& a : summarise_applications(*rec->outcome)) {
      std::string g = case_label(rec->run);
      g += (g.empty() ? "" : " ") + app_label(a);
      c.add(g, routing_name(rec->run), a.mean_speedup, rec, limits);
    }
  }
  draw(set, s, c);
}

/// With `reference:`, Figs 3.4-3.9's chart: a group per application and rank count, a bar per
/// run: the mean over its jobs of their total time in the reference run over their total time.
void add_vs_reference(PlotSet& set, const Scenario& s, const std::vector<FlowRecord>& records,
                      const std::vector<const FlowRecord*>& runs, const PlotLimits& limits) {
  if (s.reference_label().empty()) return;
  BarChart c;
  c.base = "vs-reference";
  c.title = "Speedup over the reference run (" + s.reference_label() + ")";
  c.what = "Mean speedup of the jobs' total time over the reference run";
  c.ylabel = "mean speedup: total time in the reference run / here";
  c.one = "reference (1)";
  for (const FlowRecord* rec : runs) {
    const FlowOutcome* ref = reference_outcome(s, records, *rec);
    for (const ApplicationSummary& a : summarise_applications(*rec->outcome, ref)) {
      if (!a.mean_vs_reference) continue;
      const std::string series = rec->run.label.empty() ? "run" : rec->run.label;
      c.add(app_label(a), series, *a.mean_vs_reference, rec, limits);
    }
  }
  draw(set, s, c);
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
  add_vs_reference(set, s, records, runs, limits);
  return set;
}

}  // namespace ibsdn
