#include "routing/bipartite_edge_colouring.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ibsdn {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Per vertex: which edge holds each colour, plus a bitset of used colours for a fast first-free
// search (demands like all-to-all need ~1000 colours per vertex).
class ColourTable {
 public:
  ColourTable(std::uint32_t vertices, std::uint32_t colours)
      : colours_(colours),
        words_((colours + 63) / 64),
        edge_(static_cast<std::size_t>(vertices) * colours, kNone),
        used_(static_cast<std::size_t>(vertices) * words_, 0) {}

  [[nodiscard]] std::uint32_t edge(std::uint32_t v, std::uint32_t c) const {
    return edge_[static_cast<std::size_t>(v) * colours_ + c];
  }
  [[nodiscard]] bool free(std::uint32_t v, std::uint32_t c) const { return edge(v, c) == kNone; }
  void set(std::uint32_t v, std::uint32_t c, std::uint32_t e) {
    edge_[static_cast<std::size_t>(v) * colours_ + c] = e;
    std::uint64_t& w = used_[static_cast<std::size_t>(v) * words_ + c / 64];
    if (e == kNone) {
      w &= ~(std::uint64_t{1} << (c % 64));
    } else {
      w |= std::uint64_t{1} << (c % 64);
    }
  }
  [[nodiscard]] std::uint32_t first_free(std::uint32_t v) const {
    const std::uint64_t* w = &used_[static_cast<std::size_t>(v) * words_];
    for (std::uint32_t i = 0; i < words_; ++i) {
      if (~w[i] != 0) {
        const auto c = i * 64 + static_cast<std::uint32_t>(std::countr_one(w[i]));
        if (c < colours_) return c;
      }
    }
    return kNone;
  }
  /// Lowest colour free at both vertices, or kNone.
  [[nodiscard]] std::uint32_t first_common_free(std::uint32_t a, std::uint32_t b) const {
    const std::uint64_t* wa = &used_[static_cast<std::size_t>(a) * words_];
    const std::uint64_t* wb = &used_[static_cast<std::size_t>(b) * words_];
    for (std::uint32_t i = 0; i < words_; ++i) {
      const std::uint64_t both = ~(wa[i] | wb[i]);
      if (both != 0) {
        const auto c = i * 64 + static_cast<std::uint32_t>(std::countr_zero(both));
        if (c < colours_) return c;
      }
    }
    return kNone;
  }

 private:
  std::uint32_t colours_;
  std::uint32_t words_;
  std::vector<std::uint32_t> edge_;
  std::vector<std::uint64_t> used_;
};

}  // namespace

std::uint32_t BipartiteEdges::max_degree() const {
  std::vector<std::uint32_t> dl(num_left, 0);
  std::vector<std::uint32_t> dr(num_right, 0);
  std::uint32_t best = 0;
  for (std::size_t e = 0; e < left.size(); ++e) {
    best = std::max({best, ++dl[left[e]], ++dr[right[e]]});
  }
  return best;
}

