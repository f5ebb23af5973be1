// Placement by units: the slots are cut into units of consecutive slots (nodes, routers, chassis,
// groups), the units into groups of consecutive units, and a job takes units one after another,
// wholly free units first, each unit's free nodes lowest slot first, until it has its nodes:
//
//   random       each next unit drawn uniformly among the wholly free ones (seeded)
//   round-robin  the lowest wholly free unit of the next group that has one, cycling through the
//                groups from where the previous job stopped
//
// Only when no wholly free unit is left (the machine is fragmented by running jobs) are partly
// free units taken, in the same order. A job's last unit may be used in part; its other nodes stay
// free for later jobs. linear, random and the six dragonfly placements of seed 001 are instances
// (node_allocation_linear_random.cpp, node_allocation_dragonfly.cpp).
//
// Cost: O(units + slots) memory; an allocation of n nodes over k units costs O(n + k) plus one
// word scan per unit (SearchBits), whatever the fabric's size; a release O(n).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "routing/patterns/rng.hpp"
#include "sim_backend/workload/node_allocation.hpp"

namespace ibsdn {

struct UnitLayout {
  std::vector<NodeIdx> slots;                   // slot -> node; units are consecutive slots
  std::vector<std::uint32_t> unit_first_slot;   // units + 1 entries; empty: one slot per unit
  std::vector<std::uint32_t> group_first_unit;  // groups + 1 entries
};

enum class UnitOrder : std::uint8_t { kRandom, kRoundRobin };

class UnitPlacement final : public NodeAllocator {
 public:
  /// `host_order`: return the job's nodes sorted by slot rather than in the order taken.
  UnitPlacement(std::string_view policy, const Fabric& f, UnitLayout layout, UnitOrder order,
                bool host_order, std::uint64_t seed);

 private:
  void choose(std::uint32_t count) override;
  void on_taken(std::uint32_t slot) override;
  void on_freed(std::uint32_t slot) override;

  [[nodiscard]] const UnitPool& pool() const { return units_ ? *units_ : free_slots(); }
  [[nodiscard]] std::uint32_t first_slot(std::uint32_t u) const {
    return unit_first_slot_.empty() ? u : unit_first_slot_[u];
  }
  std::uint32_t take_unit(std::uint32_t u, std::uint32_t limit) {
    return take_lowest(first_slot(u), first_slot(u + 1), limit);
  }
  std::uint32_t take_random(UnitPool::State state, std::uint32_t limit);
  std::uint32_t take_round_robin(UnitPool::State state, std::uint32_t limit);

  std::vector<std::uint32_t> unit_first_slot_;
  std::vector<std::uint32_t> unit_of_slot_;  // empty when units are slots
  std::vector<std::uint32_t> group_first_unit_;
  std::vector<std::uint32_t> group_of_unit_;
  std::optional<UnitPool> units_;  // absent when units are slots: free_slots() is their pool
  UnitOrder order_;
  bool host_order_;
  PatternRng rng_;
  std::uint32_t cursor_ = 0;  // round-robin: the group the next unit is looked for from
};

}  // namespace ibsdn
