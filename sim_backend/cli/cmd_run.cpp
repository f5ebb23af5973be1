// ibsdn-sim run: every run of a scenario file (docs/simulation.md), in parallel, with a summary
// table on stdout, CSV + JSON in --out and the plots in --out/plots.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim_backend/cli/commands.hpp"
#include "sim_backend/run/gnuplot_runner.hpp"
#include "sim_backend/run/parallel_for.hpp"
#include "sim_backend/run/static_plots.hpp"
#include "sim_backend/run/static_report.hpp"
#include "sim_backend/run/static_runner.hpp"
#include "sim_backend/run/timing_plots.hpp"
#include "sim_backend/run/timing_report.hpp"
#include "sim_backend/run/timing_runner.hpp"
#include "sim_backend/scenario/scenario.hpp"

namespace ibsdn {
namespace {

struct RunOptions {
  std::string scenario;
  std::string out;
  unsigned threads = 0;  // 0: one per core, at most one per run
  std::vector<std::size_t> only;
  bool list = false;
  bool quiet = false;
  bool no_plots = false;
};

/// Progress of the runs, shown on stderr once they take over a second: a bar redrawn in place on
/// a terminal, a plain line every 10 s otherwise.
class Progress {
 public:
  Progress(std::size_t runs, bool enabled) : done_(runs), total_(runs), enabled_(enabled) {
    for (std::size_t i = 0; i < runs; ++i) {
      done_[i] = 0;
      total_[i] = 0;
    }
    if (enabled_) ticker_ = std::thread([this] { tick(); });
  }
  ~Progress() { stop(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(std::size_t run, std::size_t done, std::size_t total) {
    total_[run].store(total, std::memory_order_relaxed);
    done_[run].store(done, std::memory_order_relaxed);
  }
  void finished(std::size_t run) {
    total_[run].store(1, std::memory_order_relaxed);
    done_[run].store(1, std::memory_order_relaxed);
    finished_.fetch_add(1, std::memory_order_relaxed);
  }
  void stop() {
    if (!ticker_.joinable()) return;
    {
      const std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    cv_.notify_all();
    ticker_.join();
    if (shown_ && tty_) std::fputc('\n', stderr);
  }

 private:
  [[nodiscard]] double fraction() const {
    double sum = 0;
    for (std::size_t i = 0; i < done_.size(); ++i) {
      const std::size_t t = total_[i].load(std::memory_order_relaxed);
      if (t > 0) {
        sum +=
            static_cast<double>(done_[i].load(std::memory_order_relaxed)) / static_cast<double>(t);
      }
    }
    return done_.empty() ? 1.0 : sum / static_cast<double>(done_.size());
  }

  void tick() {
    const auto start = std::chrono::steady_clock::now();
    auto last_line = start;
    std::unique_lock<std::mutex> lock(m_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping_; })) {
      const auto now = std::chrono::steady_clock::now();
      if (now - start < std::chrono::seconds(1)) continue;
      const double f = fraction();
      const double secs = std::chrono::duration<double>(now - start).count();
      const std::size_t fin = finished_.load(std::memory_order_relaxed);
      if (tty_) {
        constexpr int kWidth = 30;
        const int filled = static_cast<int>(f * kWidth);
        std::fprintf(stderr, "\r[%.*s%*s] %3d%%  runs %zu/%zu  %.0f s ", filled,
                     "##############################", kWidth - filled, "",
                     static_cast<int>(f * 100), fin, done_.size(), secs);
        shown_ = true;
      } else if (now - last_line >= std::chrono::seconds(10)) {
        std::fprintf(stderr, "progress: %d%%, runs %zu/%zu done, %.0f s\n",
                     static_cast<int>(f * 100), fin, done_.size(), secs);
        last_line = now;
      }
    }
  }

  std::vector<std::atomic<std::size_t>> done_;
  std::vector<std::atomic<std::size_t>> total_;
  std::atomic<std::size_t> finished_{0};
  bool enabled_;
  bool tty_ = isatty(STDERR_FILENO) == 1;
  bool shown_ = false;
  std::thread ticker_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

void list_runs(const Scenario& s) {
  std::printf("scenario %s (hash %s), %zu run%s\n", s.name().c_str(), s.hash_text().c_str(),
              s.run_count(), s.run_count() == 1 ? "" : "s");
  for (const SweepAxis& a : s.axes()) {
    std::printf("  sweeps %s (line %zu): ", a.key.c_str(), a.line);
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      std::printf("%s%s", i ? ", " : "", a.values[i].c_str());
    }
    std::printf("\n");
  }
  for (std::size_t i = 0; i < s.run_count(); ++i) {
    const ScenarioRun r = s.run(i);
    std::printf("%4zu  %s\n", i, r.label.empty() ? "(no sweep)" : r.label.c_str());
  }
}

/// Runs `indices` on `threads` threads with `execute` (run_scenario, run_flow_scenario);
/// records come back in index order.
template <typename Record, typename Execute>
std::vector<Record> run_all(const Scenario& s, const std::vector<std::size_t>& indices,
                            unsigned threads, bool quiet, Execute execute) {
  std::vector<Record> records(indices.size());
  Progress progress(indices.size(), !quiet);
  parallel_for(indices.size(), threads, [&](std::size_t k) {
    Record& rec = records[k];
    rec.run = s.run(indices[k]);
    RunHooks hooks;
    hooks.progress = [&progress, k](std::size_t done, std::size_t total) {
      progress.update(k, done, total);
    };
    try {
      rec.outcome = execute(rec.run, hooks);
    } catch (const std::exception& e) {
      rec.error = e.what();
    }
    progress.finished(k);
  });
  progress.stop();
  return records;
}

/// The plots (static_plots.hpp, timing_plots.hpp) in OUT/plots (gnuplot_runner.hpp). gnuplot
/// missing or failing is a warning: the CSV files hold the results.
void plot(const PlotSet& set, const std::string& out, unsigned threads, bool quiet) {
  // A few hundred milliseconds per script: say why a large sweep is still busy.
  if (!quiet && set.scripts.size() > 8) {
    std::fprintf(stderr, "ibsdn-sim: run: rendering %zu plots with gnuplot\n", set.scripts.size());
  }
  for (const std::string& note : set.notes) {
    std::fprintf(stderr, "ibsdn-sim: run: %s\n", note.c_str());
  }
  PlotOutput written;
  try {
    RenderOptions render;
    render.jobs = threads;
    written = write_plots(set, out, render);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibsdn-sim: run: %s\n", e.what());
    throw CLI::RuntimeError(2);
  }
  for (const std::string& w : written.warnings) {
    std::fprintf(stderr, "ibsdn-sim: run: warning: %s\n", w.c_str());
  }
  std::cout << "plots: " << written.dir.string() << " (" << written.images.size() << " images, "
            << set.scripts.size() << " gnuplot scripts)" << std::endl;
}

/// Exit codes: 0 every run ok; 1 a run failed or its SWML exceeded DmodK's; 2 a bad scenario,
/// option or output directory.
void run(const RunOptions& o) {
  Scenario s = [&] {
    try {
      return load_scenario(o.scenario);
    } catch (const ConfigError& e) {
      std::fprintf(stderr, "ibsdn-sim: %s\n", e.what());
      throw CLI::RuntimeError(2);
    }
  }();
  if (o.list) {
    list_runs(s);
    return;
  }
  if (o.out.empty()) {
    std::fprintf(stderr, "ibsdn-sim: run: --out DIR is required (or --list)\n");
    throw CLI::RuntimeError(2);
  }
  std::vector<std::size_t> indices;
  if (o.only.empty()) {
    for (std::size_t i = 0; i < s.run_count(); ++i) indices.push_back(i);
  } else {
    const std::set<std::size_t> chosen(o.only.begin(), o.only.end());
    for (const std::size_t i : chosen) {
      if (i >= s.run_count()) {
        std::fprintf(stderr, "ibsdn-sim: run: --run %zu: the scenario has runs 0 to %zu\n", i,
                     s.run_count() - 1);
        throw CLI::RuntimeError(2);
      }
      indices.push_back(i);
    }
  }
  unsigned threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, indices.size()));

