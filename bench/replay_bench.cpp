// The static replay's figures in one run (bench/README.md, "Replay"):
//
// 1. Replay: seed 002's 1000-job replay on Curie's XGFT (sim_backend/scenarios/table2-curie.yaml:
//    the synthetic Curie trace, tree allocation), through run_scenario() as `ibsdn-sim run` does:
//    the SDN replay drives the real JobController over the in-memory switchboard, then the same
//    jobs on the same nodes replay with DmodK alone (the run's baseline). Each SDN run's wall
//    time, CPU time and heap peak are printed as ratios to the same run with routing dmodk (no
//    controller, no baseline), and its replay part to its own DmodK part.
// 2. Scale: seed 001's dragonfly (4 hosts and 10 global ports per router, 96 routers per group,
//    g groups; g = 960 is the seed's 368,640-node machine) with one stencil4d job on every host,
//    one rank per node (one flow per node pair): the fabric, LIDs, the default LFTs, the job's
//    flows, the static load model through the LFTs (replay_static, dmodk) and with df-minimal's
//    own paths. Each step's time and heap, per size; the steps the size rules out are named with
//    what rules them out.
//
// Every case runs in a child process of its own (fork), so that one case's peak does not mask
// another's: memory is given twice, as the heap bytes a part allocated above what was live when
// it began (bench/alloc_counter.hpp, per part of a case) and as the child's maximum resident set
// (getrusage through wait4, per case: it includes the bench's few MiB from before the fork). A
// child that exceeds --mem-gib (RLIMIT_AS) or --case-seconds fails alone, and the table says so.
//
//   replay_bench                     both parts (about 10 minutes on 2 loaded cores)
//   replay_bench --only replay       part 1; --only scale: part 2
//   replay_bench --quick             3dnn only, sdn-greedy-weighted only; dragonfly g = 9 and 17
//                                    (about 20 s: the benchmark smoke run, scripts/test.sh)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/alloc_counter.hpp"
#include "bench/median.hpp"
#include "plugin/controller/job_flows.hpp"
#include "routing/algorithm.hpp"
#include "routing/default_tables.hpp"
#include "routing/dragonfly.hpp"
#include "routing/link_load.hpp"
#include "routing/patterns/pattern.hpp"
#include "sim_backend/replay/static_replay.hpp"
#include "sim_backend/run/static_runner.hpp"
#include "sim_backend/scenario/scenario.hpp"

#ifndef IBSDN_SCENARIO_DIR
#error "IBSDN_SCENARIO_DIR: the source tree's sim_backend/scenarios (bench/CMakeLists.txt)"
#endif

