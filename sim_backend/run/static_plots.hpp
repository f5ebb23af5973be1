// The plots of `ibsdn-sim run` (the static model; docs/simulation-static.md, "Outputs and plots"):
// seed 002's SWML over time (Figs. 8-13) and PJML distribution, its Table II as a chart and a
// Markdown table, and seed 001's link-traffic box plots (Fig. 3). Each plot is a gnuplot script
// with its data files, written to DIR/plots next to the PNG and SVG it renders, so that a person
// can edit and re-render it (`cd DIR/plots && gnuplot NAME.gp`). Every plot's title carries a
// caption: the scenario's name and hash and what was run. make_plots() builds the files (no I/O, no
// gnuplot), write_plots() writes and renders them.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sim_backend/run/static_report.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

/// A sweep of 10,000 runs must not draw 20,000 per-run plots nor a chart of 10,000 bars.
struct PlotLimits {
  /// Per-run plots (SWML over time, PJML CDF) when at most this many runs are plotted; beyond,
  /// only the aggregate plots (Table II, link loads), and a note says how to plot chosen runs.
  std::size_t runs = 50;
  /// Entries (bar pairs, boxes) an aggregate chart draws: the first ones; table2.md and
  /// links.csv list them all.
  std::size_t chart_entries = 60;
};

/// A file of the plots directory: a gnuplot script (.gp), its data (.dat) or table2.md.
struct PlotFile {
  std::string name;  // a plain file name
  std::string text;
};

struct PlotSet {
  std::vector<PlotFile> files;
  std::vector<std::string> scripts;  // the .gp files among `files`, in rendering order
  /// What was left out and why ("plots: 120 runs, more than 50: ..."), for stderr.
  std::vector<std::string> notes;
  /// One chart: its data file `data_name`, and its script `base`.gp, rendered in turn.
  void add_chart(std::string data_name, std::string data, const std::string& base,
                 std::string script) {
    files.push_back({std::move(data_name), std::move(data)});
    files.push_back({base + ".gp", std::move(script)});
    scripts.push_back(base + ".gp");
  }
};

/// The scripts, data and table for `records` (runs without an outcome are left out, and so is a
/// DmodK run whose twin, the same swept values with another routing, carries it as its baseline).
/// Deterministic: the same scenario and records give the same bytes.
PlotSet make_plots(const Scenario& s, const std::vector<RunRecord>& records,
                   const PlotLimits& limits = {});

struct RenderOptions {
  std::string gnuplot = "gnuplot";            // looked up on $PATH unless it holds a '/'
  std::chrono::milliseconds timeout{60'000};  // per script
  /// After this many scripts fail, the rest are not tried (a broken gnuplot fails them all).
  std::size_t max_failures = 3;
  std::size_t jobs = 1;  // gnuplot processes at once
};

struct PlotOutput {
  std::filesystem::path dir;                  // DIR/plots
  std::vector<std::filesystem::path> files;   // scripts, data, table2.md
  std::vector<std::filesystem::path> images;  // the PNG and SVG files gnuplot wrote
  bool gnuplot_found = false;
  /// For stderr: gnuplot not found (once), a script that failed with gnuplot's stderr, or what
  /// gnuplot warned about.
  std::vector<std::string> warnings;
};

/// Writes `set` into out_dir/plots (created if missing; files of earlier runs are overwritten,
/// others left alone) and renders every script with gnuplot, one process per script, `jobs` at
/// a time. Throws
/// std::runtime_error naming a file or directory that cannot be written; gnuplot's absence or
/// failure are warnings.
PlotOutput write_plots(const PlotSet& set, const std::filesystem::path& out_dir,
                       const RenderOptions& options = {});

}  // namespace ibsdn
