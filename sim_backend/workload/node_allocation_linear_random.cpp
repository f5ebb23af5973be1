// linear and random: the two structure-free policies (PFSim's node selectors), on any fabric.
#include <algorithm>
#include <memory>

#include "sim_backend/workload/unit_placement.hpp"

namespace ibsdn {

namespace {

// One unit per cabled HCA, in the fabric's host order, all in one group.
UnitLayout flat_layout(const Fabric& f) {
  UnitLayout l;
  for (const NodeIdx h : f.hcas()) {
    const auto& ports = f.node(h).ports;
    if (std::any_of(ports.begin(), ports.end(), [](const Port& p) { return p.connected(); })) {
      l.slots.push_back(h);
    }
  }
  l.group_first_unit = {0, static_cast<std::uint32_t>(l.slots.size())};
  return l;
}

}  // namespace

// Round robin over a single group is "the lowest free node, again and again".
std::unique_ptr<NodeAllocator> make_linear_allocator(const Fabric& f,
                                                     const NodeAllocationOptions& options) {
  return std::make_unique<UnitPlacement>("linear", f, flat_layout(f), UnitOrder::kRoundRobin, true,
                                         options.seed);
}

std::unique_ptr<NodeAllocator> make_random_allocator(const Fabric& f,
                                                     const NodeAllocationOptions& options) {
  return std::make_unique<UnitPlacement>("random", f, flat_layout(f), UnitOrder::kRandom, true,
                                         options.seed);
}

}  // namespace ibsdn
