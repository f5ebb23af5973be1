#include "routing/fat_tree.hpp"

#include <algorithm>
#include <deque>
#include <numeric>

#include "routing/xgft.hpp"

namespace ibsdn {

LinkId FatTreeLayout::host_up_link(const Fabric& f, std::uint32_t host) const {
  const NodeIdx h = hosts[host];
  return f.port(h, up_ports[h.value()].front()).out;
}

LinkId FatTreeLayout::host_down_link(const Fabric& f, std::uint32_t host) const {
  return f.reverse(host_up_link(f, host));
}

bool build_fat_tree_layout(const Fabric& f, FatTreeLayout& t, std::string* why) {
  const auto reject = [why](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  const std::size_t n = f.num_nodes();
  const auto name = [&f](NodeIdx x) { return f.node(x).name; };
  t = FatTreeLayout{};
  t.level.assign(n, -1);
  t.host_of_node.assign(n, FatTreeLayout::kNotHost);
  t.leaf_index.assign(n, FatTreeLayout::kNotHost);
  t.up_ports.assign(n, {});
  t.down_ports.assign(n, {});

  // Levels: BFS from the HCAs that are cabled to a switch.
  std::deque<NodeIdx> queue;
  for (NodeIdx h : f.hcas()) {
    std::uint32_t cables = 0;
    for (const Port& p : f.node(h).ports) {
      if (!p.connected()) continue;
      if (!f.node(p.peer).is_switch()) {
        return reject("HCA " + name(h) + " is cabled to HCA " + name(p.peer));
      }
      ++cables;
    }
    if (cables > 1) {
      return reject("HCA " + name(h) + " is cabled to " + std::to_string(cables) +
                    " switch ports; a fat-tree host has one");
    }
    if (cables == 1) t.level[h.value()] = 0;
  }
  for (NodeIdx h : f.hcas()) {
    if (t.level[h.value()] != 0) continue;
    for (const Port& p : f.node(h).ports) {
      if (p.connected() && t.level[p.peer.value()] < 0) {
        t.level[p.peer.value()] = 1;
        queue.push_back(p.peer);
      }
    }
  }
  if (queue.empty()) return reject("no HCA is cabled to a switch");
  while (!queue.empty()) {
    const NodeIdx s = queue.front();
    queue.pop_front();
    for (const Port& p : f.node(s).ports) {
      if (p.connected() && t.level[p.peer.value()] < 0) {
        t.level[p.peer.value()] = t.level[s.value()] + 1;
        queue.push_back(p.peer);
      }
    }
  }
  for (NodeIdx s : f.switches()) t.height = std::max(t.height, t.level[s.value()]);
  if (t.height > 64) return reject("more than 64 switch levels");
  t.switches.assign(static_cast<std::size_t>(t.height), {});
  for (NodeIdx s : f.switches()) {
    const int l = t.level[s.value()];
    if (l >= 1) t.switches[static_cast<std::size_t>(l) - 1].push_back(s);
  }

  // Every cable joins adjacent levels (an HCA counts as level 0 only if it is in the tree).
  for (std::uint32_t i = 0; i < n; ++i) {
    const int li = t.level[i];
    if (li < 0) continue;
    for (const Port& p : f.node(NodeIdx(i)).ports) {
      if (!p.connected()) continue;
      const int lp = t.level[p.peer.value()];
      if (lp == li + 1) {
        t.up_ports[i].push_back(p.num);
      } else if (lp == li - 1) {
        t.down_ports[i].push_back(p.num);
      } else {
        return reject("cable " + name(NodeIdx(i)) + "[" + std::to_string(p.num.value()) + "] - " +
                      name(p.peer) + "[" + std::to_string(p.peer_port.value()) +
                      "] joins two level-" + std::to_string(li) +
                      " nodes; a fat-tree's cables join adjacent levels");
      }
    }
  }

  // Hosts leaf by leaf, in leaf port order.
  const auto& leaves = t.switches.front();
  for (std::uint32_t k = 0; k < leaves.size(); ++k) {
    const NodeIdx leaf = leaves[k];
    t.leaf_index[leaf.value()] = k;
    for (PortNum p : t.down_ports[leaf.value()]) {
      const NodeIdx h = f.port(leaf, p).peer;
      t.host_of_node[h.value()] = static_cast<std::uint32_t>(t.hosts.size());
      t.hosts.push_back(h);
      t.leaf_of_host.push_back(leaf);
    }
  }
  t.max_up.assign(static_cast<std::size_t>(t.height) + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (t.level[i] < 0) continue;
    auto& m = t.max_up[static_cast<std::size_t>(t.level[i])];
    m = std::max(m, static_cast<std::uint32_t>(t.up_ports[i].size()));
  }
  return true;
}

bool recognize_fat_tree(Fabric& f, std::string* why) {
  FatTreeLayout t;
  if (!build_fat_tree_layout(f, t, why)) return false;
  f.set_fat_tree(std::move(t));
  if (f.xgft() == nullptr) (void)recognize_xgft(f, nullptr);
  return true;
}

std::string fat_tree_label(Fabric& f, std::string* why) {
  if (!recognize_fat_tree(f, why)) return {};
  if (const XgftLayout* x = f.xgft()) return x->params.to_string();
  const FatTreeLayout& t = *f.fat_tree();
  std::size_t switches = 0;
  for (const auto& level : t.switches) switches += level.size();
  return "fat-tree(" + std::to_string(t.height) + " levels, " + std::to_string(switches) +
         " switches, " + std::to_string(t.hosts.size()) + " hosts)";
}

FatTreeSubtrees fat_tree_subtrees(const Fabric& f, const FatTreeLayout& t) {
  FatTreeSubtrees out;
  std::vector<std::uint32_t> parent(f.num_nodes());
  std::iota(parent.begin(), parent.end(), 0u);
  const auto find = [&parent](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<std::uint32_t> id(f.num_nodes());
  for (int l = 1; l < t.height; ++l) {
    const auto& level = t.switches[static_cast<std::size_t>(l) - 1];
    for (NodeIdx s : level) {
      for (PortNum p : t.down_ports[s.value()]) {
        const std::uint32_t a = find(s.value());
        const std::uint32_t b = find(f.port(s, p).peer.value());
        if (a != b) parent[a] = b;
      }
    }
    std::fill(id.begin(), id.end(), FatTreeLayout::kNotHost);
    auto& of_leaf = out.of_leaf.emplace_back(t.num_leaves());
    auto& up = out.up_links.emplace_back();
    const auto subtree = [&](NodeIdx n) {
      std::uint32_t& i = id[find(n.value())];
      if (i == FatTreeLayout::kNotHost) {
        i = static_cast<std::uint32_t>(up.size());
        up.emplace_back();
      }
      return i;
    };
    for (std::size_t k = 0; k < t.num_leaves(); ++k) of_leaf[k] = subtree(t.switches[0][k]);
    for (NodeIdx s : level) {
      const std::uint32_t i = subtree(s);
      for (PortNum p : t.up_ports[s.value()]) up[i].push_back(f.port(s, p).out);
    }
  }
  return out;
}

void TowardLeaf::compute(const Fabric& f, const FatTreeLayout& t, NodeIdx leaf) {
  leaf_ = leaf;
  turn_.assign(f.num_nodes(), 0);
  // Ancestors: everything reached from the leaf going up.
  std::vector<NodeIdx> stack{leaf};
  turn_[leaf.value()] = 1;
  while (!stack.empty()) {
    const NodeIdx s = stack.back();
    stack.pop_back();
    for (PortNum p : t.up_ports[s.value()]) {
      const NodeIdx parent = f.port(s, p).peer;
      if (turn_[parent.value()] != 0) continue;
      turn_[parent.value()] = static_cast<std::uint8_t>(t.level[parent.value()]);
      stack.push_back(parent);
    }
  }
  // Everyone else turns where its lowest-turning parent does; parents first, so top down.
  for (int l = t.height - 1; l >= 0; --l) {
    const auto& nodes = l == 0 ? t.hosts : t.switches[static_cast<std::size_t>(l) - 1];
    for (NodeIdx s : nodes) {
      if (turn_[s.value()] != 0) continue;
      std::uint8_t best = 0;
      for (PortNum p : t.up_ports[s.value()]) {
        const std::uint8_t up = turn_[f.port(s, p).peer.value()];
        if (up != 0 && (best == 0 || up < best)) best = up;
      }
      turn_[s.value()] = best;
    }
  }
}

bool TowardLeaf::on_shortest(const Fabric& f, const FatTreeLayout& t, NodeIdx n, PortNum p) const {
  const std::uint8_t here = turn_[n.value()];
  if (here == 0) return false;
  const NodeIdx next = f.port(n, p).peer;
  const int lh = t.level[n.value()];
  const int ln = t.level[next.value()];
  if (here == lh) {  // an ancestor: down to an ancestor (or to a host of the leaf)
    if (ln != lh - 1) return false;
    return ln == 0 ? n == leaf_ : turn_[next.value()] == ln;
  }
  return ln == lh + 1 && turn_[next.value()] == here;
}

namespace {

// Switches reached from `leaf` going up, below level `below`.
std::vector<NodeIdx> cone_below(const Fabric& f, const FatTreeLayout& t, NodeIdx leaf, int below) {
  std::vector<NodeIdx> cone{leaf};
  for (std::size_t i = 0; i < cone.size(); ++i) {
    if (t.level[cone[i].value()] + 1 >= below) continue;
    for (PortNum p : t.up_ports[cone[i].value()]) {
      const NodeIdx up = f.port(cone[i], p).peer;
      if (std::find(cone.begin(), cone.end(), up) == cone.end()) cone.push_back(up);
    }
  }
  return cone;
}

}  // namespace

// A path is a shortest up*/down* path when its levels climb one by one to a peak and fall one by
// one, and no switch below the peak is an ancestor of both leaves (else a lower turn exists).
// Only the two cones below the peak are visited, not the fabric.
std::string check_up_down_path(const Fabric& f, const FatTreeLayout& t, std::span<const LinkId> p) {
  if (p.size() < 2) return "a host-to-host path has at least two links";
  const NodeIdx src = f.link(p.front()).from;
  const NodeIdx dst = f.link(p.back()).to;
  const auto hop = [&](std::size_t i) {
    const Link& l = f.link(p[i]);
    return "hop " + std::to_string(i) + " (" + f.node(l.from).name + "[" +
           std::to_string(l.from_port.value()) + "] -> " + f.node(l.to).name + ")";
  };
  if (t.host_of_node[src.value()] == FatTreeLayout::kNotHost ||
      t.host_of_node[dst.value()] == FatTreeLayout::kNotHost) {
    return "the path does not join two hosts of the fat-tree";
  }
  const std::size_t half = p.size() / 2;
  if (p.size() % 2 != 0) return "a path of " + std::to_string(p.size()) + " links is not up*/down*";
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Link& l = f.link(p[i]);
    const int want = i < half ? 1 : -1;
    if (t.level[l.to.value()] - t.level[l.from.value()] != want) {
      return hop(i) + (i < half ? " does not go up" : " does not go down") +
             " where a shortest up*/down* path of " + std::to_string(p.size()) + " links must";
    }
  }
  const int peak = static_cast<int>(half);
  const NodeIdx src_leaf = f.link(p.front()).to;
  const NodeIdx dst_leaf = f.link(p.back()).from;
  const std::vector<NodeIdx> a = cone_below(f, t, src_leaf, peak);
  for (NodeIdx n : cone_below(f, t, dst_leaf, peak)) {
    if (t.level[n.value()] < peak && std::find(a.begin(), a.end(), n) != a.end()) {
      return "the path turns at level " + std::to_string(peak) + ", but " + f.node(n).name +
             " (level " + std::to_string(t.level[n.value()]) + ") is above both " +
             f.node(src_leaf).name + " and " + f.node(dst_leaf).name;
    }
  }
  return {};
}

}  // namespace ibsdn