namespace ibsdn {
namespace {

using bench::median;

using Clock = std::chrono::steady_clock;

double mib(double bytes) {
  return bytes / (1024.0 * 1024.0);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// What a child reports to the bench: "key value" lines, values without spaces or newlines.
class Report {
 public:
  void set(const std::string& key, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    values_[key] = buf;
  }
  void set(const std::string& key, std::string v) {
    std::replace(v.begin(), v.end(), '\n', ' ');
    values_[key] = std::move(v);
  }
  [[nodiscard]] bool has(const std::string& key) const { return values_.count(key) > 0; }
  [[nodiscard]] double num(const std::string& key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
  }
  [[nodiscard]] std::string text(const std::string& key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? std::string() : it->second;
  }
  [[nodiscard]] std::string serialise() const {
    std::string out;
    for (const auto& [k, v] : values_) out += k + ' ' + v + '\n';
    return out;
  }
  static Report parse(const std::string& text) {
    Report r;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      const auto space = line.find(' ');
      if (space != std::string::npos) r.values_[line.substr(0, space)] = line.substr(space + 1);
    }
    return r;
  }

 private:
  std::map<std::string, std::string> values_;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/// Measures the parts of a case: `<part>.s` (wall seconds), `<part>.cpu` (this process's CPU
/// seconds: on a loaded machine closer to the work than the wall time) and, while the heap is
/// counted, `<part>.peak` (the bytes allocated at the part's peak above what was live when it
/// began, so that what earlier parts keep does not count) and `<part>.kept` (what is still live
/// at its end above that: what it built). peak_above_start() is the largest heap of all parts
/// above what was live when the meter was made: the case's own peak.
class PartMeter {
 public:
  explicit PartMeter(Report& report) : report_(report), live_at_birth_(bench::live_bytes()) {}
  void enter(const std::string& part) {
    close();
    part_ = part;
    bench::reset_peak();
    live_at_start_ = bench::live_bytes();
    cpu0_ = cpu_seconds();
    t0_ = Clock::now();
  }
  void close() {
    if (part_.empty()) return;
    report_.set(part_ + ".s", seconds_since(t0_));
    report_.set(part_ + ".cpu", cpu_seconds() - cpu0_);
    if (counting_) {
      const std::size_t peak = bench::peak_bytes();
      report_.set(part_ + ".peak", static_cast<double>(peak - live_at_start_));
      report_.set(part_ + ".kept",
                  static_cast<double>(bench::live_bytes()) - static_cast<double>(live_at_start_));
      if (peak > live_at_birth_)
        peak_above_birth_ = std::max(peak_above_birth_, peak - live_at_birth_);
    }
    part_.clear();
  }
  /// Whether the heap is counted (bench::set_counting; its atomics cost time).
  void count_heap(bool on) {
    counting_ = on;
    bench::set_counting(on);
  }
  [[nodiscard]] std::size_t peak_above_start() const { return peak_above_birth_; }

 private:
  Report& report_;
  std::string part_;
  bool counting_ = true;
  std::size_t live_at_birth_ = 0;
  std::size_t peak_above_birth_ = 0;
  std::size_t live_at_start_ = 0;
  double cpu0_ = 0;
  Clock::time_point t0_;
};

struct ChildLimits {
  double mem_gib = 16;  // leaves a third of a 24 GiB machine to the rest of it
  unsigned seconds = 240;
};

struct ChildResult {
  Report report;
  double maxrss_mib = 0;
  std::string failure;  // empty when the child finished
};

/// Runs `work` in a forked child under the limits; its report comes back through a pipe.
template <typename Work>
ChildResult in_child(const ChildLimits& limits, Work&& work) {
  std::fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    const auto bytes = static_cast<rlim_t>(limits.mem_gib * 1024.0 * 1024.0 * 1024.0);
    const rlimit as{bytes, bytes};
    setrlimit(RLIMIT_AS, &as);
    alarm(limits.seconds);
    Report r;
    int status = 0;
    try {
      work(r);
    } catch (const std::bad_alloc&) {
      r.set("error", "out of memory (std::bad_alloc) under the " + std::to_string(limits.mem_gib) +
                         " GiB limit");
      status = 1;
    } catch (const std::exception& e) {
      r.set("error", e.what());
      status = 1;
    }
    const std::string text = r.serialise();
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    _exit(status);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  ChildResult out;
  out.report = Report::parse(text);
  out.maxrss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  if (WIFSIGNALED(status)) {
    out.failure = WTERMSIG(status) == SIGALRM
                      ? "did not finish in " + std::to_string(limits.seconds) + " s"
                      : std::string("killed by signal ") + strsignal(WTERMSIG(status));
  } else if (WEXITSTATUS(status) != 0) {
    out.failure = out.report.has("error") ? out.report.text("error") : "failed";
  }
  return out;
}

std::string fixed(double v, int decimals) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

// ---------------------------------------------------------------------------------------------
// Part 1: the Curie replay.

const char* part_name(RunPart p) {
  switch (p) {
    case RunPart::kPrepare:
      return "prepare";
    case RunPart::kReplay:
      return "replay";
    case RunPart::kBaseline:
      return "dmodk";
    case RunPart::kSummary:
      return "summary";
  }
  return "?";
}

/// One run of the scenario in this (child) process, every part timed. With `count_heap` the heap
/// is counted too, per part and for the whole run (`total.peak`); its times are then not worth
/// printing (the counting costs time), so a run is timed and counted in separate children.
void replay_case(const ScenarioRun& run, bool count_heap, Report& r) {
  PartMeter meter(r);
  meter.count_heap(count_heap);
  RunHooks hooks;
  hooks.part = [&meter](RunPart p) { meter.enter(part_name(p)); };
  const Clock::time_point t0 = Clock::now();
  const double cpu0 = cpu_seconds();
  const RunOutcome out = run_scenario(run, hooks);
  meter.close();
  r.set("total.s", seconds_since(t0));
  r.set("total.cpu", cpu_seconds() - cpu0);
  if (count_heap) r.set("total.peak", static_cast<double>(meter.peak_above_start()));
  r.set("placed", static_cast<double>(out.counts.placed));
  std::size_t flows = 0, refused = 0, degraded = 0;
  for (const ReplayedJob& j : out.replay.jobs) {
    flows += j.flows;
    if (j.status.starts_with("refused")) ++refused;
    if (j.status == "degraded") ++degraded;
  }
  r.set("flows", static_cast<double>(flows));
  r.set("refused", static_cast<double>(refused));
  r.set("degraded", static_cast<double>(degraded));
  r.set("steps", static_cast<double>(out.replay.swml.size()));
  r.set("mads", static_cast<double>(out.replay.mads));
  r.set("peak_entries", static_cast<double>(out.replay.peak_entries));
  r.set("max_swml", out.replay.max_swml);
  r.set("dmodk_max_swml", out.dmodk ? out.dmodk->max_swml : out.replay.max_swml);
  r.set("avg_pjml", out.avg_pjml);
  r.set("dmodk_avg_pjml", out.dmodk_avg_pjml);
  r.set("max_pjml", out.max_pjml);
  r.set("dmodk_max_pjml", out.dmodk_max_pjml);
  r.set("above_dmodk", static_cast<double>(out.above_dmodk.size()));
}

/// A run measured: per key the timing children's samples (medians printed), the heap child's
/// report, the largest resident set of the timing children.
struct Measured {
  std::string failure;
  Report heap;
  double maxrss_mib = 0;
  std::map<std::string, std::vector<double>> samples;
  Report last;  // the last timing child's report (counts, quality)
  [[nodiscard]] double med(const std::string& key) const {
    const auto it = samples.find(key);
    return it == samples.end() ? 0.0 : median(it->second);
  }
};

/// `reps` timing children, then one child counting the heap.
Measured measure_run(const ScenarioRun& run, int reps, const ChildLimits& limits) {
  Measured m;
  for (int i = 0; i < reps && m.failure.empty(); ++i) {
    const ChildResult c = in_child(limits, [&](Report& r) { replay_case(run, false, r); });
    m.failure = c.failure;
    m.maxrss_mib = std::max(m.maxrss_mib, c.maxrss_mib);
    for (const char* part : {"prepare", "replay", "dmodk", "summary", "total"}) {
      for (const char* what : {".s", ".cpu"}) {
        const std::string key = std::string(part) + what;
        if (c.report.has(key)) m.samples[key].push_back(c.report.num(key));
      }
    }
    m.last = c.report;
  }
  if (m.failure.empty()) {
    const ChildResult c = in_child(limits, [&](Report& r) { replay_case(run, true, r); });
    m.failure = c.failure;
    m.heap = c.report;
  }
  return m;
}

constexpr double kTargetSeconds = 10;  // the target: the 1000-job Curie replay under 10 s

/// Returns whether every case finished (a limit or an error fails a case).
bool replay_part(const std::string& scenario_path, bool quick, int reps,
                 const ChildLimits& limits) {
  const Scenario scenario = load_scenario(scenario_path);
  // One run per pattern of the scenario (its routing sweep is replaced by the bench's own).
  std::vector<ScenarioRun> runs;
  for (const ScenarioRun& run : expand(scenario)) {
    const bool seen = std::any_of(runs.begin(), runs.end(), [&](const ScenarioRun& r) {
      return r.pattern.text == run.pattern.text;
    });
    if (!seen && !(quick && run.pattern.text != "3dnn")) runs.push_back(run);
  }
  if (runs.empty()) throw std::runtime_error(scenario_path + ": no run to replay");
  const std::vector<std::string> routings =
      quick ? std::vector<std::string>{"sdn-greedy-weighted"}
            : std::vector<std::string>{"sdn-greedy-weighted", "sdn-optimal"};
  const ScenarioRun& first = runs.front();
  std::printf("\n== Replay: %s (%s), %s, %s allocation, seed %llu ==\n", scenario.name().c_str(),
              scenario_path.c_str(), first.topology.label().c_str(), first.allocation.c_str(),
              static_cast<unsigned long long>(first.seed));
  std::printf(
      "run_scenario() as `ibsdn-sim run` runs it, one run per row: prep = fabric, default LFTs,\n"
      "trace and allocation; replay = the row's routing replayed through the controller; dmodk =\n"
      "the same jobs on the same nodes over the LFTs alone (the run's baseline, same process);\n"
      "summ = PJML, link statistics, SWML check. dmodk-only = the run with routing dmodk (no\n"
      "baseline): the reference of the ratios. Times: median of %d child process(es), heap not\n"
      "counted; CPU = the process's user + system seconds (less sensitive to a loaded machine).\n"
      "Heap: one more child per row counting every allocation; run = the run's peak above what\n"
      "was live before it, replay / dmodk = each part's peak above what was live when it began.\n"
      "rss = the timing children's largest maximum resident set (includes the bench's own).\n",
      reps);
  struct Row {
    std::string pattern, routing;
    Measured m;
    const Measured* alone = nullptr;  // the pattern's dmodk-only run
  };
  std::map<std::string, Measured> alone;  // per pattern
  std::vector<Row> rows;
  for (const ScenarioRun& base : runs) {
    ScenarioRun dmodk_run = base;
    dmodk_run.routing = "dmodk";
    alone[base.pattern.text] = measure_run(dmodk_run, reps, limits);
    for (const std::string& routing : routings) {
      ScenarioRun run = base;
      run.routing = routing;
      rows.push_back({base.pattern.text, routing, measure_run(run, reps, limits), nullptr});
    }
  }
  for (Row& row : rows) row.alone = &alone[row.pattern];

  std::printf(
      "\nTime (wall: prep, repl, dmodk, summ, total; cpu: repl, dmodk, total; run/dk = the run's\n"
      "total against dmodk-only's, wall and CPU; r/d cpu = its replay part against its DmodK "
      "part)\n"
      "%-8s %-20s %5s %7s | %5s %6s %5s %5s %6s | %6s %5s %6s | %6s %6s | %7s\n",
      "pattern", "routing", "jobs", "flows", "prep", "repl", "dmodk", "summ", "total", "repl",
      "dmodk", "total", "run/dk", "cpu", "r/d cpu");
  const auto time_row = [](const std::string& pattern, const std::string& routing,
                           const Measured& m, const Measured* ref) {
    if (!m.failure.empty()) {
      std::printf("%-8s %-20s not measured: %s\n", pattern.c_str(), routing.c_str(),
                  m.failure.c_str());
      return;
    }
    const bool baseline = m.samples.count("dmodk.s") > 0;
    const auto or_dash = [baseline](double v, int width) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%*s", width, baseline ? fixed(v, 2).c_str() : "-");
      return std::string(buf);
    };
    std::printf("%-8s %-20s %5.0f %7.0f | %5.2f %6.2f %s %5.2f %6.2f | %6.2f %s %6.2f |",
                pattern.c_str(), routing.c_str(), m.last.num("placed"), m.last.num("flows"),
                m.med("prepare.s"), m.med("replay.s"), or_dash(m.med("dmodk.s"), 5).c_str(),
                m.med("summary.s"), m.med("total.s"), m.med("replay.cpu"),
                or_dash(m.med("dmodk.cpu"), 5).c_str(), m.med("total.cpu"));
    if (ref != nullptr && ref->failure.empty()) {
      std::printf(" %6.1f %6.1f | %7.1f\n", ratio(m.med("total.s"), ref->med("total.s")),
                  ratio(m.med("total.cpu"), ref->med("total.cpu")),
                  ratio(m.med("replay.cpu"), m.med("dmodk.cpu")));
    } else {
      std::printf(" %6s %6s | %7s\n", "", "", "");
    }
  };
  for (const auto& [pattern, m] : alone) time_row(pattern, "dmodk-only", m, nullptr);
  for (const Row& row : rows) time_row(row.pattern, row.routing, row.m, row.alone);

  std::printf("\nMemory\n%-8s %-20s | %8s %8s %7s | %8s %8s %7s | %7s %7s %6s\n", "pattern",
              "routing", "run MiB", "dk-only", "run/dk", "repl MiB", "dmodk", "repl/dk", "rss MiB",
              "dk-only", "rss/dk");
  for (const Row& row : rows) {
    const Measured& m = row.m;
    const Measured& a = *row.alone;
    if (!m.failure.empty() || !a.failure.empty()) continue;
    std::printf("%-8s %-20s | %8.1f %8.1f %7.1f | %8.1f %8.1f %7.1f | %7.0f %7.0f %6.2f\n",
                row.pattern.c_str(), row.routing.c_str(), mib(m.heap.num("total.peak")),
                mib(a.heap.num("total.peak")),
                ratio(m.heap.num("total.peak"), a.heap.num("total.peak")),
                mib(m.heap.num("replay.peak")), mib(m.heap.num("dmodk.peak")),
                ratio(m.heap.num("replay.peak"), m.heap.num("dmodk.peak")), m.maxrss_mib,
                a.maxrss_mib, ratio(m.maxrss_mib, a.maxrss_mib));
  }

  std::printf(
      "\nQuality (the row's routing against its DmodK baseline)\n"
      "%-8s %-20s | %7s %7s | %7s %7s | %7s %7s | %4s %7s %8s %7s %5s\n",
      "pattern", "routing", "SWML", "dk SWML", "avgPJML", "dk", "maxPJML", "dk", ">dk", "ref/deg",
      "MADs", "entries", "steps");
  for (const Row& row : rows) {
    const Report& r = row.m.last;
    if (!row.m.failure.empty()) continue;
    std::printf(
        "%-8s %-20s | %7.3f %7.3f | %7.3f %7.3f | %7.3f %7.3f | %4.0f %7.0f %8.0f %7.0f %5.0f\n",
        row.pattern.c_str(), row.routing.c_str(), r.num("max_swml"), r.num("dmodk_max_swml"),
        r.num("avg_pjml"), r.num("dmodk_avg_pjml"), r.num("max_pjml"), r.num("dmodk_max_pjml"),
        r.num("above_dmodk"), r.num("refused") + r.num("degraded"), r.num("mads"),
        r.num("peak_entries"), r.num("steps"));
  }
  for (const Row& row : rows) {
    if (!row.m.failure.empty()) continue;
    const double t = row.m.med("total.s");
    std::printf("target (the whole run under %.0f s): %s %s %.2f s wall (%.2f s CPU): %s\n",
                kTargetSeconds, row.pattern.c_str(), row.routing.c_str(), t, row.m.med("total.cpu"),
                t < kTargetSeconds ? "met" : "NOT MET");
  }
  const auto failed = [](const Measured& m) { return !m.failure.empty(); };
  return std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return failed(r.m); }) &&
         std::none_of(alone.begin(), alone.end(), [&](const auto& a) { return failed(a.second); });
}

