#include "routing/splittable_lp.hpp"

#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "routing/glpk_guard.hpp"
#include "routing/splittable_bound.hpp"

namespace ibsdn {
namespace {

/// Relative gap between D(w) and the restricted optimum at which both count as the optimum.
constexpr double kOptimalityGap = 1e-9;
/// A column's entries: conservation at both ends and the link's capacity row, after GLPK's
/// unused element 0.
constexpr int kSlots = 4;
constexpr double kInfinite = std::numeric_limits<double>::infinity();

/// What the C-style steps below read and write. Arrays are 1-based as GLPK wants ([0] unused).
struct GlpkStep {
  glp_prob* lp = nullptr;
  int rows = 0;
  std::vector<int> row_type{0};
  std::vector<double> row_value{0.0};
  std::vector<int> t_rows{0};  // T's column: -1 in every capacity row
  std::vector<double> t_values{0.0};
  // Columns to add before the next solve: column k has pending_len[k] entries at
  // pending_rows / pending_values[k * kSlots + 1 ...].
  std::vector<int> pending_len;
  std::vector<int> pending_rows;
  std::vector<double> pending_values;
  bool presolve = true;
  int tm_lim_ms = INT_MAX;
  // Results of the last solve.
  int ret = -1, status = 0;
  double objective = 0;
  std::vector<double> dual;  // per row, sized rows + 1 before the solve
};

// The three steps below run inside GlpkSession::run(): plain C calls only (glpk_guard.hpp).

void add_pending_columns(GlpkStep& s) {
  const int n = static_cast<int>(s.pending_len.size());
  if (n == 0) return;
  const int first = glp_add_cols(s.lp, n);
  for (int k = 0; k < n; ++k) {
    glp_set_col_bnds(s.lp, first + k, GLP_LO, 0.0, 0.0);
    glp_set_mat_col(s.lp, first + k, s.pending_len[k], &s.pending_rows[k * kSlots],
                    &s.pending_values[k * kSlots]);
  }
}

void solve(GlpkStep& s) {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = s.presolve ? GLP_ON : GLP_OFF;
  parm.tm_lim = s.tm_lim_ms;
  s.ret = glp_simplex(s.lp, &parm);
  if (!s.presolve && (s.ret == GLP_EBADB || s.ret == GLP_ESING || s.ret == GLP_ECOND)) {
    parm.presolve = GLP_ON;  // the last basis did not survive the new columns: start afresh
    s.ret = glp_simplex(s.lp, &parm);
  }
  s.status = glp_get_status(s.lp);
  s.objective = glp_get_obj_val(s.lp);
  if (s.ret != 0 || s.status != GLP_OPT) return;
  for (int i = 1; i <= s.rows; ++i) s.dual[i] = glp_get_row_dual(s.lp, i);
}

void create_and_solve(void* ctx) {
  GlpkStep& s = *static_cast<GlpkStep*>(ctx);
  s.lp = glp_create_prob();
  glp_set_obj_dir(s.lp, GLP_MIN);
  glp_add_rows(s.lp, s.rows);
  for (int i = 1; i <= s.rows; ++i) {
    glp_set_row_bnds(s.lp, i, s.row_type[i], s.row_value[i], s.row_value[i]);
  }
  const int t = glp_add_cols(s.lp, 1);
  glp_set_col_bnds(s.lp, t, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(s.lp, t, 1.0);
  glp_set_mat_col(s.lp, t, static_cast<int>(s.t_rows.size()) - 1, s.t_rows.data(),
                  s.t_values.data());
  add_pending_columns(s);
  solve(s);
}

void extend_and_solve(void* ctx) {
  GlpkStep& s = *static_cast<GlpkStep*>(ctx);
  add_pending_columns(s);
  solve(s);
}

/// The full LP's rows, which of its columns GLPK has, and the pricing that picks the next ones.
/// Scaled so that GLPK sees numbers near 1: bytes by the largest demand, capacities by the
/// largest capacity; T in these units is seconds / unit().
class ColumnGeneration {
 public:
  ColumnGeneration(const Fabric& f, std::span<const Commodity> cs)
      : f_(f),
        cs_(cs),
        capacity_row_(f.num_links(), 0),
        in_lp_(cs.size()),
        node_row_(f.num_nodes(), 0),
        link_mark_(f.num_links(), 0),
        link_pos_(f.num_links(), 0),
        length_(f.num_links(), 0.0),
        dist_(f.num_nodes(), kInfinite),
        pred_(f.num_nodes()),
        hops_(f.num_nodes(), 0),
        reached_(f.num_nodes(), 0) {
    for (const Commodity& c : cs_) {
      for (const Demand& d : c.sources) max_bytes_ = std::max(max_bytes_, d.bytes);
      for (LinkId l : c.links) max_gbps_ = std::max(max_gbps_, f.link(l).gbps);
    }
    int row = 0;
    for (std::size_t k = 0; k < cs_.size(); ++k) {
      row_base_.push_back(row + 1);
      row += static_cast<int>(cs_[k].nodes.size()) - 1;  // the destination's row is implied
      in_lp_[k].assign(cs_[k].links.size(), 0);
    }
    step_.row_type.resize(row + 1, GLP_FX);
    step_.row_value.resize(row + 1, 0.0);
    for (std::size_t k = 0; k < cs_.size(); ++k) {
      select(k);
      for (const Demand& d : cs_[k].sources) {
        step_.row_value[node_row_[d.src.value()]] =
            static_cast<double>(d.bytes) / static_cast<double>(max_bytes_);
      }
      for (LinkId l : cs_[k].links) {
        if (capacity_row_[l.value()] != 0) continue;
        capacity_row_[l.value()] = ++row;
        step_.row_type.push_back(GLP_UP);
        step_.row_value.push_back(0.0);
        step_.t_rows.push_back(row);
        step_.t_values.push_back(-1.0);
      }
    }
    step_.rows = row;
  }

  GlpkStep& step() { return step_; }
  /// Seconds per LP unit of T.
  [[nodiscard]] double unit() const {
    return link_seconds(static_cast<double>(max_bytes_), max_gbps_);
  }

  /// Queues every commodity's links on its sources' shortest paths (by hops), or all of them.
  void queue_first_columns(FirstColumns first) {
    for (std::size_t k = 0; k < cs_.size(); ++k) {
      select(k);
      const Commodity& c = cs_[k];
      if (first == FirstColumns::kAll) {
        for (std::size_t i = 0; i < c.links.size(); ++i) queue_column(k, i);
        continue;
      }
      for (NodeIdx n : c.nodes) hops_[n.value()] = std::numeric_limits<std::uint32_t>::max();
      hops_[c.dst.value()] = 0;
      std::vector<NodeIdx> queue{c.dst};
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeIdx n = queue[head];
        for (const Port& p : f_.node(n).ports) {
          if (!p.connected() || !in_commodity(f_.reverse(p.out))) continue;
          if (hops_[p.peer.value()] <= hops_[n.value()] + 1) continue;
          hops_[p.peer.value()] = hops_[n.value()] + 1;
          queue.push_back(p.peer);
        }
      }
      // Then, from the sources, the links one hop closer each: the shortest paths they have.
      queue.clear();
      for (const Demand& d : c.sources) {
        reached_[d.src.value()] = stamp_;
        queue.push_back(d.src);
      }
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeIdx n = queue[head];
        for (const Port& p : f_.node(n).ports) {
          if (!p.connected() || !in_commodity(p.out)) continue;
          if (hops_[n.value()] != hops_[p.peer.value()] + 1) continue;
          queue_column(k, link_pos_[p.out.value()]);
          if (reached_[p.peer.value()] == stamp_) continue;
          reached_[p.peer.value()] = stamp_;
          queue.push_back(p.peer);
        }
      }
    }
  }

