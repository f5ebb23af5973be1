#include "sim_backend/cli/commands.hpp"

namespace ibsdn {

void add_topology_options(CLI::App& cmd, TopologySpec& spec) {
  auto* g = cmd.add_option_group("topology", "exactly one topology source");
  g->add_option("--xgft", spec.xgft, "XGFT as 'h;m1,..,mh;w1,..,wh', e.g. '3;8,8,16;1,8,8'");
  g->add_option("--dragonfly", spec.dragonfly, "1D dragonfly as 'p,a,h,g'");
  g->add_option("--megafly", spec.megafly,
                "megafly as 'nodes_per_leaf,leaves,spines,global_per_spine,groups'");
  g->add_option("--pod-tree", spec.pod_tree,
                "CODES-style fat-tree of pods as 'pods,leaves,hosts,aggregates,tops' (every top "
                "cabled to every aggregate), e.g. '4,16,24,8,16'");
  g->add_option("--netlist-in", spec.netlist_in, "ibsim netlist or ibnetdiscover output file");
  g->require_option(1);
  cmd.add_option("--gpus-per-node", spec.gpus_per_node, "GPUs per compute node")
      ->default_val(1)
      ->check(CLI::Range(0, 64));
  cmd.add_option("--gbps", spec.gbps, "link capacity in Gb/s")
      ->default_val(100.0)
      ->check(CLI::PositiveNumber);
  cmd.add_option("--fail-cables", spec.fail_cables_percent,
                 "remove this percentage of the switch-to-switch cables (drawn by --fail-seed)")
      ->default_val(0.0)
      ->check(CLI::Range(0.0, 100.0));
  cmd.add_option("--fail-seed", spec.fail_seed, "seed for --fail-cables")->default_val(1);
}

}  // namespace ibsdn
