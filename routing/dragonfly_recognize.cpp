// Recognising a 1D dragonfly or a megafly from the discovered graph alone (docs/routing.md,
// "Dragonflies from a discovered fabric"), so that `algorithms.dragonfly` applies to ibsim netlists
// and to what OpenSM discovers.
//
// Proposal, then proof. The groups are proposed by a local criterion that tolerates missing
// cables, then everything the routings rely on is verified; whatever fails is refused with the
// router that broke the model. A fabric is therefore never accepted on a guess: a wrong proposal
// is refused, it cannot yield a layout whose paths are wrong.
//
// Kind. Routers with HCAs are host routers. When host routers are cabled mostly to other host
// routers the fabric is read as a 1D dragonfly (every router has hosts); when mostly to routers
// without hosts, as a megafly (leaves have hosts and are cabled only to spines).
//
// 1D groups. A group is a clique, so the two ends of a local cable share the other a-2 routers of
// their group as neighbours, and a router missing a few local cables still shares most of them.
// The ends of a global cable share few neighbours: only routers with global cables to both, which
// the arrangement spreads over many groups. A cable u-v is local when its ends share more than
// half as many neighbours as the best-connected cable of either end: c(u,v) > max(cmax(u),
// cmax(v)) / 2, with c counted over distinct switch neighbours (parallel cables count once). The
// groups are the connected components of these cables: a local cable that misses the threshold
// (too many missing cables next to it) does not split a group that the rest of the clique holds
// together. A router left alone because several of its own local cables are missing joins the
// group holding more than half of its routers among its neighbours (the density check's demand).
// Limits: groups need a >= 3 routers; when the global wiring is as dense as the local one (e.g.
// h = g-1 and a = g, where the fabric is K_a x K_a and either side could be the groups) the
// proposal merges groups and the density check refuses.
//
// Megafly groups. Leaves have no global cables, so every leaf-spine cable is local: the groups are
// the connected components of the cables at leaves. A switch without hosts and without a leaf
// (its leaves' hosts all missing) is a leaf of the one group whose spines it is cabled to; one
// cabled to spines of several groups is refused (a fat-tree's top switch is one). A two-level
// fat-tree is one complete bipartite block, and refused as a single group.
//
// Verification. Every router of a 1D group is cabled to more than half of the others, every leaf
// to more than half of its group's spines and every spine to more than half of its leaves. This
// refuses merged groups, and by pigeonhole it is what the local routes need: two routers without
// their cable share a neighbour in the group (two hops), and a megafly leaf without its cable to a
// spine reaches it by leaf, other spine, shared leaf, spine (DragonflyLayout::append_local_route).
// Every pair of groups must be joined by a global cable, as minimal paths take one. Every HCA has
// exactly one cable, to a router.
//
// Order. As the generators number them: groups by their first host (position in Fabric::hcas()),
// host routers by their first host, routers without hosts after them and spines in natural name
// order ("s2" < "s10"), hosts in group, router, port order. A generated fabric read back from its
// netlist gets the generator's layout, field by field.
//
// Work: O(cables x degree) for the shared-neighbour counts, O(nodes log nodes) for the order; no
// per-group quadratic step (the density check counts each router's cables).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "routing/dragonfly.hpp"

namespace ibsdn {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// As the generators: pair_links holds groups^2 lists.
constexpr std::size_t kMaxGroups = 1024;

class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void refuse(const std::string& why) {
  throw Refused(why);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Names compared with their digit runs as numbers ("g2r10" after "g2r9"), then as text.
bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i;
      std::size_t je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      // Without leading zeros, a longer run is a larger number.
      std::string_view x = a.substr(i, ie - i);
      std::string_view y = b.substr(j, je - j);
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

class Recogniser {
 public:
  explicit Recogniser(const Fabric& f) : f_(f) {}

