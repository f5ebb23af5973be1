// LftSets built from routing algorithms (per destination, or from every pair's route), and
// completed so that every LID is routed everywhere.
#include "routing/lft.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "routing/lft_text.hpp"

namespace ibsdn {

using lft_detail::lid_label;
using lft_detail::port_text;

LftSet lfts_from_destination_routes(const Fabric& f, const LidMap& lids,
                                    const RoutingAlgorithm& alg) {
  if (const std::string why = alg.unsupported_reason(f); !why.empty()) {
    throw std::invalid_argument(std::string(alg.name()) + " cannot route on " + f.kind_label +
                                ": " + why);
  }
  LftSet out(f);
  out.lids = lids;
  for (const NodeIdx s : f.switches()) {
    Lft& t = out.table(s);
    if (const Lid l = lids.lid(s); l.value() != 0) t.set(l, kSwitchPort0);
  }
  // All sources toward a batch of destinations per call: bounded memory on large fabrics, and
  // few calls for algorithms that precompute per call.
  constexpr std::size_t kFlowsPerBatch = std::size_t{1} << 18;
  std::vector<Flow> flows;
  const auto flush = [&]() {
    if (flows.empty()) return;
    const std::vector<Path> paths = alg.route(RouteRequest{f, flows});
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const Lid dlid = lids.lid(flows[i].dst);
      for (const LinkId l : paths[i]) {
        const Link& link = f.link(l);
        if (!f.node(link.from).is_switch()) continue;
        Lft& t = out.table(link.from);
        const PortNum had = t.out(dlid);
        if (had != kLftUnset && had != link.from_port) {
          throw std::invalid_argument(
              std::string(alg.name()) + " is not destination-based: " + f.node(link.from).name +
              " would send " + lid_label(f, lids, dlid) + " to ports " + port_text(had) + " and " +
              port_text(link.from_port) + " (seen on the route from " + f.node(flows[i].src).name +
              ")");
        }
        t.set(dlid, link.from_port);
      }
    }
    flows.clear();
  };
  for (const NodeIdx d : f.hcas()) {
    if (lids.lid(d).value() == 0) continue;
    for (const NodeIdx s : f.hcas()) {
      if (s == d || lids.lid(s).value() == 0) continue;
      Flow fl;
      fl.src = s;
      fl.dst = d;
      flows.push_back(fl);
    }
    if (flows.size() >= kFlowsPerBatch) flush();
  }
  flush();
  complete_lfts(f, out);
  return out;
}

