// Builds a fabric from the topology options shared by ibsdn-sim's subcommands and the benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "routing/fabric.hpp"

namespace ibsdn {

struct TopologySpec {
  std::string xgft;        // "3;8,8,16;1,8,8"
  std::string dragonfly;   // "p,a,h,g"
  std::string megafly;     // "nodes_per_leaf,leaves,spines,global_per_spine,groups"
  std::string pod_tree;    // "pods,leaves,hosts,aggregates,tops" (routing/pod_tree.hpp)
  std::string netlist_in;  // path to an ibsim netlist / ibnetdiscover file
  int gpus_per_node = 1;
  double gbps = 100.0;
  /// Percentage of the switch-to-switch cables to remove (0-100), drawn with `fail_seed`: a
  /// fabric with failed cables, as production trees have.
  double fail_cables_percent = 0.0;
  std::uint64_t fail_seed = 1;
};

/// Exactly one of the topology sources must be set; failed cables are removed after, and the
/// result recognised again (a degraded XGFT is still a fat-tree). Throws std::invalid_argument
/// otherwise, and for malformed parameters or files (with the file's line in the message).
Fabric build_topology(const TopologySpec& spec);

}  // namespace ibsdn
