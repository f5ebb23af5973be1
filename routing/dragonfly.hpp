// Dragonfly-class topologies: 1D dragonfly (p, a, h, g) and megafly / dragonfly+ (seed 004).
//
// 1D dragonfly. g groups of a routers; the routers of a group are cabled all-to-all; each router
// has p hosts and h global ports. Router ports: 1..p hosts, then a-1 local ports to the other
// routers of the group in increasing router index (skipping itself), then h global ports.
//
// Megafly. Each group is a complete bipartite graph of `leaves` leaf routers (hosts, no global
// ports) and `spines` spine routers (global ports, no hosts). Leaf ports: hosts first, then one
// port per spine in spine order. Spine ports: one per leaf in leaf order, then the global ports.
//
// Global arrangement (both kinds). Number a group's global ports j = 0..P-1 router by router
// (j = r*h + k for port k of the r-th router that has global ports, P = a*h or spines*global).
// With D = g-1, port j of group i points to group (i + 1 + j mod D) mod g as copy c = j / D.
// Group t = i+1+o sees group i at offset D-1-o, so port j is cabled to port c*D + (D-1-o) of
// group t: the port of the same copy that points back. When P is not a multiple of D the last,
// partial copy leaves a port uncabled if its partner index is >= P. Every pair of groups gets
// floor(P / D) links plus at most one from the partial copy, so g <= P + 1 is required (and
// checked). Parallel cables between two routers appear only when a router has several ports to
// one group (small g); the Table-I configurations of seed 004 have none.
//
// Names and GUIDs. Hosts n0001.. in group, router, port order ("n0001 HCA-1" descriptions);
// 1D routers g01r01 (group, router, 1-based, zero padded to >= 2 digits); megafly leaves g01l01
// and spines g01s01. GUIDs are 0x0002c904/0x0002c905 + sequence (1D switches / HCAs) and
// 0x0002c906/0x0002c907 + sequence (megafly switches / HCAs), apart from the XGFT generator's
// 0x0002c902/0x0002c903.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

enum class DragonflyKind : std::uint8_t { kCanonical1D, kMegafly };

/// What a node is in a dragonfly-class fabric. 1D dragonfly routers are all kRouter.
enum class RouterRole : std::uint8_t { kHost, kRouter, kLeaf, kSpine };

struct DragonflyParams {
  int p = 0;  // hosts per router
  int a = 0;  // routers per group
  int h = 0;  // global ports per router
  int g = 0;  // groups

  /// Parses "p,a,h,g" (a "dragonfly(...)" wrapper is optional). Throws std::invalid_argument
  /// naming the offending value.
  static DragonflyParams parse(std::string_view text);
  /// Throws std::invalid_argument when the parameters do not describe a buildable dragonfly.
  void validate() const;
  [[nodiscard]] std::string to_string() const;  // "dragonfly(8,16,8,65)"
  [[nodiscard]] std::uint64_t num_hosts() const;
};

struct MegaflyParams {
  int nodes_per_leaf = 0;
  int leaves = 0;  // leaf routers per group
  int spines = 0;  // spine routers per group
  int global_per_spine = 0;
  int groups = 0;

  /// Parses "nodes_per_leaf,leaves,spines,global_per_spine,groups" (a "megafly(...)" wrapper is
  /// optional). Throws std::invalid_argument naming the offending value.
  static MegaflyParams parse(std::string_view text);
  void validate() const;
  [[nodiscard]] std::string to_string() const;  // "megafly(16,16,16,16,33)"
  [[nodiscard]] std::uint64_t num_hosts() const;
};

struct DragonflyLayout {
  DragonflyKind kind = DragonflyKind::kCanonical1D;
  int groups = 0;
  std::vector<int> group_of_node;             // node -> group, -1 for HCAs
  std::vector<std::vector<NodeIdx>> routers;  // routers[g]: 1D routers, or leaves then spines
  std::vector<NodeIdx> hosts;                 // host index -> HCA node

  int hosts_per_router = 0;          // p, or nodes per leaf
  int host_routers = 0;              // routers per group with hosts: a, or leaves
  int spines = 0;                    // spine routers per group (0 on a 1D dragonfly)
  std::vector<RouterRole> role;      // node -> role
  std::vector<int> index_in_group;   // node -> position in routers[group], -1 for HCAs
  std::vector<NodeIdx> edge_router;  // node -> the router an HCA is cabled to (HCAs only)
  std::vector<LinkId> host_up;       // node -> HCA-to-router link (HCAs only)
  std::vector<LinkId> host_down;     // node -> router-to-HCA link (HCAs only)
  /// local_link[router][i]: the link to routers[group][i], invalid where no cable exists.
  std::vector<std::vector<LinkId>> local_link;
  /// One direction of a global cable, with its end routers.
  struct GlobalLink {
    LinkId id{};
    NodeIdx from{};
    NodeIdx to{};
  };
  /// pair_links[from * groups + to]: the directed global links from group `from` to `to`, in
  /// router then port order of group `from`.
  std::vector<std::vector<GlobalLink>> pair_links;
  /// True when every group has host_routers + spines routers and every local cable of the model
  /// (always so on generated fabrics): local routes are then found by arithmetic. A recognised
  /// fabric with a missing router or local cable has false, and local routes search the group.
  bool complete_groups = true;

