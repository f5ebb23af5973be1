#include "sim_backend/timing/timing_links.hpp"

#include <stdexcept>
#include <string>

namespace ibsdn {

double host_bandwidth(const Fabric& fabric, NodeIdx n) {
  const Node& node = fabric.node(n);
  double gbps = 0;
  for (const Port& p : node.ports) {
    if (p.connected()) gbps = std::max(gbps, p.gbps);
  }
  if (gbps <= 0) throw std::invalid_argument("timing: host " + node.name + " has no cabled port");
  return gbps;
}

std::vector<FlowLink> TimingLinks::make(const Fabric& fabric, const TimingOptions& options) {
  const std::size_t network_links = fabric.num_links();
  std::vector<FlowLink> links;
  links.reserve(network_links);
  for (std::size_t l = 0; l < network_links; ++l) {
    const Link& link = fabric.link(LinkId{static_cast<std::uint32_t>(l)});
    links.push_back({"", link.gbps * kBytesPerGbps, options.link_latency});
  }
  std::vector<std::uint32_t> nodes;
  for (const auto& [n, k] : gpus_) {
    if (k >= 2) nodes.push_back(n);
  }
  std::sort(nodes.begin(), nodes.end());
  std::uint64_t total = links.size();
  for (const std::uint32_t n : nodes) total += std::uint64_t{gpus_[n]} * (gpus_[n] - 1);
  if (total > kMaxLinks) {
    throw std::invalid_argument("timing: " + std::to_string(total) +
                                " links with the GPU links, more than " +
                                std::to_string(kMaxLinks));
  }
  for (const std::uint32_t n : nodes) {
    const double gbps = host_bandwidth(fabric, NodeIdx{n});
    gpu_base_[n] = static_cast<std::uint32_t>(links.size());
    const std::uint32_t k = gpus_[n];
    for (std::uint64_t i = 0; i < std::uint64_t{k} * (k - 1); ++i) {
      links.push_back(
          {"", options.gpu_link_factor * gbps * kBytesPerGbps, options.gpu_link_latency});
    }
  }
  return links;
}

void LinkSampler::record(const FlowEngine& engine, std::uint32_t max_samples,
                         std::vector<LinkSample>& out) {
  if (interval_ >= max_samples) return;
  for (std::size_t l = 0; l < last_bytes_.size(); ++l) {
    const double bytes = engine.link_bytes(LinkId{static_cast<std::uint32_t>(l)});
    if (bytes > last_bytes_[l]) {
      out.push_back({interval_, LinkId{static_cast<std::uint32_t>(l)}, bytes - last_bytes_[l]});
    }
    last_bytes_[l] = bytes;
  }
  ++interval_;
}

}  // namespace ibsdn