  DragonflyLayout run(std::string& label, std::string& note) {
    index_nodes();
    decide_kind();
    if (kind_ == DragonflyKind::kCanonical1D) {
      group_by_shared_neighbours();
    } else {
      group_by_leaves();
    }
    check_density();
    check_global_pairs();
    DragonflyLayout x = layout();
    describe(x, label, note);
    return x;
  }

 private:
  [[nodiscard]] const std::string& name(NodeIdx n) const { return f_.node(n).name; }
  [[nodiscard]] bool has_hosts(NodeIdx s) const { return hosts_on_[s.value()] > 0; }
  [[nodiscard]] std::uint32_t group(NodeIdx s) const { return group_[s.value()]; }

  // HCAs with one cable each, to a switch; switches' distinct switch neighbours.
  void index_nodes() {
    const std::size_t n = f_.num_nodes();
    if (f_.hcas().empty()) refuse("the fabric has no HCAs");
    if (f_.switches().size() < 2) refuse("the fabric has fewer than 2 switches");
    hosts_on_.assign(n, 0);
    for (NodeIdx h : f_.hcas()) {
      std::size_t cables = 0;
      NodeIdx peer;
      for (const Port& p : f_.node(h).ports) {
        if (p.connected()) {
          ++cables;
          peer = p.peer;
        }
      }
      if (cables != 1) {
        refuse("host " + name(h) + ": " + plural(cables, "cable", "cables") +
               "; dragonfly hosts have exactly one");
      }
      if (!f_.node(peer).is_switch()) {
        refuse("host " + name(h) + ": cabled to HCA " + name(peer) + ", not to a router");
      }
      ++hosts_on_[peer.value()];
    }
    adj_.assign(n, {});
    global_ports_.assign(n, 0);
    for (NodeIdx s : f_.switches()) {
      auto& a = adj_[s.value()];
      for (const Port& p : f_.node(s).ports) {
        if (p.connected() && f_.node(p.peer).is_switch()) a.push_back(p.peer);
      }
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
      if (a.empty()) refuse("router " + name(s) + ": not cabled to any other switch");
    }
  }

  void decide_kind() {
    std::size_t to_host_routers = 0;
    std::size_t to_others = 0;
    for (NodeIdx s : f_.switches()) {
      if (!has_hosts(s)) continue;
      for (NodeIdx v : adj_[s.value()]) ++(has_hosts(v) ? to_host_routers : to_others);
    }
    kind_ = to_host_routers > to_others ? DragonflyKind::kCanonical1D : DragonflyKind::kMegafly;
  }

  // Components of the cables u - adj_[u][k] where `connected(u, k)`, from the switches where
  // `connected.starts`, numbered in switch order.
  template <typename Connected>
  void components(const Connected& connected) {
    group_.assign(f_.num_nodes(), kNone);
    num_groups_ = 0;
    std::deque<NodeIdx> queue;
    for (NodeIdx s : f_.switches()) {
      if (group_[s.value()] != kNone || !connected.starts(s)) continue;
      group_[s.value()] = num_groups_;
      queue.push_back(s);
      while (!queue.empty()) {
        const NodeIdx u = queue.front();
        queue.pop_front();
        const auto& a = adj_[u.value()];
        for (std::size_t k = 0; k < a.size(); ++k) {
          if (group_[a[k].value()] == kNone && connected(u, k)) {
            group_[a[k].value()] = num_groups_;
            queue.push_back(a[k]);
          }
        }
      }
      ++num_groups_;
    }
  }

