#include "routing/splittable_bound.hpp"

#include <algorithm>
#include <climits>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "routing/splittable_commodities.hpp"
#include "routing/splittable_lp.hpp"

namespace ibsdn {
namespace {

constexpr std::uint32_t kFar = std::numeric_limits<std::uint32_t>::max();  // hop count

}  // namespace

LpBound splittable_lp_bound(const Fabric& f, std::span<const Flow> flows, const LinkFilter& allowed,
                            const LpLimits& lim) {
  LpBound out;
  try {
    std::vector<Commodity> commodities;
    out.why_not = collect_commodities(f, flows, commodities);
    if (!out.why_not.empty()) return out;
    if (commodities.empty()) {
      out.computed = true;
      return out;
    }

    // Count before building anything big: the pruned links are the columns. Counting stops at
    // the first commodity past the limit, so a refusal costs no more than an accepted LP.
    CommodityPruner pruner(f, allowed);
    std::size_t variables = 1;  // T
    for (std::size_t k = 0; k < commodities.size(); ++k) {
      lim.deadline.check("pruning the splittable LP's commodities");
      Commodity& c = commodities[k];
      out.why_not = pruner.prune(c);
      if (!out.why_not.empty()) return out;
      variables += c.links.size();
      if (variables > lim.max_variables) {
        const bool all = k + 1 == commodities.size();
        out.why_not = "LP would have " + std::string(all ? "" : "over ") +
                      std::to_string(variables) + " variables";
        if (!all) {
          out.why_not += " (" + std::to_string(k + 1) + " of " +
                         std::to_string(commodities.size()) + " destinations counted)";
        }
        out.why_not += ", limit " + std::to_string(lim.max_variables);
        return out;
      }
    }
    // GLPK indexes rows, columns and non-zeros with int; every column has at most 3 non-zeros
    // and every commodity has fewer rows than columns.
    if (variables > static_cast<std::size_t>(INT_MAX / 4)) {
      out.why_not = "LP would have " + std::to_string(variables) +
                    " variables, more than GLPK's int indices hold";
      return out;
    }
    out.variables = variables;

    const SplittableLpResult lp = solve_splittable_lp(f, commodities, lim.deadline);
    out.constraints = lp.rows;
    out.solved_columns = lp.columns;
    out.rounds = lp.rounds;
    out.computed = lp.solved;
    out.seconds = lp.seconds;
    out.why_not = lp.why_not;
  } catch (const DeadlineExceeded& e) {
    out.why_not = e.what();
  } catch (const std::bad_alloc&) {
    out.why_not = "out of memory while building the splittable LP";
  }
  return out;
}

LinkFilter shortest_path_filter(const Fabric& f) {
  struct Distances {
    NodeIdx dst;
    std::vector<std::uint32_t> hops;  // toward dst; kFar where it cannot be reached
  };
  auto cache = std::make_shared<Distances>();
  return [&f, cache](NodeIdx dst, LinkId l) {
    Distances& d = *cache;
    if (d.dst != dst) {
      d.dst = dst;
      d.hops.assign(f.num_nodes(), kFar);
      d.hops[dst.value()] = 0;
      std::vector<NodeIdx> queue{dst};
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeIdx n = queue[head];
        if (n != dst && f.node(n).is_hca()) continue;  // HCAs are not transit
        for (const Port& p : f.node(n).ports) {
          if (!p.connected() || d.hops[p.peer.value()] != kFar) continue;
          d.hops[p.peer.value()] = d.hops[n.value()] + 1;
          queue.push_back(p.peer);
        }
      }
    }
    const Link& k = f.link(l);
    return d.hops[k.to.value()] != kFar && d.hops[k.from.value()] == d.hops[k.to.value()] + 1;
  };
}

double max_link_seconds(const Fabric& f, std::span<const Flow> flows, std::span<const Path> paths) {
  if (flows.size() != paths.size()) {
    throw std::invalid_argument("max_link_seconds: " + std::to_string(flows.size()) +
                                " flows but " + std::to_string(paths.size()) + " paths");
  }
  std::vector<double> bytes(f.num_links(), 0.0);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    for (LinkId l : paths[i]) bytes[l.value()] += flow_volume(flows[i]);
  }
  double worst = 0;
  for (std::size_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] == 0) continue;
    const double gbps = f.link(LinkId(l)).gbps;
    const double s =
        gbps > 0 ? link_seconds(bytes[l], gbps) : std::numeric_limits<double>::infinity();
    worst = std::max(worst, s);
  }
  return worst;
}

}  // namespace ibsdn
