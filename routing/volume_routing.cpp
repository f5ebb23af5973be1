#include "routing/volume_routing.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include "routing/fat_tree_paths.hpp"
#include "routing/link_capacity.hpp"
#include "routing/patterns/rng.hpp"
#include "routing/per_destination.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn {
namespace {

// Relative slack under which two utilisations count as equal (sums of doubles).
constexpr double kEps = 1e-9;
// Eviction: other paths tried per hot flow, and flows tried per blocking link. Small: each try
// is one best_path(), and most moves that exist are found among the first candidates.
constexpr int kCandidatePaths = 4;
constexpr std::size_t kEvictionTries = 4;
constexpr int kChainDepth = 3;
// With per_destination, two deep: a unit there is a destination's flows through a switch, so
// each eviction already moves more, and the tree of chains tried from one unit is what a round
// spends its time on. On the volume catalogue (bench scale, heavy-tailed and unit volumes) depth 2
// kept every result within 0.09% of depth 3's (the unit ones identical) and took 3.1 s instead of
// 3.5 s over the heavy cases, 12 s instead of 70 s over the unit ones (1.5 s, not 11 s, on their
// worst: all-to-all among 128 nodes of the tapered tree, 16256 flows).
constexpr int kPerDestinationChainDepth = 2;
// Relocations that chains may try in all, restarts included (a bound on the work of a routing
// that no move can improve: every hot flow would otherwise search its whole chain tree every
// round); restarts end when it is spent. 16 per flow stalled the tapered tree's 1280-flow stencil
// at 1.14 x the bound, 256 reach 1.005 within 200 restarts (bench/volume_bench.cpp).
constexpr std::size_t kChainBudgetPerFlow = 256;
constexpr std::size_t kChainBudget = 20000;
// Rip-up and restarts stop within this of the target: closer is not worth their time (on a
// 75000-flow job, rip-up shaves the last 0.5% in a thousand rounds of a move or two each).
constexpr double kCloseEnough = 0.005;
// Ruin and recreate lifts the flows on links within 5% of the maximum, and one flow in 16 besides.
constexpr double kRuinBelowMax = 0.05;
constexpr std::uint64_t kRuinOneIn = 16;
// With per_destination, ruin and recreate also stops after this many restarts in a row that did
// not lower the maximum. A destination's flows move as one there, so a ruined routing is rebuilt
// into much the same trees and the single-path bound (the usual target) is rarely reachable, and
// a restart costs several times one without the constraint (bigger units, more of them per hot
// link). On the volume catalogue (bench scale) 200 restarts took up to 3.9 s with heavy-tailed
// volumes (4352 flows) and 35 s with unit ones (16256 flows), 8 fruitless ones 0.13 s and 1.6 s;
// the results stayed within 1.6% of the 200 restarts' (0.007% on average), the unit ones equal.
constexpr std::size_t kStalledRestarts = 8;
// A link cost that UpDownPaths never takes: the port would split a destination's flows.
constexpr double kForbidden = std::numeric_limits<double>::infinity();

class Utilisation {
 public:
  Utilisation(const RouteRequest& req, std::span<const double> volume)
      : f_(req.fabric),
        volume_(volume),
        inv_cap_(relative_inverse_capacity(f_)),
        inner_(f_.num_links(), false),
        base_(f_.num_links(), 0.0) {
    for (std::size_t i = 0; i < inner_.size(); ++i) {
      const Link& l = f_.link(LinkId(i));
      inner_[i] = f_.node(l.from).is_switch() && f_.node(l.to).is_switch();
      if (req.background) base_[i] = req.background->volume(LinkId(i)) * inv_cap_[i];
    }
    u_ = base_;
  }

