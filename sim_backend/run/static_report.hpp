// What `ibsdn-sim run` writes for a scenario's runs (docs/simulation-static.md, "Outputs and
// plots"): CSV files for tools and plots, one JSON document with everything, and the summary table
// it prints. Every file begins with the scenario's name and hash; numbers are printed the same way
// on every platform, so the same scenario and seed give byte-identical files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "sim_backend/run/static_runner.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

/// One run's outcome, or why it failed.
struct RunRecord {
  ScenarioRun run;
  std::optional<RunOutcome> outcome;
  std::string error;  // when there is no outcome

  /// "ok", "SWML above DmodK at N of M steps" (the SWML check failed), "ok, SWML above the
  /// min-hop LFTs at N of M steps" (reported, not checked: seed 002's claim is DmodK's on
  /// fat-trees), or "error: ...".
  [[nodiscard]] std::string status() const;
  /// Has an outcome that passed the SWML check.
  [[nodiscard]] bool ok() const;
};

/// The files, in `dir` (created if missing): summary.csv (a row per run), swml.csv (the SWML
/// steps of every run's routing and of its DmodK baseline), jobs.csv (a row per replayed job),
/// links.csv (link-load statistics per run and routing) and results.json. Returns the paths
/// written. Throws std::runtime_error naming a file that cannot be written.
std::vector<std::filesystem::path> write_run_files(const Scenario& s,
                                                   const std::vector<RunRecord>& records,
                                                   const std::filesystem::path& dir);

/// The summary table: a row per run (label, routing, jobs placed, max SWML, average and maximum
/// PJML against DmodK with seed 002's delta, status).
void print_summary(std::ostream& out, const Scenario& s, const std::vector<RunRecord>& records);

/// A run's routing as the summary and the plots name it: with its install backend when that is
/// not `auto` and the routing runs the controller ("sdn-optimal (lft)"), so that runs that differ
/// only in the backend tell apart.
std::string routing_name(const ScenarioRun& r);
/// The run's swept values without the routing and the install backend: runs that differ only in
/// those are one group of bars on a chart, and (static model) replay the same DmodK baseline.
std::string case_label(const ScenarioRun& r);

/// A number as every output prints it: up to 10 significant digits, no trailing zeros,
/// locale-independent ("1.666666667", "0", "2.5", "inf").
std::string format_number(double v);

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view v);

/// `j` with every floating-point number as format_number prints it, so that the JSON files are
/// as stable as the CSV files.
nlohmann::json stable_json(nlohmann::json j);

/// results.json's "scenario" object: name, source, hash and the canonical form the hash covers.
nlohmann::json scenario_json(const Scenario& s);

/// Writes a run's output files into one directory and remembers them, in order.
class OutputFiles {
 public:
  explicit OutputFiles(std::filesystem::path dir) : dir_(std::move(dir)) {}
  /// Writes `text` to dir/name; `what` names it in an error (write_text_file).
  void put(const std::string& name, const std::string& text, std::string_view what);
  [[nodiscard]] std::vector<std::filesystem::path> take() { return std::move(written_); }

 private:
  std::filesystem::path dir_;
  std::vector<std::filesystem::path> written_;
};

/// The first line of every CSV file: "# ibsdn-sim run: scenario NAME hash HASH".
std::string csv_banner(const Scenario& s);

}  // namespace ibsdn
