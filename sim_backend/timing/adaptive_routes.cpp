#include "sim_backend/timing/adaptive_routes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {
namespace {

// Loads closer than this are ties: sums of 1/k sub-flow weights added and removed in different
// orders differ in their last bits, and such noise must not decide a route.
constexpr double kTie = 1e-9;

[[nodiscard]] bool less_loaded(double a, double b) {
  return a < b - kTie;
}

void check_loads(const Fabric& f, LinkLoads loads) {
  if (loads.size() != f.num_links()) {
    throw std::invalid_argument("link loads: " + std::to_string(loads.size()) +
                                " values for a fabric of " + std::to_string(f.num_links()) +
                                " directed links");
  }
}

[[nodiscard]] double checked_load(const Fabric& f, LinkLoads loads, LinkId l) {
  const double v = loads[l.value()];
  if (!(v >= 0) || std::isinf(v)) {
    const Link& k = f.link(l);
    throw std::invalid_argument("link loads: link " + std::to_string(l.value()) + " (" +
                                f.node(k.from).name + ":" + std::to_string(k.from_port.value()) +
                                ") has load " + std::to_string(v) + ", not a finite number >= 0");
  }
  return v;
}

[[nodiscard]] std::string node_text(const Fabric& f, NodeIdx n) {
  if (n.valid() && n.value() < f.num_nodes()) return f.node(n).name;
  return "node " + (n.valid() ? std::to_string(n.value()) : std::string("(none)")) +
         " (the fabric has " + std::to_string(f.num_nodes()) + " nodes)";
}

[[nodiscard]] bool in_range(const Fabric& f, NodeIdx n) {
  return n.valid() && n.value() < f.num_nodes();
}

}  // namespace

// ----------------------------------------------------------------------------------------------

LinkFlowLoads::LinkFlowLoads(const Fabric& f, double reference_gbps)
    : scale_(f.num_links(), 1.0), loads_(f.num_links(), 0.0) {
  double reference = reference_gbps;
  if (!(reference > 0)) {
    reference = 0;
    for (const Link& l : f.links()) reference = std::max(reference, l.gbps);
  }
  for (std::size_t i = 0; i < scale_.size(); ++i) {
    const double gbps = f.links()[i].gbps;
    scale_[i] = gbps > 0 && reference > 0 ? reference / gbps : 1.0;
  }
}

void LinkFlowLoads::add(std::span<const LinkId> route, double weight) {
  for (LinkId l : route) loads_.at(l.value()) += weight * scale_[l.value()];
}

void LinkFlowLoads::remove(std::span<const LinkId> route, double weight) {
  for (LinkId l : route) {
    double& v = loads_.at(l.value());
    v -= weight * scale_[l.value()];
    if (v < kTie) v = 0;
  }
}

// ----------------------------------------------------------------------------------------------

namespace {

const FatTreeLayout& require_fat_tree(const Fabric& f) {
  if (f.fat_tree() == nullptr) {
    throw std::invalid_argument("fat-tree adaptive routes: " +
                                (f.kind_label.empty() ? std::string("the fabric") : f.kind_label) +
                                " has no fat-tree layout (recognize_fat_tree first)");
  }
  return *f.fat_tree();
}

}  // namespace

FatTreeAdaptiveRoutes::FatTreeAdaptiveRoutes(const Fabric& f, FatTreeAdaptiveOptions options)
    : f_(f), t_(require_fat_tree(f)), options_(options), paths_(f, t_) {
  if (!(options_.split_slack >= 0)) {
    throw std::invalid_argument("fat-tree adaptive routes: split_slack must be >= 0, got " +
                                std::to_string(options_.split_slack));
  }
}

double FatTreeAdaptiveRoutes::load(LinkLoads loads, LinkId l) const {
  return checked_load(f_, loads, l);
}

