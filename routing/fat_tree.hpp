// Fat-trees as they are cabled: any layered up*/down* fabric, not only a complete XGFT.
//
// Levels come from the HCAs upward, as OpenSM's ftree and updn find them: HCAs are level 0, the
// switches they are cabled to (leaves) level 1, every other switch its BFS distance from an HCA.
// A fabric whose cables all join adjacent levels is layered; every fat-tree is, and stays so when
// cables, switches or HCAs go missing (the graph stays bipartite between levels). The layout
// then lists, per node, its up and down ports, parallel cables included, and nothing assumes
// the XGFT's regularity: a missing cable, an empty leaf port, a partly populated top level, two
// cables between the same switches or a top level cabled to every level-2 switch are all just
// layouts.
//
// Shortest up*/down* paths toward a leaf L: a switch that reaches L going down only is an
// ancestor of L; from any other switch the shortest up*/down* path climbs to the lowest level
// holding an ancestor it can reach going up, its turn level. Going up, only parents with the same
// turn level keep the path shortest; going down, only children that are ancestors of L (or L).
// TowardLeaf holds that per leaf, so every algorithm chooses among exactly the valid shortest
// paths of the surviving graph.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn {

struct FatTreeLayout {
  static constexpr std::uint32_t kNotHost = 0xFFFFFFFFu;

  int height = 0;                              // switch levels
  std::vector<int> level;                      // node -> 0 HCA, 1..height switch, -1 not in tree
  std::vector<std::vector<NodeIdx>> switches;  // switches[l-1]: level-l switches, fabric order
  std::vector<NodeIdx> hosts;                  // host index -> HCA: leaf by leaf, by leaf port
  std::vector<std::uint32_t> host_of_node;     // node -> host index, or kNotHost
  std::vector<NodeIdx> leaf_of_host;           // host index -> its leaf switch
  std::vector<std::uint32_t> leaf_index;       // node -> index in switches[0] (leaves only)
  /// Per node, in port order: ports cabled one level up / down. A host's single up port is its
  /// cable to its leaf; a leaf's down ports include its host ports.
  std::vector<std::vector<PortNum>> up_ports;
  std::vector<std::vector<PortNum>> down_ports;
  /// The largest number of up ports at each level (index = level, 0 = hosts): the radix that
  /// mod-k routing uses for its digit at that level, the same for every switch of the level.
  std::vector<std::uint32_t> max_up;

  [[nodiscard]] std::size_t num_leaves() const { return switches.empty() ? 0 : switches[0].size(); }
  /// The host's cable to its leaf, as directed links.
  [[nodiscard]] LinkId host_up_link(const Fabric& f, std::uint32_t host) const;
  [[nodiscard]] LinkId host_down_link(const Fabric& f, std::uint32_t host) const;
};

/// Builds the layout of a layered fabric. Returns false with `why` when the fabric is not a
/// fat-tree: no HCAs, an HCA cabled to more than one switch, or a cable joining two nodes of one
/// level (an odd cycle). Switches that no HCA reaches are left out (level -1).
bool build_fat_tree_layout(const Fabric& f, FatTreeLayout& out, std::string* why);

/// Recognises the fabric as a fat-tree and attaches the layout; also attaches an XgftLayout when
/// the fabric is exactly a complete XGFT (recognize_xgft), so XGFT-only algorithms keep their
/// exact forms there. Returns false with `why` when not even a layered fat-tree.
bool recognize_fat_tree(Fabric& f, std::string* why);

/// recognize_fat_tree, then the fabric's name: "XGFT(3;4,4,4;1,4,4)" for a complete XGFT,
/// "fat-tree(3 levels, 40 switches, 62 hosts)" for any other; empty when not a fat-tree.
std::string fat_tree_label(Fabric& f, std::string* why = nullptr);

/// The subtrees of a fat-tree: at level l, the connected parts of the fabric below level l+1.
/// Traffic between a subtree and the rest must cross the subtree's up links, which makes them the
/// cuts of the lower bounds (route_quality.hpp).
struct FatTreeSubtrees {
  /// of_leaf[l-1][leaf index]: the level-l subtree (l = 1 .. height-1) holding the leaf.
  std::vector<std::vector<std::uint32_t>> of_leaf;
  /// up_links[l-1][subtree]: the directed links from its level-l switches to level l+1.
  std::vector<std::vector<std::vector<LinkId>>> up_links;
};
FatTreeSubtrees fat_tree_subtrees(const Fabric& f, const FatTreeLayout& t);

/// The shortest up*/down* structure toward one leaf (see the file comment).
class TowardLeaf {
 public:
  /// Recomputes for `leaf` (a level-1 switch of the layout).
  void compute(const Fabric& f, const FatTreeLayout& t, NodeIdx leaf);

  [[nodiscard]] NodeIdx leaf() const { return leaf_; }
  /// The level where traffic from `n` turns down toward the leaf; 0 when it cannot reach it.
  [[nodiscard]] int turn(NodeIdx n) const { return turn_[n.value()]; }
  [[nodiscard]] bool ancestor(NodeIdx n, const FatTreeLayout& t) const {
    return turn_[n.value()] != 0 && turn_[n.value()] == t.level[n.value()];
  }
  /// Whether leaving `n` through port `p` stays on a shortest up*/down* path to the leaf.
  [[nodiscard]] bool on_shortest(const Fabric& f, const FatTreeLayout& t, NodeIdx n,
                                 PortNum p) const;

 private:
  NodeIdx leaf_{};
  std::vector<std::uint8_t> turn_;
};

/// Empty when `p` (from HCA to HCA) is a shortest up*/down* path of the layout; otherwise what
/// is wrong.
std::string check_up_down_path(const Fabric& f, const FatTreeLayout& t, std::span<const LinkId> p);

}  // namespace ibsdn
