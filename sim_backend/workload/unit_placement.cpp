#include "sim_backend/workload/unit_placement.hpp"

#include <stdexcept>
#include <utility>

namespace ibsdn {

namespace {

std::vector<NodeIdx> checked_slots(const UnitLayout& l, std::string_view policy) {
  const auto slots = static_cast<std::uint32_t>(l.slots.size());
  const auto units =
      l.unit_first_slot.empty() ? slots : static_cast<std::uint32_t>(l.unit_first_slot.size() - 1);
  const auto ascending_from_0_to = [](const std::vector<std::uint32_t>& v, std::uint32_t end) {
    if (v.empty() || v.front() != 0 || v.back() != end) return false;
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (v[i] < v[i - 1]) return false;
    }
    return true;
  };
  if ((!l.unit_first_slot.empty() && !ascending_from_0_to(l.unit_first_slot, slots)) ||
      !ascending_from_0_to(l.group_first_unit, units) || l.group_first_unit.size() < 2) {
    throw std::logic_error(std::string(policy) + ": units or groups do not cut the slots");
  }
  return l.slots;
}

}  // namespace

UnitPlacement::UnitPlacement(std::string_view policy, const Fabric& f, UnitLayout layout,
                             UnitOrder order, bool host_order, std::uint64_t seed)
    : NodeAllocator(policy, f, checked_slots(layout, policy)),
      unit_first_slot_(std::move(layout.unit_first_slot)),
      group_first_unit_(std::move(layout.group_first_unit)),
      order_(order),
      host_order_(host_order),
      rng_(seed) {
  if (!unit_first_slot_.empty()) {
    std::vector<std::uint32_t> capacity;
    for (std::uint32_t u = 0; u + 1 < unit_first_slot_.size(); ++u) {
      capacity.push_back(unit_first_slot_[u + 1] - unit_first_slot_[u]);
      unit_of_slot_.insert(unit_of_slot_.end(), capacity.back(), u);
    }
    units_.emplace(std::move(capacity));
  }
  for (std::uint32_t g = 0; g + 1 < group_first_unit_.size(); ++g) {
    group_of_unit_.insert(group_of_unit_.end(), group_first_unit_[g + 1] - group_first_unit_[g], g);
  }
}

void UnitPlacement::choose(std::uint32_t count) {
  std::uint32_t taken = 0;
  for (const UnitPool::State state : {UnitPool::State::kWhole, UnitPool::State::kPartial}) {
    if (taken == count) break;
    taken += order_ == UnitOrder::kRandom ? take_random(state, count - taken)
                                          : take_round_robin(state, count - taken);
  }
  if (host_order_) sort_taken();
}

// Every drawn unit has a free node, and leaves the state's set unless the job is complete: at
// most one draw per unit.
std::uint32_t UnitPlacement::take_random(UnitPool::State state, std::uint32_t limit) {
  const IndexSet& candidates = pool().in(state);
  std::uint32_t taken = 0;
  while (taken < limit && !candidates.empty()) {
    taken += take_unit(candidates.at(static_cast<std::uint32_t>(rng_.below(candidates.size()))),
                       limit - taken);
  }
  return taken;
}

std::uint32_t UnitPlacement::take_round_robin(UnitPool::State state, std::uint32_t limit) {
  const auto groups = static_cast<std::uint32_t>(group_first_unit_.size() - 1);
  std::uint32_t taken = 0;
  while (taken < limit) {
    const std::uint32_t u = pool().next_cyclic(state, group_first_unit_[cursor_]);
    if (u == kNoUnit) break;
    taken += take_unit(u, limit - taken);
    cursor_ = (group_of_unit_[u] + 1) % groups;
  }
  return taken;
}

void UnitPlacement::on_taken(std::uint32_t slot) {
  if (units_) units_->take(unit_of_slot_[slot]);
}

void UnitPlacement::on_freed(std::uint32_t slot) {
  if (units_) units_->give(unit_of_slot_[slot]);
}

}  // namespace ibsdn
