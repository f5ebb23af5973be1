// ibsdn-sim trace: synthetic SWF job traces (generate) and what a trace holds for a replay
// (summary).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/quote_for_message.hpp"
#include "sim_backend/cli/commands.hpp"
#include "sim_backend/io/text_file.hpp"
#include "sim_backend/workload/replay_jobs.hpp"
#include "sim_backend/workload/swf.hpp"
#include "sim_backend/workload/swf_synthetic.hpp"
#include "sim_backend/workload/trace_stats.hpp"

namespace ibsdn {
namespace {

struct GenerateOptions {
  std::string preset;
  std::size_t jobs = 1000;
  std::uint64_t seed = 1;
  double utilisation = 0;  // 0: the preset's
  std::string out;
};

struct SummaryOptions {
  std::string file;
  std::size_t cpus_per_node = 0;  // 0: from the header
  std::size_t system_nodes = 0;   // 0: from the header
  std::size_t first = 0;
  double submit_tolerance_s = 0;
};

std::string days(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f days (%.0f s)", seconds / 86'400, seconds);
  return buf;
}

void print_counts(std::FILE* out, const ReplayCounts& c, std::size_t first) {
  std::fprintf(out, "jobs read             %zu\n", c.read);
  std::fprintf(out, "  dropped: run time 0 or unknown             %zu\n", c.no_run_time);
  std::fprintf(out, "  dropped: status -1 (seed 002's cancelled)  %zu\n", c.status_unknown);
  std::fprintf(out, "  dropped: no processor count                %zu\n", c.no_size);
  std::fprintf(out, "  dropped: more nodes than the system        %zu\n", c.too_large);
  std::fprintf(out, "  dropped: submit or wait time unknown       %zu\n", c.no_start);
  if (first != 0)
    std::fprintf(out, "  after the first %zu kept                  %zu\n", first, c.beyond_first);
  std::fprintf(out, "jobs kept             %zu\n", c.kept);
}

void print_stats(std::FILE* out, const TraceStats& s, std::size_t system_nodes) {
  if (s.jobs == 0) return;
  std::fprintf(out, "nodes per job         min %zu, median %zu, max %zu; 1-node jobs %.1f %%\n",
               s.min_nodes, s.median_nodes, s.max_nodes, 100 * s.single_node_share);
  std::fprintf(out, "span                  %s, first start to last end\n",
               days(s.last_end_s - s.first_start_s).c_str());
  std::fprintf(out, "submits over          %s\n", days(s.last_submit_s - s.first_submit_s).c_str());
  if (s.last_submit_s > s.first_submit_s) {
    std::fprintf(out, "offered utilisation   %.1f %% (node-seconds / (nodes x submit span))\n",
                 100 * s.offered_utilisation);
  } else {
    std::fprintf(out, "offered utilisation   n/a (every job submitted at once)\n");
  }
  std::fprintf(out, "busy utilisation      %.1f %% (node-seconds / (nodes x span))\n",
               100 * s.busy_utilisation);
  std::fprintf(out, "peak busy nodes       %zu of %zu at t = %.0f s\n", s.peak.nodes, system_nodes,
               s.peak.at_s);
  if (s.peak.nodes > system_nodes) {
    std::fprintf(out,
                 "warning: more nodes busy than the system has; a replay at the trace's start "
                 "times cannot place every job\n");
  }
}

void generate(const GenerateOptions& o) {
  SyntheticTraceSpec spec = synthetic_preset(o.preset);
  if (o.utilisation > 0) spec.utilisation = o.utilisation;
  const SwfTrace trace = generate_synthetic_trace(spec, o.jobs, o.seed);
  const std::string text = format_swf(trace);
  // With the trace on stdout, the summary goes to stderr so that the trace stays loadable.
  std::FILE* summary = stdout;
  if (o.out.empty() || o.out == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    summary = stderr;
  } else {
    write_text_file(o.out, text, "trace");
    std::fprintf(summary, "wrote %zu jobs to %s\n", trace.jobs.size(), o.out.c_str());
  }
  const ReplaySelection sel =
      select_replay_jobs(trace, ReplayFilter{spec.system_nodes, spec.cpus_per_node, 0});
  print_stats(summary, trace_stats(sel.jobs, spec.system_nodes), spec.system_nodes);
}

void summary(const SummaryOptions& o) {
  SwfLimits limits;
  limits.submit_tolerance_s = o.submit_tolerance_s;
  const SwfTrace trace = read_swf_file(o.file, limits);
  const SwfHeader& h = trace.header;

  std::string nodes_from = "--system-nodes";
  std::size_t nodes = o.system_nodes;
  if (nodes == 0 && h.max_nodes) {
    nodes = static_cast<std::size_t>(*h.max_nodes);
    nodes_from = "header MaxNodes";
  }
  if (nodes == 0) {
    throw std::runtime_error(o.file + ": no MaxNodes in the header: give --system-nodes");
  }
  std::string cpus_from = "--cpus-per-node";
  std::size_t cpus = o.cpus_per_node;
  if (cpus == 0) {
    const auto from_header = header_cpus_per_node(h);
    if (!from_header) {
      throw std::runtime_error(o.file +
                               ": the header's MaxProcs / MaxNodes do not give a whole number "
                               "of CPUs per node: give --cpus-per-node");
    }
    cpus = *from_header;
    cpus_from = "header MaxProcs / MaxNodes";
  }

  const ReplaySelection sel = select_replay_jobs(trace, ReplayFilter{nodes, cpus, o.first});
  const std::string* computer = h.find("Computer");
  // The header's value as written (a plain value prints as before), its unsafe bytes escaped:
  // the quotation without its quotes.
  const std::string shown = computer ? quote_for_message(*computer) : "''";
  std::printf("trace                 %s%s%s\n", o.file.c_str(), computer ? ": " : "",
              shown.substr(1, shown.size() - 2).c_str());
  std::printf("system                %zu nodes (%s), %zu CPUs per node (%s)\n", nodes,
              nodes_from.c_str(), cpus, cpus_from.c_str());
  print_counts(stdout, sel.counts, o.first);
  print_stats(stdout, trace_stats(sel.jobs, nodes), nodes);
}

}  // namespace

void add_trace_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("trace", "SWF job traces: generate synthetic ones, summarise");
  cmd->require_subcommand(1);

