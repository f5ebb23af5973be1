// The plots of `ibsdn-sim run` (the static model; docs/simulation-static.md, "Outputs and plots"):
// seed 002's SWML over time (Figs. 8-13) and PJML distribution, its Table II as a chart and a
// Markdown table, and seed 001's link-traffic box plots (Fig. 3). Each plot is a gnuplot script
// with its data files, written to DIR/plots next to the PNG and SVG it renders, so that a person
// can edit and re-render it (`cd DIR/plots && gnuplot NAME.gp`). Every plot's title carries a
// caption: the scenario's name and hash and what was run. make_plots() builds the files (no I/O, no
// gnuplot), write_plots() (gnuplot_runner.hpp) writes and renders them.
#pragma once

#include <vector>

#include "sim_backend/run/gnuplot_runner.hpp"
#include "sim_backend/run/plot_script.hpp"
#include "sim_backend/run/static_report.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

/// The scripts, data and table for `records` (runs without an outcome are left out, and so is a
/// DmodK run whose twin, the same swept values with another routing, carries it as its baseline).
/// Deterministic: the same scenario and records give the same bytes.
PlotSet make_plots(const Scenario& s, const std::vector<RunRecord>& records,
                   const PlotLimits& limits = {});

}  // namespace ibsdn