  /// D(w) from the last solve's duals, in LP units (a lower bound on the optimum); queues the
  /// links of every source's shortest path that is shorter than its row's dual.
  double price() {
    // A <= row of a minimisation has dual <= 0: w_l = -dual.
    double w_sum = 0;
    for (std::size_t l = 0; l < length_.size(); ++l) {
      const int row = capacity_row_[l];
      if (row == 0) continue;
      const double w = std::max(0.0, -step_.dual[row]);
      w_sum += w;
      length_[l] = w * max_gbps_ / f_.link(LinkId(l)).gbps;
    }
    const double slack = kOptimalityGap * step_.objective;
    double lower = 0;
    for (std::size_t k = 0; k < cs_.size(); ++k) {
      select(k);
      const Commodity& c = cs_[k];
      shortest_lengths(c);
      for (const Demand& d : c.sources) {
        const double len = dist_[d.src.value()];
        lower += static_cast<double>(d.bytes) / static_cast<double>(max_bytes_) * len;
        if (len >= step_.dual[node_row_[d.src.value()]] - slack) continue;
        for (NodeIdx n = d.src; n != c.dst;) {
          const LinkId l = pred_[n.value()];
          const std::uint32_t i = link_pos_[l.value()];
          if (!in_lp_[k][i]) queue_column(k, i);
          n = f_.link(l).to;
        }
      }
    }
    return lower / std::max(1.0, w_sum);
  }

  void clear_pending() {
    step_.pending_len.clear();
    step_.pending_rows.clear();
    step_.pending_values.clear();
  }

 private:
  /// Points node_row_ and link_pos_ at commodity k.
  void select(std::size_t k) {
    const Commodity& c = cs_[k];
    ++stamp_;
    int row = row_base_[k];
    for (NodeIdx n : c.nodes) node_row_[n.value()] = n == c.dst ? 0 : row++;
    for (std::size_t i = 0; i < c.links.size(); ++i) {
      link_mark_[c.links[i].value()] = stamp_;
      link_pos_[c.links[i].value()] = static_cast<std::uint32_t>(i);
    }
  }
  [[nodiscard]] bool in_commodity(LinkId l) const { return link_mark_[l.value()] == stamp_; }