// ---------------------------------------------------------------------------------------------
// Part 2: the dragonfly at scale.

constexpr int kHostsPerRouter = 4;    // seed 001: 4 compute nodes per router
constexpr int kRoutersPerGroup = 96;  // 16 routers x 6 chassis
constexpr int kGlobalPorts = 10;      // 30 network ports - 15 - 5 local ones (seed 001 II)

void scale_case(int groups, double lft_seconds, Report& r) {
  PartMeter meter(r);
  meter.enter("fabric");
  Subnet subnet;
  subnet.fabric = generate_dragonfly(kHostsPerRouter, kRoutersPerGroup, kGlobalPorts, groups);
  meter.close();
  Fabric& f = subnet.fabric;
  r.set("hosts", static_cast<double>(f.hcas().size()));
  r.set("switches", static_cast<double>(f.switches().size()));
  r.set("links", static_cast<double>(f.num_links()));
  const double lids_needed = static_cast<double>(f.hcas().size() + f.switches().size());
  r.set("lids_needed", lids_needed);

  meter.enter("recognise");
  const std::string label = recognize_topology(f);
  meter.close();
  r.set("label", label);

  // The job: every host, one rank each, stencil4d on the most cubic 4D grid.
  std::vector<NodeIdx> hosts(f.hcas().begin(), f.hcas().end());
  PatternSpec stencil = PatternSpec::parse("stencil4d");
  meter.enter("traffic");
  plugin::JobTraffic traffic =
      plugin::build_job_traffic(f, hosts, Traffic{stencil}, 1u, Mapping::kBlock, {}, JobId(1));
  meter.close();
  r.set("flows", static_cast<double>(traffic.flows.size()));
  r.set("dims", dims_to_string(default_stencil_dims(traffic.ranks, 4)));

  // The static load model with the dragonfly routing's own paths: no LIDs, no tables.
  {
    const auto alg = make_algorithm("df-minimal");
    meter.enter("route");
    const std::vector<Path> paths = alg->route(RouteRequest{f, traffic.flows});
    meter.close();
    meter.enter("load");
    LinkLoad load(f);
    for (std::size_t i = 0; i < paths.size(); ++i) load.add(paths[i], traffic.flows[i]);
    const double swml = load.max_weight();
    meter.close();
    r.set("alg_swml", swml);
  }

  // The LFT path: LIDs, min-hop tables, the replay tracing every flow through them.
  meter.enter("lids");
  try {
    subnet.lids = sequential_lids(f);
  } catch (const std::invalid_argument& e) {
    meter.close();
    r.set("lft_limit", "LID space: " + std::to_string(static_cast<long long>(lids_needed)) +
                           " LIDs needed, " + std::to_string(kMaxUnicastLid.value()) +
                           " unicast LIDs exist (" + e.what() + ")");
    return;
  }
  meter.close();
  meter.enter("tables");
  std::optional<LftSet> lfts;
  try {
    const auto alg = make_algorithm("minhop");
    const Deadline deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(lft_seconds)));
    lfts = lfts_per_destination(f, subnet.lids, *alg, deadline);
  } catch (const DeadlineExceeded& e) {
    meter.close();
    r.set("tables_timeout", 1.0);
    r.set("lft_limit", "time: the min-hop LFTs were not done within --lft-seconds (" +
                           std::string(e.what()) + ")");
    return;
  }
  meter.close();
  std::size_t entries = 0;
  for (const NodeIdx s : f.switches()) entries += lfts->table(s).size();
  r.set("lft_entries", static_cast<double>(entries));

  ReplayJob job;
  job.id = 1;
  job.start = 0;
  job.end = 1;
  job.nodes = hosts;
  job.traffic = stencil;
  ReplayConfig cfg;
  cfg.routing = "dmodk";
  cfg.ranks_per_node = 1;
  meter.enter("lft_replay");
  const ReplayResult res = replay_static(subnet, *lfts, std::span<const ReplayJob>(&job, 1), cfg);
  meter.close();
  r.set("lft_swml", res.max_swml);
}