  void group_by_shared_neighbours() {
    const std::size_t n = f_.num_nodes();
    // shared[u][k]: switches cabled to both u and adj_[u][k].
    std::vector<std::vector<std::uint32_t>> shared(n);
    std::vector<std::uint32_t> best(n, 0);
    std::vector<std::uint32_t> mark(n, kNone);
    for (NodeIdx u : f_.switches()) {
      const auto& a = adj_[u.value()];
      for (NodeIdx w : a) mark[w.value()] = u.value();
      auto& c = shared[u.value()];
      c.assign(a.size(), 0);
      for (std::size_t k = 0; k < a.size(); ++k) {
        for (NodeIdx w : adj_[a[k].value()]) c[k] += mark[w.value()] == u.value();
        best[u.value()] = std::max(best[u.value()], c[k]);
      }
    }
    struct Strong {
      const Recogniser& r;
      const std::vector<std::vector<std::uint32_t>>& shared;
      const std::vector<std::uint32_t>& best;
      [[nodiscard]] bool starts(NodeIdx) const { return true; }
      [[nodiscard]] bool operator()(NodeIdx u, std::size_t k) const {
        const NodeIdx v = r.adj_[u.value()][k];
        return 2 * shared[u.value()][k] > std::max(best[u.value()], best[v.value()]);
      }
    };
    components(Strong{*this, shared, best});
    std::vector<std::uint32_t> size(num_groups_, 0);
    for (NodeIdx s : f_.switches()) ++size[group(s)];
    const std::uint32_t largest = *std::max_element(size.begin(), size.end());
    if (largest < 3) {
      refuse(
          "no three routers form a dense block of local cables; a 1D dragonfly's groups are "
          "cliques of at least 3 routers");
    }
    // A router that lost several of its own local cables shares too few neighbours over the
    // others to pass the threshold, and is left in a small component. It joins the group where
    // it has most neighbours when they are more than half of that group's routers, which
    // check_density() demands of it anyway; a router's global cables reach a few routers of any
    // one other group, far from half of it.
    const auto small = [&](std::uint32_t g) { return 2 * size[g] < largest; };
    std::vector<std::uint32_t> count(num_groups_, 0);
    for (NodeIdx s : f_.switches()) {
      if (!small(group(s))) continue;
      std::uint32_t home = kNone;
      std::uint32_t home_count = 0;
      for (NodeIdx v : adj_[s.value()]) {
        const std::uint32_t g = group(v);
        if (!small(g) && ++count[g] > home_count) {
          home = g;
          home_count = count[g];
        }
      }
      for (NodeIdx v : adj_[s.value()]) count[group(v)] = 0;
      if (home != kNone && 2 * home_count > size[home]) {
        --size[group(s)];
        group_[s.value()] = home;
        ++size[home];
      }
    }
    // Renumber without the groups emptied, in switch order as before.
    std::vector<std::uint32_t> renumber(num_groups_, kNone);
    std::uint32_t groups = 0;
    for (NodeIdx s : f_.switches()) {
      std::uint32_t& r = renumber[group(s)];
      if (r == kNone) r = groups++;
      group_[s.value()] = r;
    }
    num_groups_ = groups;
    std::vector<std::uint32_t> members(num_groups_, 0);
    std::vector<NodeIdx> first(num_groups_);
    for (NodeIdx s : f_.switches()) {
      if (members[group(s)]++ == 0) first[group(s)] = s;
    }
    const std::uint32_t most = *std::max_element(members.begin(), members.end());
    for (std::uint32_t g = 0; g < num_groups_; ++g) {
      if (2 * members[g] < most) {
        refuse("router " + name(first[g]) + ": its group has " +
               plural(members[g], "router", "routers") + ", the largest " + std::to_string(most) +
               "; too many local cables are missing to tell its group");
      }
    }
  }

