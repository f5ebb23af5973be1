#include "routing/fat_tree_paths.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ibsdn {

UpDownPaths::UpDownPaths(const Fabric& f, const FatTreeLayout& t)
    : f_(f),
      t_(t),
      toward_(t.num_leaves()),
      max_(f.num_nodes(), 0.0),
      sum_(f.num_nodes(), 0.0),
      pred_(f.num_nodes()),
      seen_(f.num_nodes(), 0) {
  const auto index = [&](const std::vector<std::vector<PortNum>>& ports, Hops& out) {
    out.begin.assign(f.num_nodes() + 1, 0);
    for (std::size_t n = 0; n < f.num_nodes(); ++n) {
      for (PortNum p : ports[n]) {
        const Port& port = f.port(NodeIdx(n), p);
        out.hops.push_back(Hop{port.peer, port.out});
      }
      out.begin[n + 1] = static_cast<std::uint32_t>(out.hops.size());
    }
  };
  index(t.up_ports, up_);
  index(t.down_ports, down_);
  divisor_.assign(static_cast<std::size_t>(t.height) + 1, 1);
  for (std::size_t l = 1; l < divisor_.size(); ++l) {
    const std::uint64_t u = std::max<std::uint64_t>(t.max_up[l - 1], 1);
    const std::uint64_t prev = divisor_[l - 1];
    divisor_[l] = prev > std::numeric_limits<std::uint64_t>::max() / u
                      ? std::numeric_limits<std::uint64_t>::max()
                      : prev * u;
  }
}

const TowardLeaf& UpDownPaths::toward(NodeIdx leaf) {
  auto& slot = toward_.at(t_.leaf_index[leaf.value()]);
  if (!slot) {
    slot = std::make_unique<TowardLeaf>();
    slot->compute(f_, t_, leaf);
  }
  return *slot;
}

std::uint32_t UpDownPaths::host_of(NodeIdx hca) const {
  return t_.host_of_node[hca.value()];
}

void UpDownPaths::no_path(NodeIdx from, std::uint32_t dst_host) const {
  throw std::invalid_argument("no up*/down* path from " + f_.node(from).name + " to " +
                              f_.node(t_.hosts[dst_host]).name + " in the fat-tree that remains");
}

PortNum UpDownPaths::modk_port(const TowardLeaf& tw, NodeIdx n, std::uint64_t key) const {
  const int here = tw.turn(n);
  if (here == 0) return PortNum{};
  const int l = t_.level[n.value()];
  const std::uint64_t digit = key / divisor_[static_cast<std::size_t>(l)];
  if (here == l) {
    if (l == 1) return PortNum{};  // the leaf itself: the caller knows the host port
    if (const PortNum mirror = mirrored_down_port(tw, n, key); mirror.value() != 0) return mirror;
    // Down: the valid ports are those to ancestors; count them, then take number digit mod it.
    std::uint32_t valid = 0;
    for (PortNum p : t_.down_ports[n.value()]) valid += tw.on_shortest(f_, t_, n, p) ? 1u : 0u;
    std::uint64_t pick = digit % valid;
    for (PortNum p : t_.down_ports[n.value()]) {
      if (tw.on_shortest(f_, t_, n, p) && pick-- == 0) return p;
    }
    return PortNum{};
  }
  const auto& ups = t_.up_ports[n.value()];
  const std::size_t start = static_cast<std::size_t>(digit % ups.size());
  for (std::size_t i = 0; i < ups.size(); ++i) {
    const PortNum p = ups[(start + i) % ups.size()];
    if (tw.on_shortest(f_, t_, n, p)) return p;
  }
  return PortNum{};
}

// D-mod-K on an XGFT comes down to a host along the reverse of the host's own mod-k up path, so
// the hosts of a leaf arrive over as many of its down links as the key digits spread them up. Where
// a switch has a choice down (a core cabled to every aggregate switch of a pod, as CODES' and
// many production trees are, or parallel cables), taking the switch's own digit instead sends
// the hosts of a leaf, whose keys differ only in the low digits, all down one link: 24 flows on
// one link for a shift on CODES' 3:1 tree where D-mod-K's reverse path puts 3 there.
PortNum UpDownPaths::mirrored_down_port(const TowardLeaf& tw, NodeIdx n, std::uint64_t key) const {
  const int l = t_.level[n.value()];
  // The key's up path from the leaf to level l - 1, and the cable it takes from there; n takes
  // that very cable back when it is its upper end.
  NodeIdx below = tw.leaf();
  PortNum up{};
  for (int at = 1; at < l; ++at) {
    const auto& ups = t_.up_ports[below.value()];
    if (ups.empty()) return PortNum{};
    up = ups[static_cast<std::size_t>((key / divisor_[static_cast<std::size_t>(at)]) % ups.size())];
    if (at + 1 < l) below = f_.port(below, up).peer;
  }
  const Port& cable = f_.port(below, up);
  if (cable.peer == n && tw.on_shortest(f_, t_, n, cable.peer_port)) return cable.peer_port;
  // n is another switch above `below`: among its cables down to it, the key's digit picks.
  const auto to_below = [&](PortNum p) {
    return f_.port(n, p).peer == below && tw.on_shortest(f_, t_, n, p);
  };
  const auto& downs = t_.down_ports[n.value()];
  const auto cables =
      static_cast<std::uint64_t>(std::count_if(downs.begin(), downs.end(), to_below));
  if (cables == 0) return PortNum{};
  std::uint64_t pick = (key / divisor_[static_cast<std::size_t>(l - 1)]) % cables;
  for (PortNum p : downs) {
    if (to_below(p) && pick-- == 0) return p;
  }
  return PortNum{};
}

