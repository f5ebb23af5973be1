// The controller's job_start in-process on large fabrics: the same JobController that runs
// inside opensm, its MADs answered by the agents' SwitchResponder logic through an in-memory
// switchboard (no threads, no simulator: what is measured is the controller's own work plus
// encoding and decoding every MAD). Printed per job: the ready answer's split (route, compile,
// install) and, as the baseline measured in the same run, DmodK routing the same flows. Before
// the jobs, the sdn routing engine's step (what osmsdn_compute_lfts does under OpenSM's lock)
// against the same step with the all-pairs table builder it replaced.
//
//   controller_bench            1024-node full fat-tree and the 6750-node Curie tree
//   controller_bench --quick    the 1024-node tree only, for CI smoke runs
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/median.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/opensm/abi_fabric.hpp"
#include "plugin/opensm/sdn_engine.hpp"
#include "routing/algorithm.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/replay/switchboard.hpp"
#include "sim_backend/workload/job_builder.hpp"
#include "tests/unit/plugin/abi_test_fabric.hpp"

namespace ibsdn::plugin {
namespace {

using bench::median;

using Clock = std::chrono::steady_clock;

struct Case {
  const char* label;
  const char* xgft;
  const char* pattern;
  std::uint32_t nodes;
};

void run_case(const Case& c, int reps) {
  const Fabric generated = generate_xgft(XgftParams::parse(c.xgft));
  const LidMap lids = sequential_lids(generated);
  const test::AbiBuffers abi = test::to_abi(generated, lids);
  Subnet f = subnet_from_abi(abi.view);
  SdnTables sdn = compute_sdn_tables(f);  // recognises the XGFT too
  Switchboard board(f.fabric, f.lids, 0x5eed);
  Config cfg;
  cfg.switch_key = 0x5eed;
  cfg.job_start_timeout_ms = kMaxJobStartTimeoutMs;
  JobController jc(cfg, std::nullopt, nullptr, board, {}, std::nullopt);
  jc.fabric_updated(FabricSnapshot{std::move(f), std::move(sdn.lfts), "sdn"});

  JobSpec spec;
  spec.pattern = c.pattern;
  spec.nodes = c.nodes;
  const BuiltJob built = build_job(generated, spec);
  JobStartRequest req;
  req.user = "bench";
  for (const NodeIdx n : built.nodes) req.nodes.push_back(generated.node(n).name);
  req.traffic = PatternSpec::parse(c.pattern);

  std::vector<double> total, route, compile, install, dmodk;
  std::uint64_t flows = 0, entries = 0, mads = 0;
  double ld = 0, bound = 0;
  const auto alg = make_algorithm("dmodk");
  for (int i = 0; i < reps; ++i) {
    req.job = JobId(static_cast<std::uint64_t>(100 + i));
    const std::uint64_t sent_before = board.sent();
    const auto t0 = Clock::now();
    const nlohmann::json r = jc.handle(Request{req}, Caller{});
    total.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (!r.value("ok", false)) {
      std::printf("%s: job_start failed: %s\n", c.label, r.dump().c_str());
      return;
    }
    mads = board.sent() - sent_before;
    route.push_back(r["timings_ms"]["route"].get<double>());
    compile.push_back(r["timings_ms"]["compile"].get<double>());
    install.push_back(r["timings_ms"]["install"].get<double>());
    flows = r["flows"].get<std::uint64_t>();
    entries = r["entries"].get<std::uint64_t>();
    ld = r["max_link_load"].get<double>();
    bound = r["bound"].get<double>();
    jc.handle(Request{JobEndRequest{req.job}}, Caller{});

    // The baseline: DmodK routing the same fabric flows, on the same fabric object.
    const RouteRequest rr{generated, built.flows};
    const auto d0 = Clock::now();
    const std::vector<Path> p = alg->route(rr);
    dmodk.push_back(std::chrono::duration<double, std::milli>(Clock::now() - d0).count());
  }
  const double base = median(dmodk);
  std::printf(
      "%-12s %-11s %6llu %6llu %4g/%-3g %8.2f %8.2f %8.2f %8.2f %8.3f  %7.1fx %7.1fx %6llu\n",
      c.label, c.pattern, static_cast<unsigned long long>(flows),
      static_cast<unsigned long long>(entries), ld, bound, median(total), median(route),
      median(compile), median(install), base, median(route) / base, median(total) / base,
      static_cast<unsigned long long>(mads));
}

/// OpenSM-sized tables (LIDs 0..max) for every switch, as the glue hands them over.
struct GlueTables {
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<osmsdn_lft> lfts;
  GlueTables(const Fabric& f, std::size_t entries) {
    for (const NodeIdx s : f.switches()) {
      bytes.emplace_back(entries, OSMSDN_NO_PATH);
      lfts.push_back(osmsdn_lft{f.node(s).guid.value(), bytes.back().data(),
                                static_cast<std::uint32_t>(entries)});
    }
  }
};

/// The sdn engine's step: the subnet copied from the glue's structs, DmodK's tables per
/// destination, written into the glue's tables. Baseline in the same run: the same step with
/// the tables from every HCA pair (lfts_from_destination_routes, the engine before the
/// per-destination LFT fill).
void engine_case(const char* label, const char* xgft, int reps) {
  const Fabric generated = generate_xgft(XgftParams::parse(xgft));
  const LidMap lids = sequential_lids(generated);
  const test::AbiBuffers abi = test::to_abi(generated, lids);
  GlueTables now(generated, lids.max_lid().value() + 1u);
  GlueTables then(generated, lids.max_lid().value() + 1u);
  std::vector<double> engine;
  std::vector<double> tables;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    Subnet f = subnet_from_abi(abi.view);
    const auto t1 = Clock::now();
    const SdnTables t = compute_sdn_tables(f);
    const auto t2 = Clock::now();
    write_tables(f, t.lfts, now.lfts);
    engine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    tables.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::vector<double> all_pairs;
  for (int i = 0; i < (generated.hcas().size() > 2000 ? 1 : reps); ++i) {
    const auto t0 = Clock::now();
    Subnet f = subnet_from_abi(abi.view);
    if (!recognize_xgft(f.fabric, nullptr)) return;
    const LftSet old = lfts_from_destination_routes(f.fabric, f.lids, *make_algorithm("dmodk"));
    write_tables(f, old, then.lfts);
    all_pairs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::printf("%-12s %6zu %6zu %9.2f %9.2f %10.1f %9.4f %s\n", label, generated.hcas().size(),
              generated.switches().size(), median(engine), median(tables), median(all_pairs),
              median(engine) / median(all_pairs),
              now.bytes == then.bytes ? "identical" : "TABLES DIFFER");
}

}  // namespace
}  // namespace ibsdn::plugin

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  using ibsdn::plugin::Case;
  std::vector<Case> cases = {{"full-1024", "3;16,16,4;1,16,16", "random-perm", 0},
                             {"full-1024", "3;16,16,4;1,16,16", "3dnn", 0},
                             {"full-1024", "3;16,16,4;1,16,16", "random4", 0}};
  if (!quick) {
    cases.push_back({"curie-6750", "3;15,15,30;1,15,15", "random-perm", 0});
    cases.push_back({"curie-6750", "3;15,15,30;1,15,15", "3dnn", 4096});
  }
  std::printf(
      "sdn routing engine in-process (osmsdn_compute_lfts's work: subnet copy, DmodK tables per\n"
      "destination, written into OpenSM-sized tables); medians in ms of %d runs; baseline: the\n"
      "same with the all-pairs table builder (1 run beyond 2000 hosts)\n\n",
      quick ? 3 : 7);
  std::printf("%-12s %6s %6s %9s %9s %10s %9s %s\n", "fabric", "hosts", "swit.", "engine", "tables",
              "all-pairs", "eng/all", "tables");
  ibsdn::plugin::engine_case("full-1024", "3;16,16,4;1,16,16", quick ? 3 : 7);
  if (!quick) ibsdn::plugin::engine_case("curie-6750", "3;15,15,30;1,15,15", 7);
  std::printf("\n");
  std::printf(
      "job_start in-process (JobController, agents' responder logic, no simulator); medians in "
      "ms;\n"
      "ratios: the controller's routing and its whole job_start against DmodK routing the same\n"
      "flows in the same run\n\n");
  std::printf("%-12s %-11s %6s %6s %8s %8s %8s %8s %8s %8s  %8s %8s %6s\n", "fabric", "pattern",
              "flows", "entr.", "L_D/bnd", "total", "route", "compile", "install", "dmodk",
              "route/dk", "total/dk", "MADs");
  for (const Case& c : cases) ibsdn::plugin::run_case(c, quick ? 3 : 7);
  return 0;
}