  void reset() { u_ = base_; }
  void add(std::size_t flow, std::span<const LinkId> p, double sign = 1.0) {
    for (LinkId l : p) u_[l.value()] += sign * volume_[flow] * inv_cap_[l.value()];
  }
  void remove(std::size_t flow, std::span<const LinkId> p) { add(flow, p, -1.0); }
  /// The link's utilisation with `flow` added (the flow not on it now).
  [[nodiscard]] double with(std::size_t flow, LinkId l) const {
    return with_volume(volume_[flow], l);
  }
  /// The link's utilisation with `volume` more on it.
  [[nodiscard]] double with_volume(double volume, LinkId l) const {
    return u_[l.value()] + share_of(volume, l);
  }
  /// What `volume` adds to the link's utilisation.
  [[nodiscard]] double share_of(double volume, LinkId l) const {
    return volume * inv_cap_[l.value()];
  }
  [[nodiscard]] double at(LinkId l) const { return u_[l.value()]; }
  [[nodiscard]] bool inner(LinkId l) const { return inner_[l.value()]; }
  [[nodiscard]] std::size_t num_links() const { return u_.size(); }
  [[nodiscard]] double max_inner() const {
    double m = 0.0;
    for (std::size_t i = 0; i < u_.size(); ++i)
      if (inner_[i]) m = std::max(m, u_[i]);
    return m;
  }
  /// The largest switch-link utilisation along `p` as it is now.
  [[nodiscard]] double max_on(const Path& p) const {
    double m = 0.0;
    for (LinkId l : p)
      if (inner(l)) m = std::max(m, at(l));
    return m;
  }

 private:
  const Fabric& f_;
  std::span<const double> volume_;
  std::vector<double> inv_cap_;
  std::vector<bool> inner_;
  std::vector<double> base_;
  std::vector<double> u_;
};

/// With RouteRequest::per_destination: the port each switch sends each destination's flows
/// through, how many flows take it and their volume. A path toward that destination must keep to
/// the ports taken; a switch that no flow toward it crosses is free to choose. Per destination a
/// vector sorted by switch: a destination's tree spans a few dozen switches, where a binary search
/// beats a hash table, and the memory grows with the paths, not with destinations x switches.
class DestinationPorts {
 public:
  DestinationPorts(const Fabric& f, std::size_t hosts) : f_(f), by_dst_(hosts) {}

  void clear() {
    for (auto& v : by_dst_) v.clear();
  }
  void add(std::uint32_t dst, std::span<const LinkId> p, double volume) {
    auto& v = by_dst_[dst];
    for (LinkId l : p) {
      const Link& k = f_.link(l);
      if (!f_.node(k.from).is_switch()) continue;
      auto it = lower(v, k.from);
      if (it == v.end() || it->sw != k.from.value()) it = v.insert(it, Slot{k.from.value()});
      assert(it->flows == 0 || it->port == k.from_port);
      it->port = k.from_port;
      ++it->flows;
      it->volume += volume;
    }
  }
  void remove(std::uint32_t dst, std::span<const LinkId> p, double volume) {
    auto& v = by_dst_[dst];
    for (LinkId l : p) {
      const Link& k = f_.link(l);
      if (!f_.node(k.from).is_switch()) continue;
      const auto it = lower(v, k.from);
      assert(it != v.end() && it->sw == k.from.value() && it->port == k.from_port);
      it->volume -= volume;
      if (--it->flows == 0) v.erase(it);
    }
  }
  /// The port `sw` sends `dst`'s flows through, or PortNum{} when none crosses it.
  [[nodiscard]] PortNum port(std::uint32_t dst, NodeIdx sw) const {
    const Slot* s = slot(dst, sw);
    return s != nullptr ? s->port : PortNum{};
  }
  /// The volume toward `dst` that crosses `sw`.
  [[nodiscard]] double volume(std::uint32_t dst, NodeIdx sw) const {
    const Slot* s = slot(dst, sw);
    return s != nullptr ? s->volume : 0.0;
  }
  /// Whether sending destination `dst`'s flows over `l` would split them at l's switch.
  [[nodiscard]] bool forbids(std::uint32_t dst, LinkId l) const {
    const Link& k = f_.link(l);
    const PortNum taken = port(dst, k.from);
    return taken.value() != 0 && taken != k.from_port;
  }

 private:
  struct Slot {
    std::uint32_t sw = 0;
    PortNum port{};
    std::uint32_t flows = 0;
    double volume = 0.0;
  };
  static std::vector<Slot>::iterator lower(std::vector<Slot>& v, NodeIdx sw) {
    return std::lower_bound(v.begin(), v.end(), sw.value(),
                            [](const Slot& a, std::uint32_t n) { return a.sw < n; });
  }
  [[nodiscard]] const Slot* slot(std::uint32_t dst, NodeIdx sw) const {
    const auto& v = by_dst_[dst];
    const auto it = std::lower_bound(v.begin(), v.end(), sw.value(),
                                     [](const Slot& a, std::uint32_t n) { return a.sw < n; });
    return it != v.end() && it->sw == sw.value() ? &*it : nullptr;
  }