double FatTreeAdaptiveRoutes::down_bottleneck(const TowardLeaf& tw, NodeIdx n,
                                              LinkLoads loads) const {
  if (n == tw.leaf()) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (PortNum p : t_.down_ports[n.value()]) {
    if (!tw.on_shortest(f_, t_, n, p)) continue;
    const Port& port = f_.port(n, p);
    best = std::min(best, std::max(load(loads, port.out), down_bottleneck(tw, port.peer, loads)));
  }
  return best;
}

std::uint32_t FatTreeAdaptiveRoutes::host(NodeIdx n, const char* which) const {
  if (!in_range(f_, n) || t_.host_of_node[n.value()] == FatTreeLayout::kNotHost) {
    throw std::invalid_argument(std::string("fat-tree adaptive routes: ") + which + " " +
                                node_text(f_, n) + " is not a host of the fat-tree");
  }
  return t_.host_of_node[n.value()];
}

std::size_t FatTreeAdaptiveRoutes::routes(NodeIdx src, NodeIdx dst, LinkLoads loads,
                                          std::vector<Path>& out) {
  const std::uint32_t s = host(src, "source");
  const std::uint32_t d = host(dst, "destination");
  if (s == d) {
    throw std::invalid_argument("fat-tree adaptive routes: source and destination are both " +
                                f_.node(src).name);
  }
  check_loads(f_, loads);
  const NodeIdx src_leaf = t_.leaf_of_host[s];
  const NodeIdx dst_leaf = t_.leaf_of_host[d];
  const TowardLeaf& tw = paths_.toward(dst_leaf);
  if (tw.turn(src_leaf) == 0) {
    throw std::invalid_argument("fat-tree adaptive routes: no up*/down* path from " +
                                f_.node(src).name + " to " + f_.node(dst).name +
                                " in the fat-tree that remains");
  }
  const LinkId up = t_.host_up_link(f_, s);
  const LinkId down = t_.host_down_link(f_, d);

  const auto start = [&out](std::size_t i, LinkId first) -> Path& {
    Path& p = out[i];
    p.clear();
    p.push_back(first);
    return p;
  };
  if (src_leaf == dst_leaf) {
    out.resize(1);
    start(0, up).push_back(down);
    return 1;
  }

  // The leaf's candidates, in port order.
  candidates_.clear();
  double least = std::numeric_limits<double>::infinity();
  for (PortNum p : t_.up_ports[src_leaf.value()]) {
    if (!tw.on_shortest(f_, t_, src_leaf, p)) continue;
    const double l = load(loads, f_.port(src_leaf, p).out);
    candidates_.push_back(Candidate{p, l});
    least = std::min(least, l);
  }
  // turn(src_leaf) != 0 guarantees a valid up-port.
  std::erase_if(candidates_, [&](const Candidate& c) {
    return less_loaded(least + options_.split_slack, c.load);
  });
  if (options_.max_routes > 0 && candidates_.size() > options_.max_routes) {
    std::stable_sort(
        candidates_.begin(), candidates_.end(),
        [](const Candidate& a, const Candidate& b) { return less_loaded(a.load, b.load); });
    candidates_.resize(options_.max_routes);
    std::sort(candidates_.begin(), candidates_.end(),
              [](const Candidate& a, const Candidate& b) { return a.port < b.port; });
  }

  out.resize(candidates_.size());
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    Path& path = start(i, up);
    path.push_back(f_.port(src_leaf, candidates_[i].port).out);
    NodeIdx at = f_.link(path.back()).to;
    while (at != dst_leaf) {
      // Up while `at` is not an ancestor of the destination leaf, then down: the valid ports of
      // either direction are those on_shortest accepts, the least loaded first in port order.
      // Down, a port is as loaded as the busiest link of its best way to the leaf: a top cabled
      // to every aggregate of a pod chooses the aggregate whose link to the leaf is free, as
      // credits backing up from that link would make a switch's adaptive choice do. Judged by
      // its own link alone, every top sent a leaf's flows down through the same aggregate.
      const bool going_up = !tw.ancestor(at, t_);
      const auto& ports = going_up ? t_.up_ports[at.value()] : t_.down_ports[at.value()];
      LinkId best{};
      double best_load = 0;
      for (PortNum p : ports) {
        if (!tw.on_shortest(f_, t_, at, p)) continue;
        const LinkId l = f_.port(at, p).out;
        const double v = going_up
                             ? load(loads, l)
                             : std::max(load(loads, l), down_bottleneck(tw, f_.link(l).to, loads));
        if (!best.valid() || less_loaded(v, best_load)) {
          best = l;
          best_load = v;
        }
      }
      // TowardLeaf keeps a valid port at every switch that reaches the leaf.
      if (!best.valid()) {
        throw std::logic_error("fat-tree adaptive routes: dead end at " + f_.node(at).name);
      }
      path.push_back(best);
      at = f_.link(best).to;
    }
    path.push_back(down);
  }
  return out.size();
}

