// Node allocation for the job-trace replay: which compute nodes a job gets when it starts, given
// the nodes the running jobs hold. Policies are chosen by name (node_allocation.def):
//
//   linear   lowest free nodes in host order (PFSim's LinearNodeSelector, Slurm's default)
//   random   a seeded uniform sample of the free nodes, in host order (PFSim's RandomNodeSelector)
//   tree     Slurm's topology/tree best fit on any recognised fat-tree (seed 002 IV.A.3)
//   rdn rdr rdc rdg rrn rrr
//            seed 001's dragonfly placements: random nodes / routers / chassis / groups,
//            round-robin nodes / routers across the groups
//
// sim_backend/README.md gives each policy's exact rule, its cost and when it refuses a fabric.
// Every policy is deterministic: the same fabric, options and sequence of calls give the same
// nodes on every platform (seeded draws use PatternRng, not <random>'s distributions).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flowtable/types.hpp"
#include "routing/fabric.hpp"
#include "sim_backend/workload/unit_pool.hpp"

namespace ibsdn {

struct NodeAllocationOptions {
  std::uint64_t seed = 1;
  /// rdc: a chassis is this many consecutive routers of a group (seed 001's machine: 16 routers
  /// per chassis, 6 chassis per group); a group's last chassis may be smaller.
  std::uint32_t routers_per_chassis = 16;
};

class NodeAllocator {
 public:
  virtual ~NodeAllocator() = default;
  NodeAllocator(const NodeAllocator&) = delete;
  NodeAllocator& operator=(const NodeAllocator&) = delete;

  /// The job's nodes in rank order (the order the policy places ranks in), or nullopt when fewer
  /// nodes are free than it needs; nothing changes then. Throws std::invalid_argument for 0 nodes
  /// or a job that already holds nodes.
  std::optional<std::vector<NodeIdx>> allocate(JobId job, std::uint32_t nodes);
  /// Frees the job's nodes. Throws std::invalid_argument when the job holds none.
  void release(JobId job);
  /// Gives `job` exactly these nodes, outside the policy (nodes a scenario keeps out of use, or a
  /// job already running when the replay starts); release() frees them like any job's. Throws
  /// std::invalid_argument for a node the allocator does not allocate from or that is busy, a
  /// node given twice, or a job that already holds nodes; nothing changes then.
  void hold(JobId job, std::span<const NodeIdx> nodes);

  [[nodiscard]] std::string_view policy() const { return policy_; }
  /// The compute nodes the policy allocates from: the fabric's cabled HCAs.
  [[nodiscard]] std::uint32_t total_nodes() const {
    return static_cast<std::uint32_t>(order_.size());
  }
  [[nodiscard]] std::uint32_t free_nodes() const { return free_count_; }
  [[nodiscard]] bool busy(NodeIdx n) const;

 protected:
  /// `slots`: the nodes to allocate from, in the order the policy numbers them (slot i is
  /// slots[i]; a lower slot is "earlier in host order").
  NodeAllocator(std::string_view policy, const Fabric& f, std::vector<NodeIdx> slots);

  /// Takes exactly `count` free slots through take(); count <= free_nodes().
  virtual void choose(std::uint32_t count) = 0;
  /// Structure bookkeeping of the policy, called for every slot that becomes busy / free.
  virtual void on_taken(std::uint32_t /*slot*/) {}
  virtual void on_freed(std::uint32_t /*slot*/) {}

  /// Marks the free `slot` busy for the job being allocated; it becomes the job's next rank.
  void take(std::uint32_t slot);
  /// Takes the lowest free slots of [begin, end), at most `limit`; returns how many.
  std::uint32_t take_lowest(std::uint32_t begin, std::uint32_t end, std::uint32_t limit);
  /// Puts the slots taken so far for the job in host order.
  void sort_taken();
  /// Free slots as units of one node each.
  [[nodiscard]] const UnitPool& free_slots() const { return slots_; }

 private:
  std::string policy_;
  std::vector<NodeIdx> order_;          // slot -> node
  std::vector<std::uint32_t> slot_of_;  // node -> slot, kNoUnit for nodes not allocated from
  UnitPool slots_;
  std::uint32_t free_count_ = 0;
  std::vector<std::uint32_t> taking_;  // the slots of the job being allocated
  std::unordered_map<JobId, std::vector<std::uint32_t>> jobs_;
};

/// The allocator of the named policy over the fabric's cabled HCAs. Throws std::invalid_argument
/// for an unknown name (listing the known ones) and when the fabric lacks the structure the
/// policy needs (tree: a fat-tree layout; rdn .. rrr: a dragonfly or megafly layout).
std::unique_ptr<NodeAllocator> make_node_allocator(std::string_view policy, const Fabric& f,
                                                   const NodeAllocationOptions& options = {});
std::vector<std::string> node_allocation_names();

}  // namespace ibsdn