  const Fabric& f_;
  std::vector<std::vector<Slot>> by_dst_;  // by destination host
};

/// Flows that move together. Without per_destination: one flow and its whole path (no pivot).
/// With it: every flow toward the destination host `dst` that crosses the switch `pivot`, from
/// there on. They leave the pivot through one port, so they share the rest of their paths and can
/// take another only together: the decision moved is the destination's port at the pivot.
struct Unit {
  std::uint32_t dst = 0;
  NodeIdx pivot{};
  std::vector<std::uint32_t> flows;
  double volume = 0.0;
};

/// What insertion and rip-up share: the request, the shortest paths, the utilisation and, with
/// per_destination, the ports taken per destination.
class Engine {
 public:
  Engine(const RouteRequest& req, const FatTreeLayout& t, std::span<const double> volume)
      : req_(req),
        f_(req.fabric),
        t_(t),
        paths_(req.fabric, t),
        u_(req, volume),
        volume_(volume),
        host_src_(req.flows.size()),
        host_dst_(req.flows.size()) {
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      host_src_[i] = t.host_of_node[req.flows[i].src.value()];
      host_dst_[i] = t.host_of_node[req.flows[i].dst.value()];
    }
    if (!req.per_destination) return;
    ports_.emplace(f_, t.hosts.size());
    has_choice_.resize(t.num_leaves());
    flows_to_.resize(t.hosts.size());
    for (std::uint32_t i = 0; i < host_dst_.size(); ++i) flows_to_[host_dst_[i]].push_back(i);
  }

  [[nodiscard]] const RouteRequest& req() const { return req_; }
  [[nodiscard]] const Fabric& fabric() const { return f_; }
  [[nodiscard]] Utilisation& u() { return u_; }
  [[nodiscard]] std::uint32_t host_dst(std::uint32_t i) const { return host_dst_[i]; }
  [[nodiscard]] bool per_destination() const { return ports_.has_value(); }
  /// The leaf a flow starts from (per_destination groups insertion by it).
  [[nodiscard]] NodeIdx src_leaf(std::uint32_t i) const { return t_.leaf_of_host[host_src_[i]]; }

  /// Puts flow i's load on the links `p` (all or part of its path).
  void add(std::uint32_t i, std::span<const LinkId> p) {
    u_.add(i, p);
    if (ports_) ports_->add(host_dst_[i], p, volume_[i]);
  }
  void remove(std::uint32_t i, std::span<const LinkId> p) {
    u_.remove(i, p);
    if (ports_) ports_->remove(host_dst_[i], p, volume_[i]);
  }
  void load(const std::vector<Path>& routes) {
    u_.reset();
    if (ports_) ports_->clear();
    for (std::uint32_t i = 0; i < routes.size(); ++i) add(i, routes[i]);
  }

