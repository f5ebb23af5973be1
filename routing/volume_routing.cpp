#include "routing/volume_routing.hpp"

#include <algorithm>
#include <stdexcept>

#include "routing/fat_tree_paths.hpp"
#include "routing/link_capacity.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {
namespace {

// Relative slack under which two utilisations count as equal (sums of doubles).
constexpr double kEps = 1e-9;
// Eviction: other paths tried per hot flow, and flows tried per blocking link. Small: each try
// is one best_path(), and most moves that exist are found among the first candidates.
constexpr int kCandidatePaths = 4;
constexpr std::size_t kEvictionTries = 4;
constexpr int kChainDepth = 3;
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
  void add(std::size_t flow, const Path& p, double sign = 1.0) {
    for (LinkId l : p) u_[l.value()] += sign * volume_[flow] * inv_cap_[l.value()];
  }
  void remove(std::size_t flow, const Path& p) { add(flow, p, -1.0); }
  /// The link's utilisation with `flow` added (the flow not on it now).
  [[nodiscard]] double with(std::size_t flow, LinkId l) const {
    return u_[l.value()] + share(flow, l);
  }
  /// What `flow` adds to the link's utilisation.
  [[nodiscard]] double share(std::size_t flow, LinkId l) const {
    return volume_[flow] * inv_cap_[l.value()];
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
  void load_all(const std::vector<Path>& paths) {
    reset();
    for (std::size_t i = 0; i < paths.size(); ++i) add(i, paths[i]);
  }

 private:
  const Fabric& f_;
  std::span<const double> volume_;
  std::vector<double> inv_cap_;
  std::vector<bool> inner_;
  std::vector<double> base_;
  std::vector<double> u_;
};

/// Rip-up and re-route from a complete routing: the flows on the most utilised switch links move
/// to paths that stay below that maximum, alone or by first evicting one flow from the one link
/// that blocks them.
class Improver {
 public:
  Improver(const RouteRequest& req, UpDownPaths& paths, Utilisation& u,
           std::span<const double> volume, std::vector<Path>& routes,
           const std::vector<std::uint32_t>& host_src, const std::vector<std::uint32_t>& host_dst,
           std::size_t& budget)
      : req_(req),
        paths_(paths),
        u_(u),
        volume_(volume),
        routes_(routes),
        host_src_(host_src),
        host_dst_(host_dst),
        on_link_(u.num_links()),
        budget_(budget) {
    for (std::uint32_t i = 0; i < routes_.size(); ++i) list(i);
  }

  /// One round at the current maximum; false when no flow moved or the maximum is within
  /// kCloseEnough of `target` already.
  bool round(VolumeRoutingResult& r, double target) {
    const double top = u_.max_inner();
    if (top <= 0.0 || top <= target * (1 + kCloseEnough)) return false;
    const double limit = top * (1 - kEps);
    std::vector<std::uint32_t> on_hot;
    for (std::size_t l = 0; l < on_link_.size(); ++l) {
      if (u_.inner(LinkId(l)) && u_.at(LinkId(l)) >= limit)
        on_hot.insert(on_hot.end(), on_link_[l].begin(), on_link_[l].end());
    }
    std::sort(on_hot.begin(), on_hot.end());
    on_hot.erase(std::unique(on_hot.begin(), on_hot.end()), on_hot.end());
    std::stable_sort(on_hot.begin(), on_hot.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return volume_[a] > volume_[b]; });
    bool moved = false;
    for (std::size_t k = 0; k < on_hot.size(); ++k) {
      req_.deadline.check_every(k, "volume routing moves flows off the hottest links");
      const std::uint32_t i = on_hot[k];
      if (u_.max_on(routes_[i]) < limit) continue;  // an earlier move cooled its links
      const std::size_t moves = relocate(i, limit, max_depth_);
      r.moves += moves;
      r.evictions += moves > 1 ? 1 : 0;
      moved = moved || moves > 0;
    }
    return moved;
  }

