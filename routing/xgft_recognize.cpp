// Recognising an XGFT(h; m; w) with w1 = 1 from the discovered graph alone, cabled in any port
// order, so that the XGFT-only algorithms and their exact forms apply to ibsim netlists and to
// what OpenSM discovers (routing/xgft.hpp: labels and port maps).
//
// Levels come from the distance to the HCAs; cables may only join adjacent levels, and every
// level-(l-1) node must have the same number of up-links, w_l. A level-l subtree is a connected
// component of the nodes of levels <= l (joined level by level in a union-find); every level-l
// subtree must hold the same number of level-(l-1) subtrees, m_l, and every level-l switch must
// have exactly one child in each. The labels are then read off the cabling: x_l numbers a
// subtree's child subtrees in the port order of its first switch (any order is an XGFT labelling),
// and y_l numbers the classes of switches that share their top-level ancestors (in an XGFT,
// switches with equal y digits have the same ones, unequal ones disjoint sets). Nothing is
// accepted on these readings alone: the labels must fill the layout of the parameters found
// exactly once, every child-parent pair they demand must be cabled (index_xgft_ports) and no other
// cable may exist. A recognised XGFT also gets its fat-tree layout (routing/fat_tree.hpp).
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "routing/fat_tree.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

namespace {

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n), size_(n, 1) {
    for (std::size_t i = 0; i < n; ++i) parent_[i] = static_cast<std::uint32_t>(i);
  }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> size_;
};

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// A level-l subtree: a connected component of the nodes of levels <= l.
struct Subtree {
  std::uint32_t parent = kNone;  // the level-(l+1) subtree containing it
  std::uint32_t digit = 0;       // its x_{l+1} digit inside the parent
  std::uint32_t children = 0;    // level-(l-1) subtrees inside it
  std::uint64_t index = 0;       // x index: x_{l+1}..x_h, x_{l+1} least significant
  std::vector<NodeIdx> members;  // its level-l nodes
};

}  // namespace

