#include "routing/volume_routing.hpp"

#include <algorithm>
#include <stdexcept>

#include "routing/fat_tree_paths.hpp"
#include "routing/link_capacity.hpp"

namespace ibsdn {
namespace {

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
  [[nodiscard]] double with(std::size_t flow, LinkId l) const {
    return u_[l.value()] + volume_[flow] * inv_cap_[l.value()];
  }
  [[nodiscard]] double at(LinkId l) const { return u_[l.value()]; }
  [[nodiscard]] bool inner(LinkId l) const { return inner_[l.value()]; }
  [[nodiscard]] double max_inner() const {
    double m = 0.0;
    for (std::size_t i = 0; i < u_.size(); ++i)
      if (inner_[i]) m = std::max(m, u_[i]);
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

// Relative slack under which two utilisations count as equal (sums of doubles).
constexpr double kEps = 1e-9;

bool hot(const Utilisation& u, const Path& p, double limit) {
  return std::any_of(p.begin(), p.end(), [&](LinkId l) { return u.inner(l) && u.at(l) >= limit; });
}

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

  VolumeRoutingResult r;
  r.paths.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    req.deadline.check_every(k, "volume routing places the flows");
    const std::uint32_t i = in.order[k];
    paths.best_path(
        host_src[i], host_dst[i], [&](LinkId l) { return u.with(i, l); }, r.paths[i]);
    u.add(i, r.paths[i]);
  }
  r.start_max = u.max_inner();
  for (std::size_t s = 0; s < in.starts.size(); ++s) {
    if (in.starts[s].size() != n) throw std::invalid_argument("volume routing: a short start");
    u.load_all(in.starts[s]);
    const double m = u.max_inner();
    if (m < r.start_max * (1 - kEps)) {
      r.start_max = m;
      r.chosen_start = static_cast<int>(s);
    }
  }
  if (r.chosen_start >= 0) r.paths = in.starts[static_cast<std::size_t>(r.chosen_start)];
  u.load_all(r.paths);

  // Rip-up and re-route on the hottest links.
  Path candidate;
  std::vector<std::uint32_t> on_hot;
  for (; r.rounds < in.max_rounds; ++r.rounds) {
    req.deadline.check("volume routing moves flows off the hottest links");
    const double top = u.max_inner();
    if (top <= 0.0) break;
    const double limit = top * (1 - kEps);
    on_hot.clear();
    for (std::uint32_t i = 0; i < n; ++i)
      if (hot(u, r.paths[i], limit)) on_hot.push_back(i);
    std::stable_sort(on_hot.begin(), on_hot.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return in.volume[a] > in.volume[b]; });
    bool moved = false;
    for (std::uint32_t i : on_hot) {
      if (!hot(u, r.paths[i], limit)) continue;  // an earlier move cooled its links
      u.remove(i, r.paths[i]);
      paths.best_path(
          host_src[i], host_dst[i], [&](LinkId l) { return u.with(i, l); }, candidate);
      double worst = 0.0;
      for (LinkId l : candidate)
        if (u.inner(l)) worst = std::max(worst, u.with(i, l));
      if (worst < limit) {
        r.paths[i].swap(candidate);
        ++r.moves;
        moved = true;
      }
      u.add(i, r.paths[i]);
    }
    if (!moved) break;
  }
  r.final_max = u.max_inner();
  return r;
}

}  // namespace ibsdn
