// ibsdn-sim topo: build a topology and describe it (issue 2: --netlist OUT exports it).
#include <cstdio>
#include <memory>

#include "sim_backend/commands.hpp"

namespace ibsdn {

void add_topo_command(CLI::App& app) {
  auto spec = std::make_shared<TopologySpec>();
  CLI::App* cmd = app.add_subcommand("topo", "generate or load a topology and describe it");
  add_topology_options(*cmd, *spec);
  cmd->callback([spec]() {
    const Fabric f = build_topology(*spec);
    std::printf("%s: %zu compute nodes, %zu switches, %zu cables\n", f.kind_label.c_str(),
                f.hcas().size(), f.switches().size(), f.num_links() / 2);
  });
}

}  // namespace ibsdn