/// Returns whether every size finished (a size the LIDs rule out for the LFT path finishes).
bool scale_part(const std::vector<int>& groups, double lft_seconds, const ChildLimits& limits) {
  std::printf("\n== Scale: one stencil4d job on every host of dragonfly(%d,%d,%d,g) ==\n",
              kHostsPerRouter, kRoutersPerGroup, kGlobalPorts);
  std::printf(
      "Seed 001's machine at g = 960. One rank per node on the most cubic 4D torus (block\n"
      "mapping): one flow per node pair, seed 002's weights. One child process per size, the heap\n"
      "counted. fabric = generate_dragonfly; recog = recognize_topology (what the sdn engine does\n"
      "first); traffic = build_job_traffic (the controller's). The static model with the "
      "routing's\n"
      "own paths: route = df-minimal's route(), load = LinkLoad over them. The LFT path where the\n"
      "LIDs fit: tables = the min-hop LFTs default_tables() writes on a dragonfly (per "
      "destination\n"
      "+ complete_lfts; wall and CPU seconds), replay = replay_static(), the job traced through\n"
      "them. s = wall seconds; MiB = heap a part allocated at its peak above what was live "
      "before;\n"
      "model/fab = (route + load) / fabric, lft/fab = (tables + replay) / fabric; rss = the\n"
      "child's maximum resident set.\n");
  std::printf(
      "%4s %7s %6s %8s %7s | %6s %5s | %5s | %5s %5s | %5s %5s %5s | %7s %7s %5s %6s "
      "| %9s %7s | %6s\n",
      "g", "hosts", "switch", "links", "flows", "fabric", "MiB", "recog", "traff", "MiB", "route",
      "load", "MiB", "tables", "cpu", "MiB", "replay", "model/fab", "lft/fab", "rss");
  std::vector<std::string> notes;
  struct TableTime {
    int g = 0;
    double cpu = 0;
  };
  std::vector<TableTime> table_times;
  bool all_finished = true;
  for (const int g : groups) {
    const ChildResult c = in_child(limits, [&](Report& r) { scale_case(g, lft_seconds, r); });
    const Report& r = c.report;
    const auto has = [&](const std::string& part) { return r.has(part + ".s"); };
    const auto secs = [&](const std::string& part) {
      return has(part) ? fixed(r.num(part + ".s"), 2) : std::string("-");
    };
    const auto heap = [&](const std::string& part) {
      return has(part) ? fixed(mib(r.num(part + ".peak")), 0) : std::string("-");
    };
    const bool tables_done = has("tables") && !r.has("tables_timeout");
    const double fabric = r.num("fabric.s");
    std::printf(
        "%4d %7.0f %6.0f %8.0f %7.0f | %6s %5s | %5s | %5s %5s | %5s %5s %5s | %7s %7s %5s %6s | "
        "%9s %7s | %6.0f\n",
        g, r.num("hosts"), r.num("switches"), r.num("links"), r.num("flows"),
        secs("fabric").c_str(), heap("fabric").c_str(), secs("recognise").c_str(),
        secs("traffic").c_str(), heap("traffic").c_str(), secs("route").c_str(),
        secs("load").c_str(),
        has("load")
            ? fixed(mib(std::max(r.num("route.peak"), r.num("route.kept") + r.num("load.peak"))), 0)
                  .c_str()
            : "-",
        !has("tables") ? "-"
        : tables_done  ? secs("tables").c_str()
                       : (">" + fixed(lft_seconds, 0)).c_str(),
        has("tables") ? fixed(r.num("tables.cpu"), 2).c_str() : "-",
        tables_done ? heap("tables").c_str() : "-", secs("lft_replay").c_str(),
        has("load") ? fixed(ratio(r.num("route.s") + r.num("load.s"), fabric), 3).c_str() : "-",
        has("lft_replay")
            ? fixed(ratio(r.num("tables.s") + r.num("lft_replay.s"), fabric), 1).c_str()
            : "-",
        c.maxrss_mib);
    if (tables_done) table_times.push_back({g, r.num("tables.cpu")});
    std::string note =
        "g=" + std::to_string(g) + ": " + r.text("label") + ", stencil " + r.text("dims");
    if (r.has("alg_swml")) note += "; SWML with df-minimal " + fixed(r.num("alg_swml"), 3);
    if (r.has("lft_swml")) {
      note += ", through the min-hop LFTs " + fixed(r.num("lft_swml"), 3) + " (LFTs " +
              fixed(mib(r.num("lft_entries")), 0) + " MiB)";
    }
    if (r.has("lft_limit")) note += "; no LFT path: " + r.text("lft_limit");
    if (!c.failure.empty()) {
      note += "; FAILED: " + c.failure;
      all_finished = false;
    }
    notes.push_back(note);
  }
  for (const std::string& n : notes) std::printf("%s\n", n.c_str());

  // What bounds the LFT path, from the sizes alone and the measured table times.
  const auto lids_of = [](double g) {
    return g * kRoutersPerGroup * (kHostsPerRouter + 1);  // an LID per HCA and per router
  };
  const double max_g = std::floor(kMaxUnicastLid.value() / lids_of(1));
  const double full = 960;
  const double lft_bytes = full * kRoutersPerGroup * (lids_of(full) + 1);
  const double memory =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  std::printf(
      "limits of the LFT path: %.0f LIDs per group (an LID per host and per router), %u unicast\n"
      "  LIDs: g <= %.0f (%.0f hosts). g = 960 needs %.0f LIDs (%.1fx); its LFTs (switches\n"
      "  x LIDs, a byte each) would take %.1f GiB, this machine has %.1f GiB.\n",
      lids_of(1), kMaxUnicastLid.value(), max_g, max_g * kRoutersPerGroup * kHostsPerRouter,
      lids_of(full), lids_of(full) / kMaxUnicastLid.value(), lft_bytes / (1 << 30),
      memory / (1 << 30));
  if (table_times.size() >= 2 && table_times.back().g < max_g) {
    const TableTime& a = table_times[table_times.size() - 2];
    const TableTime& b = table_times.back();
    const double k = std::log(b.cpu / a.cpu) / std::log(static_cast<double>(b.g) / a.g);
    std::printf(
        "  min-hop tables: CPU time ~ g^%.2f between g = %d and %d; at g = %.0f (the most LIDs\n"
        "  allow) that is about %.0f s.\n",
        k, a.g, b.g, max_g, b.cpu * std::pow(max_g / b.g, k));
  }
  return all_finished;
}

