// UGAL-G analogue with global knowledge (thesis 2.2.2) for 1D dragonflies and megaflies.
//
// Flows are placed in request order. For each flow every minimal path (see df-minimal) and every
// Valiant path (see df-valiant: every intermediate group, every pair of global links, every
// megafly leaf inside the intermediate group) is a candidate; the chosen one has the smallest
// maximum link load, where load is RouteRequest::background plus the flows this call already
// placed, counted in flows or, with RouteRequest::weighted, in Flow::weight. Ties go to minimal
// paths, then to fewer hops, then to the first in enumeration order: minimal paths starting at
// df-minimal's hashed choice, then intermediate groups and links rotated by
// flow_hash(RouteRequest::seed, src, dst) so that equal candidates spread instead of piling on
// the lowest group.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"

namespace ibsdn {
namespace {

struct Choice {
  double max_load = std::numeric_limits<double>::infinity();
  bool valiant = false;
  std::size_t hops = std::numeric_limits<std::size_t>::max();

  [[nodiscard]] bool beaten_by(double m, bool is_valiant, std::size_t h) const {
    if (m != max_load) return m < max_load;
    if (is_valiant != valiant) return !is_valiant;
    return h < hops;
  }
  // No Valiant candidate whose partial maximum is already `m` and that has at least `min_hops`
  // hops can win.
  [[nodiscard]] bool excludes_valiant(double m, std::size_t min_hops) const {
    return m > max_load || (m == max_load && (!valiant || min_hops >= hops));
  }
};

class DfGlobalAdaptive final : public DragonflyRoutingAlgorithm {
 public:
  std::string_view name() const override { return "df-global-adaptive"; }
  std::string_view summary() const override {
    return "dragonfly / megafly UGAL-G analogue: least-loaded of all minimal and Valiant paths";
  }

  std::vector<Path> route_on(const RouteRequest& req,
                             const DragonflyLayout& layout) const override {
    const DragonflyLayout* x = &layout;
    std::vector<double> load(req.fabric.num_links(), 0.0);
    if (req.background) {
      for (std::size_t l = 0; l < load.size(); ++l) {
        const LinkId id(l);
        load[l] = req.weighted ? req.background->weight(id) : req.background->flows(id);
      }
    }
    const auto max_on = [&load](const Path& p, std::size_t from) {
      double m = 0.0;
      for (std::size_t k = from; k < p.size(); ++k) m = std::max(m, load[p[k].value()]);
      return m;
    };

    std::vector<Path> out(req.flows.size());
    Path buf;
    std::vector<double> suffix_max;
    std::vector<std::size_t> suffix_hops;
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "df-global-adaptive routes the flows");
      const Flow& fl = req.flows[i];
      Choice best;
      Path& chosen = out[i];

      const std::size_t nmin = x->minimal_path_count(fl.src, fl.dst);
      const std::size_t start = flow_hash(0, fl.src, fl.dst) % nmin;
      for (std::size_t k = 0; k < nmin; ++k) {
        buf.clear();
        x->minimal_path(fl.src, fl.dst, (start + k) % nmin, buf);
        const double m = max_on(buf, 0);
        if (best.beaten_by(m, false, buf.size())) {
          best = Choice{m, false, buf.size()};
          chosen = buf;
        }
      }

      const int gs = x->group_of(fl.src);
      const int gd = x->group_of(fl.dst);
      if (gs != gd && x->groups >= 3) {
        const NodeIdx rs = x->edge_router[fl.src.value()];
        const NodeIdx rd = x->edge_router[fl.dst.value()];
        std::uint64_t h = flow_hash(req.seed, fl.src, fl.dst);
        const auto rotation = [&h](std::size_t n) {
          const auto v = static_cast<std::size_t>(h % n);
          h /= n;
          return v;
        };
        const auto mids = static_cast<std::size_t>(x->groups);
        const std::size_t mid0 = rotation(mids);
        int best_mid = -1;
        std::size_t best_first = 0, best_second = 0, best_local = 0;
        for (std::size_t km = 0; km < mids; ++km) {
          const int mid = static_cast<int>((mid0 + km) % mids);
          if (mid == gs || mid == gd) continue;
          const auto first_links = x->global_links(gs, mid);
          const auto second_links = x->global_links(mid, gd);
          // Last part of the path (second global link to the destination HCA) per second link.
          suffix_max.assign(second_links.size(), 0.0);
          suffix_hops.assign(second_links.size(), 0);
          for (std::size_t b = 0; b < second_links.size(); ++b) {
            buf.clear();
            buf.push_back(second_links[b].id);
            x->append_local_route(second_links[b].to, rd, 0, buf);
            buf.push_back(x->host_down[fl.dst.value()]);
            suffix_max[b] = max_on(buf, 0);
            suffix_hops[b] = buf.size();
          }
          const std::size_t a0 = h % first_links.size();
          const std::size_t b0 = (h / first_links.size()) % second_links.size();
          for (std::size_t ka = 0; ka < first_links.size(); ++ka) {
            const std::size_t a = (a0 + ka) % first_links.size();
            buf.clear();
            buf.push_back(x->host_up[fl.src.value()]);
            x->append_local_route(rs, first_links[a].from, 0, buf);
            buf.push_back(first_links[a].id);
            const double prefix_max = max_on(buf, 0);
            const std::size_t prefix_hops = buf.size();
            // The rest is at least the second global link and the destination's host link.
            if (best.excludes_valiant(prefix_max, prefix_hops + 2)) continue;
            for (std::size_t kb = 0; kb < second_links.size(); ++kb) {
              const std::size_t b = (b0 + kb) % second_links.size();
              const NodeIdx in = first_links[a].to;
              const NodeIdx out_router = second_links[b].from;
              const std::size_t nlocal = x->local_route_count(in, out_router);
              buf.clear();
              x->append_local_route(in, out_router, b % nlocal, buf);
              // Every local route between two routers has the same length.
              const std::size_t hops = prefix_hops + buf.size() + suffix_hops[b];
              const double ends = std::max(prefix_max, suffix_max[b]);
              if (best.excludes_valiant(ends, hops)) continue;
              for (std::size_t c = 0; c < nlocal; ++c) {
                const std::size_t local = (b + c) % nlocal;
                if (c > 0) {
                  buf.clear();
                  x->append_local_route(in, out_router, local, buf);
                }
                const double m = std::max(ends, max_on(buf, 0));
                if (best.beaten_by(m, true, hops)) {
                  best = Choice{m, true, hops};
                  best_mid = mid;
                  best_first = a;
                  best_second = b;
                  best_local = local;
                }
              }
            }
          }
        }
        if (best_mid >= 0) {
          chosen.clear();
          x->valiant_path(fl.src, fl.dst, best_mid, best_first, best_second, best_local, chosen);
        }
      }
      const double w = req.weighted ? fl.weight : 1.0;
      for (LinkId l : chosen) load[l.value()] += w;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_df_global_adaptive() {
  return std::make_unique<DfGlobalAdaptive>();
}

}  // namespace ibsdn
