// The links the timing simulator (timing_sim.hpp) gives the flow engine, and what it reads back
// from them: the fabric's network links in LinkId order, then every node's GPU pair links (one
// per ordered pair of the GPUs its jobs' ranks use, gpu_link_factor x the node's network link
// bandwidth), and the bytes each network link carried per sample interval.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "routing/fabric.hpp"
#include "sim_backend/flowmodel/flow_engine.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

inline constexpr double kBytesPerGbps = 1e9 / 8;

/// A host's link bandwidth (Gb/s): its fastest cabled port's. Throws std::invalid_argument for a
/// host without a cabled port.
double host_bandwidth(const Fabric& fabric, NodeIdx n);

/// The engine's links of one run: the network's, then the GPU pair links of the nodes that run
/// more than one rank.
class TimingLinks {
 public:
  /// A job runs `gpus` ranks on node `n`: the node gets links between that many GPUs at least.
  void use_gpus(NodeIdx n, std::uint32_t gpus) {
    std::uint32_t& k = gpus_[n.value()];
    k = std::max(k, gpus);
  }
  /// Network links first (LinkId order), then every node's GPU pair links. Throws
  /// std::invalid_argument when they are more than kMaxLinks, or for a node without a cabled
  /// port.
  std::vector<FlowLink> make(const Fabric& fabric, const TimingOptions& options);
  /// The link from GPU `a` to GPU `b` (a != b) of `node`, once make() has numbered them.
  [[nodiscard]] LinkId gpu_link(NodeIdx node, std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t k = gpus_.at(node.value());
    return LinkId{gpu_base_.at(node.value()) + a * (k - 1) + (b < a ? b : b - 1)};
  }

 private:
  static constexpr std::uint64_t kMaxLinks = 64'000'000;

  std::unordered_map<std::uint32_t, std::uint32_t> gpus_;      // node -> GPU slots in use
  std::unordered_map<std::uint32_t, std::uint32_t> gpu_base_;  // node -> first GPU link
};

/// The bytes each network link carried in each sample interval (TimingOptions::sample_interval).
class LinkSampler {
 public:
  /// Samples the engine's links 0 .. links - 1 from time 0.
  void start(std::size_t links) { last_bytes_.assign(links, 0.0); }
  /// The bytes each link carried since the last sample, as the next interval's, appended to
  /// `out` for the links that carried any; nothing once `max_samples` intervals are recorded.
  void record(const FlowEngine& engine, std::uint32_t max_samples, std::vector<LinkSample>& out);

 private:
  std::vector<double> last_bytes_;
  std::uint32_t interval_ = 0;  // the next sample's interval
};

}  // namespace ibsdn
