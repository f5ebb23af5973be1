#include "sim_backend/timing/timing_job_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ibsdn {

void check_timing_job(const Fabric& fabric, const TimingJob& job) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("timing: job " + std::to_string(job.id) + ": " + what);
  };
  if (!(job.start >= 0) || !std::isfinite(job.start)) fail("start is not a finite time >= 0");
  if (job.nodes.empty()) fail("no nodes");
  std::vector<NodeIdx> sorted = job.nodes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) fail("a node twice");
  for (const NodeIdx n : job.nodes) {
    if (!n.valid() || n.value() >= fabric.num_nodes() || !fabric.node(n).is_hca()) {
      fail("node " + std::to_string(n.value()) + " is not a host of the fabric");
    }
  }
  if (job.background) {
    const BackgroundTraffic& b = *job.background;
    if (!(b.bytes > 0) || b.bytes > static_cast<double>(kMaxAppMessageBytes)) {
      fail("background message size not in (0, 1 TiB]");
    }
    if (!(b.load > 0) || b.load > 1) fail("background load not in (0, 1]");
    if (!(b.duration >= 0) || !std::isfinite(b.duration)) {
      fail("background duration not finite and >= 0");
    }
    if (job.nodes.size() < 2) fail("background traffic needs 2 nodes or more");
    if (!job.phases.empty()) fail("a background job has no phases");
    return;
  }
  if (job.ranks_per_node == 0) fail("0 ranks per node");
  const std::uint64_t places = std::uint64_t{job.nodes.size()} * job.ranks_per_node;
  if (places > std::numeric_limits<std::uint32_t>::max()) fail("too many ranks");
  const std::uint32_t ranks = job.rank_count();
  if (ranks == 0 || ranks > places) {
    fail(std::to_string(ranks) + " ranks on " + std::to_string(places) + " places");
  }
  if (job.phases.empty()) fail("no phase");
  for (const TimingPhase& p : job.phases) {
    const std::string where = "phase '" + p.name + "': ";
    if (p.iterations == 0) fail(where + "0 iterations");
    if (p.compute.size() != 1 && p.compute.size() != ranks) {
      fail(where + std::to_string(p.compute.size()) + " compute times for " +
           std::to_string(ranks) + " ranks (1 or one per rank)");
    }
    for (const double c : p.compute) {
      if (!(c >= 0) || !std::isfinite(c)) fail(where + "a compute time not finite and >= 0");
    }
    if (!p.collective.empty() && p.collective.size() != p.messages.size()) {
      fail(where + "collective flags for " + std::to_string(p.collective.size()) + " of " +
           std::to_string(p.messages.size()) + " messages");
    }
    for (const RankFlow& m : p.messages) {
      if (m.src >= ranks || m.dst >= ranks || m.src == m.dst || m.bytes == 0) {
        fail(where + "message " + std::to_string(m.src) + " -> " + std::to_string(m.dst) + " (" +
             std::to_string(m.bytes) + " bytes): ranks out of range, equal, or no bytes");
      }
    }
  }
}

PhasePlan plan_phase(const TimingJob& job, const TimingPhase& p, std::uint32_t ranks) {
  PhasePlan pp;
  std::vector<std::uint32_t> order(p.messages.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return p.messages[a].src < p.messages[b].src;
  });
  pp.messages.reserve(order.size());
  pp.cls.reserve(order.size());
  for (const std::uint32_t i : order) {
    pp.messages.push_back(p.messages[i]);
    const bool collective = !p.collective.empty() && p.collective[i] != 0;
    pp.cls.push_back(collective && job.collective_class ? *job.collective_class
                                                        : job.traffic_class);
  }
  pp.out_begin.assign(ranks + 1, 0);
  pp.in_degree.assign(ranks, 0);
  for (const RankFlow& m : pp.messages) {
    ++pp.out_begin[m.src + 1];
    ++pp.in_degree[m.dst];
  }
  for (std::uint32_t r = 0; r < ranks; ++r) pp.out_begin[r + 1] += pp.out_begin[r];
  return pp;
}

}  // namespace ibsdn
