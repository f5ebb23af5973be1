#include "routing/splittable_bound.hpp"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "routing/glpk_guard.hpp"

namespace ibsdn {
namespace {

constexpr double kBitsPerByte = 8.0;
constexpr double kBitsPerGigabit = 1e9;
constexpr std::uint32_t kFar = std::numeric_limits<std::uint32_t>::max();  // hop count

struct Demand {
  NodeIdx src;
  std::uint64_t bytes = 0;
};

/// The traffic toward one destination HCA and, once pruned, the part of the fabric it may use.
struct Commodity {
  NodeIdx dst;
  std::vector<Demand> sources;  // distinct sources, bytes added up
  std::vector<NodeIdx> nodes;   // on some allowed path from a source to dst; dst included
  std::vector<LinkId> links;    // allowed links between those nodes: one LP column each
};

std::string node_name(const Fabric& f, NodeIdx n) {
  return "'" + f.node(n).name + "'";
}

bool is_hca_of(const Fabric& f, NodeIdx n) {
  return n.valid() && n.value() < f.num_nodes() && f.node(n).is_hca();
}

/// Groups the flows by destination (sorted by node index, so the LP is the same for the same
/// flows in any order). Empty, or what is wrong with a flow.
std::string collect_commodities(const Fabric& f, std::span<const Flow> flows,
                                std::vector<Commodity>& out) {
  std::vector<Flow> pairs;
  pairs.reserve(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& fl = flows[i];
    if (fl.bytes == 0 || fl.src == fl.dst) continue;
    if (!is_hca_of(f, fl.src) || !is_hca_of(f, fl.dst)) {
      return "flow " + std::to_string(i) + ": " +
             (is_hca_of(f, fl.src) ? "destination" : "source") + " is not an HCA of the fabric";
    }
    pairs.push_back(fl);
  }
  std::sort(pairs.begin(), pairs.end(), [](const Flow& a, const Flow& b) {
    return std::pair(a.dst, a.src) < std::pair(b.dst, b.src);
  });
  for (const Flow& fl : pairs) {
    if (out.empty() || out.back().dst != fl.dst) out.push_back(Commodity{fl.dst, {}, {}, {}});
    std::vector<Demand>& s = out.back().sources;
    if (!s.empty() && s.back().src == fl.src) {
      s.back().bytes += fl.bytes;
    } else {
      s.push_back(Demand{fl.src, fl.bytes});
    }
  }
  return {};
}

/// Cuts each commodity's graph down to the nodes and links on some allowed path from one of its
/// sources to its destination: forward from the sources, backward from the destination, the
/// intersection. Marks are stamped per commodity so that nothing is cleared between them.
class Pruner {
 public:
  Pruner(const Fabric& f, const LinkFilter& allowed)
      : f_(f),
        allowed_(allowed),
        source_(f.num_nodes(), 0),
        forward_(f.num_nodes(), 0),
        backward_(f.num_nodes(), 0),
        checked_(f.num_links(), 0),
        usable_(f.num_links(), false) {}

  /// Fills c.nodes and c.links; empty, or which source cannot reach the destination.
  std::string prune(Commodity& c) {
    ++stamp_;
    queue_.clear();
    for (const Demand& d : c.sources) {
      source_[d.src.value()] = stamp_;
      forward_[d.src.value()] = stamp_;
      queue_.push_back(d.src);
    }
    search(c, forward_, true);
    backward_[c.dst.value()] = stamp_;
    queue_.assign(1, c.dst);
    search(c, backward_, false);
    for (const Demand& d : c.sources) {
      if (backward_[d.src.value()] != stamp_) {
        return "no allowed path from " + node_name(f_, d.src) + " to " + node_name(f_, c.dst);
      }
    }
    // After the backward search queue_ holds exactly the nodes that can reach the destination.
    for (NodeIdx n : queue_) {
      if (forward_[n.value()] != stamp_) continue;
      c.nodes.push_back(n);
      for (const Port& p : f_.node(n).ports) {
        if (p.connected() && usable(c, p.out) && backward_[p.peer.value()] == stamp_) {
          c.links.push_back(p.out);
        }
      }
    }
    return {};
  }

