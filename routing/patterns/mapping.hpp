// Rank-to-node mapping and the step from rank flows to fabric flows.
//
// A job runs `ranks_per_node` ranks on each of its nodes (by default one per GPU, thesis
// chapter 3). Traffic between ranks of one node never enters the fabric, and InfiniBand routes by
// LID pair, so all rank pairs between the same two nodes share one path: they become one Flow.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

/// The node of every rank, indexed by rank. Throws std::invalid_argument when ranks exceed
/// nodes.size() * ranks_per_node, or ranks_per_node is 0.
std::vector<NodeIdx> map_ranks(std::span<const NodeIdx> nodes, std::uint32_t ranks_per_node,
                               Mapping mapping, std::uint32_t ranks);

/// The default ranks per node: the GPUs per node (Node::gpus) the nodes share; a node without
/// GPUs recorded (0) runs one rank. Throws std::invalid_argument when a node is not an HCA of
/// `fabric` or two nodes differ. 1 for no nodes.
std::uint32_t default_ranks_per_node(const Fabric& fabric, std::span<const NodeIdx> nodes);

/// Fabric flows between the nodes of `rank_to_node`: intra-node pairs dropped, pairs that land on
/// the same (src, dst) node pair merged into one Flow (bytes summed, multiplicity counted), in the
/// order of each node pair's first rank flow, with set_weights() applied. Throws
/// std::invalid_argument for a rank without a (valid) node.
std::vector<Flow> to_fabric_flows(std::span<const RankFlow> rank_flows,
                                  std::span<const NodeIdx> rank_to_node);

}  // namespace ibsdn
