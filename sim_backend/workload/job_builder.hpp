// Turns a job description (pattern, node count, node selection, ranks per node, mapping) into
// fabric flows: the path from `--pattern 3dnn --nodes 64` to what the routing algorithms take.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/patterns/traffic_matrix.hpp"

namespace ibsdn {

struct JobSpec {
  std::string pattern = "random-perm";  // a PatternSpec text, e.g. "shift:k=3"
  std::uint32_t nodes = 0;              // compute nodes of the job; 0 = every node of the fabric
  std::string selection = "linear";     // linear: nodes first_node.. in host order; random: seeded
                                        // sample without replacement (each node at most once)
  std::uint32_t first_node = 0;
  std::uint32_t ranks_per_node = 0;  // 0 = the nodes' GPUs per node
  std::string mapping = "block";     // block | cyclic
  std::uint64_t seed = 1;
};

struct BuiltJob {
  std::vector<NodeIdx> nodes;
  std::uint32_t ranks = 0;
  std::uint32_t ranks_per_node = 0;
  std::size_t rank_flows = 0;  // rank-to-rank pairs the pattern produced
  std::vector<Flow> flows;     // fabric flows after mapping (intra-node pairs dropped, merged)
  /// matrix:file=F: the pairs the file skipped (self pairs, zero pairs), for the report.
  std::optional<SkippedPairs> matrix_skipped;
};

/// Throws std::invalid_argument naming the option that does not fit the fabric.
BuiltJob build_job(const Fabric& f, const JobSpec& spec);

/// The job's nodes as build_job chooses them from spec.nodes, spec.selection, spec.first_node
/// and spec.seed (the pattern is not looked at). Throws like build_job.
std::vector<NodeIdx> select_nodes(const Fabric& f, const JobSpec& spec);

}  // namespace ibsdn