  /// Completes a routing by insertion: every flow without a path, in `order`, on the path whose
  /// most utilised switch link is least utilised with it. With per_destination, the flows
  /// without a path toward one destination from one leaf go together (they leave the leaf by one
  /// port anyway), heaviest group first, through the ports already taken where they meet them.
  /// Returns the largest switch-link utilisation.
  double complete(std::vector<Path>& routes, std::span<const std::uint32_t> order) {
    load(routes);
    if (!ports_) {
      for (std::size_t k = 0; k < order.size(); ++k) {
        req_.deadline.check_every(k, "volume routing places the flows");
        const std::uint32_t i = order[k];
        if (!routes[i].empty()) continue;
        paths_.best_path(
            host_src_[i], host_dst_[i], [&](LinkId l) { return u_.with(i, l); }, routes[i]);
        add(i, routes[i]);
      }
      return u_.max_inner();
    }
    std::vector<Unit> groups;
    std::unordered_map<std::uint64_t, std::size_t> group_of;
    for (const std::uint32_t i : order) {
      if (!routes[i].empty()) continue;
      const std::uint64_t key = std::uint64_t{host_dst_[i]} << 32 | src_leaf(i).value();
      const auto [it, fresh] = group_of.emplace(key, groups.size());
      if (fresh) groups.push_back(Unit{host_dst_[i], src_leaf(i), {}, 0.0});
      groups[it->second].flows.push_back(i);
      groups[it->second].volume += volume_[i];
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Unit& a, const Unit& b) { return a.volume > b.volume; });
    Path rest;
    for (std::size_t k = 0; k < groups.size(); ++k) {
      req_.deadline.check_every(k, "volume routing places the flows");
      best(groups[k], {}, rest);
      for (const std::uint32_t i : groups[k].flows) {
        routes[i].assign(1, t_.host_up_link(f_, host_src_[i]));
        routes[i].insert(routes[i].end(), rest.begin(), rest.end());
        add(i, routes[i]);
      }
    }
    return u_.max_inner();
  }

  /// The best path for `g` with its volume added, from its pivot on (the whole path without a
  /// pivot), never through a port that would split a destination nor, where another exists,
  /// through a link of `avoid`.
  void best(const Unit& g, const std::vector<LinkId>& avoid, Path& out) {
    const LinkCost cost = [&](LinkId l) {
      if (ports_ && ports_->forbids(g.dst, l)) return kForbidden;
      const double c = u_.with_volume(g.volume, l);
      return std::find(avoid.begin(), avoid.end(), l) == avoid.end() ? c : c + 1e30;
    };
    out.clear();
    if (g.pivot.valid()) {
      paths_.best_path_from(g.pivot, g.dst, cost, out);
    } else {
      paths_.best_path(host_src_[g.flows.front()], g.dst, cost, out);
    }
  }

  [[nodiscard]] Unit single(std::uint32_t i) const {
    return Unit{host_dst_[i], {}, {i}, volume_[i]};
  }

  /// Every flow toward `dst` whose path crosses `pivot`, as one unit.
  [[nodiscard]] Unit through(std::uint32_t dst, NodeIdx pivot,
                             const std::vector<Path>& routes) const {
    Unit g{dst, pivot, {}, 0.0};
    for (const std::uint32_t i : flows_to_[dst]) {
      if (rest_begin(routes[i], pivot) < routes[i].size()) {
        g.flows.push_back(i);
        g.volume += volume_[i];
      }
    }
    return g;
  }

  /// The volume toward `dst` that crosses the switch `pivot` (per_destination).
  [[nodiscard]] double volume_through(std::uint32_t dst, NodeIdx pivot) const {
    return ports_->volume(dst, pivot);
  }
  /// The links `dst`'s flows take from the switch `pivot` on, following the ports taken
  /// (per_destination; `pivot` must carry some).
  void rest_of(std::uint32_t dst, NodeIdx pivot, Path& out) const {
    out.clear();
    for (NodeIdx n = pivot; f_.node(n).is_switch();) {
      const PortNum p = ports_->port(dst, n);
      assert(p.value() != 0);
      out.push_back(f_.port(n, p).out);
      n = f_.link(out.back()).to;
    }
  }

  /// Where the part of `p` that moves with a unit pivoting at `pivot` begins: the link leaving
  /// the pivot (0 without one; p.size() when p does not cross it).
  [[nodiscard]] std::size_t rest_begin(const Path& p, NodeIdx pivot) const {
    if (!pivot.valid()) return 0;
    std::size_t k = 0;
    while (k < p.size() && f_.link(p[k]).from != pivot) ++k;
    return k;
  }

  /// Whether the switch `s` has more than one port on the shortest paths toward host `dst`: only
  /// there can moving `dst`'s flows at `s` change anything.
  [[nodiscard]] bool has_choice(std::uint32_t dst, NodeIdx s) {
    const NodeIdx leaf = t_.leaf_of_host[dst];
    if (s == leaf) return false;  // its one way on is the host's cable
    // Asked for every switch of every hot flow's path in every round: kept per leaf.
    auto& known = has_choice_[t_.leaf_index[leaf.value()]];
    if (known.empty()) known.assign(f_.num_nodes(), kUnknown);
    std::uint8_t& answer = known[s.value()];
    if (answer == kUnknown) {
      const TowardLeaf& tw = paths_.toward(leaf);
      const auto& ports = tw.ancestor(s, t_) ? t_.down_ports[s.value()] : t_.up_ports[s.value()];
      const auto valid = std::count_if(ports.begin(), ports.end(),
                                       [&](PortNum p) { return tw.on_shortest(f_, t_, s, p); });
      answer = valid > 1 ? 1 : 0;
    }
    return answer == 1;
  }

 private:
  const RouteRequest& req_;
  const Fabric& f_;
  const FatTreeLayout& t_;
  UpDownPaths paths_;
  Utilisation u_;
  std::span<const double> volume_;
  std::vector<std::uint32_t> host_src_;
  std::vector<std::uint32_t> host_dst_;
  static constexpr std::uint8_t kUnknown = 2;
  std::vector<std::vector<std::uint8_t>> has_choice_;  // by leaf index, then node; per_destination
  std::optional<DestinationPorts> ports_;              // per_destination only
  std::vector<std::vector<std::uint32_t>> flows_to_;   // by destination host, per_destination only
};