void print_load(const char* when) {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3)
    std::printf("load average %s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  using namespace ibsdn;
  CLI::App app{"issue 11's replay and scale figures (bench/README.md, Replay)"};
  std::string only;
  bool quick = false;
  std::string scenario = std::string(IBSDN_SCENARIO_DIR) + "/table2-curie.yaml";
  std::vector<int> groups;
  double lft_seconds = 150;
  int reps = 1;
  ChildLimits limits;
  app.add_option("--only", only, "run one part")->check(CLI::IsMember({"replay", "scale"}));
  app.add_flag("--quick", quick, "3dnn with sdn-greedy-weighted; dragonfly g = 9, 17");
  app.add_option("--scenario", scenario, "the replay's scenario")->capture_default_str();
  app.add_option("--reps", reps, "timing runs per replay row (median)")
      ->check(CLI::Range(1, 15))
      ->capture_default_str();
  app.add_option("--groups", groups, "dragonfly sizes (groups; 960 = seed 001's machine)")
      ->delimiter(',')
      ->check(CLI::Range(2, 961));
  app.add_option("--lft-seconds", lft_seconds, "time limit of the min-hop LFTs per size")
      ->capture_default_str();
  app.add_option("--mem-gib", limits.mem_gib, "address-space limit of each child")
      ->capture_default_str();
  app.add_option("--case-seconds", limits.seconds, "time limit of each child")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (groups.empty()) groups = quick ? std::vector<int>{9, 17} : std::vector<int>{33, 65, 960};
  print_load("at the start");
  bool finished = true;
  try {
    if (only.empty() || only == "replay") finished = replay_part(scenario, quick, reps, limits);
    if (only.empty() || only == "scale") {
      finished = scale_part(groups, lft_seconds, limits) && finished;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay_bench: %s\n", e.what());
    return 1;
  }
  print_load("at the end");
  if (!finished) std::fprintf(stderr, "replay_bench: a case did not finish (the tables say why)\n");
  return finished ? 0 : 1;
}