LftSet lfts_per_destination(const Fabric& f, const LidMap& lids, const RoutingAlgorithm& alg,
                            const Deadline& deadline) {
  if (const std::string why = alg.unsupported_reason(f); !why.empty()) {
    throw std::invalid_argument(std::string(alg.name()) + " cannot route on " + f.kind_label +
                                ": " + why);
  }
  LftSet out(f);
  out.lids = lids;
  std::vector<Lft*> table_of(f.num_nodes(), nullptr);
  for (const NodeIdx s : f.switches()) {
    Lft& t = out.table(s);
    table_of[s.value()] = &t;
    if (const Lid l = lids.lid(s); l.value() != 0) t.set(l, kSwitchPort0);
  }
  // The sources. An HCA with a LID and a single cable, to a switch, enters the fabric there: the
  // routes from all the HCAs of a switch merge at it, so one walk per such switch serves them
  // (and keeps the work per destination within the switches, not the hosts). Any other HCA
  // with a LID leaves as the column says.
  std::vector<std::uint32_t> entering(f.num_nodes(), 0);
  std::vector<NodeIdx> entry_of(f.num_nodes());
  std::vector<NodeIdx> other_sources;
  for (const NodeIdx h : f.hcas()) {
    if (lids.lid(h).value() == 0) continue;
    const Port* only = nullptr;
    std::size_t cables = 0;
    for (const Port& p : f.node(h).ports) {
      if (p.connected() && ++cables == 1) only = &p;
    }
    if (cables == 1 && f.node(only->peer).is_switch()) {
      ++entering[only->peer.value()];
      entry_of[h.value()] = only->peer;
    } else {
      other_sources.push_back(h);
    }
  }
  std::vector<NodeIdx> entry_switches;
  for (const NodeIdx s : f.switches()) {
    if (entering[s.value()] > 0) entry_switches.push_back(s);
  }

  // mark[n] == 2 * stamp: on the current walk; 2 * stamp + 1: leads to the destination.
  std::vector<std::uint64_t> mark(f.num_nodes(), 0);
  std::uint64_t stamp = 0;
  std::vector<NodeIdx> walk;
  const auto fail = [&](const DestinationColumn& c, NodeIdx from, const std::string& what) {
    throw std::invalid_argument(std::string(alg.name()) + ": the route from " + f.node(from).name +
                                " to " + lid_label(f, lids, lids.lid(c.dst)) + " " + what);
  };
  // Follows the column from switch `at` (reached from `from`) to the destination or to a switch
  // already known to lead there, writing the entries it crosses.
  const auto walk_from = [&](const DestinationColumn& c, Lid dlid, NodeIdx from, NodeIdx at) {
    walk.clear();
    NodeIdx n = at;
    while (mark[n.value()] != 2 * stamp + 1) {
      if (mark[n.value()] == 2 * stamp) fail(c, from, "comes back to " + f.node(n).name);
      mark[n.value()] = 2 * stamp;
      walk.push_back(n);
      const PortNum p = c.out[n.value()];
      const Node& node = f.node(n);
      if (p.value() == 0) fail(c, from, "stops at " + node.name + ", which has no port toward it");
      if (p.value() > node.ports.size() || !node.ports[p.value() - 1u].connected()) {
        fail(c, from, "leaves " + node.name + " through port " + port_text(p) + ", not cabled");
      }
      const Port& port = node.ports[p.value() - 1u];
      table_of[n.value()]->set(dlid, p);
      if (port.peer == c.dst) break;
      if (!f.node(port.peer).is_switch()) {
        fail(c, from, "ends at " + f.node(port.peer).name + " (from " + node.name + ")");
      }
      n = port.peer;
    }
    for (const NodeIdx w : walk) mark[w.value()] = 2 * stamp + 1;
  };
  const bool by_destination =
      alg.route_by_destination(f, deadline, [&](const DestinationColumn& c) {
        const Lid dlid = lids.lid(c.dst);
        if (dlid.value() == 0) return;
        if (c.out.size() != f.num_nodes()) {
          throw std::invalid_argument(std::string(alg.name()) + ": a column of " +
                                      std::to_string(c.out.size()) + " entries for " +
                                      std::to_string(f.num_nodes()) + " nodes");
        }
        ++stamp;
        for (const NodeIdx e : entry_switches) {
          // PortNum{} where a route would start: the algorithm has none from there (a part of a
          // degraded fabric cut off from the destination); complete_lfts fills the entry.
          if (c.out[e.value()].value() == 0 && entry_of[c.dst.value()] != e) continue;
          if (entering[e.value()] > (entry_of[c.dst.value()] == e ? 1u : 0u))
            walk_from(c, dlid, e, e);
        }
        for (const NodeIdx s : other_sources) {
          if (s == c.dst) continue;
          const PortNum p = c.out[s.value()];
          const Node& node = f.node(s);
          if (p.value() == 0 || p.value() > node.ports.size() ||
              !node.ports[p.value() - 1u].connected()) {
            fail(c, s, "has no cabled first hop (port " + port_text(p) + ")");
          }
          const Port& port = node.ports[p.value() - 1u];
          if (port.peer == c.dst) continue;
          if (!f.node(port.peer).is_switch()) fail(c, s, "ends at " + f.node(port.peer).name);
          walk_from(c, dlid, s, port.peer);
        }
      });
  if (!by_destination) {
    throw std::invalid_argument(std::string(alg.name()) +
                                " is not destination-based: it routes pairs, not destinations");
  }
  complete_lfts(f, out, deadline);
  return out;
}