  void queue_column(std::size_t k, std::size_t i) {
    const Commodity& c = cs_[k];
    const LinkId id = c.links[i];
    const Link& l = f_.link(id);
    in_lp_[k][i] = 1;
    int rows[kSlots] = {0, 0, 0, 0};
    double values[kSlots] = {0, 0, 0, 0};
    int len = 0;
    if (l.from != c.dst) {
      rows[++len] = node_row_[l.from.value()];
      values[len] = 1.0;
    }
    if (l.to != c.dst) {
      rows[++len] = node_row_[l.to.value()];
      values[len] = -1.0;
    }
    rows[++len] = capacity_row_[id.value()];
    values[len] = max_gbps_ / l.gbps;
    step_.pending_len.push_back(len);
    step_.pending_rows.insert(step_.pending_rows.end(), rows, rows + kSlots);
    step_.pending_values.insert(step_.pending_values.end(), values, values + kSlots);
  }

  /// Dijkstra toward c's destination over c's links with length_: dist_ and pred_ per node.
  void shortest_lengths(const Commodity& c) {
    for (NodeIdx n : c.nodes) dist_[n.value()] = kInfinite;
    dist_[c.dst.value()] = 0;
    using Item = std::pair<double, std::uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    heap.emplace(0.0, c.dst.value());
    while (!heap.empty()) {
      const auto [d, v] = heap.top();
      heap.pop();
      if (d > dist_[v]) continue;
      for (const Port& p : f_.node(NodeIdx(v)).ports) {
        if (!p.connected()) continue;
        const LinkId in = f_.reverse(p.out);  // from the peer into v
        if (!in_commodity(in)) continue;
        const double nd = d + length_[in.value()];
        if (nd >= dist_[p.peer.value()]) continue;
        dist_[p.peer.value()] = nd;
        pred_[p.peer.value()] = in;
        heap.emplace(nd, p.peer.value());
      }
    }
  }

  const Fabric& f_;
  std::span<const Commodity> cs_;
  std::uint64_t max_bytes_ = 0;
  double max_gbps_ = 0;
  std::vector<int> row_base_;             // per commodity: its first conservation row
  std::vector<int> capacity_row_;         // per link: its capacity row; 0 if no commodity's
  std::vector<std::vector<char>> in_lp_;  // per commodity, parallel to its links
  std::uint32_t stamp_ = 0;               // the selected commodity's marks
  std::vector<int> node_row_;             // per node, for the selected commodity
  std::vector<std::uint32_t> link_mark_;  // == stamp_: a link of the selected commodity
  std::vector<std::uint32_t> link_pos_;   // its index in the commodity's links
  std::vector<double> length_;            // per link, from the last duals
  std::vector<double> dist_;              // per node, toward the selected destination
  std::vector<LinkId> pred_;              // per node: the first link of that shortest path
  std::vector<std::uint32_t> hops_;       // per node, toward the selected destination
  std::vector<std::uint32_t> reached_;    // == stamp_: on a source's shortest path
  GlpkStep step_;
};

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

}  // namespace

SplittableLpResult solve_splittable_lp(const Fabric& f, std::span<const Commodity> commodities,
                                       const Deadline& deadline, FirstColumns first) {
  SplittableLpResult out;
  ColumnGeneration cg(f, commodities);
  GlpkStep& step = cg.step();
  out.rows = static_cast<std::size_t>(step.rows);
  cg.queue_first_columns(first);
  GlpkSession session;
  // Every round adds at least one column or ends: at most as many rounds as columns.
  for (;;) {
    deadline.check("solving the splittable LP");
    if (const auto left = deadline.remaining()) {
      const auto ms = std::chrono::ceil<std::chrono::milliseconds>(*left).count();
      step.tm_lim_ms = static_cast<int>(std::min<std::int64_t>(ms, INT_MAX));
    }
    step.presolve = out.rounds == 0;
    step.dual.assign(static_cast<std::size_t>(step.rows) + 1, 0.0);
    out.columns += step.pending_len.size() + (out.rounds == 0 ? 1 : 0);
    const std::string error =
        session.run(out.rounds == 0 ? &create_and_solve : &extend_and_solve, &step);
    ++out.rounds;
    cg.clear_pending();
    if (!error.empty()) {
      out.why_not = "GLPK: " + error;
      return out;
    }
    if (step.ret == GLP_ETMLIM) {
      out.why_not = std::string(deadline.cancelled() ? "cancelled" : "deadline passed") +
                    " while GLPK solved the splittable LP";
      return out;
    }
    if (step.ret != 0 || step.status != GLP_OPT) {
      out.why_not = simplex_failure(step.ret, step.status);
      return out;
    }
    const double lower = cg.price();
    if (step.pending_len.empty() || lower >= step.objective * (1 - kOptimalityGap)) {
      out.solved = true;
      out.seconds = std::min(lower, step.objective) * cg.unit();
      return out;
    }
  }
}

}  // namespace ibsdn
