#include "routing/route_quality.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>

#include "routing/fat_tree.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

std::uint32_t leaf_of(const FatTreeLayout& t, NodeIdx hca) {
  return t.leaf_index[t.leaf_of_host[t.host_of_node[hca.value()]].value()];
}

// The XGFT subtree terms of lower_bound(), on any fat-tree: ceil(flows out or in / up links).
void subtree_bound(const Fabric& f, const FatTreeLayout& t, std::span<const Flow> flows,
                   LowerBound& b) {
  const FatTreeSubtrees subs = fat_tree_subtrees(f, t);
  for (std::size_t l = 0; l < subs.of_leaf.size(); ++l) {
    const auto& of_leaf = subs.of_leaf[l];
    const auto& up = subs.up_links[l];
    std::vector<std::uint32_t> out(up.size(), 0);
    std::vector<std::uint32_t> in(up.size(), 0);
    for (const Flow& fl : flows) {
      const std::uint32_t s = of_leaf[leaf_of(t, fl.src)];
      const std::uint32_t d = of_leaf[leaf_of(t, fl.dst)];
      if (s != d) {
        ++out[s];
        ++in[d];
      }
    }
    for (std::size_t k = 0; k < up.size(); ++k) {
      const std::uint32_t worst = std::max(out[k], in[k]);
      const auto links = static_cast<std::uint32_t>(up[k].size());
      if (links == 0 || worst == 0) continue;  // no way out: the routing itself reports it
      const std::uint32_t need = (worst + links - 1) / links;
      if (need > b.value) {
        b.value = need;
        b.binding = "level-" + std::to_string(l + 1) + " subtree of " +
                    f.node(f.link(up[k].front()).from).name + " (" + std::to_string(links) +
                    " up links, " + std::to_string(worst) + " flows " +
                    (out[k] >= in[k] ? "out" : "in") + ")";
      }
    }
  }
}

std::string gbytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g GB", bytes / 1e9);
  return buf;
}

}  // namespace

VolumeBound volume_lower_bound(const Fabric& f, std::span<const Flow> flows) {
  VolumeBound b;
  // The text is made only for a new maximum: the controller evaluates every job it places, and
  // formatting one per host and subtree was most of this function's time on a 6750-host tree.
  const auto consider = [&b](double seconds, const auto& what) {
    if (seconds > b.seconds) {
      b.seconds = seconds;
      b.binding = what();
    }
  };
  // Host terms: every byte crosses the host's cable (the HCA's first cabled port).
  std::vector<double> out(f.num_nodes(), 0.0);
  std::vector<double> in(f.num_nodes(), 0.0);
  for (const Flow& fl : flows) {
    out[fl.src.value()] += flow_volume(fl);
    in[fl.dst.value()] += flow_volume(fl);
  }
  for (NodeIdx h : f.hcas()) {
    double gbps = 0.0;
    for (const Port& p : f.node(h).ports) gbps += p.connected() ? p.gbps : 0.0;
    if (gbps <= 0.0) continue;
    const double worst = std::max(out[h.value()], in[h.value()]);
    consider(link_seconds(worst, gbps), [&] {
      return "host " + f.node(h).name + (out[h.value()] >= in[h.value()] ? " out (" : " in (") +
             gbytes(worst) + " over " + std::to_string(static_cast<int>(gbps)) + " Gb/s)";
    });
  }
  const FatTreeLayout* t = f.fat_tree();
  if (t == nullptr) return b;
  const FatTreeSubtrees subs = fat_tree_subtrees(f, *t);
  for (std::size_t l = 0; l < subs.of_leaf.size(); ++l) {
    const auto& of_leaf = subs.of_leaf[l];
    const auto& up = subs.up_links[l];
    std::vector<double> leave(up.size(), 0.0);
    std::vector<double> enter(up.size(), 0.0);
    for (const Flow& fl : flows) {
      const std::uint32_t s = of_leaf[leaf_of(*t, fl.src)];
      const std::uint32_t d = of_leaf[leaf_of(*t, fl.dst)];
      if (s != d) {
        leave[s] += flow_volume(fl);
        enter[d] += flow_volume(fl);
      }
    }
    for (std::size_t k = 0; k < up.size(); ++k) {
      double gbps_up = 0.0;
      double gbps_down = 0.0;
      for (LinkId id : up[k]) {
        gbps_up += f.link(id).gbps;
        gbps_down += f.link(f.reverse(id)).gbps;
      }
      const auto where = [&] {
        return "level-" + std::to_string(l + 1) + " subtree of " +
               (up[k].empty() ? std::string("?") : f.node(f.link(up[k].front()).from).name);
      };
      if (gbps_up > 0.0) {
        consider(link_seconds(leave[k], gbps_up),
                 [&] { return where() + " out (" + gbytes(leave[k]) + ")"; });
      }
      if (gbps_down > 0.0) {
        consider(link_seconds(enter[k], gbps_down),
                 [&] { return where() + " in (" + gbytes(enter[k]) + ")"; });
      }
    }
  }
  return b;
}