 private:
  void list(std::uint32_t i) {
    for (LinkId l : routes_[i])
      if (u_.inner(l)) on_link_[l.value()].push_back(i);
  }
  void unlist(std::uint32_t i) {
    for (LinkId l : routes_[i]) {
      if (!u_.inner(l)) continue;
      auto& v = on_link_[l.value()];
      v.erase(std::find(v.begin(), v.end(), i));
    }
  }
  void lift(std::uint32_t i) {
    unlist(i);
    u_.remove(i, routes_[i]);
  }
  void place(std::uint32_t i, Path& p) {
    routes_[i].swap(p);
    u_.add(i, routes_[i]);
    list(i);
  }
  void best(std::uint32_t i, Path& out, const std::vector<LinkId>& avoid = {}) {
    paths_.best_path(
        host_src_[i], host_dst_[i],
        [&](LinkId l) {
          const double c = u_.with(i, l);
          return std::find(avoid.begin(), avoid.end(), l) == avoid.end() ? c : c + 1e30;
        },
        out);
  }

  /// Moves flow i (placed) onto a path whose switch links all stay below `limit`: directly, or,
  /// with depth > 0, onto a blocked path after relocating one flow that crosses all its blocking
  /// links the same way (an ejection chain, depth - 1 further). A relocation that fails leaves
  /// every flow where it was; one that succeeds leaves every link it touched below `limit`. Flows
  /// on the chain are not moved again. Returns the number of flows moved (0: none).
  std::size_t relocate(std::uint32_t i, double limit, int depth) {
    chain_.push_back(i);
    lift(i);
    const Path old = routes_[i];
    Path cand;
    std::vector<LinkId> avoid;
    std::vector<LinkId> blocking;
    std::vector<std::uint32_t> others;
    std::size_t moved = 0;
    const int tries = depth == max_depth_ ? kCandidatePaths : 2;
    for (int attempt = 0; attempt < tries && moved == 0; ++attempt) {
      best(i, cand, avoid);
      blocking.clear();
      for (LinkId l : cand) {
        if (u_.inner(l) && u_.with(i, l) >= limit) blocking.push_back(l);
      }
      if (blocking.empty()) {
        place(i, cand);
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
      // A flow leaving makes room when it crosses every blocking link (up and down links of one
      // path often block together) with more than each one's excess.
      others.clear();
      for (std::uint32_t c : on_link_[blocking.front().value()]) {
        if (std::find(chain_.begin(), chain_.end(), c) != chain_.end()) continue;
        const bool room = std::all_of(blocking.begin(), blocking.end(), [&](LinkId b) {
          return std::find(routes_[c].begin(), routes_[c].end(), b) != routes_[c].end() &&
                 u_.share(c, b) > (u_.with(i, b) - limit) * (1 + kEps);
        });
        if (room) others.push_back(c);
      }
      // The lightest flows that make room disturb the least.
      std::sort(others.begin(), others.end(),
                [&](std::uint32_t a, std::uint32_t c) { return volume_[a] < volume_[c]; });
      if (others.size() > kEvictionTries) others.resize(kEvictionTries);
      place(i, cand);  // over the limit until a flow leaves the blocking links
      for (std::uint32_t c : others) {
        if (budget_ == 0) break;
        --budget_;
        const std::size_t m = relocate(c, limit, depth - 1);
        if (m > 0) {
          moved = 1 + m;
          break;
        }
      }
      if (moved == 0) {
        lift(i);
        routes_[i] = old;
      }
    }
    if (moved == 0) {
      Path back = old;
      place(i, back);
    }
    chain_.pop_back();
    return moved;
  }

  const RouteRequest& req_;
  UpDownPaths& paths_;
  Utilisation& u_;
  std::span<const double> volume_;
  std::vector<Path>& routes_;
  const std::vector<std::uint32_t>& host_src_;
  const std::vector<std::uint32_t>& host_dst_;
  std::vector<std::vector<std::uint32_t>> on_link_;
  std::vector<std::uint32_t> chain_;
  int max_depth_ = kChainDepth;
  std::size_t& budget_;  // flows chains may still try to relocate, over the whole routing
};

}  // namespace