  void group_by_leaves() {
    const std::size_t n = f_.num_nodes();
    role_.assign(n, RouterRole::kHost);
    for (NodeIdx s : f_.switches()) {
      if (has_hosts(s)) {
        role_[s.value()] = RouterRole::kLeaf;
        for (NodeIdx v : adj_[s.value()]) {
          if (has_hosts(v)) {
            refuse("router " + name(s) + ": cabled to " + name(v) +
                   ", both with hosts; megafly leaves are cabled to spines only");
          }
        }
      }
    }
    std::vector<NodeIdx> unplaced;
    for (NodeIdx s : f_.switches()) {
      if (has_hosts(s)) continue;
      const auto& a = adj_[s.value()];
      if (std::any_of(a.begin(), a.end(), [this](NodeIdx v) { return has_hosts(v); })) {
        role_[s.value()] = RouterRole::kSpine;
      } else {
        unplaced.push_back(s);
      }
    }
    struct AtLeaf {
      const Recogniser& r;
      [[nodiscard]] bool starts(NodeIdx s) const { return r.role_[s.value()] == RouterRole::kLeaf; }
      [[nodiscard]] bool operator()(NodeIdx u, std::size_t k) const {
        return r.role_[u.value()] == RouterRole::kLeaf ||
               r.role_[r.adj_[u.value()][k].value()] == RouterRole::kLeaf;
      }
    };
    components(AtLeaf{*this});
    // Leaves whose hosts are all missing: cabled to spines of one group only.
    for (NodeIdx s : unplaced) {
      std::uint32_t g = kNone;
      for (NodeIdx v : adj_[s.value()]) {
        if (role_[v.value()] != RouterRole::kSpine) {
          refuse("router " + name(s) + ": no hosts and no cable to a leaf, but cabled to " +
                 name(v) + ", which is not a spine");
        }
        if (g != kNone && group(v) != g) {
          refuse("router " + name(s) + ": no hosts and no cable to a leaf, but cabled to spines " +
                 "of two groups (" + name(adj_[s.value()].front()) + ", " + name(v) +
                 "); not a megafly router (a fat-tree's upper switch?)");
        }
        g = group(v);
      }
      group_[s.value()] = g;
      role_[s.value()] = RouterRole::kLeaf;
    }
    for (NodeIdx s : f_.switches()) {
      if (role_[s.value()] != RouterRole::kSpine) continue;
      for (NodeIdx v : adj_[s.value()]) {
        if (role_[v.value()] == RouterRole::kSpine && group(v) == group(s)) {
          refuse("router " + name(s) + ": cabled to spine " + name(v) +
                 " of its own group; megafly spines are cabled to leaves and to other groups");
        }
      }
    }
  }

  // More than half of each router's possible local cables exist (see the top of the file).
  void check_density() {
    if (num_groups_ < 2) {
      refuse(kind_ == DragonflyKind::kCanonical1D
                 ? "all routers form one group; a dragonfly needs at least 2"
                 : "the leaves and spines form one group (a two-level fat-tree?); a megafly needs "
                   "at least 2");
    }
    if (num_groups_ > kMaxGroups) {
      refuse(std::to_string(num_groups_) + " groups, more than " + std::to_string(kMaxGroups));
    }
    // Routers per group and role.
    leaves_.assign(num_groups_, 0);
    spines_.assign(num_groups_, 0);
    for (NodeIdx s : f_.switches()) {
      ++(spine(s) ? spines_ : leaves_)[group(s)];
    }
    for (NodeIdx s : f_.switches()) {
      std::uint32_t local = 0;
      for (NodeIdx v : adj_[s.value()]) local += group(v) == group(s);
      if (kind_ == DragonflyKind::kCanonical1D) {
        const std::uint32_t others = leaves_[group(s)] - 1;
        if (2 * local <= others) {
          refuse("router " + name(s) + ": local cables to " + std::to_string(local) + " of the " +
                 std::to_string(others) + " other routers of its group; a group is a clique, " +
                 "more than half of them are needed");
        }
      } else {
        const std::uint32_t others = spine(s) ? leaves_[group(s)] : spines_[group(s)];
        if (2 * local <= others) {
          refuse("router " + name(s) + ": cabled to " + std::to_string(local) + " of the " +
                 std::to_string(others) + (spine(s) ? " leaves" : " spines") +
                 " of its group; a megafly group is a complete bipartite graph, more than half "
                 "of them are needed");
        }
      }
    }
  }

  [[nodiscard]] bool spine(NodeIdx s) const {
    return kind_ == DragonflyKind::kMegafly && role_[s.value()] == RouterRole::kSpine;
  }

