// The plots of `ibsdn-sim run` for the flow model (docs/simulation-timing.md, "Outputs of the flow
// model"): the mean communication speedup per application and routing as bars (thesis Figs 3.4,
// 4.7), and per run the distribution of the jobs' communication times against the baseline's.
// Built like the static model's (static_plots.hpp): gnuplot scripts and data, rendered by
// write_plots() (gnuplot_runner.hpp).
#pragma once

#include <vector>

#include "sim_backend/run/gnuplot_runner.hpp"
#include "sim_backend/run/plot_script.hpp"
#include "sim_backend/run/timing_report.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

/// Deterministic: the same scenario and records give the same bytes. Runs without an outcome are
/// left out; per-run plots only up to limits.runs runs, the chart's first limits.chart_entries
/// bars.
PlotSet make_flow_plots(const Scenario& s, const std::vector<FlowRecord>& records,
                        const PlotLimits& limits = {});

}  // namespace ibsdn