  [[nodiscard]] bool megafly() const { return kind == DragonflyKind::kMegafly; }
  /// Group of a router or of an HCA's router.
  [[nodiscard]] int group_of(NodeIdx n) const;
  [[nodiscard]] std::span<const GlobalLink> global_links(int from, int to) const {
    return pair_links[static_cast<std::size_t>(from * groups + to)];
  }

  /// Shortest ways between two routers of one group: 1 for the same router, a 1D local cable or
  /// a leaf-spine cable; `spines` between two leaves, `host_routers` between two spines. Where a
  /// cable is missing (recognised fabrics): the routers of the group cabled to both ends, or, for
  /// a megafly leaf and spine, 1 (the detour leaf, other spine, other leaf, spine). All local
  /// routes between two routers have the same length; recognize_dragonfly guarantees one exists.
  [[nodiscard]] std::size_t local_route_count(NodeIdx from, NodeIdx to) const;
  /// Appends local route `choice` (< local_route_count): the one-hop cable, or the bounce
  /// through the `choice`-th router (in group order) cabled to both ends, or the detour.
  void append_local_route(NodeIdx from, NodeIdx to, std::size_t choice, Path& out) const;

  /// Minimal paths between two hosts: one within a group (1D) or one per spine (megafly, two
  /// leaves of one group); otherwise one per global link between the two groups. Where local
  /// cables are missing, only the global links whose ends are one local hop (or none) from the
  /// source and destination routers count, unless no global link is: then all of them do.
  [[nodiscard]] std::size_t minimal_path_count(NodeIdx src, NodeIdx dst) const;
  /// Minimal path `choice`: host link, local route to the gateway, at most one global link,
  /// local route to the destination router, host link. At most 3 router-to-router hops (more
  /// only around missing local cables, when no global link avoids them).
  void minimal_path(NodeIdx src, NodeIdx dst, std::size_t choice, Path& out) const;
  /// Valiant path through group `mid` (neither endpoint's group): minimal to global link `first`
  /// of (src group, mid), local route `local` inside `mid` to global link `second` of (mid, dst
  /// group), then minimal to dst. At most 5 router hops on a 1D dragonfly (local, global, local,
  /// global, local) and 6 on megafly (leaf-spine, global, spine-leaf, leaf-spine, global,
  /// spine-leaf).
  void valiant_path(NodeIdx src, NodeIdx dst, int mid, std::size_t first, std::size_t second,
                    std::size_t local, Path& out) const;

 private:
  // Whether `a` and `b` (one group) are the same router or joined by a local cable.
  [[nodiscard]] bool one_local_hop(NodeIdx a, NodeIdx b) const;
  // The index in global_links(gs, gd) of minimal path `choice` between routers rs and rd.
  [[nodiscard]] std::size_t minimal_global(NodeIdx rs, NodeIdx rd, std::size_t choice) const;
};

/// Indexes the cabling of a dragonfly-class fabric for the routings: from kind, groups, routers
/// (per group: host routers then spines), hosts and role (every node), fills group_of_node,
/// index_in_group, edge_router, host_up, host_down (an HCA's first cabled port), local_link,
/// pair_links and complete_groups. The generators and recognize_dragonfly share it, so that a
/// recognised fabric is indexed exactly as the generated one.
void index_dragonfly_cabling(const Fabric& f, DragonflyLayout& x);

/// Recognises a 1D dragonfly or a megafly from the graph alone (routing/dragonfly_recognize.cpp
/// says how): attaches the layout, sets kind_label to the parameters (the largest counts seen)
/// and returns true; `*why` (when not null) then says what differs from the generated fabric of
/// those parameters (missing cables, routers, hosts), empty when nothing does. Otherwise leaves
/// `f` unchanged, stores the reason ("router X: ...") in `*why` and returns false. Work is
/// O(cables x degree).
bool recognize_dragonfly(Fabric& f, std::string* why);

/// A well-mixed hash of a flow's endpoints, salted; oblivious routings use it for their choices.
std::uint64_t flow_hash(std::uint64_t salt, NodeIdx src, NodeIdx dst);

Fabric generate_dragonfly(const DragonflyParams& params, int gpus_per_node = 1,
                          double gbps = 100.0);
Fabric generate_dragonfly(int p, int a, int h, int g, int gpus_per_node = 1, double gbps = 100.0);

Fabric generate_megafly(const MegaflyParams& params, int gpus_per_node = 1, double gbps = 100.0);
Fabric generate_megafly(int nodes_per_leaf, int leaves, int spines, int global_per_spine,
                        int groups, int gpus_per_node = 1, double gbps = 100.0);

}  // namespace ibsdn
