// tree: Slurm's topology/tree allocation as seed 002 IV.A.3 describes it, on any fat-tree the
// project recognises (routing/fat_tree.hpp), degraded or irregular ones included.
//
// A switch of Slurm's topology.conf is here a subtree: at level l, a connected part of the fabric
// below level l+1 (fat_tree_subtrees); level 1 is a leaf switch and its hosts. A job of n nodes
//  1. goes under the nearest common ancestor that can hold it: the lowest level with a subtree
//     having >= n free nodes, and there the best fit, the subtree with the fewest free nodes that
//     still fit (ties: the first); the whole machine when no subtree fits;
//  2. takes leaves under it best fit first: the leaf with the fewest free nodes that holds all
//     still needed, or, when no leaf does, the leaf with the most free nodes, whole, and again
//     (ties: the first leaf). This uses the fewest leaves (segments) and leaves the largest free
//     blocks intact, Slurm's classic best fit (select/linear's and cons_res's "tightest fit if
//     sufficient, otherwise biggest"); its newer distance-weighted variant is not modelled;
//  3. takes the lowest free hosts of each leaf; the job's nodes come back in host order, as
//     Slurm's node bitmap lists them.
// Cost: O(S + L log L + n) per allocation, S the subtrees of all levels (Curie's XGFT: 450 leaves
// + 30 subtrees), L the leaves under the chosen subtree; O(n x height) per release.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "routing/fat_tree.hpp"
#include "sim_backend/workload/node_allocation.hpp"

namespace ibsdn {

namespace {

struct Level {
  std::vector<std::uint32_t> of_leaf;              // leaf -> subtree
  std::vector<std::uint32_t> free;                 // subtree -> free nodes
  std::vector<std::vector<std::uint32_t>> leaves;  // subtree -> its leaves, in leaf order
};

class TreePlacement final : public NodeAllocator {
 public:
  TreePlacement(const Fabric& f, const FatTreeLayout& t) : NodeAllocator("tree", f, t.hosts) {
    const FatTreeSubtrees subtrees = fat_tree_subtrees(f, t);
    const auto leaves = static_cast<std::uint32_t>(t.num_leaves());
    // Hosts are listed leaf by leaf: each leaf's slots are consecutive.
    for (std::uint32_t s = 0; s < t.hosts.size(); ++s) {
      const std::uint32_t k = t.leaf_index[t.leaf_of_host[s].value()];
      if (k + 1 < leaf_first_slot_.size()) throw std::logic_error("tree: hosts not leaf by leaf");
      while (leaf_first_slot_.size() <= k) leaf_first_slot_.push_back(s);
      leaf_of_slot_.push_back(k);
    }
    while (leaf_first_slot_.size() <= leaves) {
      leaf_first_slot_.push_back(static_cast<std::uint32_t>(t.hosts.size()));
    }
    for (std::uint32_t k = 0; k < leaves; ++k) {
      leaf_free_.push_back(leaf_first_slot_[k + 1] - leaf_first_slot_[k]);
      all_leaves_.push_back(k);
    }
    for (const auto& of_leaf : subtrees.of_leaf) {
      Level& level = levels_.emplace_back();
      level.of_leaf = of_leaf;
      for (std::uint32_t k = 0; k < leaves; ++k) {
        const std::uint32_t s = of_leaf[k];
        if (s >= level.free.size()) {
          level.free.resize(s + 1, 0);
          level.leaves.resize(s + 1);
        }
        level.free[s] += leaf_free_[k];
        level.leaves[s].push_back(k);
      }
    }
  }

 private:
  void choose(std::uint32_t count) override {
    const std::vector<std::uint32_t>* under = &all_leaves_;
    for (const Level& level : levels_) {
      std::uint32_t best = kNoUnit;
      for (std::uint32_t s = 0; s < level.free.size(); ++s) {
        if (level.free[s] >= count && (best == kNoUnit || level.free[s] < level.free[best])) {
          best = s;
        }
      }
      if (best != kNoUnit) {
        under = &level.leaves[best];
        break;
      }
    }
    candidates_.clear();
    for (const std::uint32_t k : *under) {
      if (leaf_free_[k] > 0) candidates_.push_back(k);
    }
    const auto by_free = [this](std::uint32_t a, std::uint32_t b) {
      return leaf_free_[a] != leaf_free_[b] ? leaf_free_[a] < leaf_free_[b] : a < b;
    };
    std::sort(candidates_.begin(), candidates_.end(), by_free);
    const auto first_with_at_least = [this](std::uint32_t n) {
      return std::partition_point(candidates_.begin(), candidates_.end(),
                                  [this, n](std::uint32_t k) { return leaf_free_[k] < n; });
    };
    std::uint32_t taken = 0;
    while (taken < count && !candidates_.empty()) {
      auto it = first_with_at_least(count - taken);
      if (it == candidates_.end()) it = first_with_at_least(leaf_free_[candidates_.back()]);
      const std::uint32_t k = *it;
      taken += take_lowest(leaf_first_slot_[k], leaf_first_slot_[k + 1], count - taken);
      candidates_.erase(it);
    }
    sort_taken();
  }

  void on_taken(std::uint32_t slot) override { count(slot, -1); }
  void on_freed(std::uint32_t slot) override { count(slot, +1); }

  void count(std::uint32_t slot, int delta) {
    const std::uint32_t k = leaf_of_slot_[slot];
    leaf_free_[k] += static_cast<std::uint32_t>(delta);
    for (Level& level : levels_) level.free[level.of_leaf[k]] += static_cast<std::uint32_t>(delta);
  }

  std::vector<std::uint32_t> leaf_first_slot_;  // leaves + 1 entries
  std::vector<std::uint32_t> leaf_of_slot_;
  std::vector<std::uint32_t> leaf_free_;
  std::vector<std::uint32_t> all_leaves_;
  std::vector<Level> levels_;  // levels 1 .. height-1; the whole machine is implicit
  std::vector<std::uint32_t> candidates_;
};

}  // namespace

std::unique_ptr<NodeAllocator> make_tree_allocator(const Fabric& f,
                                                   const NodeAllocationOptions& /*options*/) {
  const FatTreeLayout* t = f.fat_tree();
  if (t == nullptr) {
    throw std::invalid_argument(
        "node allocation 'tree' needs a fat-tree (generate one, or load a fabric whose cables "
        "join adjacent levels and recognise it); " +
        (f.kind_label.empty() ? std::string("this fabric") : f.kind_label) +
        " has no fat-tree layout");
  }
  return std::make_unique<TreePlacement>(f, *t);
}

}  // namespace ibsdn