// ----------------------------------------------------------------------------------------------

DragonflyAdaptiveRule parse_dragonfly_adaptive_rule(std::string_view name) {
  if (name == "ugal-l") return DragonflyAdaptiveRule::kUgalLocal;
  if (name == "ugal-g") return DragonflyAdaptiveRule::kUgalGlobal;
  if (name == "par") return DragonflyAdaptiveRule::kProgressive;
  throw std::invalid_argument("unknown dragonfly adaptive rule '" + std::string(name) +
                              "' (known: ugal-l, ugal-g, par)");
}

std::string_view to_string(DragonflyAdaptiveRule rule) {
  switch (rule) {
    case DragonflyAdaptiveRule::kUgalLocal:
      return "ugal-l";
    case DragonflyAdaptiveRule::kUgalGlobal:
      return "ugal-g";
    case DragonflyAdaptiveRule::kProgressive:
      return "par";
  }
  return "?";
}

std::string_view to_string(DragonflyDecision decision) {
  switch (decision) {
    case DragonflyDecision::kMinimal:
      return "minimal";
    case DragonflyDecision::kValiant:
      return "valiant";
    case DragonflyDecision::kDivertedByPar:
      return "diverted-by-par";
  }
  return "?";
}

namespace {

const DragonflyLayout& require_dragonfly(const Fabric& f) {
  if (f.dragonfly() == nullptr) {
    throw std::invalid_argument("dragonfly adaptive routes: " +
                                (f.kind_label.empty() ? std::string("the fabric") : f.kind_label) +
                                " has no dragonfly layout (recognize_dragonfly first)");
  }
  return *f.dragonfly();
}

}  // namespace

DragonflyAdaptiveRoutes::DragonflyAdaptiveRoutes(const Fabric& f, DragonflyAdaptiveOptions options)
    : f_(f), x_(require_dragonfly(f)), options_(options) {
  if (!(options_.bias >= 0) || std::isinf(options_.bias)) {
    throw std::invalid_argument(
        "dragonfly adaptive routes: bias must be a finite number >= 0, got " +
        std::to_string(options_.bias));
  }
  if (options_.valiant_candidates == 0) {
    throw std::invalid_argument("dragonfly adaptive routes: valiant_candidates must be >= 1");
  }
}

double DragonflyAdaptiveRoutes::load(LinkLoads loads, LinkId l) const {
  return checked_load(f_, loads, l);
}

void DragonflyAdaptiveRoutes::check_host(NodeIdx n, const char* which) const {
  if (!in_range(f_, n) || n.value() >= x_.role.size() || x_.role[n.value()] != RouterRole::kHost ||
      !x_.edge_router[n.value()].valid()) {
    throw std::invalid_argument(std::string("dragonfly adaptive routes: ") + which + " " +
                                node_text(f_, n) + " is not a host of the dragonfly");
  }
}

DragonflyAdaptiveRoutes::Scored DragonflyAdaptiveRoutes::score(const Path& p,
                                                               LinkLoads loads) const {
  // p[0] and p.back() are the host links, on every candidate: only switch-to-switch links count.
  Scored s;
  s.hops = p.size() - 2;
  if (s.hops == 0) return s;
  if (options_.rule == DragonflyAdaptiveRule::kUgalGlobal) {
    for (std::size_t i = 1; i + 1 < p.size(); ++i) s.q = std::max(s.q, load(loads, p[i]));
  } else {
    s.q = load(loads, p[1]);
  }
  return s;
}

