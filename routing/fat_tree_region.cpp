#include "routing/fat_tree_region.hpp"

#include "routing/fat_tree_paths.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

std::optional<FatTreeRegion> xgft_region(const Fabric& f, const FatTreeLayout& t,
                                         std::span<const Flow> flows) {
  if (flows.empty()) return std::nullopt;
  UpDownPaths paths(f, t);
  std::vector<bool> in(f.num_nodes(), false);
  std::vector<NodeIdx> leaves;
  int top = 1;
  for (const Flow& fl : flows) {
    const NodeIdx a = t.leaf_of_host[t.host_of_node[fl.src.value()]];
    const NodeIdx b = t.leaf_of_host[t.host_of_node[fl.dst.value()]];
    const int turn = paths.toward(b).turn(a);
    if (turn == 0) return std::nullopt;
    top = std::max(top, turn);
    for (NodeIdx leaf : {a, b}) {
      if (!in[leaf.value()]) {
        in[leaf.value()] = true;
        leaves.push_back(leaf);
      }
    }
  }
  // Up-cones to level `top`, then whole pods below the cones' switches under `top`.
  std::vector<NodeIdx> stack = leaves;
  std::vector<NodeIdx> pods;
  while (!stack.empty()) {
    const NodeIdx s = stack.back();
    stack.pop_back();
    if (t.level[s.value()] >= top) continue;
    if (t.level[s.value()] > 1) pods.push_back(s);
    for (PortNum p : t.up_ports[s.value()]) {
      const NodeIdx up = f.port(s, p).peer;
      if (!in[up.value()]) {
        in[up.value()] = true;
        stack.push_back(up);
      }
    }
  }
  while (!pods.empty()) {
    const NodeIdx s = pods.back();
    pods.pop_back();
    for (PortNum p : t.down_ports[s.value()]) {
      const NodeIdx down = f.port(s, p).peer;
      if (in[down.value()]) continue;
      in[down.value()] = true;
      if (t.level[down.value()] > 1) pods.push_back(down);
    }
  }
  for (std::uint32_t k = 0; k < t.num_leaves(); ++k) {
    const NodeIdx leaf = t.switches[0][k];
    if (!in[leaf.value()]) continue;
    for (PortNum p : t.down_ports[leaf.value()]) in[f.port(leaf, p).peer.value()] = true;
  }

  FatTreeRegion r;
  r.inside.assign(f.num_nodes(), NodeIdx{});
  for (std::uint32_t i = 0; i < f.num_nodes(); ++i) {
    if (!in[i]) continue;
    const Node& n = f.node(NodeIdx(i));
    const NodeIdx j = r.fabric.add_node(n.kind, n.name, n.ports.size(), n.guid);
    r.fabric.node(j).lid = n.lid;
    r.inside[i] = j;
    r.outside.push_back(NodeIdx(i));
  }
  for (const Link& l : f.links()) {
    if (l.from < l.to && in[l.from.value()] && in[l.to.value()]) {
      r.fabric.connect(r.inside[l.from.value()], l.from_port, r.inside[l.to.value()], l.to_port,
                       l.gbps);
    }
  }
  if (!recognize_xgft(r.fabric, nullptr)) return std::nullopt;
  r.fabric.kind_label = r.fabric.xgft()->params.to_string();
  return r;
}

std::vector<Path> route_in_region(const RouteRequest& req, const FatTreeRegion& region,
                                  const RoutingAlgorithm& alg) {
  const Fabric& f = req.fabric;
  const Fabric& g = region.fabric;
  std::vector<Flow> flows(req.flows.begin(), req.flows.end());
  for (Flow& fl : flows) {
    fl.src = region.inside[fl.src.value()];
    fl.dst = region.inside[fl.dst.value()];
  }
  const auto outer = [&](LinkId l) {
    const Link& k = g.link(l);
    return f.port(region.outside[k.from.value()], k.from_port).out;
  };
  LinkLoad background(g);
  if (req.background) {
    for (std::size_t l = 0; l < g.num_links(); ++l) {
      const LinkId o = outer(LinkId(l));
      background.add_link(LinkId(l), req.background->flows(o), req.background->weight(o),
                          req.background->volume(o));
    }
  }
  RouteRequest sub{g,
                   flows,
                   req.background ? &background : nullptr,
                   req.weighted,
                   req.seed,
                   req.deadline,
                   req.per_destination};
  std::vector<Path> paths = alg.route(sub);
  for (Path& p : paths)
    for (LinkId& l : p) l = outer(l);
  return paths;
}

}  // namespace ibsdn
