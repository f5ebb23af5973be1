#include "sim_backend/run/static_plots.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "sim_backend/run/plot_script.hpp"
#include "sim_backend/run/static_plots_internal.hpp"

namespace ibsdn {
namespace static_plots {

// ---- shared with static_plots_per_run.cpp (static_plots_internal.hpp) ----------------------

std::string num(double v) {
  return format_number(v);
}

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

bool is_dmodk_run(const RunOutcome& o) {
  return !o.dmodk.has_value();
}

std::string baseline_name(const RunOutcome& o) {
  if (o.lft_routing.empty() || o.lft_routing == "dmodk") return "DmodK";
  if (o.lft_routing == "minhop") return "min-hop LFTs";
  return o.lft_routing + " LFTs";
}

std::string scenario_line(const Scenario& s) {
  return "scenario " + s.name() + ", hash " + s.hash_text();
}

std::string upper(double max, double headroom) {
  return num(max > 0 ? max * headroom : 1.0);
}

namespace {

// The box plot's routings after DmodK (which keeps kDmodkColour): distinct on screen and in grey.
constexpr std::array<std::string_view, 6> kPalette = {"#1f5fa8", "#2e8b57", "#e08a00",
                                                      "#7b3fa0", "#00838f", "#8d6e63"};
constexpr int kCharPixels = 8;  // a character of the 11-point font, roughly

// ---- text ----------------------------------------------------------------------------------

/// seed 002's delta as a label: "+57.1%", "0.0%", "+inf%".
std::string delta_text(double pct) {
  if (std::isinf(pct)) return pct > 0 ? "+inf%" : "-inf%";
  if (std::fabs(pct) < 0.05) return "0.0%";
  return (pct > 0 ? "+" : "") + fixed(pct, 1) + "%";
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t j = std::min(text.find(' ', i), text.size());
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

/// The distinct values in first-seen order, joined; or how many when that is too long for a
/// caption.
std::string distinct(const std::vector<std::string>& values) {
  std::vector<std::string> seen;
  for (const std::string& v : values) {
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  }
  std::string text = join(seen, " / ");
  if (text.size() <= 60) return text;
  return std::to_string(seen.size()) + " values (see the labels)";
}

// ---- which runs, and what they are ---------------------------------------------------------

/// The runs the plots show, in record order: every run with an outcome but a DmodK run whose
/// swept values another shown routing repeats (that run's baseline is the same replay).
std::vector<const RunRecord*> shown_runs(const std::vector<RunRecord>& records) {
  std::vector<std::string> with_baseline;
  for (const RunRecord& rec : records) {
    if (rec.outcome && !is_dmodk_run(*rec.outcome)) with_baseline.push_back(case_label(rec.run));
  }
  std::sort(with_baseline.begin(), with_baseline.end());
  std::vector<const RunRecord*> out;
  for (const RunRecord& rec : records) {
    if (!rec.outcome) continue;
    if (is_dmodk_run(*rec.outcome) &&
        std::binary_search(with_baseline.begin(), with_baseline.end(), case_label(rec.run))) {
      continue;
    }
    out.push_back(&rec);
  }
  return out;
}

/// What a set of runs was: every field's distinct values. `drawn` are the runs a chart shows,
/// the first of `shown` when it hit its limit.
std::string runs_caption(const Scenario& s, const std::vector<const RunRecord*>& drawn,
                         std::size_t shown) {
  std::vector<std::string> topo, pattern, alloc, routing, baselines;
  std::size_t min_jobs = SIZE_MAX, max_jobs = 0;
  for (const RunRecord* rec : drawn) {
    topo.push_back(rec->outcome->topology);
    pattern.push_back(rec->run.pattern.text);
    alloc.push_back(rec->run.allocation);
    routing.push_back(routing_name(rec->run));
    if (!is_dmodk_run(*rec->outcome)) baselines.push_back(baseline_name(*rec->outcome));
    min_jobs = std::min(min_jobs, rec->outcome->counts.placed);
    max_jobs = std::max(max_jobs, rec->outcome->counts.placed);
  }
  std::string first = scenario_line(s) + ", " + std::to_string(drawn.size()) + " of " +
                      std::to_string(s.run_count()) + (s.run_count() == 1 ? " run" : " runs");
  if (drawn.size() < shown) {
    first += " (the chart's limit: the first " + std::to_string(drawn.size()) + " of the " +
             std::to_string(shown) + " runs plotted)";
  }
  const std::string jobs =
      min_jobs == max_jobs
          ? std::to_string(max_jobs) + " jobs placed per run"
          : std::to_string(min_jobs) + "-" + std::to_string(max_jobs) + " jobs placed per run";
  std::vector<std::string> lines = pack({first}, kCaptionWidth);
  for (std::string& l :
       pack({distinct(topo), "pattern " + distinct(pattern), "allocation " + distinct(alloc),
             "routing " + distinct(routing) +
                 (baselines.empty() ? "" : " vs " + distinct(baselines)),
             jobs},
            kCaptionWidth)) {
    lines.push_back(std::move(l));
  }
  return join(lines, "\n");
}

// ---- aggregate charts ----------------------------------------------------------------------

/// A bar or box of an aggregate chart: one routing of one set of swept values, from one run.
/// Runs that differ only in routing (and install backend) form a group, DmodK first, as in seed
/// 001's Fig. 3.
struct Slot {
  std::size_t group = 0;   // the set of swept values but the routing, in first-seen order
  std::string case_label;  // its text ("" when only the routing is swept)
  std::string routing;     // routing_name(), "dmodk" for the baseline
  const RunRecord* rec = nullptr;
  double x = 0;
};

/// A slot's name on a chart: its routing, or for the baselines what they are over the drawn
/// runs ("DmodK", "min-hop LFTs", or both).
std::string slot_title(const std::string& routing, const std::string& baseline) {
  return routing == "dmodk" ? baseline : routing;
}

std::string baseline_title(const std::vector<Slot>& slots) {
  std::vector<std::string> names;
  for (const Slot& sl : slots) {
    if (sl.routing == "dmodk") names.push_back(baseline_name(*sl.rec->outcome));
  }
  return distinct(names);
}

/// The slots of `runs`: each run's routing, and its DmodK baseline unless its group already shows
/// one that `same_baseline` finds equal (runs that differ only in routing replay the same DmodK).
template <typename SameBaseline>
std::vector<Slot> collect_slots(const std::vector<const RunRecord*>& runs,
                                SameBaseline same_baseline) {
  std::vector<Slot> slots;
  std::vector<std::string> groups;
  for (const RunRecord* rec : runs) {
    const std::string c = case_label(rec->run);
    auto it = std::find(groups.begin(), groups.end(), c);
    if (it == groups.end()) it = groups.insert(groups.end(), c);
    const auto group = static_cast<std::size_t>(it - groups.begin());
    const bool seen = std::any_of(slots.begin(), slots.end(), [&](const Slot& sl) {
      return sl.group == group && sl.routing == "dmodk" && same_baseline(*sl.rec, *rec);
    });
    if (!seen) slots.push_back({group, c, "dmodk", rec, 0});
    if (!is_dmodk_run(*rec->outcome)) slots.push_back({group, c, routing_name(rec->run), rec, 0});
  }
  std::stable_sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
    if (a.group != b.group) return a.group < b.group;
    return a.routing == "dmodk" && b.routing != "dmodk";
  });
  return slots;
}

/// The routings of `slots`, DmodK first: a data block, a colour and a key entry each.
std::vector<std::string> slot_routings(const std::vector<Slot>& slots) {
  std::vector<std::string> out;
  for (const Slot& sl : slots) {
    if (std::find(out.begin(), out.end(), sl.routing) == out.end()) out.push_back(sl.routing);
  }
  std::stable_partition(out.begin(), out.end(), [](const std::string& r) { return r == "dmodk"; });
  return out;
}

std::string routing_colour(const std::vector<std::string>& routings, std::size_t k) {
  if (routings[k] == "dmodk") return std::string(kDmodkColour);
  const std::size_t others = routings[0] == "dmodk" ? k - 1 : k;
  return std::string(kPalette[others % kPalette.size()]);
}

/// The category axis of a chart: where each slot goes, the image's size, and the tic labels
/// under each group (or each slot when only the routing is swept), horizontal with a line per
/// swept value when the image can be made wide enough, else vertical.
struct CategoryAxis {
  int width = 900;
  int label_pixels = 0;  // the labels' height under the axis
  std::string commands;  // xrange, xtics, bmargin, rmargin
};

CategoryAxis lay_out(std::vector<Slot>& slots, const std::string& baseline) {
  constexpr int kLinePixels = 17;
  double x = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (i > 0) x += slots[i].group != slots[i - 1].group ? 1.8 : 1.0;
    slots[i].x = x;
  }
  const bool per_slot =
      std::all_of(slots.begin(), slots.end(), [](const Slot& sl) { return sl.case_label.empty(); });
  struct Tic {
    double x;
    std::vector<std::string> lines;
  };
  std::vector<Tic> tics;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (per_slot) {
      tics.push_back({slots[i].x, {slot_title(slots[i].routing, baseline)}});
    } else if (i == 0 || slots[i].group != slots[i - 1].group) {
      std::size_t last = i;
      while (last + 1 < slots.size() && slots[last + 1].group == slots[i].group) ++last;
      tics.push_back({(slots[i].x + slots[last].x) / 2, split_words(slots[i].case_label)});
    }
  }
  std::size_t longest = 0, most_lines = 1;
  for (const Tic& t : tics) {
    for (const std::string& l : t.lines) longest = std::max(longest, l.size());
    most_lines = std::max(most_lines, t.lines.size());
  }
  double spacing = 1e9;  // the closest two tics, in x units
  for (std::size_t i = 1; i < tics.size(); ++i)
    spacing = std::min(spacing, tics[i].x - tics[i - 1].x);
  const double span = x + 1.6;
  constexpr int kMaxWidth = 4200;
  constexpr int kMargins = 200;  // the y axis label and tics, and air on the right
  const int base = std::clamp(kMargins + static_cast<int>(70 * span), 900, kMaxWidth);
  const double flat_needed =
      tics.size() < 2 ? 0
                      : kMargins + span * static_cast<double>(longest * kCharPixels + 16) / spacing;
  const bool flat = flat_needed <= kMaxWidth;

