// ibsdn-sim topo: build a topology, describe it, optionally write it as an ibsim netlist.
#include <cstdio>
#include <memory>
#include <string>

#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/netlist.hpp"
#include "sim_backend/cli/commands.hpp"
#include "sim_backend/io/text_file.hpp"

namespace ibsdn {

void add_topo_command(CLI::App& app) {
  auto spec = std::make_shared<TopologySpec>();
  auto netlist_out = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("topo", "generate or load a topology and describe it");
  add_topology_options(*cmd, *spec);
  cmd->add_option("--netlist", *netlist_out,
                  "write the fabric as an ibsim netlist to this file ('-' for stdout)");
  cmd->callback([spec, netlist_out]() {
    Fabric f = build_topology(*spec);
    // With the netlist on stdout, the summary goes to stderr so the netlist stays loadable.
    std::FILE* summary = stdout;
    if (!netlist_out->empty()) {
      const std::string text = export_ibsim_netlist(f);
      if (*netlist_out == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        summary = stderr;
      } else {
        write_text_file(*netlist_out, text, "netlist");
      }
    }
    std::fprintf(summary, "%s: %zu compute nodes, %zu switches, %zu cables\n", f.kind_label.c_str(),
                 f.hcas().size(), f.switches().size(), f.num_links() / 2);
    // parse_netlist recognised what it could: say why it is not more, or what is missing.
    if (!spec->netlist_in.empty() && f.fat_tree() == nullptr) {
      std::string why;
      std::string df_why;
      if (fat_tree_label(f, &why).empty() && !recognize_dragonfly(f, &df_why)) {
        std::fprintf(stderr, "not a fat-tree: %s\nnot a dragonfly: %s\n", why.c_str(),
                     df_why.c_str());
      } else if (!df_why.empty()) {
        std::fprintf(stderr, "%s: %s\n", f.kind_label.c_str(), df_why.c_str());
      }
    }
  });
}

}  // namespace ibsdn