void UpDownPaths::modk_path(std::uint32_t src_host, std::uint32_t dst_host, std::uint64_t key,
                            Path& out) {
  out.clear();
  const NodeIdx leaf = t_.leaf_of_host[dst_host];
  const TowardLeaf& tw = toward(leaf);
  const NodeIdx src = t_.hosts[src_host];
  if (tw.turn(src) == 0) no_path(src, dst_host);
  out.push_back(t_.host_up_link(f_, src_host));
  NodeIdx at = f_.link(out.back()).to;
  while (at != leaf) {
    const PortNum p = modk_port(tw, at, key);
    if (p.value() == 0) no_path(src, dst_host);
    out.push_back(f_.port(at, p).out);
    at = f_.link(out.back()).to;
  }
  out.push_back(t_.host_down_link(f_, dst_host));
}

void UpDownPaths::best_path(std::uint32_t src_host, std::uint32_t dst_host, const LinkCost& cost,
                            Path& out) {
  out.clear();
  const NodeIdx src_leaf = t_.leaf_of_host[src_host];
  if (toward(t_.leaf_of_host[dst_host]).turn(src_leaf) == 0) no_path(t_.hosts[src_host], dst_host);
  out.push_back(t_.host_up_link(f_, src_host));
  best_path_from(src_leaf, dst_host, cost, out);
}

void UpDownPaths::best_path_from(NodeIdx from, std::uint32_t dst_host, const LinkCost& cost,
                                 Path& out) {
  const NodeIdx dst_leaf = t_.leaf_of_host[dst_host];
  const TowardLeaf& tw = toward(dst_leaf);
  const int k = tw.turn(from);
  const int level = t_.level[from.value()];
  if (k == 0 || level < 1) no_path(from, dst_host);
  if (from != dst_leaf) {
    for (NodeIdx n : touched_) seen_[n.value()] = 0;
    touched_.clear();
    std::vector<NodeIdx>& frontier = frontier_;
    std::vector<NodeIdx>& next = next_;
    frontier.assign(1, from);
    seen_[from.value()] = 1;
    max_[from.value()] = sum_[from.value()] = 0.0;
    touched_.push_back(from);
    const auto relax = [&](NodeIdx at, const Hop& hop) {
      const double c = cost(hop.out);
      if (std::isinf(c)) return;
      const double m = std::max(max_[at.value()], c);
      const double s = sum_[at.value()] + c;
      const std::uint32_t to = hop.peer.value();
      if (seen_[to] != 0 && (m > max_[to] || (m == max_[to] && s >= sum_[to]))) return;
      if (seen_[to] == 0) {
        seen_[to] = 1;
        touched_.push_back(hop.peer);
        next.push_back(hop.peer);
      }
      max_[to] = m;
      sum_[to] = s;
      pred_[to] = hop.out;
    };
    // Up to the turn level, then down through ancestors to the destination leaf. This is
    // TowardLeaf::on_shortest unrolled for the two phases (the search's inner loop): going up,
    // the parents that turn at the same level; going down, the children that are ancestors of
    // the leaf (never a host: the leaf's own host port comes last).
    const int up_steps = k - level;
    for (int step = 0; step < up_steps + k - 1; ++step) {
      next.clear();
      for (NodeIdx n : frontier) {
        if (step < up_steps) {
          for (const Hop& hop : hops(up_, n)) {
            if (tw.turn(hop.peer) == k) relax(n, hop);
          }
        } else {
          for (const Hop& hop : hops(down_, n)) {
            const int below = t_.level[hop.peer.value()];
            if (below > 0 && tw.turn(hop.peer) == below) relax(n, hop);
          }
        }
      }
      frontier.swap(next);
    }
    if (seen_[dst_leaf.value()] == 0) no_path(from, dst_host);
    const std::size_t first = out.size();
    for (NodeIdx at = dst_leaf; at != from; at = f_.link(pred_[at.value()]).from)
      out.push_back(pred_[at.value()]);
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  }
  out.push_back(t_.host_down_link(f_, dst_host));
}

}  // namespace ibsdn