  CategoryAxis axis;
  axis.width = flat ? std::max(base, static_cast<int>(std::ceil(flat_needed))) : base;
  axis.label_pixels = flat ? static_cast<int>(most_lines) * kLinePixels
                           : static_cast<int>(longest + 4 * (most_lines - 1)) * kCharPixels;
  std::string& c = axis.commands;
  c += "set xrange [-0.8:" + num(x + 0.8) + "]\n";
  // No tic marks: a group's tic would stand between its bars.
  c += flat ? "set xtics scale 0 (" : "set xtics scale 0 rotate by 90 right (";
  for (std::size_t i = 0; i < tics.size(); ++i) {
    c += (i ? ", " : "") + gp_quote(join(tics[i].lines, flat ? "\n" : " ")) + " " + num(tics[i].x);
  }
  c += ")\n";
  // gnuplot's automatic bottom margin does not count multi-line tic labels, nor the key below.
  c += "set bmargin " + std::to_string((axis.label_pixels + kLinePixels - 1) / kLinePixels + 4) +
       "\nset rmargin 4\n";
  return axis;
}

void add_table2(PlotSet& set, const Scenario& s, const std::vector<const RunRecord*>& runs,
                const std::vector<RunRecord>& records, const PlotLimits& limits) {
  // table2.md: every shown run, and what was left out.
  std::ostringstream md;
  md << "# Table II: average and maximum PJML, the routing against its baseline\n\n"
     << "Scenario `" << s.name() << "`, hash `" << s.hash_text() << "`, " << runs.size() << " of "
     << s.run_count() << (s.run_count() == 1 ? " run" : " runs")
     << ". PJML: per job, the largest load on a link its flows cross while it runs (1 = link "
        "bandwidth); 1-node jobs count 0 in the average. Baseline: the same jobs on the same "
        "nodes over the fabric's LFTs alone, DmodK on a fat-tree, min-hop elsewhere. delta = "
        "(baseline - routing) / routing x 100 (seed 002's, with DmodK).\n\n"
     << "| run | swept values | routing | baseline | topology | pattern | allocation | jobs | "
        "baseline avg | avg | delta avg | baseline max | max | delta max | status |\n"
     << "|---:|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  const auto cell = [](std::string_view text) {
    std::string out;
    for (const char c : one_line(text)) {
      if (c == '|') out += '\\';
      out += c;
    }
    return out.empty() ? std::string("-") : out;
  };
  for (const RunRecord* rec : runs) {
    const RunOutcome& o = *rec->outcome;
    md << "| " << rec->run.index << " | " << cell(rec->run.label) << " | "
       << cell(routing_name(rec->run)) << " | " << cell(baseline_name(o)) << " | "
       << cell(o.topology) << " | " << cell(rec->run.pattern.text) << " | "
       << cell(rec->run.allocation) << " | " << o.counts.placed << " | "
       << fixed(o.dmodk_avg_pjml, 3) << " | " << fixed(o.avg_pjml, 3) << " | "
       << delta_text(delta_percent(o.dmodk_avg_pjml, o.avg_pjml)) << " | "
       << fixed(o.dmodk_max_pjml, 3) << " | " << fixed(o.max_pjml, 3) << " | "
       << delta_text(delta_percent(o.dmodk_max_pjml, o.max_pjml)) << " | " << cell(rec->status())
       << " |\n";
  }
  std::size_t twins = 0, failed = 0;
  for (const RunRecord& rec : records) {
    if (!rec.outcome) {
      ++failed;
    } else if (std::find(runs.begin(), runs.end(), &rec) == runs.end()) {
      ++twins;
    }
  }
  if (twins + failed > 0) {
    md << "\nNot listed:";
    if (twins > 0) {
      md << " " << twins << " DmodK run" << (twins == 1 ? "" : "s")
         << " (the baseline of the run above with the same swept values)" << (failed ? ";" : ".");
    }
    if (failed > 0) {
      md << " " << failed << " failed run" << (failed == 1 ? "" : "s")
         << " (summary.csv says why).";
    }
    md << "\n";
  }
  set.files.push_back({"table2.md", md.str()});

  // The chart: per group of swept values a bar for DmodK and one per routing, average above,
  // maximum below, each routing's delta over its bar.
  std::vector<Slot> slots = collect_slots(runs, [](const RunRecord& a, const RunRecord& b) {
    return a.outcome->dmodk_avg_pjml == b.outcome->dmodk_avg_pjml &&
           a.outcome->dmodk_max_pjml == b.outcome->dmodk_max_pjml;
  });
  if (slots.empty()) return;
  if (slots.size() > limits.chart_entries) {
    set.notes.push_back("plots: table2 draws the first " + std::to_string(limits.chart_entries) +
                        " of " + std::to_string(slots.size()) + " bars; table2.md lists every run");
    slots.resize(limits.chart_entries);
  }
  const std::string baseline = baseline_title(slots);
  const CategoryAxis axis = lay_out(slots, baseline);
  const std::vector<std::string> routings = slot_routings(slots);
  std::vector<const RunRecord*> drawn;
  for (const Slot& sl : slots) {
    if (std::find(drawn.begin(), drawn.end(), sl.rec) == drawn.end()) drawn.push_back(sl.rec);
  }

  std::string d = "# ibsdn-sim run: scenario " + s.name() + " hash " + s.hash_text() + "\n";
  d += "# Table II of seed 002: a block per routing, a row per bar (delta: against the DmodK "
       "baseline of the same run).\n";
  double top_avg = 0, top_max = 0;
  for (std::size_t k = 0; k < routings.size(); ++k) {
    if (k > 0) d += "\n\n";
    d += "# block " + std::to_string(k) + ": " + routings[k] + "\n";
    d += "# x avg_pjml max_pjml delta_avg_pct delta_max_pct \"delta_avg\" \"delta_max\" run\n";
    for (const Slot& sl : slots) {
      if (sl.routing != routings[k]) continue;
      const RunOutcome& o = *sl.rec->outcome;
      const bool base = sl.routing == "dmodk";
      const double avg = base ? o.dmodk_avg_pjml : o.avg_pjml;
      const double max = base ? o.dmodk_max_pjml : o.max_pjml;
      const double da = base ? 0 : delta_percent(o.dmodk_avg_pjml, o.avg_pjml);
      const double dm = base ? 0 : delta_percent(o.dmodk_max_pjml, o.max_pjml);
      d += num(sl.x) + " " + num(avg) + " " + num(max) + " " + num(da) + " " + num(dm) + " \"" +
           (base ? "" : delta_text(da)) + "\" \"" + (base ? "" : delta_text(dm)) + "\" " +
           std::to_string(sl.rec->run.index) + "\n";
      top_avg = std::max(top_avg, avg);
      top_max = std::max(top_max, max);
    }
  }

  const int height = std::max(900, axis.width * 2 / 5) + 2 * axis.label_pixels;
  const std::string title = "Table II (seed 002): PJML, " + baseline + " against the routing";
  const std::string caption =
      runs_caption(s, drawn, runs.size()) +
      "\nover each bar: delta = (baseline - routing) / routing; 1-node jobs count 0 in the average";
  const auto panel = [&](const std::string& what, int col, int text_col, double top) {
    std::string p = "set title " + gp_quote(what + " PJML over a run's jobs") + "\n";
    p += "set ylabel " + gp_quote(what + " PJML (1 = link bandwidth)") + "\n";
    p += "set yrange [0:" + upper(top, 1.2) + "]\n";
    p += "plot ";
    for (std::size_t k = 0; k < routings.size(); ++k) {
      const std::string idx = std::to_string(k);
      p += std::string(k ? ", \\\n     " : "") + "\"table2.dat\" index " + idx +
           " using 1:" + std::to_string(col) + " with boxes lc rgb \"" +
           routing_colour(routings, k) + "\" title " + gp_quote(slot_title(routings[k], baseline));
      if (routings[k] != "dmodk") {
        p += ", \\\n     \"\" index " + idx + " using 1:" + std::to_string(col) + ":" +
             std::to_string(text_col) + " with labels font \",9\" offset 0,0.7 notitle";
      }
    }
    return p + "\n";
  };
  std::string body = "set multiplot layout 2,1 title " + gp_quote(title + "\n" + caption) + "\n";
  body += panel("average", 2, 6, top_avg);
  body += panel("maximum", 3, 7, top_max);
  body += "unset multiplot\n";

  std::string g = script_head(
      s, "table2", title,
      {"Data: table2.dat, a block per routing, a row per bar; table2.md has every run's numbers."});
  g += axis.commands;
  g += "set boxwidth 0.8 absolute\nset style fill solid 0.85 border rgb \"black\"\n";
  g += "set grid ytics\nset key below horizontal\nset border 3\nset tics nomirror\n";
  g += render_loop("table2", axis.width, height, body);
  set.add_chart("table2.dat", std::move(d), "table2", std::move(g));
}

