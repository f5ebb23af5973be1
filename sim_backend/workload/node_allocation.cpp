// The allocator's bookkeeping shared by every policy, and the registry of policies by name.
#include "sim_backend/workload/node_allocation.hpp"

#include <algorithm>
#include <stdexcept>

#include "routing/named_registry.hpp"

namespace ibsdn {

NodeAllocator::NodeAllocator(std::string_view policy, const Fabric& f, std::vector<NodeIdx> slots)
    : policy_(policy),
      order_(std::move(slots)),
      slot_of_(f.num_nodes(), kNoUnit),
      slots_(std::vector<std::uint32_t>(order_.size(), 1)),
      free_count_(static_cast<std::uint32_t>(order_.size())) {
  for (std::uint32_t s = 0; s < order_.size(); ++s) {
    std::uint32_t& slot = slot_of_.at(order_[s].value());
    if (slot != kNoUnit) throw std::logic_error(policy_ + ": a node in two slots");
    slot = s;
  }
}

bool NodeAllocator::busy(NodeIdx n) const {
  const std::uint32_t s = n.valid() && n.value() < slot_of_.size() ? slot_of_[n.value()] : kNoUnit;
  if (s == kNoUnit) throw std::invalid_argument(policy_ + ": not a node it allocates from");
  return slots_.free(s) == 0;
}

std::optional<std::vector<NodeIdx>> NodeAllocator::allocate(JobId job, std::uint32_t nodes) {
  if (nodes == 0) {
    throw std::invalid_argument(policy_ + ": job " + std::to_string(job.value()) +
                                " needs 0 nodes");
  }
  if (jobs_.contains(job)) {
    throw std::invalid_argument(policy_ + ": job " + std::to_string(job.value()) +
                                " already holds nodes");
  }
  if (nodes > free_count_) return std::nullopt;
  taking_.clear();
  taking_.reserve(nodes);
  choose(nodes);
  if (taking_.size() != nodes) {
    throw std::logic_error(policy_ + ": took " + std::to_string(taking_.size()) + " nodes for " +
                           std::to_string(nodes));
  }
  std::vector<NodeIdx> out;
  out.reserve(nodes);
  for (const std::uint32_t s : taking_) out.push_back(order_[s]);
  jobs_.emplace(job, std::move(taking_));
  taking_ = {};
  return out;
}

void NodeAllocator::release(JobId job) {
  const auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    throw std::invalid_argument(policy_ + ": job " + std::to_string(job.value()) +
                                " holds no nodes");
  }
  for (const std::uint32_t s : it->second) {
    slots_.give(s);
    ++free_count_;
    on_freed(s);
  }
  jobs_.erase(it);
}

void NodeAllocator::hold(JobId job, std::span<const NodeIdx> nodes) {
  if (jobs_.contains(job)) {
    throw std::invalid_argument(policy_ + ": job " + std::to_string(job.value()) +
                                " already holds nodes");
  }
  std::vector<std::uint32_t> slots;
  slots.reserve(nodes.size());
  for (const NodeIdx n : nodes) {
    if (busy(n)) {  // throws for a node it does not allocate from
      throw std::invalid_argument(policy_ + ": node " + std::to_string(n.value()) + " is busy");
    }
    slots.push_back(slot_of_[n.value()]);
  }
  std::vector<std::uint32_t> sorted = slots;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw std::invalid_argument(policy_ + ": a node given twice to job " +
                                std::to_string(job.value()));
  }
  taking_.clear();
  for (const std::uint32_t s : slots) take(s);
  jobs_.emplace(job, std::move(taking_));
  taking_ = {};
}

void NodeAllocator::take(std::uint32_t slot) {
  slots_.take(slot);  // throws when the slot is busy: a policy bug, never a double allocation
  --free_count_;
  taking_.push_back(slot);
  on_taken(slot);
}

std::uint32_t NodeAllocator::take_lowest(std::uint32_t begin, std::uint32_t end,
                                         std::uint32_t limit) {
  std::uint32_t taken = 0;
  for (std::uint32_t s = begin; taken < limit; ++s) {
    s = slots_.next(UnitPool::State::kWhole, s);
    if (s >= end) break;  // kNoUnit included
    take(s);
    ++taken;
  }
  return taken;
}

void NodeAllocator::sort_taken() {
  std::sort(taking_.begin(), taking_.end());
}

#define IBSDN_NODE_ALLOCATION(name, suffix)                                 \
  std::unique_ptr<NodeAllocator> make_##suffix##_allocator(const Fabric& f, \
                                                           const NodeAllocationOptions& options);
#include "sim_backend/workload/node_allocation.def"
#undef IBSDN_NODE_ALLOCATION

namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<NodeAllocator> (*make)(const Fabric&, const NodeAllocationOptions&);
};

constexpr Entry kPolicies[] = {
#define IBSDN_NODE_ALLOCATION(name, suffix) {name, &make_##suffix##_allocator},
#include "sim_backend/workload/node_allocation.def"
#undef IBSDN_NODE_ALLOCATION
};

}  // namespace

std::unique_ptr<NodeAllocator> make_node_allocator(std::string_view policy, const Fabric& f,
                                                   const NodeAllocationOptions& options) {
  return find_named(kPolicies, policy, "node allocation").make(f, options);
}

std::vector<std::string> node_allocation_names() {
  return names_of(kPolicies);
}

}  // namespace ibsdn