  auto g = std::make_shared<GenerateOptions>();
  CLI::App* gen = cmd->add_subcommand(
      "generate", "write a synthetic SWF trace like a system of seed 002's Table I");
  gen->add_option("--preset", g->preset, "system to resemble")
      ->required()
      ->check(CLI::IsMember(synthetic_preset_names()));
  gen->add_option("--jobs", g->jobs, "number of jobs")
      ->default_val(1000)
      ->check(CLI::Range(std::size_t{1}, kMaxSyntheticJobs));
  gen->add_option("--seed", g->seed, "random seed (same seed, same bytes)")->default_val(1);
  gen->add_option("--utilisation", g->utilisation,
                  "offered utilisation instead of the preset's (0.01-1)")
      ->check(CLI::Range(0.01, 1.0));
  gen->add_option("--out", g->out, "write the trace to this file (default, or '-': stdout)");
  gen->callback([g]() { generate(*g); });

  auto s = std::make_shared<SummaryOptions>();
  CLI::App* sum = cmd->add_subcommand(
      "summary", "read an SWF trace strictly and report what a replay keeps (seed 002 IV.A.1)");
  sum->add_option("file", s->file, "SWF trace file")->required();
  sum->add_option("--cpus-per-node", s->cpus_per_node,
                  "processors per node (default: the header's MaxProcs / MaxNodes)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000}));
  sum->add_option("--system-nodes", s->system_nodes,
                  "nodes of the system (default: the header's MaxNodes)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}));
  sum->add_option("--first", s->first, "keep only the first N jobs that pass the filters")
      ->check(CLI::Range(std::size_t{0}, SwfLimits{}.max_jobs));
  sum->add_option("--submit-tolerance", s->submit_tolerance_s,
                  "seconds a submit time may go back (the format sorts by submit time)")
      ->default_val(0.0)
      ->check(CLI::Range(0.0, 1e9));
  sum->callback([s]() { summary(*s); });
}

}  // namespace ibsdn
