// ibsdn-sim flows: runs a flow case (sim_backend/flowmodel/flow_case.hpp) through the flow-level
// model and prints every message's completion time, the output the SimGrid comparison reads.
#include <cstdio>
#include <memory>
#include <string>

#include "sim_backend/cli/commands.hpp"
#include "sim_backend/flowmodel/flow_case.hpp"
#include "sim_backend/flowmodel/flow_model.hpp"
#include "sim_backend/io/input_error.hpp"

namespace ibsdn {
namespace {

struct FlowsOptions {
  std::string file;
  bool full = false;
  std::string sharing = "max-min";
};

void run_flows(const FlowsOptions& o) {
  FlowCase c;
  try {
    c = read_flow_case_file(o.file);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  FlowModelOptions options;
  options.solve = o.full ? FlowSolve::kFull : FlowSolve::kIncremental;
  options.sharing = o.sharing == "cm02" ? FlowSharing::kCm02 : FlowSharing::kMaxMin;
  const std::vector<double> done = simulate_flows(c.links, c.messages, options);
  const std::string text = format_completions(c.messages, done);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

}  // namespace

void add_flows_command(CLI::App& app) {
  auto o = std::make_shared<FlowsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "flows", "run a flow case through the flow-level model; print 'ID COMPLETION' per message");
  cmd->add_option("case", o->file, "flow case file (docs/simulation-flow.md)")->required();
  cmd->add_flag("--full", o->full, "re-solve every flow at every event (for comparison)");
  cmd->add_option("--sharing", o->sharing,
                  "max-min: every flow weighs 1; cm02: SimGrid's CM02 weighs a flow by 1 / its "
                  "route latency")
      ->check(CLI::IsMember({"max-min", "cm02"}))
      ->default_val("max-min");
  cmd->callback([o]() { run_flows(*o); });
}

}  // namespace ibsdn