bool same_stats(const LinkStats& a, const LinkStats& b) {
  return a.links == b.links && a.min == b.min && a.q1 == b.q1 && a.median == b.median &&
         a.mean == b.mean && a.q3 == b.q3 && a.max == b.max;
}

void add_link_boxes(PlotSet& set, const Scenario& s, const std::vector<const RunRecord*>& runs,
                    const PlotLimits& limits) {
  std::vector<Slot> slots = collect_slots(runs, [](const RunRecord& a, const RunRecord& b) {
    return same_stats(a.outcome->dmodk_links, b.outcome->dmodk_links);
  });
  if (slots.empty()) return;
  if (slots.size() > limits.chart_entries) {
    set.notes.push_back("plots: link-load draws the first " + std::to_string(limits.chart_entries) +
                        " of " + std::to_string(slots.size()) + " boxes; links.csv lists them all");
    slots.resize(limits.chart_entries);
  }
  const std::string baseline = baseline_title(slots);
  const CategoryAxis axis = lay_out(slots, baseline);
  const std::vector<std::string> routings = slot_routings(slots);
  std::vector<const RunRecord*> drawn;
  for (const Slot& sl : slots) {
    if (std::find(drawn.begin(), drawn.end(), sl.rec) == drawn.end()) drawn.push_back(sl.rec);
  }

  std::string d = "# ibsdn-sim run: scenario " + s.name() + " hash " + s.hash_text() + "\n";
  d += "# Mean load of each switch-to-switch link over the replay, statistics over the links: a "
       "block per routing, a row per box.\n";
  double top = 0;
  for (std::size_t k = 0; k < routings.size(); ++k) {
    if (k > 0) d += "\n\n";
    d += "# block " + std::to_string(k) + ": " + routings[k] + "\n";
    d += "# x min q1 median mean q3 max links run\n";
    for (const Slot& sl : slots) {
      if (sl.routing != routings[k]) continue;
      const RunOutcome& o = *sl.rec->outcome;
      const LinkStats& st = sl.routing == "dmodk" ? o.dmodk_links : o.links;
      d += num(sl.x) + " " + num(st.min) + " " + num(st.q1) + " " + num(st.median) + " " +
           num(st.mean) + " " + num(st.q3) + " " + num(st.max) + " " + std::to_string(st.links) +
           " " + std::to_string(sl.rec->run.index) + "\n";
      top = std::max(top, st.max);
    }
  }

  const std::string title = "Link loads (seed 001 Fig. 3): mean load of the switch-to-switch links";
  // Boxes of every routing first, then the medians and means, so that the key reads in order.
  std::string body = "plot ";
  for (std::size_t k = 0; k < routings.size(); ++k) {
    body += std::string(k ? ", \\\n     " : "") + "\"link-load.dat\" index " + std::to_string(k) +
            " using 1:3:2:7:6 with candlesticks whiskerbars 0.6 lw 1.5 lc rgb \"" +
            routing_colour(routings, k) + "\" title " + gp_quote(slot_title(routings[k], baseline));
  }
  for (std::size_t k = 0; k < routings.size(); ++k) {
    const std::string idx = std::to_string(k);
    body += ", \\\n     \"\" index " + idx +
            " using ($1-0.3):4:(0.6):(0) with vectors nohead lw 3 lc rgb \"black\" " +
            (k == 0 ? "title \"median\"" : "notitle");
    body += ", \\\n     \"\" index " + idx +
            " using 1:5 with points pt 7 ps 1.2 lc rgb \"black\" " +
            (k == 0 ? "title \"mean\"" : "notitle");
  }
  body += "\n";
  std::string g = script_head(
      s, "link-load", title,
      {"Data: link-load.dat, a block per routing; each row one box: whiskers min and max, box q1 "
       "to q3, line the median, dot the mean."});
  g += "set title " + gp_quote(title + "\n" + runs_caption(s, drawn, runs.size())) + "\n";
  g += "set ylabel " + gp_quote("a link's mean load over the replay (1 = link bandwidth)") + "\n";
  g += "set yrange [0:" + upper(top, 1.1) + "]\n";
  g += axis.commands;
  g += "set boxwidth 0.6 absolute\nset style fill solid 0.35 border\n";
  g += "set grid ytics\nset key below horizontal\nset border 3\nset tics nomirror\n";
  // Wide charts grow taller too, or their boxes would be flat strips.
  g +=
      render_loop("link-load", axis.width, std::max(650, axis.width / 3) + axis.label_pixels, body);
  set.add_chart("link-load.dat", std::move(d), "link-load", std::move(g));
}

}  // namespace
}  // namespace static_plots

PlotSet make_plots(const Scenario& s, const std::vector<RunRecord>& records,
                   const PlotLimits& limits) {
  PlotSet set;
  const std::vector<const RunRecord*> runs = static_plots::shown_runs(records);
  if (runs.size() <= limits.runs) {
    for (const RunRecord* rec : runs) {
      static_plots::add_swml_plot(set, s, *rec);
      static_plots::add_pjml_plot(set, s, *rec);
    }
  } else {
    set.notes.push_back("plots: " + std::to_string(runs.size()) + " runs to plot, more than " +
                        std::to_string(limits.runs) +
                        ": only the aggregate plots (table2, link-load); `--run N` plots chosen "
                        "runs");
  }
  static_plots::add_table2(set, s, runs, records, limits);
  static_plots::add_link_boxes(set, s, runs, limits);
  return set;
}

}  // namespace ibsdn
