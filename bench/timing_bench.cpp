// The timing simulator's figure: a random permutation on a 1024-node full fat-tree
// (XGFT(3;16,16,4;1,16,16), DmodK LFTs, 100 Gb/s links, FCFS NICs), 1 MiB messages, 10
// iterations without compute, through the timing simulator: its wall time and events per second.
//
// Then the same scenario in SimGrid, in the same run: every message as it went (the time its NIC
// admitted it, its size, its route) becomes a flow case — the same messages at the same start
// times, which is all a flow-level model sees — and both our engine (simulate_flows) and SimGrid
// (tests/simgrid/simgrid-flows, CM02 pure max-min) time it. Printed: the two wall times, their
// ratio, and the largest relative difference between the completion times of the three runs (the
// timing simulator's deliveries, our engine's replay of them, SimGrid's).
//
//   timing_bench            the figure above (SimGrid part when simgrid-flows is built)
//   timing_bench --quick    256 nodes (XGFT(2;16,16;1,16)), 3 iterations: for smoke runs
//   timing_bench --keep F   also writes the flow case to F
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "routing/default_tables.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/apps/app_spec.hpp"
#include "sim_backend/flowmodel/flow_case.hpp"
#include "sim_backend/flowmodel/flow_model.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// SimGrid's completions by message id, and its wall time; empty when it could not run.
std::map<std::uint64_t, double> run_simgrid(const std::string& case_path, double& wall) {
  std::map<std::uint64_t, double> done;
#ifdef IBSDN_SIMGRID_FLOWS
  const std::string command = std::string("'") + IBSDN_SIMGRID_FLOWS + "' '" + case_path + "'";
  const Clock::time_point t0 = Clock::now();
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr) return done;
  unsigned long long id = 0;
  double t = 0;
  while (std::fscanf(out, "%llu %lf", &id, &t) == 2) done[id] = t;
  const int status = pclose(out);
  wall = seconds_since(t0);
  if (status != 0) {
    std::fprintf(stderr, "timing_bench: simgrid-flows failed (status %d)\n", status);
    done.clear();
  }
#else
  (void)case_path;
  (void)wall;
#endif
  return done;
}

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

int run(int argc, char** argv) {
  bool quick = false;
  std::string keep;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
      keep = argv[++i];
    } else {
      std::fprintf(stderr, "usage: timing_bench [--quick] [--keep FILE]\n");
      return 2;
    }
  }
  const char* tree = quick ? "2;16,16;1,16" : "3;16,16,4;1,16,16";
  const std::uint32_t iterations = quick ? 3 : 10;
  Fabric fabric = generate_xgft(XgftParams::parse(tree), 1, 100.0);
  const LftSet lfts = default_tables(fabric, sequential_lids(fabric)).lfts;
  const auto nodes = static_cast<std::uint32_t>(fabric.hcas().size());

  TimingJob job;
  job.id = 1;
  job.nodes = fabric.hcas();
  const std::string app = "random-perm:bytes=1M,iter=" + std::to_string(iterations);
  job.phases = timing_phases(generate_app(AppSpec::parse(app), nodes, 1));

  // Every message as it went: the flow case of the SimGrid comparison.
  FlowCase flow_case;
  for (std::size_t l = 0; l < fabric.num_links(); ++l) {
    flow_case.links.push_back({"l" + std::to_string(l),
                               fabric.link(LinkId{static_cast<std::uint32_t>(l)}).gbps * 1e9 / 8,
                               0.0});
  }
  std::vector<double> delivered;
  TimingOptions options;
  options.on_delivered = [&](const DeliveredMessage& m) {
    if (!m.network) return;  // none here: one rank per node
    FlowMessage f;
    f.id = flow_case.messages.size();
    f.start = m.admitted;
    f.size = m.bytes;
    f.route = m.routes.front();
    flow_case.messages.push_back(std::move(f));
    delivered.push_back(m.delivered);
  };
  const auto routes = lft_routes(fabric, lfts);
  const Clock::time_point t0 = Clock::now();
  const TimingResult result =
      simulate_timing(fabric, std::vector<TimingJob>{job}, *routes, options);
  const double timing_wall = seconds_since(t0);
  std::printf("timing simulator: XGFT(%s), %u nodes, %s, FCFS, DmodK\n", tree, nodes, app.c_str());
  std::printf(
      "  simulated %.6f s, %llu messages, %zu events: %.3f s wall, %.0f events/s, %.0f "
      "messages/s\n",
      result.makespan, static_cast<unsigned long long>(result.messages), result.stats.events,
      timing_wall, static_cast<double>(result.stats.events) / timing_wall,
      static_cast<double>(result.messages) / timing_wall);

  // Our engine on the recorded messages.
  FlowRunStats stats;
  const Clock::time_point t1 = Clock::now();
  const std::vector<double> ours = simulate_flows(flow_case.links, flow_case.messages, {}, &stats);
  const double ours_wall = seconds_since(t1);
  double replay_diff = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    replay_diff = std::max(replay_diff, relative(ours[i], delivered[i]));
  }
  std::printf("flow case (same messages, same start times): %zu messages, %zu events\n",
              flow_case.messages.size(), stats.events);
  std::printf("  ibsdn engine: %.3f s wall; completions vs the timing run: max rel diff %.2e\n",
              ours_wall, replay_diff);

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("timing_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string case_path = keep.empty() ? (dir / "permutation.flows").string() : keep;
  {
    std::ofstream out(case_path);
    out << "# timing_bench: " << app << " on XGFT(" << tree << "), every message as it went\n"
        << format_flow_case(flow_case);
  }
  double simgrid_wall = 0;
  const std::map<std::uint64_t, double> simgrid = run_simgrid(case_path, simgrid_wall);
  std::filesystem::remove_all(dir);
  if (simgrid.size() != flow_case.messages.size()) {
    std::printf("  SimGrid: not run (simgrid-flows not built, or it failed)\n");
    return 0;
  }
  double simgrid_diff = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    simgrid_diff = std::max(simgrid_diff, relative(ours[i], simgrid.at(i)));
  }
  std::printf("  SimGrid 3.32: %.3f s wall; completions vs ibsdn engine: max rel diff %.2e\n",
              simgrid_wall, simgrid_diff);
  std::printf("  ratio SimGrid / ibsdn engine: %.1fx (SimGrid / whole timing run: %.1fx)\n",
              simgrid_wall / ours_wall, simgrid_wall / timing_wall);
  return 0;
}

}  // namespace
}  // namespace ibsdn

int main(int argc, char** argv) {
  return ibsdn::run(argc, argv);
}
