// ibsdn-sim list: the routing algorithms and patterns this build knows.
#include <cstdio>

#include "routing/algorithm.hpp"
#include "routing/patterns/pattern.hpp"
#include "sim_backend/cli/commands.hpp"

namespace ibsdn {

void add_list_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("list", "list routing algorithms and communication patterns");
  cmd->callback([]() {
    std::printf("algorithms:\n");
    for (const std::string& n : algorithm_names()) {
      std::printf("  %-22s %s\n", n.c_str(), std::string(make_algorithm(n)->summary()).c_str());
    }
    std::printf("patterns:\n");
    for (const std::string& n : pattern_names()) {
      std::string opts;
      for (const std::string& o : pattern_options(n)) opts += (opts.empty() ? "" : ",") + o;
      std::printf("  %-22s %s [%s]\n", n.c_str(), std::string(pattern_summary(n)).c_str(),
                  opts.c_str());
    }
  });
}

}  // namespace ibsdn
