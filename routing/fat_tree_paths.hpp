// Choosing among the shortest up*/down* paths of a fat-tree layout (routing/fat_tree.hpp): by a
// mod-k key (the LFT default) or by the least loaded links (the SDN algorithms).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "routing/deadline.hpp"
#include "routing/fat_tree.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

/// The cost of taking a switch-to-switch link; host links are on every candidate path of a flow
/// and are not scored. An infinite cost forbids the link.
using LinkCost = std::function<double(LinkId)>;

class UpDownPaths {
 public:
  UpDownPaths(const Fabric& f, const FatTreeLayout& t);

  [[nodiscard]] const Fabric& fabric() const { return f_; }
  [[nodiscard]] const FatTreeLayout& layout() const { return t_; }

  /// The shortest up*/down* structure toward `leaf`, computed once and kept.
  const TowardLeaf& toward(NodeIdx leaf);

  /// Mod-k: at a level-l node the preferred up port is number (key / (U_0*...*U_(l-1))) mod
  /// (its up ports), U_i = the layout's max_up[i]; when that port leaves the shortest paths (a
  /// cable or switch is missing above), the next valid one in port order. Down, among several
  /// valid ports (parallel cables, non-XGFT wiring), the port back along the key's own mod-k up
  /// path from the destination leaf where one leads there, else the same digit picks. On a
  /// complete XGFT with generator port order this is exactly D-mod-K (key = destination host) or
  /// S-mod-K.
  /// Throws std::invalid_argument when no up*/down* path joins the two hosts.
  void modk_path(std::uint32_t src_host, std::uint32_t dst_host, std::uint64_t key, Path& out);

  /// The path whose most costly switch-to-switch link is cheapest; ties go to the smaller sum of
  /// costs, then to the first in port order. Throws like modk_path, and when every path takes a
  /// forbidden link.
  void best_path(std::uint32_t src_host, std::uint32_t dst_host, const LinkCost& cost, Path& out);
  /// The same choice for the rest of a path from the switch `from` (a leaf, or any switch a
  /// shortest up*/down* path toward dst_host's leaf crosses), appended to `out`: the links from
  /// `from` to the destination host. Where the paths of several flows toward one destination meet
  /// at `from`, they go on together from there (per-destination routing).
  void best_path_from(NodeIdx from, std::uint32_t dst_host, const LinkCost& cost, Path& out);

  /// The mod-k choice at `n` toward the leaf `tw` is for: a port on the shortest paths, or
  /// PortNum{} when `n` cannot reach it.
  [[nodiscard]] PortNum modk_port(const TowardLeaf& tw, NodeIdx n, std::uint64_t key) const;

 private:
  [[nodiscard]] std::uint32_t host_of(NodeIdx hca) const;
  /// Down from the level-l switch `n`: its port to the level-(l-1) switch on the key's mod-k up
  /// path from tw's leaf (the very cable when `n` is that path's next hop), or PortNum{}.
  [[nodiscard]] PortNum mirrored_down_port(const TowardLeaf& tw, NodeIdx n,
                                           std::uint64_t key) const;
  [[noreturn]] void no_path(NodeIdx from, std::uint32_t dst_host) const;

  // The layout's up and down cables, node by node in port order, as best_path_from walks them:
  // hops[begin[n] .. begin[n + 1]) are node n's.
  struct Hop {
    NodeIdx peer;
    LinkId out;
  };
  struct Hops {
    std::vector<std::uint32_t> begin;
    std::vector<Hop> hops;
  };
  static std::span<const Hop> hops(const Hops& h, NodeIdx n) {
    return std::span<const Hop>(h.hops).subspan(h.begin[n.value()],
                                                h.begin[n.value() + 1] - h.begin[n.value()]);
  }

  const Fabric& f_;
  const FatTreeLayout& t_;
  Hops up_;
  Hops down_;
  std::vector<std::uint64_t> divisor_;               // divisor_[l] = U_0 * ... * U_(l-1)
  std::vector<std::unique_ptr<TowardLeaf>> toward_;  // by leaf index
  // best_path's per-node state, reset through `touched_`.
  std::vector<double> max_;
  std::vector<double> sum_;
  std::vector<LinkId> pred_;
  std::vector<std::uint8_t> seen_;
  std::vector<NodeIdx> touched_;
  std::vector<NodeIdx> frontier_;  // the nodes one level on, reused between calls
  std::vector<NodeIdx> next_;
};

}  // namespace ibsdn