std::vector<std::uint32_t> colour_bipartite(const BipartiteEdges& g, std::uint32_t colours,
                                            const ColourCost* cost) {
  const std::uint32_t need = g.max_degree();
  if (colours < need) {
    throw std::invalid_argument("edge colouring: " + std::to_string(colours) +
                                " colours cannot colour a graph of maximum degree " +
                                std::to_string(need));
  }
  std::vector<std::uint32_t> colour(g.size(), kNone);
  if (g.size() == 0) return colour;
  // Left vertices are [0, num_left), right vertices [num_left, num_left + num_right).
  ColourTable t(g.num_left + g.num_right, colours);
  const std::uint32_t off = g.num_left;
  std::vector<std::uint32_t> chain;
  for (std::uint32_t e = 0; e < g.size(); ++e) {
    const std::uint32_t u = g.left[e];
    const std::uint32_t v = g.right[e] + off;
    std::uint32_t c = kNone;
    if (cost) {
      double best = 0;
      for (std::uint32_t k = 0; k < colours; ++k) {
        if (!t.free(u, k) || !t.free(v, k)) continue;
        const double x = (*cost)(e, k);
        if (c == kNone || x < best) {
          best = x;
          c = k;
        }
      }
    } else {
      c = t.first_common_free(u, v);
    }
    if (c == kNone) {
      // alpha is free at u but used at v; beta is free at v. Swap alpha/beta along the
      // alternating path that starts at v: in a bipartite graph it cannot end at u, so afterwards
      // alpha is free at both ends.
      const std::uint32_t alpha = t.first_free(u);
      const std::uint32_t beta = t.first_free(v);
      chain.clear();
      std::uint32_t at = v;
      std::uint32_t follow = alpha;
      while (true) {
        const std::uint32_t pe = t.edge(at, follow);
        if (pe == kNone) break;
        chain.push_back(pe);
        const std::uint32_t a = g.left[pe];
        const std::uint32_t b = g.right[pe] + off;
        at = (at == a) ? b : a;
        follow = (follow == alpha) ? beta : alpha;
      }
      for (std::uint32_t pe : chain) {
        t.set(g.left[pe], colour[pe], kNone);
        t.set(g.right[pe] + off, colour[pe], kNone);
      }
      for (std::uint32_t pe : chain) {
        colour[pe] = (colour[pe] == alpha) ? beta : alpha;
        t.set(g.left[pe], colour[pe], pe);
        t.set(g.right[pe] + off, colour[pe], pe);
      }
      c = alpha;
    }
    colour[e] = c;
    t.set(u, c, e);
    t.set(v, c, e);
  }
  return colour;
}

std::vector<std::uint32_t> colour_bipartite_balanced(const BipartiteEdges& g, std::uint32_t colours,
                                                     std::span<const std::uint32_t> rank,
                                                     const ColourCost* cost) {
  if (colours == 0) throw std::invalid_argument("edge colouring: zero colours");
  if (rank.size() != g.size()) throw std::invalid_argument("edge colouring: one rank per edge");
  // Order edges by (rank, index) and give each vertex's k-th edge the virtual vertex k / colours.
  std::vector<std::uint32_t> order(g.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return rank[a] < rank[b]; });
  std::vector<std::uint32_t> seen_left(g.num_left, 0);
  std::vector<std::uint32_t> seen_right(g.num_right, 0);
  std::vector<std::uint32_t> chunk_left(g.size());
  std::vector<std::uint32_t> chunk_right(g.size());
  for (std::uint32_t e : order) {
    chunk_left[e] = seen_left[g.left[e]]++ / colours;
    chunk_right[e] = seen_right[g.right[e]]++ / colours;
  }
  // Number the virtual vertices densely: vertex v's chunks follow each other.
  auto dense = [colours](const std::vector<std::uint32_t>& seen, std::vector<std::uint32_t>& base) {
    base.assign(seen.size(), 0);
    std::uint32_t next = 0;
    for (std::size_t v = 0; v < seen.size(); ++v) {
      base[v] = next;
      next += (seen[v] + colours - 1) / colours;
    }
    return next;
  };
  std::vector<std::uint32_t> base_left;
  std::vector<std::uint32_t> base_right;
  BipartiteEdges split;
  split.num_left = dense(seen_left, base_left);
  split.num_right = dense(seen_right, base_right);
  split.left.resize(g.size());
  split.right.resize(g.size());
  // Keep the rank order when colouring so the first-ranked edges get first pick of colours.
  std::vector<std::uint32_t> back(g.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    const std::uint32_t e = order[i];
    split.left[i] = base_left[g.left[e]] + chunk_left[e];
    split.right[i] = base_right[g.right[e]] + chunk_right[e];
    back[i] = e;
  }
  ColourCost mapped;
  if (cost) mapped = [&](std::uint32_t i, std::uint32_t c) { return (*cost)(back[i], c); };
  const std::vector<std::uint32_t> c = colour_bipartite(split, colours, cost ? &mapped : nullptr);
  std::vector<std::uint32_t> out(g.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) out[back[i]] = c[i];
  return out;
}

}  // namespace ibsdn