 private:
  // Flow of commodity c may enter an HCA only at c's destination and leave one only at c's
  // sources: HCAs are endpoints, never transit.
  bool usable(const Commodity& c, LinkId l) {
    if (checked_[l.value()] == stamp_) return usable_[l.value()];
    const Link& k = f_.link(l);
    bool ok = k.gbps > 0;
    if (ok && f_.node(k.from).is_hca()) ok = source_[k.from.value()] == stamp_;
    if (ok && f_.node(k.to).is_hca()) ok = k.to == c.dst;
    if (ok && allowed_) ok = allowed_(c.dst, l);
    checked_[l.value()] = stamp_;
    usable_[l.value()] = ok;
    return ok;
  }

  /// Breadth-first over usable links from the nodes in queue_ (already marked), downstream
  /// (forward) or upstream; every node reached is marked and appended to queue_.
  void search(const Commodity& c, std::vector<std::uint32_t>& mark, bool forward) {
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      for (const Port& p : f_.node(queue_[head]).ports) {
        if (!p.connected() || mark[p.peer.value()] == stamp_) continue;
        if (!usable(c, forward ? p.out : f_.reverse(p.out))) continue;
        mark[p.peer.value()] = stamp_;
        queue_.push_back(p.peer);
      }
    }
  }

  const Fabric& f_;
  const LinkFilter& allowed_;
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> source_, forward_, backward_, checked_;
  std::vector<bool> usable_;
  std::vector<NodeIdx> queue_;
};

/// The LP in GLPK's triplet form (1-based; element 0 unused) and what the solver returned.
struct LpArrays {
  int rows = 0, cols = 0;
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  std::vector<int> row_type{0};
  std::vector<double> row_value{0.0};
  int tm_lim_ms = INT_MAX;
  // Results.
  int ret = -1, status = 0;
  double objective = 0;
};

/// Run inside glpk_guarded(): plain C calls only (see glpk_guard.hpp).
void solve_lp(void* ctx) {
  auto* a = static_cast<LpArrays*>(ctx);
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  glp_add_rows(lp, a->rows);
  for (int i = 1; i <= a->rows; ++i) {
    glp_set_row_bnds(lp, i, a->row_type[i], a->row_value[i], a->row_value[i]);
  }
  glp_add_cols(lp, a->cols);
  for (int j = 1; j <= a->cols; ++j) glp_set_col_bnds(lp, j, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp, a->cols, 1.0);  // T, the last column
  glp_load_matrix(lp, static_cast<int>(a->ia.size()) - 1, a->ia.data(), a->ja.data(), a->ar.data());
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  parm.tm_lim = a->tm_lim_ms;
  a->ret = glp_simplex(lp, &parm);
  a->status = glp_get_status(lp);
  a->objective = glp_get_obj_val(lp);
}

std::string simplex_failure(int ret, int status) {
  switch (ret) {
    case GLP_ENOPFS:
      return "GLPK found no feasible flow (GLP_ENOPFS)";
    case GLP_EITLIM:
      return "GLPK's simplex hit its iteration limit (GLP_EITLIM)";
    case GLP_ESING:
    case GLP_ECOND:
      return "GLPK's simplex met an ill-conditioned basis (return code " + std::to_string(ret) +
             ")";
    case 0:
      return "GLPK's simplex ended with status " + std::to_string(status) + ", not optimal";
    default:
      return "GLPK's simplex failed with return code " + std::to_string(ret);
  }
}

std::string deadline_message(const Deadline& d, const char* where) {
  return std::string(d.cancelled() ? "cancelled" : "deadline passed") + " while " + where;
}

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
    Pruner pruner(f, allowed);
    std::size_t variables = 1;  // T
    std::size_t conservation_rows = 0;
    for (std::size_t k = 0; k < commodities.size(); ++k) {
      lim.deadline.check("pruning the splittable LP's commodities");
      Commodity& c = commodities[k];
      out.why_not = pruner.prune(c);
      if (!out.why_not.empty()) return out;
      variables += c.links.size();
      conservation_rows += c.nodes.size() - 1;  // the destination's row is implied by the others
      if (variables > lim.max_variables) {
        out.why_not = "LP would have " + std::string(k + 1 < commodities.size() ? "over " : "") +
                      std::to_string(variables) + " variables";
        if (k + 1 < commodities.size()) {
          out.why_not += " (" + std::to_string(k + 1) + " of " +
                         std::to_string(commodities.size()) + " destinations counted)";
        }
        out.why_not += ", limit " + std::to_string(lim.max_variables);
        return out;
      }
    }
    // GLPK indexes rows, columns and non-zeros with int; every column has at most 3 non-zeros.
    if (variables > static_cast<std::size_t>(INT_MAX / 4)) {
      out.why_not = "LP would have " + std::to_string(variables) +
                    " variables, more than GLPK's int indices hold";
      return out;
    }