/// Rip-up and re-route from a complete routing: the units on the most utilised switch links move
/// to paths that stay below that maximum, alone or by first evicting one unit from the links that
/// block them.
class Improver {
 public:
  Improver(Engine& e, std::vector<Path>& routes, std::size_t& budget)
      : e_(e),
        u_(e.u()),
        routes_(routes),
        on_link_(u_.num_links()),
        in_chain_(routes.size(), 0),
        max_depth_(e.per_destination() ? kPerDestinationChainDepth : kChainDepth),
        budget_(budget) {
    for (std::uint32_t i = 0; i < routes_.size(); ++i) list(i, routes_[i]);
  }

  /// One round at the current maximum; false when no unit moved or the maximum is within
  /// kCloseEnough of `target` already.
  bool round(VolumeRoutingResult& r, double target) {
    const double top = u_.max_inner();
    if (top <= 0.0 || top <= target * (1 + kCloseEnough)) return false;
    const double limit = top * (1 - kEps);
    std::vector<Unit> hot = hot_units(limit);
    bool moved = false;
    for (std::size_t k = 0; k < hot.size(); ++k) {
      e_.req().deadline.check_every(k, "volume routing moves flows off the hottest links");
      // Earlier moves may have changed which flows toward the destination cross the pivot.
      if (e_.per_destination()) hot[k] = e_.through(hot[k].dst, hot[k].pivot, routes_);
      const Unit& g = hot[k];
      if (g.flows.empty() || rest_max(g) < limit) continue;  // an earlier move cooled its links
      const std::size_t moves = relocate(g, limit, max_depth_);
      r.moves += moves;
      r.evictions += moves > 1 ? 1 : 0;
      moved = moved || moves > 0;
    }
    return moved;
  }

 private:
  void list(std::uint32_t i, std::span<const LinkId> links) {
    for (LinkId l : links)
      if (u_.inner(l)) on_link_[l.value()].push_back(i);
  }
  void unlist(std::uint32_t i, std::span<const LinkId> links) {
    for (LinkId l : links) {
      if (!u_.inner(l)) continue;
      auto& v = on_link_[l.value()];
      v.erase(std::find(v.begin(), v.end(), i));
    }
  }
  /// The part of flow i's path that moves with `g`: from g's pivot on.
  [[nodiscard]] std::span<const LinkId> moving(const Unit& g, std::uint32_t i) const {
    const Path& p = routes_[i];
    return std::span<const LinkId>(p).subspan(e_.rest_begin(p, g.pivot));
  }
  /// Takes the moving part of the unit's flows off their links; the routes keep it (and the
  /// prefixes, which stay where they are) until placed.
  void lift(const Unit& g) {
    for (const std::uint32_t i : g.flows) {
      unlist(i, moving(g, i));
      e_.remove(i, moving(g, i));
    }
  }
  /// Puts the lifted unit's flows on `rest` from the pivot on.
  void place(const Unit& g, const Path& rest) {
    for (const std::uint32_t i : g.flows) {
      Path& p = routes_[i];
      p.resize(e_.rest_begin(p, g.pivot));
      p.insert(p.end(), rest.begin(), rest.end());
      e_.add(i, moving(g, i));
      list(i, moving(g, i));
    }
  }
  /// Puts the lifted unit's flows back on `old` (their paths before, in g.flows order).
  void put_back(const Unit& g, const std::vector<Path>& old) {
    for (std::size_t k = 0; k < g.flows.size(); ++k) {
      const std::uint32_t i = g.flows[k];
      routes_[i] = old[k];
      e_.add(i, moving(g, i));
      list(i, moving(g, i));
    }
  }
  /// The largest utilisation on the unit's switch links from its pivot on.
  [[nodiscard]] double rest_max(const Unit& g) const {
    const Path& p = routes_[g.flows.front()];
    double m = 0.0;
    for (std::size_t k = e_.rest_begin(p, g.pivot); k < p.size(); ++k)
      if (u_.inner(p[k])) m = std::max(m, u_.at(p[k]));
    return m;
  }
  [[nodiscard]] bool in_chain(const Unit& g) const {
    return std::any_of(g.flows.begin(), g.flows.end(),
                       [&](std::uint32_t i) { return in_chain_[i] != 0; });
  }

