// osmsdn-route-check: the integration test's oracle for installed flows. It traces every route
// the controller reported (`ibsdnctl --json route SRC DST`, one response per line) independently:
// through the LFTs OpenSM dumped (-D 0x43 --dump_files_dir DIR) for the fabric of an ibsim
// netlist, overridden by the flow tables read back from the switches (`ibsdnctl --json flows
// --from-switch`), and requires the same hops and the same "flow entry or LFT" marks.
// With --paths FILE instead of --routes, it traces the flows of `ibsdn-sim paths` output (a
// replay's paths for the same jobs) through those tables and prints them in the same form, line
// for line: "job ID" lines as they are, each flow "SRC DST SWITCH:PORT ..." as this fabric
// carries it, its own '#' comments instead of the file's; `diff` against the replay's output
// without its '#' lines shows every flow the two route differently.
// Exit 0 when every route matches (--paths: every flow is delivered), 1 when one differs (is not
// delivered), 2 on bad input.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "flowtable/flow_text.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/lft.hpp"
#include "routing/netlist.hpp"
#include "routing/path_text.hpp"
#include "tests/integration/tools/opensm_dump_input.hpp"

namespace {

using nlohmann::json;

std::uint64_t parse_guid(const std::string& text) {
  return std::stoull(text, nullptr, 16);
}

/// --paths: the flows of FILE traced through `lfts` and `to`'s tables, printed as path lines.
int retrace_paths(const ibsdn::Fabric& f, const ibsdn::LftSet& lfts, const ibsdn::TraceOptions& to,
                  const std::string& text, const std::string& header) {
  std::cout << "# " << header << "\n";
  std::istringstream lines(text);
  std::size_t line_no = 0;
  std::size_t failures = 0;
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    if (line.empty() || line.starts_with("job ")) {
      std::cout << line << "\n";
      continue;
    }
    if (line.starts_with("#")) continue;
    std::istringstream words(line);
    std::string src;
    std::string dst;
    words >> src >> dst;
    const auto s = f.find(src);
    const auto d = f.find(dst);
    if (dst.empty() || !s || !d || !f.node(*s).is_hca() || !f.node(*d).is_hca()) {
      std::cerr << "osmsdn-route-check: --paths line " << line_no
                << ": expected 'SRC DST ...' with two HCAs of the netlist: " << line << "\n";
      return 2;
    }
    const ibsdn::Trace t = ibsdn::trace(f, lfts, *s, *d, to);
    if (!t.ok()) {
      ++failures;
      std::cout << src << " " << dst << " not delivered: " << t.error << "\n";
      continue;
    }
    std::cout << ibsdn::path_line(f, *s, *d, t.path) << "\n";
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trace the controller's routes through OpenSM's LFT dump and the switches' tables"};
  std::string netlist;
  std::string dump_dir;
  std::string switch_flows;
  std::string routes;
  std::string paths;
  app.add_option("--netlist", netlist, "ibsim netlist of the fabric")->required();
  app.add_option("--dump-dir", dump_dir, "OpenSM's --dump_files_dir")->required();
  app.add_option("--switch-flows", switch_flows, "ibsdnctl --json flows --from-switch output")
      ->required();
  auto* routes_opt =
      app.add_option("--routes", routes, "ibsdnctl --json route responses, one per line");
  app.add_option("--paths", paths,
                 "ibsdn-sim paths output: trace its flows and print them in its form")
      ->excludes(routes_opt);
  CLI11_PARSE(app, argc, argv);
  if (routes.empty() == paths.empty()) {
    std::cerr << "osmsdn-route-check: give --routes or --paths\n";
    return 2;
  }

  ibsdn::Fabric f;
  ibsdn::LftSet lfts;
  std::shared_ptr<const ibsdn::FlowTables> tables;
  std::vector<json> reported;
  std::string paths_text;
  try {
    lfts = ibsdn::tools::load_netlist_and_dump(netlist, dump_dir, f);
    std::map<std::uint64_t, ibsdn::NodeIdx> by_guid;
    for (std::uint32_t i = 0; i < f.num_nodes(); ++i) {
      by_guid[f.node(ibsdn::NodeIdx(i)).guid.value()] = ibsdn::NodeIdx(i);
    }
    const json sf = json::parse(ibsdn::tools::read_file(switch_flows));
    std::map<ibsdn::NodeIdx, std::vector<ibsdn::FlowEntry>> entries;
    for (const json& sw : sf.at("switches")) {
      const auto it = by_guid.find(parse_guid(sw.at("guid").get<std::string>()));
      if (it == by_guid.end()) throw std::runtime_error("a switch GUID not in the netlist");
      for (const json& e : sw.at("entries")) {
        entries[it->second].push_back(ibsdn::parse_flow(e.at("text").get<std::string>()));
      }
    }
    tables = std::make_shared<const ibsdn::FlowTables>(ibsdn::build_flow_tables(entries));
    if (!routes.empty()) {
      std::istringstream lines(ibsdn::tools::read_file(routes));
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) reported.push_back(json::parse(line));
      }
    } else {
      paths_text = ibsdn::tools::read_file(paths);
    }
  } catch (const std::exception& e) {
    std::cerr << "osmsdn-route-check: " << e.what() << "\n";
    return 2;
  }

  ibsdn::TraceOptions to;
  to.override_port = ibsdn::flow_table_override(tables);
  if (!paths.empty()) {
    return retrace_paths(f, lfts, to, paths_text,
                         "osmsdn-route-check --paths: traced through " + dump_dir +
                             "/opensm-lfts.dump and the tables of " + switch_flows);
  }
  std::size_t failures = 0;
  std::size_t by_entry = 0;
  for (const json& r : reported) {
    const std::string src = r.at("src").get<std::string>();
    const std::string dst = r.at("dst").get<std::string>();
    const auto s = f.find(src);
    const auto d = f.find(dst);
    if (!s || !d) {
      std::cout << "FAIL: " << src << " -> " << dst << ": host not in the netlist\n";
      ++failures;
      continue;
    }
    const ibsdn::Trace t = ibsdn::trace(f, lfts, *s, *d, to);
    std::ostringstream traced;
    std::ostringstream claimed;
    const ibsdn::PacketHeader h{lfts.lids.lid(*s), lfts.lids.lid(*d)};
    bool entry_used = false;
    for (const ibsdn::LinkId l : t.path) {
      const ibsdn::Link& link = f.link(l);
      const bool flow = ibsdn::winning_entry(*tables, link.from, h) != nullptr;
      entry_used = entry_used || flow;
      traced << f.node(link.from).name << ":" << int(link.from_port.value())
             << (flow ? "(flow) " : " ");
    }
    for (const json& hop : r.at("hops")) {
      claimed << hop.at("node").get<std::string>() << ":" << hop.at("out_port").get<int>()
              << (hop.at("by") == "flow" ? "(flow) " : " ");
    }
    if (!t.ok() || traced.str() != claimed.str()) {
      if (++failures <= 20) {
        std::cout << "FAIL: " << src << " -> " << dst << ": traced "
                  << (t.ok() ? traced.str() : t.error) << "| controller " << claimed.str() << "\n";
      }
      continue;
    }
    by_entry += entry_used ? 1 : 0;
  }
  std::cout << reported.size() - failures << " of " << reported.size() << " routes identical, "
            << by_entry << " through flow entries\n";
  return failures == 0 && !reported.empty() ? 0 : 1;
}