DragonflyDecision DragonflyAdaptiveRoutes::route(NodeIdx src, NodeIdx dst, std::uint64_t key,
                                                 LinkLoads loads, Path& out) {
  check_host(src, "source");
  check_host(dst, "destination");
  if (src == dst) {
    throw std::invalid_argument("dragonfly adaptive routes: source and destination are both " +
                                f_.node(src).name);
  }
  check_loads(f_, loads);
  const auto better = [](const Scored& a, const Scored& b) {
    if (less_loaded(a.cost(), b.cost())) return true;
    return !less_loaded(b.cost(), a.cost()) && a.hops < b.hops;
  };

  // The minimal candidate: least q x H, ties from df-minimal's hashed choice on.
  const std::size_t nmin = x_.minimal_path_count(src, dst);
  const std::size_t first_min = flow_hash(0, src, dst) % nmin;
  Scored min_score;
  for (std::size_t k = 0; k < nmin; ++k) {
    buf_.clear();
    x_.minimal_path(src, dst, (first_min + k) % nmin, buf_);
    const Scored s = score(buf_, loads);
    if (k == 0 || better(s, min_score)) {
      min_score = s;
      best_min_.swap(buf_);
    }
  }
  const auto take_minimal = [&] {
    out.assign(best_min_.begin(), best_min_.end());
    return DragonflyDecision::kMinimal;
  };
  const int gs = x_.group_of(src);
  const int gd = x_.group_of(dst);
  if (gs == gd || x_.groups < 3) return take_minimal();

  PatternRng key_mix(key);
  PatternRng rng(flow_hash(options_.seed ^ key_mix.next(), src, dst));
  const auto prefers_minimal = [this](const Scored& m, const Scored& nm) {
    return !less_loaded(nm.cost() + options_.bias, m.cost());
  };

  // UGAL at the source router: Valiant candidates drawn as df-valiant draws its path.
  const NodeIdx rs = x_.edge_router[src.value()];
  bool have_valiant = false;
  Scored valiant_score;
  for (std::uint32_t c = 0; c < options_.valiant_candidates; ++c) {
    int mid = static_cast<int>(rng.below(static_cast<std::uint64_t>(x_.groups - 2)));
    for (const int skip : {std::min(gs, gd), std::max(gs, gd)}) {
      if (mid >= skip) ++mid;
    }
    const auto first_links = x_.global_links(gs, mid);
    const auto second_links = x_.global_links(mid, gd);
    if (first_links.empty() || second_links.empty()) continue;  // a recognised, damaged fabric
    const std::size_t first = rng.below(first_links.size());
    const std::size_t second = rng.below(second_links.size());
    const std::size_t local =
        rng.below(x_.local_route_count(first_links[first].to, second_links[second].from));
    buf_.clear();
    x_.valiant_path(src, dst, mid, first, second, local, buf_);
    const Scored s = score(buf_, loads);
    if (!have_valiant || better(s, valiant_score)) {
      have_valiant = true;
      valiant_score = s;
      best_valiant_.swap(buf_);
    }
  }
  if (have_valiant && !prefers_minimal(min_score, valiant_score)) {
    out.assign(best_valiant_.begin(), best_valiant_.end());
    return DragonflyDecision::kValiant;
  }
  if (options_.rule != DragonflyAdaptiveRule::kProgressive) return take_minimal();

  // PAR: the minimal path's global link and the router it leaves from, the gateway.
  std::size_t g = 1;
  while (g + 1 < best_min_.size() && x_.group_of_node[f_.link(best_min_[g]).from.value()] ==
                                         x_.group_of_node[f_.link(best_min_[g]).to.value()]) {
    ++g;
  }
  const NodeIdx gw = f_.link(best_min_[g]).from;
  if (gw == rs) return take_minimal();  // the source router saw the global link itself
  const std::size_t before_gw = g - 1;  // switch-to-switch hops from rs to gw
  const Scored rest_min{load(loads, best_min_[g]), best_min_.size() - 2 - before_gw};

  // gw's own global links to a third group, in port order; one drawn per candidate.
  std::size_t exits = 0;
  const auto exit_group = [&](const Port& p) {
    if (!p.connected() || x_.role[p.peer.value()] == RouterRole::kHost) return -1;
    const int to = x_.group_of_node[p.peer.value()];
    return to == gs || to == gd ? -1 : to;
  };
  for (const Port& p : f_.node(gw).ports) exits += exit_group(p) >= 0 ? 1 : 0;
  if (exits == 0) return take_minimal();
  bool have_divert = false;
  Scored divert_score;
  for (std::uint32_t c = 0; c < options_.valiant_candidates; ++c) {
    std::size_t pick = rng.below(exits);
    const Port* exit = nullptr;
    for (const Port& p : f_.node(gw).ports) {
      if (exit_group(p) >= 0 && pick-- == 0) {
        exit = &p;
        break;
      }
    }
    const int mid = exit_group(*exit);
    const auto first_links = x_.global_links(gs, mid);
    const auto second_links = x_.global_links(mid, gd);
    if (second_links.empty()) continue;
    const auto it =
        std::find_if(first_links.begin(), first_links.end(),
                     [&](const DragonflyLayout::GlobalLink& l) { return l.id == exit->out; });
    if (it == first_links.end()) {
      throw std::logic_error("dragonfly adaptive routes: a global link of " + f_.node(gw).name +
                             " is missing from its group pair's links");
    }
    const std::size_t first = static_cast<std::size_t>(it - first_links.begin());
    const std::size_t second = rng.below(second_links.size());
    const std::size_t local =
        rng.below(x_.local_route_count(exit->peer, second_links[second].from));
    buf_.clear();
    x_.valiant_path(src, dst, mid, first, second, local, buf_);
    const Scored s{load(loads, exit->out), buf_.size() - 2 - before_gw};
    if (!have_divert || better(s, divert_score)) {
      have_divert = true;
      divert_score = s;
      best_valiant_.swap(buf_);
    }
  }
  if (have_divert && !prefers_minimal(rest_min, divert_score)) {
    out.assign(best_valiant_.begin(), best_valiant_.end());
    return DragonflyDecision::kDivertedByPar;
  }
  return take_minimal();
}

