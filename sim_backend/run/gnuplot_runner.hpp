// The plots of `ibsdn-sim run`, written and rendered (docs/simulation-static.md, "plots/"): a set
// of gnuplot scripts with their data files, as the static model's (static_plots.hpp) and the flow
// model's (timing_plots.hpp) builders make it, written to DIR/plots and rendered to PNG and SVG
// by gnuplot, found on $PATH and run by run_program() (subprocess.hpp), one process per script,
// several at a time, each with a deadline. A missing or failing gnuplot is a warning, never an
// error: the CSV files hold the results.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ibsdn {

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