VolumeBound single_path_volume_bound(const Fabric& f, std::span<const Flow> flows) {
  VolumeBound b = volume_lower_bound(f, flows);
  const FatTreeLayout* t = f.fat_tree();
  if (t == nullptr) return b;
  const FatTreeSubtrees subs = fat_tree_subtrees(f, *t);
  std::vector<double> v;
  for (std::size_t l = 0; l < subs.of_leaf.size(); ++l) {
    const auto& of_leaf = subs.of_leaf[l];
    const auto& up = subs.up_links[l];
    std::vector<std::vector<double>> leave(up.size());
    std::vector<std::vector<double>> enter(up.size());
    for (const Flow& fl : flows) {
      const std::uint32_t s = of_leaf[leaf_of(*t, fl.src)];
      const std::uint32_t d = of_leaf[leaf_of(*t, fl.dst)];
      if (s != d) {
        leave[s].push_back(flow_volume(fl));
        enter[d].push_back(flow_volume(fl));
      }
    }
    for (std::size_t k = 0; k < up.size(); ++k) {
      for (const bool out : {true, false}) {
        if (up[k].empty()) continue;
        v = out ? std::move(leave[k]) : std::move(enter[k]);
        if (v.empty()) continue;
        double fastest = 0.0;
        double slowest = std::numeric_limits<double>::infinity();
        for (LinkId id : up[k]) {
          const double g = f.link(out ? id : f.reverse(id)).gbps;
          fastest = std::max(fastest, g);
          slowest = std::min(slowest, g);
        }
        if (fastest <= 0.0) continue;
        std::sort(v.begin(), v.end(), std::greater<>());
        // v[0] alone; then for j >= 1 the j + 1 smallest of the j * u + 1 largest.
        double worst = v[0];
        const std::size_t u = up[k].size();
        std::size_t items = 1;
        if (slowest == fastest) {
          double window = 0.0;  // sum of v[j*u - j .. j*u]
          for (std::size_t j = 1; j * u < v.size(); ++j) {
            window = 0.0;
            for (std::size_t i = j * u - j; i <= j * u; ++i) window += v[i];
            if (window > worst) {
              worst = window;
              items = j + 1;
            }
          }
        }
        const double seconds = link_seconds(worst, fastest);
        if (seconds > b.seconds) {
          b.seconds = seconds;
          b.binding = "level-" + std::to_string(l + 1) + " subtree of " +
                      f.node(f.link(up[k].front()).from).name + (out ? " out" : " in") + " (" +
                      std::to_string(items) + " unsplittable flows on one of " + std::to_string(u) +
                      " links, " + gbytes(worst) + ")";
        }
      }
    }
  }
  return b;
}