bool recognize_xgft(Fabric& f, std::string* why) {
  const auto reject = [why](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (f.levels().size() != f.num_nodes()) f.compute_levels();
  const std::vector<int>& lv = f.levels();
  const std::size_t n = f.num_nodes();
  const auto name = [&f](NodeIdx x) { return f.node(x).name; };
  const auto level_of = [&lv](NodeIdx x) { return lv[x.value()]; };
  if (f.hcas().empty() || f.switches().empty()) return reject("an XGFT needs HCAs and switches");

  int h = 0;
  for (NodeIdx s : f.switches()) {
    if (level_of(s) < 1) return reject("switch " + name(s) + " is not connected to any HCA");
    h = std::max(h, level_of(s));
  }
  if (h > 8) return reject("the fabric has " + std::to_string(h) + " switch levels (max 8)");
  std::vector<std::vector<NodeIdx>> at(static_cast<std::size_t>(h) + 1);
  for (std::uint32_t i = 0; i < n; ++i) at[static_cast<std::size_t>(lv[i])].push_back(NodeIdx(i));

  // Cables may only join adjacent levels; count each node's links up and down.
  std::vector<std::uint32_t> up(n, 0);
  std::vector<std::uint32_t> down(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (const Port& p : f.node(NodeIdx(i)).ports) {
      if (!p.connected()) continue;
      const int d = level_of(p.peer) - lv[i];
      if (d == 1) {
        ++up[i];
      } else if (d == -1) {
        ++down[i];
      } else {
        return reject("cable " + name(NodeIdx(i)) + "[" + std::to_string(p.num.value()) + "] - " +
                      name(p.peer) + "[" + std::to_string(p.peer_port.value()) +
                      "] joins a level-" + std::to_string(lv[i]) + " and a level-" +
                      std::to_string(level_of(p.peer)) + " node");
      }
    }
  }
  for (NodeIdx host : f.hcas()) {
    if (up[host.value()] != 1) {
      return reject("host " + name(host) + " has " + std::to_string(up[host.value()]) +
                    " cables; XGFT hosts (w1 = 1) have exactly one");
    }
  }

  XgftParams params;
  params.h = h;
  params.m.assign(static_cast<std::size_t>(h), 0);
  params.w.assign(static_cast<std::size_t>(h), 1);
  std::vector<std::uint64_t> w_prefix(static_cast<std::size_t>(h) + 1, 1);

  // w_l: every level-(l-1) node has the same number of up-links.
  for (int l = 1; l <= h; ++l) {
    const auto lz = static_cast<std::size_t>(l);
    const std::vector<NodeIdx>& below = at[lz - 1];
    const std::uint32_t wl = up[below.front().value()];
    for (NodeIdx c : below) {
      if (up[c.value()] != wl) {
        return reject("level-" + std::to_string(l - 1) + " nodes " + name(below.front()) + " and " +
                      name(c) + " have " + std::to_string(wl) + " and " +
                      std::to_string(up[c.value()]) + " up-links");
      }
    }
    params.w[lz - 1] = static_cast<int>(wl);
    w_prefix[lz] = w_prefix[lz - 1] * wl;
    if (w_prefix[lz] > n) {  // an XGFT has at least w_1*...*w_l switches at level l
      return reject("up-link counts multiply to more positions than the fabric has nodes");
    }
  }

  std::vector<std::vector<Subtree>> subs(static_cast<std::size_t>(h) + 1);
  std::vector<std::uint32_t> own_sub(n, kNone);  // node -> its subtree at its own level
  std::vector<std::uint64_t> y_index(n, 0);      // node -> y_1..y_l, y_1 least significant
  subs[0].resize(at[0].size());
  for (std::uint32_t k = 0; k < at[0].size(); ++k) {
    own_sub[at[0][k].value()] = k;
    subs[0][k].members.push_back(at[0][k]);
  }

  DisjointSets sets(n);
  std::vector<std::uint32_t> root_sub(n, kNone);
  std::vector<std::uint32_t> seen_child(at[0].size(), kNone);  // child subtree -> switch stamp
  std::vector<std::uint32_t> class_digit(n, kNone);            // class key -> y_l digit
  // Class key of a switch: its smallest top-level ancestor. In an XGFT, switches with equal y
  // digits have the same set of top-level ancestors, and unequal ones disjoint sets.
  std::vector<std::uint32_t> top_key(n, kNone);
  for (NodeIdx s : at[static_cast<std::size_t>(h)]) top_key[s.value()] = s.value();
  for (int l = h - 1; l >= 1; --l) {
    for (NodeIdx s : at[static_cast<std::size_t>(l)]) {
      for (const Port& p : f.node(s).ports) {
        if (p.connected() && level_of(p.peer) == l + 1) {
          top_key[s.value()] = std::min(top_key[s.value()], top_key[p.peer.value()]);
        }
      }
    }
  }
  for (int l = 1; l <= h; ++l) {
    const auto lz = static_cast<std::size_t>(l);
    const std::vector<NodeIdx>& below = at[lz - 1];

    // Level-l subtrees: join every level-l switch with its children.
    for (NodeIdx s : at[lz]) {
      for (const Port& p : f.node(s).ports) {
        if (p.connected() && level_of(p.peer) == l - 1) sets.unite(s.value(), p.peer.value());
      }
    }
    std::fill(root_sub.begin(), root_sub.end(), kNone);
    std::vector<Subtree>& level = subs[lz];
    for (NodeIdx s : at[lz]) {
      std::uint32_t& id = root_sub[sets.find(s.value())];
      if (id == kNone) {
        id = static_cast<std::uint32_t>(level.size());
        level.emplace_back();
      }
      own_sub[s.value()] = id;
      level[id].members.push_back(s);
    }
    for (Subtree& child : subs[lz - 1]) {
      child.parent = root_sub[sets.find(child.members.front().value())];
      if (child.parent == kNone) {
        return reject(name(child.members.front()) + " has no level-" + std::to_string(l) +
                      " switch above it");
      }
      ++level[child.parent].children;
    }
    const std::uint32_t ml = level.front().children;
    for (const Subtree& t : level) {
      if (t.children != ml) {
        return reject("level-" + std::to_string(l) + " subtrees of " + name(t.members.front()) +
                      " and " + name(level.front().members.front()) + " hold " +
                      std::to_string(t.children) + " and " + std::to_string(ml) + " level-" +
                      std::to_string(l - 1) + " subtrees");
      }
    }
    params.m[lz - 1] = static_cast<int>(ml);

    // Every level-l switch has one child in each child subtree, and all its children share their
    // y digits, which become the switch's lower digits.
    seen_child.assign(subs[lz - 1].size(), kNone);
    for (NodeIdx s : at[lz]) {
      if (down[s.value()] != ml) {
        return reject("switch " + name(s) + " has " + std::to_string(down[s.value()]) +
                      " down-links, but its subtree holds " + std::to_string(ml) + " level-" +
                      std::to_string(l - 1) + " subtrees");
      }
      std::optional<std::uint64_t> lower;
      for (const Port& p : f.node(s).ports) {
        if (!p.connected() || level_of(p.peer) != l - 1) continue;
        std::uint32_t& seen = seen_child[own_sub[p.peer.value()]];
        if (seen == s.value()) {
          return reject("switch " + name(s) + " has two cables into the level-" +
                        std::to_string(l - 1) + " subtree of " + name(p.peer));
        }
        seen = s.value();
        if (!lower) {
          lower = y_index[p.peer.value()];
        } else if (*lower != y_index[p.peer.value()]) {
          return reject("the children of switch " + name(s) +
                        " are not all in the same position of their subtrees (" + name(p.peer) +
                        " differs)");
        }
      }
      y_index[s.value()] = lower.value_or(0);
    }
    // x_l: the port order of the subtree's first switch numbers its child subtrees. Any order is
    // an XGFT labelling, since every switch of the subtree reaches every child subtree.
    for (const Subtree& t : level) {
      std::uint32_t digit = 0;
      for (const Port& p : f.node(t.members.front()).ports) {
        if (p.connected() && level_of(p.peer) == l - 1) {
          subs[lz - 1][own_sub[p.peer.value()]].digit = digit++;
        }
      }
    }
    // y_l: switches with equal y digits have the same top-level ancestors (class key); for each
    // value of the lower digits, the first level-(l-1) node holding it numbers the classes of its
    // parents in port order. Labels must agree across subtrees, hence classes, not subtrees.
    std::vector<NodeIdx> ref_child(w_prefix[lz - 1]);
    for (NodeIdx c : below) {
      // By induction y digits stay below w_1*...*w_(l-1); checked anyway, as this never throws.
      if (y_index[c.value()] >= ref_child.size()) return reject("inconsistent y digits");
      NodeIdx& r = ref_child[y_index[c.value()]];
      if (!r.valid()) r = c;
    }
    for (NodeIdx s : at[lz]) {
      if (top_key[s.value()] == kNone) {
        return reject("switch " + name(s) + " has no path up to the top level");
      }
    }
    std::fill(class_digit.begin(), class_digit.end(), kNone);
    for (NodeIdx c : ref_child) {
      if (!c.valid()) continue;
      std::uint32_t y = 0;
      for (const Port& p : f.node(c).ports) {
        if (!p.connected() || level_of(p.peer) != l) continue;
        std::uint32_t& d = class_digit[top_key[p.peer.value()]];
        if (d != kNone) {
          return reject("switch " + name(p.peer) + " shares its top-level ancestors with another " +
                        "level-" + std::to_string(l) + " switch in a different position");
        }
        d = y++;
      }
    }
    for (NodeIdx s : at[lz]) {
      const std::uint32_t d = class_digit[top_key[s.value()]];
      if (d == kNone) {
        return reject("switch " + name(s) + " is not a parent of the first level-" +
                      std::to_string(l - 1) + " node in its children's position");
      }
      y_index[s.value()] += d * w_prefix[lz - 1];
    }
  }
  if (subs[static_cast<std::size_t>(h)].size() != 1) {
    return reject("the fabric is " + std::to_string(subs[static_cast<std::size_t>(h)].size()) +
                  " separate trees");
  }
  try {
    params.validate();
  } catch (const std::invalid_argument& e) {
    return reject(e.what());
  }

  // x indexes top-down, then labels -> positions in the layout.
  for (int l = h; l >= 1; --l) {
    const auto lz = static_cast<std::size_t>(l);
    for (Subtree& child : subs[lz - 1]) {
      child.index =
          subs[lz][child.parent].index * static_cast<std::uint64_t>(params.m[lz - 1]) + child.digit;
    }
  }
  XgftLayout x = XgftLayout::make(params);
  const std::string label = params.to_string();
  if (at[0].size() != params.num_hosts()) {
    return reject(std::to_string(at[0].size()) + " hosts, but " + label + " has " +
                  std::to_string(params.num_hosts()));
  }
  x.hosts.assign(at[0].size(), NodeIdx{});
  for (NodeIdx host : at[0]) {
    const std::uint64_t i = subs[0][own_sub[host.value()]].index;
    if (i >= x.hosts.size() || x.hosts[i].valid()) {
      return reject("two hosts get the same " + label + " label (" + name(host) + ")");
    }
    x.hosts[i] = host;
  }
  for (int l = 1; l <= h; ++l) {
    const auto lz = static_cast<std::size_t>(l);
    auto& sw = x.switches[lz - 1];
    if (at[lz].size() != params.num_switches(l)) {
      return reject(std::to_string(at[lz].size()) + " level-" + std::to_string(l) +
                    " switches, but " + label + " has " + std::to_string(params.num_switches(l)));
    }
    sw.assign(at[lz].size(), NodeIdx{});
    for (NodeIdx s : at[lz]) {
      const std::uint64_t i =
          subs[lz][own_sub[s.value()]].index * w_prefix[lz] + y_index[s.value()];
      if (i >= sw.size() || sw[i].valid()) {
        return reject("two level-" + std::to_string(l) + " switches get the same " + label +
                      " label (" + name(s) + ")");
      }
      sw[i] = s;
    }
  }

  // Verify against what the labels demand: every child-parent pair cabled, and no other cable.
  try {
    index_xgft_ports(f, x);
  } catch (const std::invalid_argument& e) {
    return reject(e.what());
  }
  std::uint64_t expected_cables = 0;
  for (int l = 1; l <= h; ++l) {
    expected_cables += static_cast<std::uint64_t>(at[static_cast<std::size_t>(l) - 1].size()) *
                       static_cast<std::uint64_t>(params.w[static_cast<std::size_t>(l) - 1]);
  }
  if (expected_cables != f.num_links() / 2) {
    return reject(std::to_string(f.num_links() / 2) + " cables, but " + label + " has " +
                  std::to_string(expected_cables));
  }
  f.set_xgft(std::move(x));
  if (f.fat_tree() == nullptr) {
    FatTreeLayout tree;
    if (!build_fat_tree_layout(f, tree, why)) return false;
    f.set_fat_tree(std::move(tree));
  }
  return true;
}

}  // namespace ibsdn
