// Seed 001's job placements on a dragonfly or megafly (section IV.A), as unit placements:
//
//   rdn  random nodes     rdr  random routers     rdc  random chassis     rdg  random groups
//   rrn  nodes round robin across the groups      rrr  routers round robin across the groups
//
// The job's nodes come back in placement order (the paper orders a node's cores consecutively and
// the nodes, routers, chassis or groups as they were drawn or dealt), which is its rank order.
// Routers are the routers with hosts (megafly: the leaves). The project's dragonfly has no
// chassis: a chassis is options.routers_per_chassis consecutive routers of a group, as seed 001's
// machine has 16 routers per chassis; a group's last chassis may be smaller.
#include <memory>
#include <stdexcept>
#include <string>

#include "routing/dragonfly.hpp"
#include "sim_backend/workload/unit_placement.hpp"

namespace ibsdn {

namespace {

enum class Unit : std::uint8_t { kNode, kRouter, kChassis, kGroup };

UnitLayout dragonfly_layout(const Fabric& f, const DragonflyLayout& df, Unit unit,
                            std::uint32_t routers_per_chassis) {
  // Routers with hosts, group by group in group order, and the slots router by router.
  std::vector<std::uint32_t> router_of(f.num_nodes(), kNoUnit);
  std::vector<std::uint32_t> group_first_router{0};
  std::vector<std::uint32_t> chassis_first_router;
  std::vector<std::uint32_t> group_first_chassis{0};
  std::uint32_t routers = 0;
  for (int g = 0; g < df.groups; ++g) {
    std::uint32_t in_group = 0;
    for (const NodeIdx r : df.routers[static_cast<std::size_t>(g)]) {
      if (df.role[r.value()] == RouterRole::kSpine) continue;
      if (in_group++ % routers_per_chassis == 0) chassis_first_router.push_back(routers);
      router_of[r.value()] = routers++;
    }
    group_first_router.push_back(routers);
    group_first_chassis.push_back(static_cast<std::uint32_t>(chassis_first_router.size()));
  }
  chassis_first_router.push_back(routers);
  std::vector<std::vector<NodeIdx>> hosts_of(routers);
  for (const NodeIdx h : df.hosts) {
    hosts_of.at(router_of.at(df.edge_router[h.value()].value())).push_back(h);
  }
  UnitLayout l;
  std::vector<std::uint32_t> router_first_slot{0};
  for (const auto& hosts : hosts_of) {
    l.slots.insert(l.slots.end(), hosts.begin(), hosts.end());
    router_first_slot.push_back(static_cast<std::uint32_t>(l.slots.size()));
  }
  // Units of each kind as ranges of routers, then of slots.
  const auto slots_of = [&](const std::vector<std::uint32_t>& first_router) {
    std::vector<std::uint32_t> out;
    for (const std::uint32_t r : first_router) out.push_back(router_first_slot[r]);
    return out;
  };
  switch (unit) {
    case Unit::kNode:
      l.group_first_unit = slots_of(group_first_router);
      break;
    case Unit::kRouter:
      l.unit_first_slot = router_first_slot;
      l.group_first_unit = group_first_router;
      break;
    case Unit::kChassis:
      l.unit_first_slot = slots_of(chassis_first_router);
      l.group_first_unit = group_first_chassis;
      break;
    case Unit::kGroup:
      l.unit_first_slot = slots_of(group_first_router);
      for (int g = 0; g <= df.groups; ++g)
        l.group_first_unit.push_back(static_cast<std::uint32_t>(g));
      break;
  }
  return l;
}

std::unique_ptr<NodeAllocator> make_placement(std::string_view policy, const Fabric& f,
                                              const NodeAllocationOptions& options, Unit unit,
                                              UnitOrder order) {
  const DragonflyLayout* df = f.dragonfly();
  if (df == nullptr) {
    throw std::invalid_argument(
        "node allocation '" + std::string(policy) +
        "' needs a dragonfly or megafly (generate one or load a netlist recognised as one); " +
        (f.kind_label.empty() ? "this fabric" : f.kind_label) + " has no dragonfly groups");
  }
  if (options.routers_per_chassis == 0) {
    throw std::invalid_argument("node allocation '" + std::string(policy) +
                                "': routers per chassis must be at least 1");
  }
  return std::make_unique<UnitPlacement>(
      policy, f, dragonfly_layout(f, *df, unit, options.routers_per_chassis), order, false,
      options.seed);
}

}  // namespace

// The registry's factories (node_allocation.def), one line per placement.
#define IBSDN_DRAGONFLY_PLACEMENT(name, unit, order)                                       \
  std::unique_ptr<NodeAllocator> make_##name##_allocator(const Fabric& f,                  \
                                                         const NodeAllocationOptions& o) { \
    return make_placement(#name, f, o, Unit::unit, UnitOrder::order);                      \
  }
IBSDN_DRAGONFLY_PLACEMENT(rdn, kNode, kRandom)
IBSDN_DRAGONFLY_PLACEMENT(rdr, kRouter, kRandom)
IBSDN_DRAGONFLY_PLACEMENT(rdc, kChassis, kRandom)
IBSDN_DRAGONFLY_PLACEMENT(rdg, kGroup, kRandom)
IBSDN_DRAGONFLY_PLACEMENT(rrn, kNode, kRoundRobin)
IBSDN_DRAGONFLY_PLACEMENT(rrr, kRouter, kRoundRobin)
#undef IBSDN_DRAGONFLY_PLACEMENT

}  // namespace ibsdn