// ----------------------------------------------------------------------------------------------

AdaptiveRoutes::AdaptiveRoutes(const Fabric& f, const AdaptiveRoutingOptions& options) {
  if (f.fat_tree() != nullptr) {
    fat_tree_ = std::make_unique<FatTreeAdaptiveRoutes>(f, options.fat_tree);
  } else if (f.dragonfly() != nullptr) {
    dragonfly_ = std::make_unique<DragonflyAdaptiveRoutes>(f, options.dragonfly);
  } else {
    throw std::invalid_argument(
        "adaptive routes: " + (f.kind_label.empty() ? std::string("the fabric") : f.kind_label) +
        " is neither a fat-tree nor a dragonfly or megafly");
  }
}

AdaptiveRoutes::~AdaptiveRoutes() = default;
AdaptiveRoutes::AdaptiveRoutes(AdaptiveRoutes&&) noexcept = default;
AdaptiveRoutes& AdaptiveRoutes::operator=(AdaptiveRoutes&&) noexcept = default;

std::size_t AdaptiveRoutes::routes(NodeIdx src, NodeIdx dst, std::uint64_t key, LinkLoads loads,
                                   std::vector<Path>& out) {
  if (fat_tree_) return fat_tree_->routes(src, dst, loads, out);
  out.resize(1);
  dragonfly_->route(src, dst, key, loads, out[0]);
  return 1;
}

}  // namespace ibsdn
