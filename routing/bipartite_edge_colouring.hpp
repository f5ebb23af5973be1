// Proper edge colouring of bipartite multigraphs with as many colours as the maximum degree
// (König's edge-colouring theorem), by alternating-path (Kempe chain) recolouring.
//
// Written here rather than taken from Boost: Boost.Graph's edge_coloring targets general simple
// graphs with Vizing's Δ+1 bound, while SDN-optimal needs exactly Δ colours on multigraphs.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace ibsdn {

struct BipartiteEdges {
  std::uint32_t num_left = 0;
  std::uint32_t num_right = 0;
  std::vector<std::uint32_t> left;   // left[e]: left endpoint of edge e
  std::vector<std::uint32_t> right;  // right[e]: right endpoint of edge e

  void add(std::uint32_t l, std::uint32_t r) {
    left.push_back(l);
    right.push_back(r);
  }
  [[nodiscard]] std::size_t size() const { return left.size(); }
  [[nodiscard]] std::uint32_t max_degree() const;
};

/// Optional preference among colours free at both ends of an edge: lower cost wins, ties go to
/// the lower colour. Used to steer a job's colour classes away from links other jobs load.
using ColourCost = std::function<double(std::uint32_t edge, std::uint32_t colour)>;

/// Colours every edge with a colour in [0, colours) so that no two edges sharing an endpoint
/// have the same colour. Requires colours >= max_degree(); throws std::invalid_argument otherwise.
/// Edges are coloured in index order; the result is deterministic.
std::vector<std::uint32_t> colour_bipartite(const BipartiteEdges& g, std::uint32_t colours,
                                            const ColourCost* cost = nullptr);

/// Vertex splitting (de Werra): colours with `colours` colours however large the degrees, so that
/// every vertex v has at most ceil(deg(v) / colours) edges of each colour. Edges of a vertex are
/// split into chunks of `colours` in the order given by `rank` (lower rank first), so the edges
/// ranked first are spread over all colours before the rest fill in.
std::vector<std::uint32_t> colour_bipartite_balanced(const BipartiteEdges& g, std::uint32_t colours,
                                                     std::span<const std::uint32_t> rank,
                                                     const ColourCost* cost = nullptr);

}  // namespace ibsdn
