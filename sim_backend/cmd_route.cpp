// ibsdn-sim route: route a pattern on a topology and report L_D against its bound.
#include <memory>

#include "sim_backend/commands.hpp"

namespace ibsdn {

void add_route_command(CLI::App& app) {
  auto spec = std::make_shared<TopologySpec>();
  CLI::App* cmd = app.add_subcommand("route", "route a communication pattern and report L_D");
  add_topology_options(*cmd, *spec);
  cmd->callback([spec]() { (void)build_topology(*spec); });
}

}  // namespace ibsdn