  /// The units that can move a flow off `l`, per flow on it: the flow itself; with
  /// per_destination, its destination's decision at every switch with a choice before `l` (or at
  /// l's own), as (destination, switch) keys.
  void pivots_before(std::uint32_t i, LinkId l, std::vector<std::uint64_t>& keys) {
    const std::uint32_t dst = e_.host_dst(i);
    for (const LinkId k : routes_[i]) {
      const NodeIdx n = e_.fabric().link(k).from;
      if (e_.fabric().node(n).is_switch() && e_.has_choice(dst, n))
        keys.push_back(std::uint64_t{dst} << 32 | n.value());
      if (k == l) break;
    }
  }
  /// The unit of a (destination, switch) key without its flows: its volume from the ports taken.
  [[nodiscard]] Unit unit_shell(std::uint64_t key) const {
    Unit g{static_cast<std::uint32_t>(key >> 32),
           NodeIdx(static_cast<std::uint32_t>(key & 0xFFFFFFFFu)),
           {},
           0.0};
    g.volume = e_.volume_through(g.dst, g.pivot);
    return g;
  }

  /// The units on the links at or above `limit`, heaviest first.
  std::vector<Unit> hot_units(double limit) {
    std::vector<Unit> hot;
    if (!e_.per_destination()) {
      std::vector<std::uint32_t> on_hot;
      for (std::size_t l = 0; l < on_link_.size(); ++l) {
        if (u_.inner(LinkId(l)) && u_.at(LinkId(l)) >= limit)
          on_hot.insert(on_hot.end(), on_link_[l].begin(), on_link_[l].end());
      }
      std::sort(on_hot.begin(), on_hot.end());
      on_hot.erase(std::unique(on_hot.begin(), on_hot.end()), on_hot.end());
      for (const std::uint32_t i : on_hot) hot.push_back(e_.single(i));
    } else {
      std::vector<std::uint64_t> keys;
      for (std::size_t l = 0; l < on_link_.size(); ++l) {
        if (!u_.inner(LinkId(l)) || u_.at(LinkId(l)) < limit) continue;
        for (const std::uint32_t i : on_link_[l]) pivots_before(i, LinkId(l), keys);
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      // round() finds each unit's flows when it comes to it: earlier moves may change them.
      for (const std::uint64_t key : keys) hot.push_back(unit_shell(key));
    }
    std::stable_sort(hot.begin(), hot.end(),
                     [](const Unit& a, const Unit& b) { return a.volume > b.volume; });
    return hot;
  }

  /// With `g` placed over the limit on the `blocking` links: the units whose leaving makes room,
  /// lightest first (they disturb the least), at most kEvictionTries. A unit makes room when its
  /// moving part crosses every blocking link (up and down links of one path often block together)
  /// with more than each one's excess.
  std::vector<Unit> making_room(const std::vector<LinkId>& blocking, double limit) {
    std::vector<Unit> others;
    const auto makes_room = [&](const Unit& o, std::span<const LinkId> rest) {
      return std::all_of(blocking.begin(), blocking.end(), [&](LinkId b) {
        return std::find(rest.begin(), rest.end(), b) != rest.end() &&
               u_.share_of(o.volume, b) > (u_.at(b) - limit) * (1 + kEps);
      });
    };
    if (!e_.per_destination()) {
      for (const std::uint32_t c : on_link_[blocking.front().value()]) {
        const Unit o = e_.single(c);
        if (in_chain_[c] == 0 && makes_room(o, routes_[c])) others.push_back(o);
      }
    } else {
      // The candidates' volumes and paths come from the ports taken; only the few kept need
      // their flows.
      std::vector<std::uint64_t> keys;
      for (const std::uint32_t c : on_link_[blocking.front().value()]) {
        if (in_chain_[c] == 0) pivots_before(c, blocking.front(), keys);
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      Path rest;
      const LinkId first = blocking.front();
      for (const std::uint64_t key : keys) {
        const Unit o = unit_shell(key);
        // The first blocking link is on its way by construction: the cheap test first.
        if (u_.share_of(o.volume, first) <= (u_.at(first) - limit) * (1 + kEps)) continue;
        if (blocking.size() > 1) {
          e_.rest_of(o.dst, o.pivot, rest);
          if (!makes_room(o, rest)) continue;
        }
        others.push_back(o);
      }
    }
    std::sort(others.begin(), others.end(),
              [](const Unit& a, const Unit& b) { return a.volume < b.volume; });
    if (e_.per_destination()) {
      // Keep the lightest units none of whose flows is on the chain.
      std::size_t kept = 0;
      for (Unit& o : others) {
        if (kept == kEvictionTries) break;
        Unit full = e_.through(o.dst, o.pivot, routes_);
        if (!in_chain(full)) others[kept++] = std::move(full);
      }
      others.resize(kept);
    }
    if (others.size() > kEvictionTries) others.resize(kEvictionTries);
    return others;
  }

  /// Moves the unit `g` (placed) onto a path whose switch links all stay below `limit`: directly,
  /// or, with depth > 0, onto a blocked path after relocating one unit that crosses all its
  /// blocking links the same way (an ejection chain, depth - 1 further). A relocation that fails
  /// leaves every flow where it was; one that succeeds leaves every link it touched below
  /// `limit`. Flows on the chain are not moved again. Returns the number of units moved (0: none).
  std::size_t relocate(const Unit& g, double limit, int depth) {
    for (const std::uint32_t i : g.flows) in_chain_[i] = 1;
    std::vector<Path> old;
    old.reserve(g.flows.size());
    for (const std::uint32_t i : g.flows) old.push_back(routes_[i]);
    lift(g);
    Path cand;
    std::vector<LinkId> avoid;
    std::vector<LinkId> blocking;
    std::size_t moved = 0;
    const int tries = depth == max_depth_ ? kCandidatePaths : 2;
    for (int attempt = 0; attempt < tries && moved == 0; ++attempt) {
      e_.best(g, avoid, cand);
      blocking.clear();
      for (LinkId l : cand) {
        if (u_.inner(l) && u_.with_volume(g.volume, l) >= limit) blocking.push_back(l);
      }
      if (blocking.empty()) {
        place(g, cand);
        moved = 1;
        break;
      }
      if (std::any_of(blocking.begin(), blocking.end(), [&](LinkId l) {
            return std::find(avoid.begin(), avoid.end(), l) != avoid.end();
          })) {
        break;  // every other path crosses a link already found blocking
      }
      avoid.insert(avoid.end(), blocking.begin(), blocking.end());
      if (depth == 0 || budget_ == 0) continue;
      place(g, cand);  // over the limit until a unit leaves the blocking links
      for (const Unit& c : making_room(blocking, limit)) {
        if (budget_ == 0) break;
        --budget_;
        const std::size_t m = relocate(c, limit, depth - 1);
        if (m > 0) {
          moved = 1 + m;
          break;
        }
      }
      if (moved == 0) {
        lift(g);
        for (std::size_t k = 0; k < g.flows.size(); ++k) routes_[g.flows[k]] = old[k];
      }
    }
    if (moved == 0) put_back(g, old);
    for (const std::uint32_t i : g.flows) in_chain_[i] = 0;
    return moved;
  }

  Engine& e_;
  Utilisation& u_;
  std::vector<Path>& routes_;
  std::vector<std::vector<std::uint32_t>> on_link_;
  std::vector<std::uint8_t> in_chain_;  // per flow: on the current ejection chain
  int max_depth_;
  std::size_t& budget_;  // units chains may still try to relocate, over the whole routing
};

/// Per flow, its group for ruin and recreate with per_destination: the flows toward one
/// destination from one leaf, which share their path from the leaf on and are lifted together.
std::vector<std::uint32_t> leaf_groups(const Engine& e, std::size_t n, std::size_t& groups) {
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  std::vector<std::uint32_t> group(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t key = std::uint64_t{e.host_dst(i)} << 32 | e.src_leaf(i).value();
    group[i] = index.emplace(key, static_cast<std::uint32_t>(index.size())).first->second;
  }
  groups = index.size();
  return group;
}

}  // namespace

double single_path_bound_utilisation(const Fabric& f, std::span<const Flow> flows) {
  double fastest = 0.0;
  for (const Link& l : f.links()) fastest = std::max(fastest, l.gbps);
  return single_path_volume_bound(f, flows).seconds * fastest * 1e9 / 8.0;
}

VolumeRoutingResult route_min_max_utilisation(const RouteRequest& req, const FatTreeLayout& t,
                                              const VolumeRoutingInput& in) {
  const std::size_t n = req.flows.size();
  if (in.volume.size() != n || in.order.size() != n)
    throw std::invalid_argument("volume routing: one volume and one order slot per flow");
  Engine e(req, t, in.volume);

  VolumeRoutingResult r;
  r.paths.resize(n);
  r.start_max = e.complete(r.paths, in.order);
  std::vector<Path> other;
  for (std::size_t s = 0; s < in.starts.size(); ++s) {
    if (in.starts[s].size() != n) throw std::invalid_argument("volume routing: a short start");
    // A start that splits a destination cannot be installed where per_destination holds.
    if (req.per_destination &&
        !per_destination_consistent(req.fabric, req.flows, in.starts[s], nullptr)) {
      ++r.dropped_starts;
      continue;
    }
    other = in.starts[s];
    const double m = e.complete(other, in.order);
    // Strictly lower, with no slack: the result is never worse than any start, exactly.
    if (m < r.start_max) {
      r.start_max = m;
      r.chosen_start = static_cast<int>(s);
      r.paths.swap(other);
    }
  }

  std::size_t budget = kChainBudgetPerFlow * n + kChainBudget;
  const auto improve = [&](std::vector<Path>& routes) {
    e.load(routes);
    Improver im(e, routes, budget);
    for (std::size_t k = 0; k < in.max_rounds && im.round(r, in.target); ++k) ++r.rounds;
    return e.u().max_inner();
  };
  r.final_max = improve(r.paths);

  // Ruin and recreate: lift the flows near the maximum and a random few others, insert them
  // again on top of the rest, improve; keep the result when its maximum is lower. With
  // per_destination the random few are whole leaf groups: a flow lifted alone would be put back
  // where its group's port at the leaf holds it.
  PatternRng rng(req.seed);
  std::size_t groups = n;
  const std::vector<std::uint32_t> group_of =
      req.per_destination ? leaf_groups(e, n, groups) : std::vector<std::uint32_t>{};
  std::vector<std::uint8_t> lifted;
  std::vector<Path> trial;
  const double good_enough = in.target * (1 + kCloseEnough);
  std::size_t fruitless = 0;  // restarts in a row that did not lower the maximum
  for (; r.restarts < in.restarts && r.final_max > good_enough && budget > 0 &&
         (!req.per_destination || fruitless < kStalledRestarts);
       ++r.restarts, ++fruitless) {
    req.deadline.check("volume routing restarts from a ruined routing");
    trial = r.paths;
    e.load(trial);
    const double near = r.final_max * (1 - kRuinBelowMax);
    if (req.per_destination) {
      lifted.resize(groups);
      for (auto& g : lifted) g = rng.below(kRuinOneIn) == 0 ? 1 : 0;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (e.u().max_on(trial[i]) >= near ||
          (req.per_destination ? lifted[group_of[i]] != 0 : rng.below(kRuinOneIn) == 0)) {
        trial[i].clear();
      }
    }
    e.complete(trial, in.order);
    const double m = improve(trial);
    if (m < r.final_max * (1 - kEps)) {
      r.final_max = m;
      r.paths.swap(trial);
      ++r.improving_restarts;
      fruitless = 0;
    }
  }
  assert(!req.per_destination ||
         per_destination_consistent(req.fabric, req.flows, r.paths, nullptr));
  return r;
}

}  // namespace ibsdn