  const unsigned plot_threads =
      o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto write = [&](const auto& write_files) {
    std::vector<std::filesystem::path> files;
    try {
      files = write_files();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ibsdn-sim: run: %s\n", e.what());
      throw CLI::RuntimeError(2);
    }
    return files;
  };
  const auto report = [&](const auto& records, const std::vector<std::filesystem::path>& files,
                          const auto& make) {
    std::cout << "wrote";
    for (const auto& f : files) std::cout << ' ' << f.string();
    std::cout << std::endl;
    if (!o.no_plots) plot(make(), o.out, plot_threads, o.quiet);
    bool ok = true;
    for (const auto& r : records) {
      if (r.ok()) continue;
      ok = false;
      std::fprintf(stderr, "ibsdn-sim: run %zu%s%s: %s\n", r.run.index,
                   r.run.label.empty() ? "" : " ", r.run.label.c_str(), r.status().c_str());
    }
    if (!ok) throw CLI::RuntimeError(1);
  };
  if (s.run(indices.front()).model == SimulationModel::kFlow) {
    const std::vector<FlowRecord> records = run_all<FlowRecord>(
        s, indices, threads, o.quiet,
        [](const ScenarioRun& r, const RunHooks& h) { return run_flow_scenario(r, h); });
    const auto files = write([&] { return write_flow_files(s, records, o.out); });
    print_flow_summary(std::cout, s, records);
    report(records, files, [&] { return make_flow_plots(s, records); });
    return;
  }
  const std::vector<RunRecord> records = run_all<RunRecord>(
      s, indices, threads, o.quiet,
      [](const ScenarioRun& r, const RunHooks& h) { return run_scenario(r, h); });
  const auto files = write([&] { return write_run_files(s, records, o.out); });
  print_summary(std::cout, s, records);
  report(records, files, [&] { return make_plots(s, records); });
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "run a scenario file (every run of its sweeps) under seed 002's static load model or the "
      "flow-level timing model");
  cmd->add_option("scenario", o->scenario, "scenario YAML file (docs/simulation.md)")->required();
  cmd->add_option("--out", o->out,
                  "directory for summary.csv, swml.csv, jobs.csv, links.csv, "
                  "results.json and plots/ (created if missing)");
  cmd->add_option("-j,--jobs", o->threads,
                  "runs, and then gnuplot processes, at once (default: one per core)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--run", o->only, "only run N of the sweep (from 0, see --list); repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("--list", o->list, "print the runs the scenario expands to and exit");
  cmd->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
  cmd->add_flag("--no-plots", o->no_plots,
                "no plots/ directory (gnuplot scripts, data, PNG and SVG images)");
  cmd->footer(
      "Exit codes: 0 every run ok; 1 a run failed, or a routing's SWML exceeded DmodK's at some\n"
      "time (the files are written all the same); 2 a bad scenario, option or output directory.\n"
      "Plots need gnuplot on PATH; without it a warning, and the exit code is unchanged.");
  cmd->callback([o]() { run(*o); });
}

}  // namespace ibsdn
