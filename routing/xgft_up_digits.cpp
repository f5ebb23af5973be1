#include "routing/xgft_up_digits.hpp"

#include "routing/bipartite_edge_colouring.hpp"

namespace ibsdn {

// Level by level, j = 2..h: every flow whose NCA is at level >= j must pick the up digit y_j,
// i.e. which of the w_j up links of its level-(j-1) ancestor it takes. Build the bipartite graph
// whose left vertices are the source-side level-(j-1) ancestors (identified by switch index,
// which includes the up digits already chosen), right vertices the destination-side ones, one
// edge per flow, and colour it with w_j colours: colour = y_j. A proper colouring puts at most
// one flow on each up link out of a source-side node and each down link into a destination-side
// node. On a full-bisection XGFT a permutation gives degree <= m_{j-1} = w_j at every level, by
// induction, because a level-j node collects at most one flow of its colour from each of its m_j
// children: that is the contention-free schedule of a permutation.
std::vector<std::uint64_t> choose_up_digits(const Fabric& f, const XgftLayout& x,
                                            std::span<const std::uint32_t> src_host,
                                            std::span<const std::uint32_t> dst_host,
                                            const UpDigitOptions& opt) {
  const std::size_t n = src_host.size();
  std::vector<std::uint64_t> y(n, 0);
  std::vector<int> nca(n);
  for (std::size_t i = 0; i < n; ++i) nca[i] = x.nca_level(src_host[i], dst_host[i]);

  std::vector<std::uint32_t> flow_of_edge;
  std::vector<std::uint32_t> rank;
  for (int j = 2; j <= x.params.h; ++j) {
    const auto colours = static_cast<std::uint32_t>(x.params.w[j - 1]);
    const std::uint64_t wp = x.w_prefix[j - 1];
    BipartiteEdges g;
    g.num_left = g.num_right = static_cast<std::uint32_t>(x.switches[j - 2].size());
    flow_of_edge.clear();
    rank.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (nca[i] < j) continue;
      const std::uint64_t yl = y[i] % wp;
      g.add(static_cast<std::uint32_t>((src_host[i] / x.m_prefix[j - 1]) * wp + yl),
            static_cast<std::uint32_t>((dst_host[i] / x.m_prefix[j - 1]) * wp + yl));
      flow_of_edge.push_back(static_cast<std::uint32_t>(i));
      rank.push_back(nca[i] > j ? 0u : 1u);
    }
    if (g.size() == 0) break;
    ColourCost cost;
    if (opt.link_flows) {
      const auto& lf = *opt.link_flows;
      const auto& level_nodes = x.switches[j - 2];
      cost = [&](std::uint32_t e, std::uint32_t c) {
        const NodeIdx a = level_nodes[g.left[e]];
        const NodeIdx b = level_nodes[g.right[e]];
        const LinkId up = f.port(a, x.up_port[a.value()][c]).out;
        const LinkId down = f.reverse(f.port(b, x.up_port[b.value()][c]).out);
        return static_cast<double>(lf[up.value()]) + static_cast<double>(lf[down.value()]);
      };
    }
    const ColourCost* cp = opt.link_flows ? &cost : nullptr;
    const std::vector<std::uint32_t> colour = opt.balanced
                                                  ? colour_bipartite_balanced(g, colours, rank, cp)
                                                  : colour_bipartite(g, colours, cp);
    for (std::size_t e = 0; e < colour.size(); ++e) y[flow_of_edge[e]] += colour[e] * wp;
  }
  return y;
}

}  // namespace ibsdn
