#include "routing/route_quality.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "routing/xgft.hpp"

namespace ibsdn {

LowerBound lower_bound(const Fabric& f, std::span<const Flow> flows) {
  LowerBound b;
  b.node_load = node_load(std::vector<Flow>(flows.begin(), flows.end()));
  b.value = b.node_load;
  b.binding = "NL_D";
  const XgftLayout* x = f.xgft();
  if (!x) return b;
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
  LinkLoad load(f);
  for (std::size_t i = 0; i < flows.size(); ++i) load.add(paths[i], flows[i].weight);
  RouteQuality q;
  q.max_link_load = load.max_flows();
  q.max_weight = load.max_weight();
  q.bound = lower_bound(f, flows);
  return q;
}

std::string validate_path(const Fabric& f, const Flow& flow, const Path& p) {
  if (p.empty()) return "empty path";
  NodeIdx at = flow.src;
  std::unordered_set<std::uint32_t> seen{at.value()};
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!p[i].valid() || p[i].value() >= f.num_links())
      return "hop " + std::to_string(i) + ": no such link";
    const Link& l = f.link(p[i]);
    if (l.from != at) {
      return "hop " + std::to_string(i) + " leaves " + f.node(l.from).name + ", expected " +
             f.node(at).name;
    }
    at = l.to;
    if (!seen.insert(at.value()).second) return "path visits " + f.node(at).name + " twice";
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
  }
  return {};
}

}  // namespace ibsdn
