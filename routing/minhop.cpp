// Min-hop: destination-based shortest paths on any fabric, i.e. what an LFT can hold.
//
// For each destination HCA, in Fabric::hcas() order, a BFS from the destination gives every
// switch its distance; a switch forwards through one of its ports to a neighbour one step closer
// (never through another HCA); a source HCA uses its lowest such port. Rule for the choice, in the
// spirit of OpenSM's minhop balancing: the candidate port that has been chosen for the fewest
// destinations so far at that switch, lowest port number on ties. The counters make consecutive
// destinations take different ports, so not everything leaves through the first port, and the
// result depends only on the fabric: the output port of a switch for a destination is the same
// whatever the source.
//
// The table is computed for every destination (the counters depend on all earlier ones) but
// only its column for the current destination is kept; route() traces flows as their
// destination comes up, route_by_destination() hands each column out as it is ready.
#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>

#include "routing/algorithm.hpp"

namespace ibsdn {
namespace {

constexpr int kUnreached = std::numeric_limits<int>::max();

class MinHop final : public RoutingAlgorithm {
 public:
  std::string_view name() const override { return "minhop"; }
  std::string_view summary() const override {
    return "destination-based shortest paths on any fabric (the LFT default off fat-trees)";
  }
  std::string unsupported_reason(const Fabric& f) const override {
    return f.hcas().empty() ? "the fabric has no HCAs" : "";
  }
  bool honours_per_destination() const override { return true; }

  std::vector<Path> route(const RouteRequest& req) const override {
    check_flows(req);
    const Fabric& f = req.fabric;
    std::vector<Path> out(req.flows.size());
    if (req.flows.empty()) return out;

    // Flows grouped by destination, so each is traced when its destination's column is ready.
    std::vector<std::vector<std::size_t>> by_dst(f.num_nodes());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      by_dst[req.flows[i].dst.value()].push_back(i);
    }
    std::size_t remaining = req.flows.size();
    for_each_destination(
        f, req.deadline,
        [&](NodeIdx d, const std::vector<int>& dist, const std::vector<PortNum>& next) {
          for (std::size_t i : by_dst[d.value()]) {
            trace(f, req.flows[i], dist, next, out[i]);
            --remaining;
          }
          return remaining > 0;
        });
    return out;
  }

  bool route_by_destination(const Fabric& f, const Deadline& deadline,
                            const DestinationColumnSink& sink) const override {
    if (const std::string why = unsupported_reason(f); !why.empty()) {
      throw std::invalid_argument("minhop: " + why);
    }
    // HCAs that do not simply leave through their one cable to a switch: their first hop is
    // part of the column (first_port(), as trace() takes it).
    std::vector<NodeIdx> irregular;
    for (const NodeIdx h : f.hcas()) {
      if (!single_switch(f, h).valid()) irregular.push_back(h);
    }
    for_each_destination(
        f, deadline, [&](NodeIdx d, const std::vector<int>& dist, std::vector<PortNum>& next) {
          for (const NodeIdx h : irregular) {
            next[h.value()] =
                h == d || dist[h.value()] == kUnreached ? PortNum{} : first_port(f, h, d, dist);
          }
          sink(DestinationColumn{d, next});
          return true;
        });
    return true;
  }

 private:
  // For every HCA d in Fabric::hcas() order: the distances to d (kUnreached where none) and
  // every switch's port toward d (PortNum{} where d is unreachable), handed to
  // `visit(d, dist, next)`, which returns whether to go on. The counters behind the choice
  // carry over from one destination to the next, so the columns come in this order only.
  template <typename Visit>
  static void for_each_destination(const Fabric& f, const Deadline& deadline, Visit&& visit) {
    std::vector<std::vector<std::uint32_t>> used(f.num_nodes());  // per switch, per port
    for (NodeIdx s : f.switches()) used[s.value()].assign(f.node(s).ports.size(), 0);
    std::vector<int> dist(f.num_nodes(), kUnreached);
    std::vector<PortNum> next(f.num_nodes());  // this destination's column
    std::deque<NodeIdx> queue;
    // Ports one step closer, per switch at distance >= 2 (flattened: candidates[begin[s]..]).
    // They depend only on the switch distances, which destinations behind one switch share.
    std::vector<std::size_t> begin(f.switches().size() + 1, 0);
    std::vector<PortNum> candidates;

    NodeIdx previous{};
    std::uint64_t step = 0;
    for (NodeIdx d : f.hcas()) {
      deadline.check_every(step++, "minhop routes toward each destination");
      const NodeIdx sw = single_switch(f, d);
      if (previous.valid() && sw.valid() && sw == single_switch(f, previous)) {
        dist[previous.value()] = 2;
        dist[d.value()] = 0;
      } else {
        distances(f, d, dist, queue);
        closer_ports(f, dist, begin, candidates);
      }
      previous = d;
      for (std::size_t k = 0; k < f.switches().size(); ++k) {
        const auto v = f.switches()[k].value();
        if (dist[v] == kUnreached) {
          next[v] = PortNum{};
          continue;
        }
        auto& counts = used[v];
        PortNum best{};
        if (dist[v] == 1) {
          for (const Port& p : f.node(f.switches()[k]).ports) {
            if (p.peer == d &&
                (best.value() == 0 || counts[p.num.value() - 1u] < counts[best.value() - 1u])) {
              best = p.num;
            }
          }
        } else {
          for (std::size_t c = begin[k]; c < begin[k + 1]; ++c) {
            const PortNum p = candidates[c];
            if (best.value() == 0 || counts[p.value() - 1u] < counts[best.value() - 1u]) best = p;
          }
        }
        next[v] = best;
        ++counts[best.value() - 1u];
      }
      if (!visit(d, dist, next)) return;
    }
  }

