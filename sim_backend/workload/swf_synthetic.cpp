#include "sim_backend/workload/swf_synthetic.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <random>
#include <stdexcept>

#include "common/quote_for_message.hpp"

namespace ibsdn {
namespace {

// ---- presets (sim_backend/README.md, "Synthetic traces", explains every number) ------------

SyntheticTraceSpec preset(std::string name, std::string computer, std::size_t nodes,
                          std::size_t cpus, double util, double single, std::size_t max_nodes,
                          double pow2, double median_s, double max_s) {
  SyntheticTraceSpec s;
  s.preset = std::move(name);
  s.computer = std::move(computer);
  s.system_nodes = nodes;
  s.cpus_per_node = cpus;
  s.utilisation = util;
  s.single_node_share = single;
  s.max_job_nodes = max_nodes;
  s.power_of_two_share = pow2;
  s.run_median_s = median_s;
  s.run_sigma = 1.8;
  s.run_min_s = 10;
  s.run_max_s = max_s;
  return s;
}

std::vector<SyntheticTraceSpec> presets() {
  return {
      preset("curie", "synthetic, like CEA Curie (seed 002 Table I)", 5904, 2, 0.293, 0.06, 1024,
             0.5, 150, 86'400),
      preset("thunder", "synthetic, like LLNL Thunder (seed 002 Table I)", 1024, 4, 0.879, 0.10,
             256, 0.7, 420, 43'200),
      preset("atlas", "synthetic, like LLNL Atlas (seed 002 Table I)", 1152, 8, 0.641, 0.12, 1024,
             0.8, 360, 86'400),
  };
}

// ---- random numbers --------------------------------------------------------------------------
// std::mt19937_64's output sequence is fixed by the C++ standard, but the distributions
// (std::uniform_real_distribution, std::normal_distribution, ...) are implementation-defined and
// differ between standard libraries. So the draws below are written out: the same seed gives the
// same trace with any compiler and library. (std::log / std::exp / std::cos come from libm and are
// deterministic on one platform; glibc's are correctly rounded or nearly so.)

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

class Draws {
 public:
  Draws(std::uint64_t seed, std::uint64_t stream) : rng_(splitmix64(seed ^ splitmix64(stream))) {}
  /// Uniform in [0, 1): the top 53 bits.
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  /// Uniform in (0, 1]: safe under log().
  double uniform_open0() { return 1.0 - uniform(); }
  double exponential() { return -std::log(uniform_open0()); }
  /// Standard normal by Box-Muller (one value per pair of uniforms: simple, and the pair's
  /// second value is not worth the state).
  double normal() {
    const double r = std::sqrt(-2.0 * std::log(uniform_open0()));
    return r * std::cos(2.0 * std::numbers::pi * uniform());
  }

 private:
  std::mt19937_64 rng_;
};

std::int64_t draw_nodes(const SyntheticTraceSpec& s, Draws& d) {
  if (d.uniform() < s.single_node_share) return 1;
  const double lo = std::log(2.0);
  const double hi = std::log(static_cast<double>(s.max_job_nodes));
  const double x = std::exp(lo + d.uniform() * (hi - lo));
  const auto max = static_cast<std::int64_t>(s.max_job_nodes);
  if (d.uniform() < s.power_of_two_share) {
    std::int64_t p = std::int64_t{1} << static_cast<int>(std::lround(std::log2(x)));
    while (p > max) p /= 2;
    return std::max<std::int64_t>(p, 2);
  }
  return std::clamp<std::int64_t>(std::llround(x), 2, max);
}

std::int64_t draw_run_s(const SyntheticTraceSpec& s, Draws& d) {
  const double r = std::exp(std::log(s.run_median_s) + s.run_sigma * d.normal());
  return std::max<std::int64_t>(1, std::llround(std::clamp(r, s.run_min_s, s.run_max_s)));
}

// ---- the schedule ----------------------------------------------------------------------------

/// Free nodes over time as a step function: time -> free nodes from then until the next key.
/// The last step (after every placed job ends) has all nodes free. Jobs are placed in submit
/// order, so the steps before the current submit time are dropped as it advances.
class FreeNodes {
 public:
  explicit FreeNodes(std::int64_t nodes) { steps_.emplace(0, nodes); }

  /// Places a job of `nodes` nodes for `run` seconds at the earliest start >= submit at which
  /// it fits, reserves its nodes and returns that start.
  std::int64_t place(std::int64_t submit, std::int64_t nodes, std::int64_t run) {
    // The step holding `submit` becomes the first one.
    auto first = std::prev(steps_.upper_bound(submit));
    if (first->first < submit) {
      const std::int64_t free = first->second;
      first = steps_.emplace_hint(std::next(first), submit, free);
    }
    steps_.erase(steps_.begin(), first);

    std::int64_t start = submit;
    auto it = first;  // the step holding `start`
    for (auto scan = it; scan != steps_.end() && scan->first < start + run;) {
      if (scan->second < nodes) {  // too few free here: start after this step at the earliest
        it = std::next(scan);      // exists: the last step has every node free
        start = it->first;
        scan = it;
      } else {
        ++scan;
      }
    }
    split_at(start + run);
    for (auto s = it; s != steps_.end() && s->first < start + run; ++s) {
      s->second -= nodes;
      if (s->second < 0) throw std::logic_error("synthetic schedule oversubscribed the machine");
    }
    return start;
  }

 private:
  void split_at(std::int64_t t) {
    auto at = std::prev(steps_.upper_bound(t));
    if (at->first < t) steps_.emplace_hint(std::next(at), t, at->second);
  }

  std::map<std::int64_t, std::int64_t> steps_;
};

std::string number(double v) {
  std::array<char, 32> buf{};
  std::snprintf(buf.data(), buf.size(), "%g", v);
  return buf.data();
}

std::string model_note(const SyntheticTraceSpec& s, std::size_t jobs, std::uint64_t seed) {
  // No continuation line may start with "Word:": a reader would take it for a header key.
  return "synthetic, generated by ibsdn-sim trace generate --preset " +
         (s.preset.empty() ? std::string("(custom)") : s.preset) + " --jobs " +
         std::to_string(jobs) + " --seed " + std::to_string(seed) + " --utilisation " +
         number(s.utilisation) + "\n" + number(100 * s.single_node_share) +
         "% of the jobs take 1 node, the others log-uniform over 2.." +
         std::to_string(s.max_job_nodes) + " nodes, " + number(100 * s.power_of_two_share) +
         "% of those rounded to a power of two\nrun times log-normal with median " +
         number(s.run_median_s) + " s and sigma " + number(s.run_sigma) + ", clamped to [" +
         number(s.run_min_s) + ", " + number(s.run_max_s) + "] s" +
         "\nsubmit times Poisson, spread so that sum(nodes * run) / (MaxNodes * submit span) = " +
         number(s.utilisation) +
         "\nwait times from first come first served with conservative backfilling on MaxNodes" +
         " nodes\n(never more than MaxNodes busy)";
}

}  // namespace

std::vector<std::string> synthetic_preset_names() {
  std::vector<std::string> out;
  for (const SyntheticTraceSpec& s : presets()) out.push_back(s.preset);
  return out;
}

SyntheticTraceSpec synthetic_preset(std::string_view name) {
  std::string known;
  for (const SyntheticTraceSpec& s : presets()) {
    if (s.preset == name) return s;
    known += (known.empty() ? "" : ", ") + s.preset;
  }
  throw std::invalid_argument("unknown trace preset " + quote_for_message(name) +
                              " (known: " + known + ")");
}

void validate_synthetic_spec(const SyntheticTraceSpec& s) {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("synthetic trace: " + what);
  };
  // Bounds keep every time below SWF's 1e15 (span <= jobs * run_max / utilisation = 10^14 s)
  // and every product of the schedule far inside int64.
  require(s.system_nodes >= 1 && s.system_nodes <= 10'000'000, "system nodes must be 1..10^7");
  require(s.cpus_per_node >= 1 && s.cpus_per_node <= 10'000, "CPUs per node must be 1..10000");
  require(s.utilisation >= 0.01 && s.utilisation <= 1, "utilisation must be in [0.01, 1]");
  require(s.single_node_share >= 0 && s.single_node_share <= 1,
          "single-node share must be in [0, 1]");
  require(s.power_of_two_share >= 0 && s.power_of_two_share <= 1,
          "power-of-two share must be in [0, 1]");
  require(s.max_job_nodes >= 2 && s.max_job_nodes <= s.system_nodes,
          "largest job must be 2..system nodes");
  require(s.run_min_s >= 1 && s.run_min_s <= s.run_max_s && s.run_max_s <= 1e6,
          "run-time clamp must satisfy 1 <= min <= max <= 10^6 s");
  require(s.run_median_s > 0 && std::isfinite(s.run_median_s), "run-time median must be > 0");
  require(s.run_sigma >= 0 && s.run_sigma <= 10, "run-time sigma must be in [0, 10]");
}

SwfTrace generate_synthetic_trace(const SyntheticTraceSpec& spec, std::size_t jobs,
                                  std::uint64_t seed) {
  validate_synthetic_spec(spec);
  if (jobs < 1 || jobs > kMaxSyntheticJobs) {
    throw std::invalid_argument("synthetic trace: job count must be 1.." +
                                std::to_string(kMaxSyntheticJobs));
  }
  // Two streams: a job's size and run time do not depend on the job count.
  Draws shape(seed, 1);
  Draws arrival(seed, 2);

  SwfTrace t;
  t.jobs.resize(jobs);
  double work = 0;  // node-seconds
  for (std::size_t i = 0; i < jobs; ++i) {
    SwfJob& j = t.jobs[i];
    j.id = JobId(i + 1);
    const std::int64_t nodes = draw_nodes(spec, shape);
    const std::int64_t run = draw_run_s(spec, shape);
    j.allocated_procs = nodes * static_cast<std::int64_t>(spec.cpus_per_node);
    j.requested_procs = j.allocated_procs;
    j.run_s = static_cast<double>(run);
    j.status = SwfStatus::kCompleted;
    work += static_cast<double>(nodes) * static_cast<double>(run);
  }

  // Sorted uniform arrivals over [0, span] with the first at 0 and the last at span: normalised
  // partial sums of exponential gaps.
  const double span = work / (spec.utilisation * static_cast<double>(spec.system_nodes));
  std::vector<double> gaps(jobs - 1);
  double total = 0;
  for (double& g : gaps) total += (g = arrival.exponential());
  double sum = 0;
  FreeNodes free(static_cast<std::int64_t>(spec.system_nodes));
  for (std::size_t i = 0; i < jobs; ++i) {
    if (i > 0) sum += gaps[i - 1];
    SwfJob& j = t.jobs[i];
    const std::int64_t submit = i == 0 ? 0 : std::llround(span * (total > 0 ? sum / total : 0.0));
    const std::int64_t nodes = j.allocated_procs / static_cast<std::int64_t>(spec.cpus_per_node);
    const std::int64_t start = free.place(submit, nodes, static_cast<std::int64_t>(j.run_s));
    j.submit_s = static_cast<double>(submit);
    j.wait_s = static_cast<double>(start - submit);
  }

  const auto max_procs = static_cast<std::int64_t>(spec.system_nodes * spec.cpus_per_node);
  SwfHeader& h = t.header;
  h.fields = {
      {"Version", "2.2"},
      {"Computer", spec.computer.empty() ? "synthetic" : spec.computer},
      {"Installation", "none (synthetic trace)"},
      {"MaxJobs", std::to_string(jobs)},
      {"MaxRecords", std::to_string(jobs)},
      {"Preemption", "No"},
      {"MaxNodes", std::to_string(spec.system_nodes)},
      {"MaxProcs", std::to_string(max_procs)},
      {"Note", model_note(spec, jobs, seed)},
  };
  h.max_nodes = static_cast<std::int64_t>(spec.system_nodes);
  h.max_procs = max_procs;
  return t;
}

}  // namespace ibsdn
