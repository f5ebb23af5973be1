// osmsdn-lft-check: checks the LFTs OpenSM dumped (-D 0x43 --dump_files_dir DIR) for the fabric
// of an ibsim netlist. Always: every switch has a table and every HCA reaches every other HCA.
// With --switch-lids: every switch reaches every switch's LID (the "sdn" engine routes them all;
// ftree, for one, leaves spine-to-spine unrouted). With --dmodk: every HCA-LID entry equals the
// one routing/lft.hpp derives from DmodK, computed independently from the netlist.
// Exit 0 when all checks pass, 1 when one fails, 2 on bad input.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/lft.hpp"
#include "routing/netlist.hpp"
#include "tests/integration/tools/opensm_dump_input.hpp"

namespace {

struct Report {
  std::size_t failures = 0;
  void fail(const std::string& what) {
    if (++failures <= 20) std::cout << "FAIL: " << what << "\n";
  }
};

/// Follows the LFTs from switch `from` toward switch LID `lid`, owned by switch `owner`.
bool reaches_switch(const ibsdn::Fabric& f, const ibsdn::LftSet& lfts, ibsdn::NodeIdx from,
                    ibsdn::Lid lid, ibsdn::NodeIdx owner) {
  ibsdn::NodeIdx at = from;
  for (int hop = 0; hop <= 64; ++hop) {
    if (!lfts.has_table(at)) return false;
    const ibsdn::PortNum out = lfts.table(at).out(lid);
    if (out == ibsdn::kSwitchPort0) return at == owner;
    if (out == ibsdn::kLftUnset || out.value() > f.node(at).ports.size()) return false;
    const ibsdn::Port& p = f.port(at, out);
    if (!p.connected() || !f.node(p.peer).is_switch()) return false;
    at = p.peer;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Check OpenSM's dumped LFTs against the fabric of an ibsim netlist"};
  std::string netlist;
  std::string dump_dir;
  bool dmodk = false;
  bool switch_lids = false;
  app.add_option("netlist", netlist, "ibsim netlist of the fabric")->required();
  app.add_option("dump_dir", dump_dir, "OpenSM's --dump_files_dir")->required();
  app.add_flag("--dmodk", dmodk, "also require DmodK's entries (the fabric must be an XGFT)");
  app.add_flag("--switch-lids", switch_lids, "also require routes between all switch LIDs");
  CLI11_PARSE(app, argc, argv);

  ibsdn::Fabric f;
  ibsdn::LftSet lfts;
  try {
    lfts = ibsdn::tools::load_netlist_and_dump(netlist, dump_dir, f);
  } catch (const std::exception& e) {
    std::cerr << "osmsdn-lft-check: " << e.what() << "\n";
    return 2;
  }

  Report report;
  std::size_t routed = 0;
  for (const ibsdn::NodeIdx s : f.switches()) routed += lfts.has_table(s) ? 1 : 0;
  if (routed != f.switches().size()) {
    report.fail(std::to_string(f.switches().size() - routed) + " switches have no LFT in the dump");
  }

  std::size_t pairs = 0;
  for (const ibsdn::NodeIdx src : f.hcas()) {
    for (const ibsdn::NodeIdx dst : f.hcas()) {
      if (src == dst) continue;
      ++pairs;
      const ibsdn::Trace t = ibsdn::trace(f, lfts, src, dst);
      if (!t.ok()) report.fail(f.node(src).name + " -> " + f.node(dst).name + ": " + t.error);
    }
  }

  std::size_t switch_routes = 0;
  for (const ibsdn::NodeIdx owner : switch_lids ? f.switches() : std::vector<ibsdn::NodeIdx>{}) {
    const ibsdn::Lid lid = lfts.lids.lid(owner, ibsdn::PortNum(0));
    if (lid.value() == 0) {
      report.fail("switch " + f.node(owner).name + " has no LID");
      continue;
    }
    for (const ibsdn::NodeIdx from : f.switches()) {
      ++switch_routes;
      if (!reaches_switch(f, lfts, from, lid, owner)) {
        report.fail(f.node(from).name + " does not reach switch " + f.node(owner).name + " (LID " +
                    std::to_string(lid.value()) + ")");
      }
    }
  }

  std::size_t compared = 0;
  if (dmodk) {
    if (f.xgft() == nullptr) {
      std::cerr << "osmsdn-lft-check: --dmodk: " << netlist << " is not an XGFT\n";
      return 2;
    }
    const auto alg = ibsdn::make_algorithm("dmodk");
    const ibsdn::LftSet expected = ibsdn::lfts_from_destination_routes(f, lfts.lids, *alg);
    for (const ibsdn::NodeIdx s : f.switches()) {
      if (!expected.has_table(s) || !lfts.has_table(s)) continue;
      for (const ibsdn::NodeIdx h : f.hcas()) {
        const ibsdn::Lid lid = lfts.lids.lid(h);
        const ibsdn::PortNum want = expected.table(s).out(lid);
        if (lid.value() == 0 || want == ibsdn::kLftUnset) continue;
        ++compared;
        const ibsdn::PortNum got = lfts.table(s).out(lid);
        if (got != want) {
          report.fail(f.node(s).name + " sends LID " + std::to_string(lid.value()) + " (" +
                      f.node(h).name + ") to port " + std::to_string(got.value()) +
                      ", DmodK to port " + std::to_string(want.value()));
        }
      }
    }
  }

  std::cout << (report.failures == 0 ? "PASS" : "FAIL") << ": " << f.kind_label << ", " << routed
            << " switch LFTs, " << pairs << " HCA pairs traced";
  if (switch_lids) std::cout << ", " << switch_routes << " switch-to-switch-LID routes";
  if (dmodk) std::cout << ", " << compared << " entries compared with DmodK";
  std::cout << ", " << report.failures << " failures\n";
  return report.failures == 0 ? 0 : 1;
}
