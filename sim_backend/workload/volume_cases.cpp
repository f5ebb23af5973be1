#include "sim_backend/workload/volume_cases.hpp"

#include <stdexcept>

#include "routing/patterns/mapping.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/workload/job_builder.hpp"

namespace ibsdn {
namespace {

constexpr std::uint64_t kUnitBytes = std::uint64_t{1} << 20;
// FT's all-to-all has ranks^2 rank pairs: 2048 ranks are 4 M pairs (64 MiB), 4096 would be 16 M;
// the tests keep to 512 (256 K pairs), which a sanitizer build generates in a moment.
constexpr std::uint32_t kBenchAllToAllRanks = 2048;
constexpr std::uint32_t kTestAllToAllRanks = 512;

const VolumeTopology k2L64{"2L-64", "2;8,8;1,8", true};
const VolumeTopology k2L256{"2L-256", "2;16,16;1,16", true};
const VolumeTopology k3L512{"3L-512", "3;8,8,8;1,8,8", true};
const VolumeTopology k3L512Tapered{"3L-512-tapered", "3;8,8,8;1,4,4", false};

void add_jobs(std::vector<VolumeCase>& out, const VolumeTopology& t,
              std::initializer_list<std::uint32_t> job_nodes, std::uint64_t seeds,
              std::uint32_t max_all_to_all_ranks,
              std::span<const VolumeTraffic> kinds = volume_traffic_kinds()) {
  for (const std::uint32_t nodes : job_nodes) {
    for (const VolumeTraffic kind : kinds) {
      for (const std::uint32_t rpn : {8u, 16u}) {
        if (kind == VolumeTraffic::kFt && nodes * rpn > max_all_to_all_ranks) continue;
        for (const Mapping m : {Mapping::kBlock, Mapping::kCyclic}) {
          for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            out.push_back(VolumeCase{t, kind, nodes, rpn, m, seed, false});
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<VolumeTopology> volume_topologies() {
  return {k2L64, k2L256, k3L512, k3L512Tapered};
}

std::string VolumeCase::name() const {
  return std::string(topology.label) + " " + std::string(to_string(traffic)) + " " +
         std::to_string(nodes) + "n " + std::to_string(ranks_per_node) + "rpn " +
         std::string(to_string(mapping)) + " s" + std::to_string(seed) + (unit ? " unit" : "");
}

std::vector<VolumeCase> volume_cases(VolumeCaseScale scale) {
  std::vector<VolumeCase> out;
  if (scale == VolumeCaseScale::kTest) {
    add_jobs(out, k2L64, {32}, 1, kTestAllToAllRanks);
    add_jobs(out, k2L256, {64}, 1, kTestAllToAllRanks);
    add_jobs(out, k3L512, {32}, 1, kTestAllToAllRanks);
    add_jobs(out, k3L512Tapered, {64}, 1, kTestAllToAllRanks);
    // Half the tapered tree's hosts: stencils whose heavy faces cannot all be split evenly over
    // the leaves' up links (the single-path bound exceeds the splittable one).
    constexpr VolumeTraffic kStencils[] = {VolumeTraffic::kStencil27, VolumeTraffic::kStencilAxes};
    add_jobs(out, k3L512Tapered, {128}, 1, kTestAllToAllRanks, kStencils);
  } else {
    add_jobs(out, k2L64, {32, 64}, 2, kBenchAllToAllRanks);
    add_jobs(out, k2L256, {64, 256}, 2, kBenchAllToAllRanks);
    add_jobs(out, k3L512, {128, 256}, 2, kBenchAllToAllRanks);
    add_jobs(out, k3L512Tapered, {128, 256}, 2, kBenchAllToAllRanks);
  }
  return out;
}

std::vector<Flow> volume_case_flows(const Fabric& f, const VolumeCase& c) {
  JobSpec job;
  job.nodes = c.nodes;
  job.selection = c.nodes < f.hcas().size() ? "random" : "linear";
  job.seed = c.seed;
  const std::vector<NodeIdx> nodes = select_nodes(f, job);
  const std::uint32_t ranks = c.nodes * c.ranks_per_node;
  // Another stream than the node draw's, so that the traffic does not follow the placement.
  const std::vector<RankFlow> rank_flows =
      volume_traffic(c.traffic, ranks, c.seed * 0x9E3779B97F4A7C15ULL + 1);
  std::vector<Flow> flows =
      to_fabric_flows(rank_flows, map_ranks(nodes, c.ranks_per_node, c.mapping, ranks));
  if (c.unit) {
    for (Flow& fl : flows) fl.bytes = kUnitBytes;
  }
  return flows;
}

const Fabric& VolumeCaseFabrics::get(const VolumeTopology& t) {
  auto& slot = by_xgft_[t.xgft];
  if (!slot) slot = std::make_unique<Fabric>(generate_xgft(XgftParams::parse(t.xgft)));
  return *slot;
}

}  // namespace ibsdn