  // Every two groups are joined by a global cable; counts global cables per router.
  void check_global_pairs() {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (NodeIdx s : f_.switches()) {
      for (const Port& p : f_.node(s).ports) {
        if (!p.connected() || !f_.node(p.peer).is_switch() || group(p.peer) == group(s)) continue;
        ++global_ports_[s.value()];
        if (group(s) < group(p.peer)) pairs.emplace_back(group(s), group(p.peer));
      }
    }
    global_cables_ = pairs.size();
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    const std::uint64_t g = num_groups_;
    if (pairs.size() == g * (g - 1) / 2) return;
    // The first missing pair in order; the walk stops there, so it is bounded by the cables.
    std::size_t k = 0;
    for (std::uint32_t i = 0; i < num_groups_; ++i) {
      for (std::uint32_t j = i + 1; j < num_groups_; ++j, ++k) {
        if (k < pairs.size() && pairs[k] == std::pair{i, j}) continue;
        NodeIdx a;
        NodeIdx b;
        for (NodeIdx s : f_.switches()) {
          if (!a.valid() && group(s) == i) a = s;
          if (!b.valid() && group(s) == j) b = s;
        }
        refuse("router " + name(a) + ": no global cable between its group and the group of " +
               name(b) + "; every two groups must be cabled");
      }
    }
  }

  DragonflyLayout layout() {
    const std::size_t n = f_.num_nodes();
    std::vector<std::uint32_t> first_host(n, kNone);
    for (std::size_t i = 0; i < f_.hcas().size(); ++i) {
      const NodeIdx h = f_.hcas()[i];
      for (const Port& p : f_.node(h).ports) {
        if (p.connected()) {
          std::uint32_t& fh = first_host[p.peer.value()];
          fh = std::min(fh, static_cast<std::uint32_t>(i));
        }
      }
    }
    const auto before = [&](NodeIdx a, NodeIdx b) {
      if (spine(a) != spine(b)) return spine(b);
      if (first_host[a.value()] != first_host[b.value()]) {
        return first_host[a.value()] < first_host[b.value()];
      }
      return natural_less(name(a), name(b));
    };
    std::vector<std::vector<NodeIdx>> groups(num_groups_);
    for (NodeIdx s : f_.switches()) groups[group(s)].push_back(s);
    for (auto& rs : groups) std::sort(rs.begin(), rs.end(), before);
    std::sort(groups.begin(), groups.end(),
              [&](const auto& a, const auto& b) { return before(a.front(), b.front()); });

    DragonflyLayout x;
    x.kind = kind_;
    x.groups = static_cast<int>(num_groups_);
    x.routers = std::move(groups);
    x.role.assign(n, RouterRole::kHost);
    for (const auto& rs : x.routers) {
      int host_routers = 0;
      int spines = 0;
      for (NodeIdx r : rs) {
        x.role[r.value()] =
            kind_ == DragonflyKind::kCanonical1D ? RouterRole::kRouter : role_[r.value()];
        ++(spine(r) ? spines : host_routers);
        x.hosts_per_router = std::max(x.hosts_per_router, static_cast<int>(hosts_on_[r.value()]));
        for (const Port& p : f_.node(r).ports) {
          if (p.connected() && f_.node(p.peer).is_hca()) x.hosts.push_back(p.peer);
        }
      }
      x.host_routers = std::max(x.host_routers, host_routers);
      x.spines = std::max(x.spines, spines);
    }
    index_dragonfly_cabling(f_, x);
    return x;
  }

