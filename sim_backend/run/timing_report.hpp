// What `ibsdn-sim run` writes for a scenario of the flow model (`model: flow`,
// docs/simulation-timing.md "Outputs of the flow model"): jobs.csv, summary.csv, results.json and,
// with timing.sample_interval, link_samples.csv; every file begins with the scenario's name and
// hash, numbers printed as format_number() prints them, so the same scenario gives byte-identical
// files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim_backend/run/timing_runner.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {

/// One flow run's outcome, or why it failed.
struct FlowRecord {
  ScenarioRun run;
  std::optional<FlowOutcome> outcome;
  std::string error;  // when there is no outcome

  /// "ok", "ok, N jobs not run" (their programs did not fit their ranks: jobs.csv says why), or
  /// "error: ...".
  [[nodiscard]] std::string status() const;
  [[nodiscard]] bool ok() const { return outcome.has_value(); }
};

/// A run's jobs of one application and rank count: their mean and longest communication time,
/// the baseline's mean, their mean speedup (FlowOutcome::speedup, over the jobs that ran) and,
/// with a reference run, their mean vs_reference() over the jobs that ran in both.
struct ApplicationSummary {
  std::string application;
  std::uint32_t ranks = 0;
  std::size_t jobs = 0;
  double mean_comm_time = 0;
  double max_comm_time = 0;
  double baseline_mean_comm_time = 0;
  double mean_speedup = 0;
  std::optional<double> mean_vs_reference;
};

/// Job j's speedup over the scenario's reference run (`reference:`): its total time there (the
/// job of the same id) over its total time in `o`; nullopt without a reference run or when the
/// job did not run in both. `j` is one of o.jobs.
std::optional<double> vs_reference(const FlowOutcome& o, const FlowJob& j,
                                   const FlowOutcome* reference);

/// The outcome of `rec`'s reference run among `records`; null without `reference:`, when that
/// run is not among the records (`--run`) or failed.
const FlowOutcome* reference_outcome(const Scenario& s, const std::vector<FlowRecord>& records,
                                     const FlowRecord& rec);

/// Per application and rank count, in the order of the run's first job of each.
std::vector<ApplicationSummary> summarise_applications(const FlowOutcome& o,
                                                       const FlowOutcome* reference = nullptr);

/// Writes the files into `dir` (created if missing); returns their paths. Throws
/// std::runtime_error naming a file that cannot be written.
std::vector<std::filesystem::path> write_flow_files(const Scenario& s,
                                                    const std::vector<FlowRecord>& records,
                                                    const std::filesystem::path& dir);

/// The table on stdout: a row per run and application.
void print_flow_summary(std::ostream& out, const Scenario& s,
                        const std::vector<FlowRecord>& records);

}  // namespace ibsdn
