#include "routing/per_destination.hpp"

#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace ibsdn {

bool per_destination_consistent(const Fabric& f, std::span<const Flow> flows,
                                std::span<const Path> paths, std::string* why) {
  if (paths.size() != flows.size()) {
    throw std::invalid_argument("per-destination check: " + std::to_string(paths.size()) +
                                " paths for " + std::to_string(flows.size()) + " flows");
  }
  struct Taken {
    PortNum port;
    std::size_t flow;
  };
  // Keyed by (destination node, switch): the first flow's port there.
  std::unordered_map<std::uint64_t, Taken> taken;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (const LinkId l : paths[i]) {
      const Link& k = f.link(l);
      if (!f.node(k.from).is_switch()) continue;
      const std::uint64_t key = std::uint64_t{flows[i].dst.value()} << 32 | k.from.value();
      const auto [it, fresh] = taken.emplace(key, Taken{k.from_port, i});
      if (fresh || it->second.port == k.from_port) continue;
      if (why != nullptr) {
        const auto flow = [&](std::size_t j) {
          return "flow " + std::to_string(j) + " (" + f.node(flows[j].src).name + " -> " +
                 f.node(flows[j].dst).name + ")";
        };
        *why = "switch " + f.node(k.from).name + " sends traffic for " + f.node(flows[i].dst).name +
               " out of port " + std::to_string(it->second.port.value()) + " for " +
               flow(it->second.flow) + " and port " + std::to_string(k.from_port.value()) +
               " for " + flow(i);
      }
      return false;
    }
  }
  return true;
}

}  // namespace ibsdn