void complete_lfts(const Fabric& f, LftSet& lfts, const Deadline& deadline) {
  // What a breadth-first search from each LID's node (not through HCAs) gives, but one search
  // serves all the LIDs whose nodes are cabled to the same switches (the HCAs of a leaf): their
  // distances are 1 + the distances to those switches. Only the switches adjacent to the node
  // differ among them, and they are looked at per LID. One search per LID cost O(LIDs x links):
  // 1 s on a 6750-host tree, the sdn engine's whole budget.
  const std::vector<NodeIdx>& sws = f.switches();
  const std::size_t ns = sws.size();
  constexpr std::uint32_t kNoSwitch = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> index(f.num_nodes(), kNoSwitch);
  for (std::size_t k = 0; k < ns; ++k) index[sws[k].value()] = static_cast<std::uint32_t>(k);
  // The switch graph, each switch's ports to other switches in port order.
  std::vector<std::size_t> adj_begin(ns + 1, 0);
  std::vector<std::pair<PortNum, std::uint32_t>> adj;
  for (std::size_t k = 0; k < ns; ++k) {
    adj_begin[k] = adj.size();
    for (const Port& p : f.node(sws[k]).ports) {
      if (p.connected() && index[p.peer.value()] != kNoSwitch) {
        adj.emplace_back(p.num, index[p.peer.value()]);
      }
    }
  }
  adj_begin[ns] = adj.size();

  // LIDs grouped by where their searches start: {0, the switch} for a switch's LID, {1, the
  // switches cabled to the node} for an HCA's (one LID per port, all searched from the node).
  std::map<std::vector<std::uint32_t>, std::vector<Lid>> groups;
  std::vector<std::uint32_t> key;
  for (std::uint32_t raw = 1; raw <= lfts.lids.max_lid().value(); ++raw) {
    const Lid lid(static_cast<std::uint16_t>(raw));
    const auto owner = lfts.lids.owner(lid);
    if (!owner) continue;
    key.clear();
    if (f.node(owner->node).is_switch()) {
      key = {0, index[owner->node.value()]};
    } else {
      key.push_back(1);
      for (const Port& p : f.node(owner->node).ports) {
        if (p.connected() && index[p.peer.value()] != kNoSwitch) {
          key.push_back(index[p.peer.value()]);
        }
      }
      if (key.size() == 1) continue;  // no switch reaches it
      std::sort(key.begin() + 1, key.end());
      key.erase(std::unique(key.begin() + 1, key.end()), key.end());
    }
    groups[key].push_back(lid);
  }

  std::vector<int> dist(ns);
  std::vector<std::uint32_t> queue;
  // Per switch, its ports one hop closer: closer[begin[k] .. end[k]), in port order.
  std::vector<std::size_t> begin(ns);
  std::vector<std::size_t> end(ns);
  std::vector<PortNum> closer;
  std::vector<PortNum> to_node;    // a switch next to an HCA: its ports to that HCA
  std::vector<Lft*> table_of(ns);  // the tables of the switches this group's LIDs reach
  std::uint64_t step = 0;
  for (const auto& [origin, group_lids] : groups) {
    const int origin_dist = static_cast<int>(origin.front());
    std::fill(dist.begin(), dist.end(), -1);
    queue.assign(origin.begin() + 1, origin.end());
    for (const std::uint32_t k : queue) dist[k] = origin_dist;
    closer.clear();
    // When a switch leaves the queue, every switch one hop closer has its distance: its closer
    // ports are known in the same pass.
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::uint32_t at = queue[q];
      begin[at] = closer.size();
      for (std::size_t a = adj_begin[at]; a < adj_begin[at + 1]; ++a) {
        const std::uint32_t peer = adj[a].second;
        if (dist[peer] < 0) {
          dist[peer] = dist[at] + 1;
          queue.push_back(peer);
        } else if (dist[peer] == dist[at] - 1) {
          closer.push_back(adj[a].first);
        }
      }
      end[at] = closer.size();
    }

    for (std::size_t k = 0; k < ns; ++k) {
      table_of[k] = dist[k] > 0 ? &lfts.table(sws[k]) : nullptr;
      if (table_of[k] != nullptr) table_of[k]->reserve(lfts.lids.max_lid());
    }
    for (const Lid lid : group_lids) {
      deadline.check_every(step++, "completing the LFTs");
      const NodeIdx node = lfts.lids.owner(lid)->node;
      for (std::size_t k = 0; k < ns; ++k) {
        if (table_of[k] == nullptr) continue;
        Lft& t = *table_of[k];
        if (t.out(lid) != kLftUnset) continue;
        if (origin_dist == 1 && dist[k] == 1) {
          // An HCA forwards nothing: only the LID's node itself is a next hop here.
          to_node.clear();
          for (const Port& p : f.node(sws[k]).ports) {
            if (p.peer == node) to_node.push_back(p.num);
          }
          t.set(lid, to_node[lid.value() % to_node.size()]);
        } else if (const std::size_t n = end[k] - begin[k]; n > 0) {
          t.set(lid, closer[begin[k] + lid.value() % n]);
        }
      }
    }
  }
}

}  // namespace ibsdn
