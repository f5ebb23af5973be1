#include "routing/patterns/mapping.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace ibsdn {

std::vector<NodeIdx> map_ranks(std::span<const NodeIdx> nodes, std::uint32_t ranks_per_node,
                               Mapping mapping, std::uint32_t ranks) {
  if (ranks_per_node == 0) throw std::invalid_argument("ranks per node must be at least 1");
  const std::uint64_t capacity = std::uint64_t{nodes.size()} * ranks_per_node;
  if (ranks > capacity) {
    throw std::invalid_argument(std::to_string(ranks) + " ranks do not fit on " +
                                std::to_string(nodes.size()) + " nodes with " +
                                std::to_string(ranks_per_node) + " ranks per node");
  }
  std::vector<NodeIdx> out(ranks);
  for (std::uint32_t i = 0; i < ranks; ++i) {
    out[i] = nodes[mapping == Mapping::kBlock ? i / ranks_per_node : i % nodes.size()];
  }
  return out;
}

std::uint32_t default_ranks_per_node(const Fabric& fabric, std::span<const NodeIdx> nodes) {
  std::uint32_t common = 0;
  for (const NodeIdx n : nodes) {
    if (!n.valid() || n.value() >= fabric.num_nodes() || !fabric.node(n).is_hca()) {
      throw std::invalid_argument("ranks per node: node " +
                                  (n.valid() ? std::to_string(n.value()) : std::string("none")) +
                                  " is not an HCA of the fabric");
    }
    const Node& node = fabric.node(n);
    const std::uint32_t gpus = node.gpus == 0 ? 1u : node.gpus;
    if (common != 0 && gpus != common) {
      throw std::invalid_argument("ranks per node: " + node.name + " has " + std::to_string(gpus) +
                                  " GPUs, the nodes before it " + std::to_string(common) +
                                  "; give the ranks per node explicitly");
    }
    common = gpus;
  }
  return common == 0 ? 1u : common;
}

std::vector<Flow> to_fabric_flows(std::span<const RankFlow> rank_flows,
                                  std::span<const NodeIdx> rank_to_node) {
  const auto node_of = [&](std::uint32_t rank) {
    if (rank >= rank_to_node.size() || !rank_to_node[rank].valid()) {
      throw std::invalid_argument("rank " + std::to_string(rank) + " has no node (" +
                                  std::to_string(rank_to_node.size()) + " ranks mapped)");
    }
    return rank_to_node[rank];
  };
  std::vector<Flow> flows;
  std::unordered_map<std::uint64_t, std::size_t> index_of;  // (src node, dst node) -> flows[i]
  for (const RankFlow& rf : rank_flows) {
    const NodeIdx src = node_of(rf.src);
    const NodeIdx dst = node_of(rf.dst);
    if (src == dst) continue;
    const std::uint64_t key = std::uint64_t{src.value()} << 32 | dst.value();
    const auto [it, inserted] = index_of.try_emplace(key, flows.size());
    if (inserted) {
      flows.push_back(Flow{.src = src, .dst = dst, .bytes = rf.bytes});
    } else {
      Flow& f = flows[it->second];
      f.bytes += rf.bytes;
      ++f.multiplicity;
    }
  }
  set_weights(flows);
  return flows;
}

}  // namespace ibsdn
