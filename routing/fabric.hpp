// The fabric graph: switches and HCAs, their numbered ports, and the directed links between them.
//
// Every physical cable becomes two directed links (one per direction), each with its own LinkId,
// because load is accounted per direction. Topology-specific layouts (XGFT labels, dragonfly
// groups) are attached by the generators or recognisers that know them.
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
#include "routing/ids.hpp"

namespace ibsdn {

enum class NodeKind : std::uint8_t { kSwitch, kHca };

/// Generators space HCA node GUIDs this far apart: an HCA's port p has port GUID node GUID + p
/// (as ibsim and real HCAs do), which must not collide with the next HCA's node GUID.
inline constexpr std::uint64_t kHcaGuidStride = 0x10;

struct Port {
  PortNum num{};   // 1-based physical port number
  NodeIdx peer{};  // invalid() when the port is not cabled
  PortNum peer_port{};
  LinkId out{};       // the directed link leaving through this port
  double gbps = 0.0;  // link capacity
  [[nodiscard]] bool connected() const { return peer.valid(); }
};

struct Node {
  NodeKind kind = NodeKind::kHca;
  std::string name;         // identifier without spaces, e.g. "n0001", "l1s003"
  std::string description;  // NodeDescription, e.g. "n0001 HCA-1"
  Guid guid{};
  Lid lid{};
  std::uint16_t gpus = 0;   // GPUs per compute node (HCAs only)
  std::vector<Port> ports;  // ports[i].num == i + 1
  [[nodiscard]] bool is_switch() const { return kind == NodeKind::kSwitch; }
  [[nodiscard]] bool is_hca() const { return kind == NodeKind::kHca; }
};

struct Link {
  NodeIdx from{};
  PortNum from_port{};
  NodeIdx to{};
  PortNum to_port{};
  double gbps = 0.0;
};

struct XgftLayout;       // routing/xgft.hpp
struct FatTreeLayout;    // routing/fat_tree.hpp
struct DragonflyLayout;  // routing/dragonfly.hpp

class Fabric {
 public:
  Fabric();
  ~Fabric();
  Fabric(Fabric&&) noexcept;
  Fabric& operator=(Fabric&&) noexcept;
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  /// Adds a node with `num_ports` uncabled ports. Names must be unique and free of whitespace;
  /// node GUIDs other than 0 must be unique.
  NodeIdx add_node(NodeKind kind, std::string name, std::size_t num_ports, Guid guid = Guid{});
  /// Cables a:pa to b:pb (both ports must exist and be free) and creates both directed links.
  void connect(NodeIdx a, PortNum pa, NodeIdx b, PortNum pb, double gbps);

  [[nodiscard]] std::size_t num_nodes() const { return nodes_.size(); }
  [[nodiscard]] std::size_t num_links() const { return links_.size(); }
  [[nodiscard]] const Node& node(NodeIdx n) const { return nodes_.at(n.value()); }
  [[nodiscard]] Node& node(NodeIdx n) { return nodes_.at(n.value()); }
  [[nodiscard]] const Link& link(LinkId l) const { return links_.at(l.value()); }
  [[nodiscard]] const Port& port(NodeIdx n, PortNum p) const;
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  /// HCAs (compute nodes) in insertion order; generators insert them in host-index order.
  [[nodiscard]] const std::vector<NodeIdx>& hcas() const { return hcas_; }
  [[nodiscard]] const std::vector<NodeIdx>& switches() const { return switches_; }
  [[nodiscard]] std::optional<NodeIdx> find(std::string_view name) const;
  /// The node with this node GUID; nodes added with GUID 0 (none) are not indexed.
  [[nodiscard]] std::optional<NodeIdx> find_guid(Guid guid) const;
  /// The reverse direction of a directed link.
  [[nodiscard]] LinkId reverse(LinkId l) const;

  /// Switch level: 0 for HCAs, 1 for switches with HCAs attached, then by BFS distance.
  /// Computed by compute_levels(); empty before.
  [[nodiscard]] const std::vector<int>& levels() const { return levels_; }
  [[nodiscard]] int level(NodeIdx n) const { return levels_.at(n.value()); }
  void compute_levels();

  // Topology layouts, present when a generator or recogniser established them.
  /// An exact, complete XGFT labelling; such a fabric also has a fat_tree() layout.
  [[nodiscard]] const XgftLayout* xgft() const { return xgft_.get(); }
  /// Any layered up*/down* fat-tree, however degraded.
  [[nodiscard]] const FatTreeLayout* fat_tree() const { return fat_tree_.get(); }
  [[nodiscard]] const DragonflyLayout* dragonfly() const { return dragonfly_.get(); }
  void set_xgft(XgftLayout layout);
  void set_fat_tree(FatTreeLayout layout);
  void set_dragonfly(DragonflyLayout layout);

  /// A human label for a topology: "XGFT(3;8,8,16;1,8,8)", "dragonfly(4,8,4,33)", "netlist".
  std::string kind_label;

 private:
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<NodeIdx> hcas_;
  std::vector<NodeIdx> switches_;
  std::unordered_map<std::string, NodeIdx> by_name_;
  std::unordered_map<std::uint64_t, NodeIdx> by_guid_;
  std::vector<int> levels_;
  std::unique_ptr<XgftLayout> xgft_;
  std::unique_ptr<FatTreeLayout> fat_tree_;
  std::unique_ptr<DragonflyLayout> dragonfly_;
};

/// A cable, named by one of its ends.
struct CableEnd {
  NodeIdx node{};
  PortNum port{};
};

/// The order of a fabric's nodes as a subnet manager's view of it is built: HCAs (and routers)
/// before switches, each by ascending node GUID. The plugin builds OpenSM's subnet so
/// (plugin/opensm/abi_fabric.cpp) and a replay of a fabric read from elsewhere takes it too
/// (in_subnet_order), because results depend on the order: min-hop's balancing follows
/// Fabric::hcas(), ties between equal paths the node and link numbering.
[[nodiscard]] inline bool subnet_order_before(NodeKind a_kind, Guid a, NodeKind b_kind, Guid b) {
  const bool a_switch = a_kind == NodeKind::kSwitch;
  const bool b_switch = b_kind == NodeKind::kSwitch;
  return a_switch != b_switch ? b_switch : a.value() < b.value();
}

/// A copy of `f` with its nodes in subnet order and its cables numbered as the plugin numbers
/// them (over the nodes in that order, by port, each cable from its end that sorts first); names,
/// descriptions, GUIDs, LIDs, GPUs, capacities and kind_label kept, levels computed. No layout is
/// attached: recognise the copy again.
Fabric in_subnet_order(const Fabric& f);

/// A copy of `f` without the given cables (nodes, names, GUIDs, LIDs and the other cables kept;
/// node indexes unchanged, link ids renumbered). No layout is attached: recognise the copy again.
Fabric without_cables(const Fabric& f, std::span<const CableEnd> removed);

}  // namespace ibsdn