  // The label (largest counts) and what differs from the generated fabric of it.
  void describe(const DragonflyLayout& x, std::string& label, std::string& note) const {
    int global_per_router = 0;
    for (NodeIdx s : f_.switches()) {
      global_per_router = std::max(global_per_router, static_cast<int>(global_ports_[s.value()]));
    }
    const auto g = static_cast<std::uint64_t>(x.groups);
    const auto per_router = static_cast<std::uint64_t>(x.hosts_per_router);
    const auto leaves = static_cast<std::uint64_t>(x.host_routers);
    const auto spines = static_cast<std::uint64_t>(x.spines);
    const bool mf = x.megafly();
    label = mf ? MegaflyParams{x.hosts_per_router, x.host_routers, x.spines, global_per_router,
                               x.groups}
                     .to_string()
               : DragonflyParams{x.hosts_per_router, x.host_routers, global_per_router, x.groups}
                     .to_string();

    std::uint64_t local_pairs = 0;  // distinct router pairs joined by local cables
    std::uint64_t local_cables = 0;
    for (NodeIdx s : f_.switches()) {
      for (NodeIdx v : adj_[s.value()]) local_pairs += group(v) == group(s) && s < v;
      for (const Port& p : f_.node(s).ports) {
        local_cables +=
            p.connected() && f_.node(p.peer).is_switch() && group(p.peer) == group(s) && s < p.peer;
      }
    }
    // The generators' global arrangement: P ports per group over D = g-1 other groups.
    const std::uint64_t ports =
        (mf ? spines : leaves) * static_cast<std::uint64_t>(global_per_router);
    const std::uint64_t d = g - 1;
    const std::uint64_t full = ports / d;
    const std::uint64_t rest = ports % d;
    const std::uint64_t globals = g * (full * d + (2 * rest > d ? 2 * rest - d : 0)) / 2;
    const std::uint64_t routers = g * (leaves + spines);
    const std::uint64_t locals = g * (mf ? leaves * spines : leaves * (leaves - 1) / 2);

    std::vector<std::string> parts;
    const auto missing = [&parts](std::uint64_t want, std::uint64_t have, std::string_view one,
                                  std::string_view many) {
      if (have < want) parts.push_back(plural(want - have, one, many));
    };
    missing(routers, f_.switches().size(), "router missing", "routers missing");
    missing(g * leaves * per_router, f_.hcas().size(), "host port empty", "host ports empty");
    missing(locals, local_pairs, "local cable missing", "local cables missing");
    missing(globals, global_cables_, "global cable missing", "global cables missing");
    if (local_cables > local_pairs) {
      parts.push_back(plural(local_cables - local_pairs, "local cable", "local cables") +
                      " in parallel to another (unused)");
    }
    if (global_cables_ > globals) {
      parts.push_back(plural(global_cables_ - globals, "global cable", "global cables") +
                      " more than the generated arrangement");
    }
    note.clear();
    for (const std::string& s : parts) note += (note.empty() ? "" : ", ") + s;
  }

  const Fabric& f_;
  DragonflyKind kind_ = DragonflyKind::kCanonical1D;
  std::vector<std::uint32_t> hosts_on_;      // switch -> HCAs cabled to it
  std::vector<std::vector<NodeIdx>> adj_;    // switch -> distinct switch neighbours, sorted
  std::vector<std::uint32_t> global_ports_;  // switch -> global cables (parallel ones each)
  std::vector<RouterRole> role_;             // megafly: leaf / spine
  std::vector<std::uint32_t> group_;         // switch -> group (component number)
  std::uint32_t num_groups_ = 0;
  std::vector<std::uint32_t> leaves_;  // group -> host routers (1D: all routers)
  std::vector<std::uint32_t> spines_;  // group -> spines
  std::size_t global_cables_ = 0;
};

}  // namespace

bool recognize_dragonfly(Fabric& f, std::string* why) {
  std::string label;
  std::string note;
  try {
    DragonflyLayout x = Recogniser(f).run(label, note);
    f.kind_label = std::move(label);
    f.set_dragonfly(std::move(x));
  } catch (const Refused& e) {
    if (why != nullptr) *why = e.what();
    return false;
  }
  if (why != nullptr) *why = std::move(note);
  return true;
}

}  // namespace ibsdn