  // The switch behind an HCA's only cabled port, or none if it has several (or none).
  static NodeIdx single_switch(const Fabric& f, NodeIdx hca) {
    NodeIdx sw{};
    for (const Port& p : f.node(hca).ports) {
      if (!p.connected()) continue;
      if (sw.valid() || !f.node(p.peer).is_switch()) return NodeIdx{};
      sw = p.peer;
    }
    return sw;
  }

  // BFS from HCA d over switches only (another HCA is never a transit node).
  static void distances(const Fabric& f, NodeIdx d, std::vector<int>& dist,
                        std::deque<NodeIdx>& queue) {
    std::fill(dist.begin(), dist.end(), kUnreached);
    dist[d.value()] = 0;
    queue.assign(1, d);
    while (!queue.empty()) {
      const NodeIdx n = queue.front();
      queue.pop_front();
      for (const Port& p : f.node(n).ports) {
        if (!p.connected() || dist[p.peer.value()] != kUnreached) continue;
        dist[p.peer.value()] = dist[n.value()] + 1;
        if (f.node(p.peer).is_switch()) queue.push_back(p.peer);
      }
    }
  }

  static void closer_ports(const Fabric& f, const std::vector<int>& dist,
                           std::vector<std::size_t>& begin, std::vector<PortNum>& candidates) {
    candidates.clear();
    for (std::size_t k = 0; k < f.switches().size(); ++k) {
      begin[k] = candidates.size();
      const NodeIdx s = f.switches()[k];
      const int ds = dist[s.value()];
      if (ds == kUnreached || ds < 2) continue;
      for (const Port& p : f.node(s).ports) {
        if (p.connected() && dist[p.peer.value()] == ds - 1 && f.node(p.peer).is_switch()) {
          candidates.push_back(p.num);
        }
      }
    }
    begin[f.switches().size()] = candidates.size();
  }

  // A source HCA at a finite distance leaves through its lowest port on a shortest path (to
  // the destination itself or a switch: another HCA forwards nothing).
  static PortNum first_port(const Fabric& f, NodeIdx src, NodeIdx dst,
                            const std::vector<int>& dist) {
    const int ds = dist[src.value()];
    for (const Port& p : f.node(src).ports) {
      if (p.connected() && dist[p.peer.value()] == ds - 1 &&
          (p.peer == dst || f.node(p.peer).is_switch())) {
        return p.num;
      }
    }
    return PortNum{};
  }

  static void trace(const Fabric& f, const Flow& flow, const std::vector<int>& dist,
                    const std::vector<PortNum>& next, Path& path) {
    if (dist[flow.src.value()] == kUnreached) {
      throw std::invalid_argument("minhop: " + f.node(flow.dst).name + " is unreachable from " +
                                  f.node(flow.src).name);
    }
    path.reserve(static_cast<std::size_t>(dist[flow.src.value()]));
    path.push_back(f.port(flow.src, first_port(f, flow.src, flow.dst, dist)).out);
    NodeIdx n = f.link(path.front()).to;
    while (n != flow.dst) {
      const Port& p = f.port(n, next[n.value()]);
      path.push_back(p.out);
      n = p.peer;
    }
  }
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_minhop() {
  return std::make_unique<MinHop>();
}

}  // namespace ibsdn
