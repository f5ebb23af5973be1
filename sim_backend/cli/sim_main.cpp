#include "sim_backend/cli/sim_main.hpp"

#include <cstdio>
#include <exception>

#include "sim_backend/cli/commands.hpp"
#include "sim_backend/io/input_error.hpp"

namespace ibsdn {

int sim_main(int argc, const char* const* argv) {
  CLI::App app{"ibsdn-sim: generate fabrics, route communication patterns, simulate"};
  app.require_subcommand(1);
  add_topo_command(app);
  add_route_command(app);
  add_list_command(app);
  add_lft_quality_command(app);
  add_trace_command(app);
  add_run_command(app);
  add_paths_command(app);
  add_flows_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    // A command's own exit status, the problem already reported (run: 1 or 2).
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a usage error 2, whatever CLI11's own code for it.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const InputError& e) {
    std::fprintf(stderr, "ibsdn-sim: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibsdn-sim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ibsdn