LowerBound lower_bound(const Fabric& f, std::span<const Flow> flows) {
  LowerBound b;
  b.node_load = node_load(std::vector<Flow>(flows.begin(), flows.end()));
  b.value = b.node_load;
  b.binding = "NL_D";
  const XgftLayout* x = f.xgft();
  if (!x) {
    if (const FatTreeLayout* t = f.fat_tree()) subtree_bound(f, *t, flows, b);
    return b;
  }
  for (int l = 1; l < x->params.h; ++l) {
    const std::uint64_t subtrees = x->hosts.size() / x->m_prefix[l];
    const std::uint64_t up_links = x->w_prefix[l] * static_cast<std::uint64_t>(x->params.w[l]);
    std::vector<std::uint32_t> out(subtrees, 0);
    std::vector<std::uint32_t> in(subtrees, 0);
    for (const Flow& fl : flows) {
      const std::uint64_t s = x->host_of_node[fl.src.value()] / x->m_prefix[l];
      const std::uint64_t d = x->host_of_node[fl.dst.value()] / x->m_prefix[l];
      if (s != d) {
        ++out[s];
        ++in[d];
      }
    }
    for (std::uint64_t t = 0; t < subtrees; ++t) {
      const std::uint32_t worst = std::max(out[t], in[t]);
      const auto need = static_cast<std::uint32_t>((worst + up_links - 1) / up_links);
      if (need > b.value) {
        b.value = need;
        b.binding = "level-" + std::to_string(l) + " subtree " + std::to_string(t) + " (" +
                    std::to_string(up_links) + " up links, " + std::to_string(worst) + " flows " +
                    (out[t] >= in[t] ? "out" : "in") + ")";
      }
    }
  }
  return b;
}

RouteQuality evaluate(const Fabric& f, std::span<const Flow> flows, std::span<const Path> paths) {
  if (flows.size() != paths.size()) throw std::invalid_argument("evaluate: one path per flow");
  // Only the links the flows cross: a LinkLoad of the whole fabric per job (the controller
  // evaluates every job it places) costs more to clear and scan than the job's hops. Sorted by
  // link, then flow, each link's sums are added in flow order, as LinkLoad adds them.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> hops;  // (link, flow)
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (const LinkId l : paths[i]) hops.emplace_back(l.value(), static_cast<std::uint32_t>(i));
  }
  std::sort(hops.begin(), hops.end());
  RouteQuality q;
  for (std::size_t a = 0; a < hops.size();) {
    const std::uint32_t link = hops[a].first;
    std::int32_t n = 0;
    double weight = 0.0;
    double volume = 0.0;
    for (; a < hops.size() && hops[a].first == link; ++a) {
      const Flow& fl = flows[hops[a].second];
      ++n;
      weight += fl.weight;
      volume += flow_volume(fl);
    }
    q.max_link_load = std::max(q.max_link_load, n);
    q.max_weight = std::max(q.max_weight, weight);
    q.max_seconds = std::max(q.max_seconds, link_seconds(volume, f.link(LinkId(link)).gbps));
  }
  q.bound = lower_bound(f, flows);
  q.volume_bound = volume_lower_bound(f, flows);
  return q;
}

std::string validate_path(const Fabric& f, const Flow& flow, const Path& p) {
  if (p.empty()) return "empty path";
  NodeIdx at = flow.src;
  // Quadratic in the hops, which are few (a tracer gives up after 64): a linear search beats a
  // hash set's allocations, and the controller validates every path it compiles.
  std::vector<NodeIdx> seen;
  seen.reserve(p.size() + 1);
  seen.push_back(at);
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!p[i].valid() || p[i].value() >= f.num_links())
      return "hop " + std::to_string(i) + ": no such link";
    const Link& l = f.link(p[i]);
    if (l.from != at) {
      return "hop " + std::to_string(i) + " leaves " + f.node(l.from).name + ", expected " +
             f.node(at).name;
    }
    at = l.to;
    if (std::find(seen.begin(), seen.end(), at) != seen.end()) {
      return "path visits " + f.node(at).name + " twice";
    }
    seen.push_back(at);
    if (i + 1 < p.size() && f.node(at).is_hca())
      return "path passes through HCA " + f.node(at).name;
  }
  if (at != flow.dst) return "path ends at " + f.node(at).name + ", not " + f.node(flow.dst).name;
  if (const XgftLayout* x = f.xgft()) {
    try {
      (void)xgft_path_y_index(f, *x, p);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
  } else if (const FatTreeLayout* t = f.fat_tree()) {
    return check_up_down_path(f, *t, p);
  }
  return {};
}

}  // namespace ibsdn
