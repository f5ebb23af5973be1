// ibsdn-sim: topology generation, routing and simulation from the command line.
#include <cstdio>
#include <exception>

#include "sim_backend/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ibsdn-sim: generate fabrics, route communication patterns, simulate"};
  app.require_subcommand(1);
  ibsdn::add_topo_command(app);
  ibsdn::add_route_command(app);
  ibsdn::add_list_command(app);
  ibsdn::add_lft_quality_command(app);
  ibsdn::add_trace_command(app);
  ibsdn::add_run_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibsdn-sim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
