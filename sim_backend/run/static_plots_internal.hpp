// What the static model's plot builders (static_plots.hpp) share: static_plots.cpp (which runs
// are plotted, Table II, the link-load box plots, make_plots()) and static_plots_per_run.cpp (a
// run's SWML over time and PJML distribution). Nothing else includes it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sim_backend/run/gnuplot_runner.hpp"
#include "sim_backend/run/static_report.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn::static_plots {

inline constexpr std::string_view kDmodkColour = "#c0392b";
// Characters per caption line at the images' width.
inline constexpr std::size_t kCaptionWidth = 110;

// static_plots.cpp: numbers and words as the scripts write them, and what a run is.
std::string num(double v);
std::string fixed(double v, int decimals);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
bool is_dmodk_run(const RunOutcome& o);
/// What the baseline is called: DmodK on a fat-tree; elsewhere the default LFTs are min-hop
/// (RunOutcome::lft_routing), and a plot must not call them DmodK.
std::string baseline_name(const RunOutcome& o);
std::string scenario_line(const Scenario& s);
/// An axis range with room above the data (for labels), never empty.
std::string upper(double max, double headroom);

// static_plots_per_run.cpp: one run's plots, against its baseline when it has one.
void add_swml_plot(PlotSet& set, const Scenario& s, const RunRecord& rec);
void add_pjml_plot(PlotSet& set, const Scenario& s, const RunRecord& rec);

}  // namespace ibsdn::static_plots
