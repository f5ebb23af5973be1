// The splittable LP itself (routing/splittable_bound.hpp has its definition), solved with GLPK by
// column generation.
//
// Pruning by reachability keeps every detour: on a fat-tree, about every switch link per
// destination, of which the optimum uses few. So the LP starts with each commodity's links on
// its shortest paths (by hops) and adds the others only when they pay: after each solve, the
// capacity rows' duals w_l >= 0 price the links (length = w_l x 8 / capacity), and for any such
// w, D(w) = sum over commodities and sources of bytes x shortest length to the destination,
// divided by max(1, sum of w_l), is a lower bound on the optimum (weak duality: every routing
// carries each source's bytes along some path). A source whose shortest path is shorter than
// its row's dual gets that path's links as new columns, and the LP is solved again from the
// last basis. When D(w) reaches the restricted optimum (relative 1e-9) both equal the optimum
// of the full LP. The bound returned is D(w): a lower bound by construction, whatever the
// solver's rounding.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "routing/deadline.hpp"
#include "routing/fabric.hpp"
#include "routing/splittable_commodities.hpp"

namespace ibsdn {

struct SplittableLpResult {
  bool solved = false;
  double seconds = 0;
  std::string why_not;
  std::size_t rows = 0;     // every conservation and capacity row of the full LP
  std::size_t columns = 0;  // the columns GLPK was given (T included)
  int rounds = 0;           // solves
};

/// Which columns the first solve gets: the shortest paths' (then pricing), or every column at
/// once (the LP as defined, solved in one go: the reference the tests and the bench compare to).
enum class FirstColumns { kShortestPaths, kAll };

/// `commodities` pruned (CommodityPruner), each with at least one source. Checks `deadline`
/// between rounds and hands what is left of it to GLPK as its time limit.
SplittableLpResult solve_splittable_lp(const Fabric& f, std::span<const Commodity> commodities,
                                       const Deadline& deadline,
                                       FirstColumns first = FirstColumns::kShortestPaths);

}  // namespace ibsdn
