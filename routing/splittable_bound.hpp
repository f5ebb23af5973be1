// The splittable lower bound on the maximum link utilisation: the optimum of the fractional
// multicommodity flow problem, solved as a linear programme with GLPK.
//
// Utilisation of a directed link l under a routing: seconds(l) = bytes on l * 8 / (gbps_l * 1e9),
// the time l needs to carry its bytes. No routing, single-path or split, whose paths use only the
// allowed links can have a smaller maximum over the links than the LP's optimum, because every
// such routing is a feasible point of the LP.
//
// With splittable_commodities.*, splittable_lp.* and glpk_guard.* it is a library of its own,
// ibsdn_lp, so that only the programs that want the bound link GLPK (routing/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "routing/deadline.hpp"
#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/link_load.hpp"

namespace ibsdn {

struct LpLimits {
  /// Above this many LP columns (x per commodity and link, plus T) no LP is built.
  std::size_t max_variables = 2'000'000;
  /// Checked between commodities and between solves; what is left is GLPK's time limit.
  Deadline deadline{};
};

/// Which directed links commodity `dst` (a destination HCA) may use; nullptr = every link.
using LinkFilter = std::function<bool(NodeIdx dst, LinkId l)>;

struct LpBound {
  bool computed = false;
  double seconds = 0;   // the bound: the smallest achievable max over links of seconds(l)
  std::string why_not;  // when !computed: what stopped it, e.g. "LP would have N variables, ..."
  std::size_t variables = 0, constraints = 0;  // of the full LP (T included)
  /// Columns GLPK was given (routing/splittable_lp.hpp adds them as they pay), and its solves.
  std::size_t solved_columns = 0;
  int rounds = 0;
};

/// The fractional multicommodity optimum of `flows` on `f`. One commodity per destination HCA
/// (demand: the bytes of each source), conservation at every node a commodity can use, one
/// variable T; minimise T subject to, per directed link, sum_c x_{c,l} * 8 / (gbps_l * 1e9) <= T.
/// GLPK's simplex solves it by column generation (routing/splittable_lp.hpp); the value returned
/// is the dual bound that proves the optimum, so it is a lower bound whatever the rounding.
/// Flow never passes through an HCA; links with no capacity carry nothing. A flow without a
/// byte count weighs one byte (flow_volume); flows with src == dst contribute nothing, and
/// with no flow left the bound is 0 without an LP.
/// Returns computed = false with why_not when a flow's endpoint is not an HCA of `f`, a source
/// cannot reach its destination over allowed links, the LP would exceed `lim.max_variables`, the
/// deadline passes (or is cancelled), or GLPK fails. Never throws for those; never prints.
LpBound splittable_lp_bound(const Fabric& f, std::span<const Flow> flows, const LinkFilter& allowed,
                            const LpLimits& lim);

/// Allows, for each destination, the links on its shortest paths (by hop count, never through
/// another HCA): the paths every fat-tree algorithm here takes (minimal up*/down* on an XGFT).
/// The LP over them bounds only such routings, never lower than over every link, and its full
/// size (what max_variables limits) leaves out the detours that pruning by reachability keeps.
/// Keeps one destination's distances at a time (the LP asks destination by destination); `f`
/// must outlive it; not for concurrent use.
LinkFilter shortest_path_filter(const Fabric& f);

/// The maximum link utilisation of a single-path routing: max over links of seconds(l), with
/// each flow's bytes on every link of its path (paths[i] belongs to flows[i]; throws
/// std::invalid_argument when the counts differ). Infinite if bytes cross a link of no capacity.
double max_link_seconds(const Fabric& f, std::span<const Flow> flows, std::span<const Path> paths);

}  // namespace ibsdn
