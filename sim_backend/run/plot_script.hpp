// The pieces every gnuplot script of `ibsdn-sim run` is made of (static_plots.cpp for the static
// model, timing_plots.cpp for the flow model): the bounds both keep, quoting, captions, the
// script's head and its rendering loop over PNG and SVG, and an empirical CDF as a data block.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

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

/// A gnuplot double-quoted string: backslash and quote escaped, a line break as \n, other
/// control characters as spaces.
std::string gp_quote(std::string_view text);

/// Text for a comment line of a script or data file: one line.
std::string one_line(std::string_view text);

/// `segments` joined by " | ", a new line where the next would pass `width`.
std::vector<std::string> pack(const std::vector<std::string>& segments, std::size_t width);

/// A script's first lines: the scenario and its hash, what it draws, how to render it, notes on
/// its data; then reset.
std::string script_head(const Scenario& s, const std::string& base, std::string_view what,
                        const std::vector<std::string>& data_notes);

/// Sets the terminal for each format (BASE.png, BASE.svg) and runs `body` once per image.
std::string render_loop(const std::string& base, int width, int height, const std::string& body);

/// The empirical CDF of `values` as steps: "0 0", then at each distinct value the share of values
/// at or below it, then "x_end 1" so that the curve reaches the plot's right edge. The header
/// comment names the value column `column`.
std::string cdf_block(std::vector<double> values, double x_end, std::string_view column);

}  // namespace ibsdn