    // Scaled so that GLPK sees numbers near 1: bytes by the largest demand, capacities by the
    // largest capacity. In these units the LP's T is seconds / unit.
    std::uint64_t max_bytes = 0;
    for (const Commodity& c : commodities) {
      for (const Demand& d : c.sources) max_bytes = std::max(max_bytes, d.bytes);
    }
    double max_gbps = 0;
    for (const Link& l : f.links()) max_gbps = std::max(max_gbps, l.gbps);
    const double unit =
        static_cast<double>(max_bytes) * kBitsPerByte / (max_gbps * kBitsPerGigabit);

    LpArrays a;
    std::vector<int> node_row(f.num_nodes(), 0);
    std::vector<int> link_row(f.num_links(), 0);
    int next_capacity_row = static_cast<int>(conservation_rows);
    int col = 0;
    a.row_type.resize(conservation_rows + 1, GLP_FX);
    a.row_value.resize(conservation_rows + 1, 0.0);
    int row = 0;
    for (const Commodity& c : commodities) {
      lim.deadline.check("building the splittable LP");
      for (NodeIdx n : c.nodes) node_row[n.value()] = n == c.dst ? 0 : ++row;
      for (const Demand& d : c.sources) {
        a.row_value[node_row[d.src.value()]] =
            static_cast<double>(d.bytes) / static_cast<double>(max_bytes);
      }
      for (LinkId l : c.links) {
        ++col;
        const Link& k = f.link(l);
        auto add = [&a, col](int r, double v) {
          a.ia.push_back(r);
          a.ja.push_back(col);
          a.ar.push_back(v);
        };
        if (k.from != c.dst) add(node_row[k.from.value()], 1.0);
        if (k.to != c.dst) add(node_row[k.to.value()], -1.0);
        int& cap = link_row[l.value()];
        if (cap == 0) cap = ++next_capacity_row;
        add(cap, max_gbps / k.gbps);
      }
    }
    a.cols = col + 1;
    a.rows = next_capacity_row;
    a.row_type.resize(a.rows + 1, GLP_UP);
    a.row_value.resize(a.rows + 1, 0.0);
    for (int r = static_cast<int>(conservation_rows) + 1; r <= a.rows; ++r) {
      a.ia.push_back(r);
      a.ja.push_back(a.cols);
      a.ar.push_back(-1.0);
    }
    out.variables = static_cast<std::size_t>(a.cols);
    out.constraints = static_cast<std::size_t>(a.rows);

    if (const auto left = lim.deadline.remaining()) {
      lim.deadline.check("building the splittable LP");
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*left).count();
      a.tm_lim_ms = static_cast<int>(std::min<std::int64_t>(ms, INT_MAX));
    }
    const std::string glpk_error = glpk_guarded(&solve_lp, &a);
    if (!glpk_error.empty()) {
      out.why_not = "GLPK: " + glpk_error;
    } else if (a.ret == GLP_ETMLIM) {
      out.why_not = deadline_message(lim.deadline, "GLPK solved the splittable LP");
    } else if (a.ret != 0 || a.status != GLP_OPT) {
      out.why_not = simplex_failure(a.ret, a.status);
    } else {
      out.computed = true;
      out.seconds = a.objective * unit;
    }
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
    for (LinkId l : paths[i]) bytes[l.value()] += static_cast<double>(flows[i].bytes);
  }
  double worst = 0;
  for (std::size_t l = 0; l < bytes.size(); ++l) {
    if (bytes[l] == 0) continue;
    const double gbps = f.link(LinkId(l)).gbps;
    const double s = gbps > 0 ? bytes[l] * kBitsPerByte / (gbps * kBitsPerGigabit)
                              : std::numeric_limits<double>::infinity();
    worst = std::max(worst, s);
  }
  return worst;
}

}  // namespace ibsdn
