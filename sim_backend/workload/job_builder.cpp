#include "sim_backend/workload/job_builder.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "routing/patterns/mapping.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn {

std::vector<NodeIdx> select_nodes(const Fabric& f, const JobSpec& spec) {
  const auto total = static_cast<std::uint32_t>(f.hcas().size());
  const std::uint32_t want = spec.nodes == 0 ? total : spec.nodes;
  if (want > total) {
    throw std::invalid_argument("--nodes " + std::to_string(want) + " exceeds the fabric's " +
                                std::to_string(total) + " compute nodes");
  }
  std::vector<NodeIdx> nodes;
  if (spec.selection == "linear") {
    if (spec.first_node > total - want) {
      throw std::invalid_argument("--first-node " + std::to_string(spec.first_node) +
                                  " leaves fewer than " + std::to_string(want) + " nodes");
    }
    nodes.assign(f.hcas().begin() + spec.first_node, f.hcas().begin() + spec.first_node + want);
  } else if (spec.selection == "random") {
    // PFSim's random node selection: a seeded sample without replacement (a node is allocated
    // to the job at most once, as a scheduler does), kept in host order.
    std::vector<std::uint32_t> idx(total);
    std::iota(idx.begin(), idx.end(), 0u);
    std::mt19937_64 rng(spec.seed ^ 0x5eed5e1ec7ULL);
    std::shuffle(idx.begin(), idx.end(), rng);
    idx.resize(want);
    std::sort(idx.begin(), idx.end());
    for (auto i : idx) nodes.push_back(f.hcas()[i]);
  } else {
    throw std::invalid_argument("--node-selection must be 'linear' or 'random', not '" +
                                spec.selection + "'");
  }
  return nodes;
}

BuiltJob build_job(const Fabric& f, const JobSpec& spec) {
  BuiltJob job;
  job.nodes = select_nodes(f, spec);
  const auto want = static_cast<std::uint32_t>(job.nodes.size());
  job.ranks_per_node =
      spec.ranks_per_node ? spec.ranks_per_node : default_ranks_per_node(f, job.nodes);
  job.ranks = want * job.ranks_per_node;
  const PatternSpec pattern = PatternSpec::parse(spec.pattern);
  std::vector<RankFlow> rf;
  if (pattern.name == "matrix") {
    // The file itself rather than generate_pattern(), which keeps the flows only: the report
    // counts the pairs it skipped.
    TrafficMatrix matrix = read_traffic_matrix(pattern.file, job.ranks);
    rf = std::move(matrix.flows);
    job.matrix_skipped = matrix.skipped;
  } else {
    rf = generate_pattern(pattern, job.ranks, spec.seed);
  }
  job.rank_flows = rf.size();
  const auto rank_to_node =
      map_ranks(job.nodes, job.ranks_per_node, parse_mapping(spec.mapping), job.ranks);
  job.flows = to_fabric_flows(rf, rank_to_node);
  return job;
}

}  // namespace ibsdn