VolumeRoutingResult route_min_max_utilisation(const RouteRequest& req, const FatTreeLayout& t,
                                              const VolumeRoutingInput& in) {
  const std::size_t n = req.flows.size();
  if (in.volume.size() != n || in.order.size() != n)
    throw std::invalid_argument("volume routing: one volume and one order slot per flow");
  const Fabric& f = req.fabric;
  UpDownPaths paths(f, t);
  Utilisation u(req, in.volume);
  std::vector<std::uint32_t> host_src(n);
  std::vector<std::uint32_t> host_dst(n);
  for (std::size_t i = 0; i < n; ++i) {
    host_src[i] = t.host_of_node[req.flows[i].src.value()];
    host_dst[i] = t.host_of_node[req.flows[i].dst.value()];
  }

  // Completes a routing by insertion: every flow without a path, in `order`, on the path whose
  // most utilised switch link is least utilised with it.
  const auto complete = [&](std::vector<Path>& routes) {
    u.reset();
    for (std::size_t i = 0; i < n; ++i) {
      if (!routes[i].empty()) u.add(i, routes[i]);
    }
    for (std::size_t k = 0; k < n; ++k) {
      req.deadline.check_every(k, "volume routing places the flows");
      const std::uint32_t i = in.order[k];
      if (!routes[i].empty()) continue;
      paths.best_path(
          host_src[i], host_dst[i], [&](LinkId l) { return u.with(i, l); }, routes[i]);
      u.add(i, routes[i]);
    }
    return u.max_inner();
  };

  VolumeRoutingResult r;
  r.paths.resize(n);
  r.start_max = complete(r.paths);
  std::vector<Path> other;
  for (std::size_t s = 0; s < in.starts.size(); ++s) {
    if (in.starts[s].size() != n) throw std::invalid_argument("volume routing: a short start");
    other = in.starts[s];
    const double m = complete(other);
    if (m < r.start_max * (1 - kEps)) {
      r.start_max = m;
      r.chosen_start = static_cast<int>(s);
      r.paths.swap(other);
    }
  }

  std::size_t budget = kChainBudgetPerFlow * n + kChainBudget;
  const auto improve = [&](std::vector<Path>& routes) {
    u.load_all(routes);
    Improver im(req, paths, u, in.volume, routes, host_src, host_dst, budget);
    for (std::size_t k = 0; k < in.max_rounds && im.round(r, in.target); ++k) ++r.rounds;
    return u.max_inner();
  };
  r.final_max = improve(r.paths);

  // Ruin and recreate: lift the flows near the maximum and a random few others, insert them
  // again on top of the rest, improve; keep the result when its maximum is lower.
  PatternRng rng(req.seed);
  std::vector<Path> trial;
  const double good_enough = in.target * (1 + kCloseEnough);
  for (; r.restarts < in.restarts && r.final_max > good_enough && budget > 0; ++r.restarts) {
    req.deadline.check("volume routing restarts from a ruined routing");
    trial = r.paths;
    u.load_all(trial);
    const double near = r.final_max * (1 - kRuinBelowMax);
    for (std::size_t i = 0; i < n; ++i) {
      if (u.max_on(trial[i]) >= near || rng.below(kRuinOneIn) == 0) trial[i].clear();
    }
    complete(trial);
    const double m = improve(trial);
    if (m < r.final_max * (1 - kEps)) {
      r.final_max = m;
      r.paths.swap(trial);
      ++r.improving_restarts;
    }
  }
  return r;
}

}  // namespace ibsdn
