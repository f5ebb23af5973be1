#include "routing/dragonfly.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <utility>

#include "routing/param_text.hpp"

namespace ibsdn {
namespace {

constexpr int kMaxPorts = 254;
constexpr std::uint64_t kMaxNodes = 1'000'000;
// pair_links holds groups^2 lists; real dragonflies stay far below this.
constexpr int kMaxGroups = 1024;

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

std::string numbered(std::string_view prefix, std::uint64_t one_based, int width) {
  std::string digits = std::to_string(one_based);
  if (static_cast<int>(digits.size()) < width) {
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  }
  return std::string(prefix) + digits;
}

int width_of(std::uint64_t n, int at_least) {
  return std::max(at_least, static_cast<int>(std::to_string(n).size()));
}

PortNum port_num(int p) {
  return PortNum(static_cast<std::uint8_t>(p));
}

// The common shape of both kinds: groups of host routers (with hosts) and global routers (with
// global ports); on a 1D dragonfly they are the same routers.
struct Shape {
  DragonflyKind kind = DragonflyKind::kCanonical1D;
  std::string what;  // "dragonfly" / "megafly", for messages
  int groups = 0;
  int hosts_per_router = 0;
  int host_routers = 0;
  int spines = 0;
  int global_per_router = 0;
  std::uint64_t switch_guid = 0;
  std::uint64_t hca_guid = 0;

  [[nodiscard]] int routers_per_group() const { return host_routers + spines; }
  [[nodiscard]] int global_routers() const {
    return kind == DragonflyKind::kMegafly ? spines : host_routers;
  }
  [[nodiscard]] int ports_per_group() const { return global_routers() * global_per_router; }
  // Routers index within a group: host routers first, then spines (megafly).
  [[nodiscard]] int global_router_index(int r) const {
    return kind == DragonflyKind::kMegafly ? host_routers + r : r;
  }
  [[nodiscard]] int router_ports(int r) const {
    if (kind == DragonflyKind::kCanonical1D) {
      return hosts_per_router + host_routers - 1 + global_per_router;
    }
    return r < host_routers ? hosts_per_router + spines : host_routers + global_per_router;
  }
  // The port number of global port k of a global router.
  [[nodiscard]] int global_port(int k) const {
    return kind == DragonflyKind::kCanonical1D ? hosts_per_router + host_routers + k
                                               : host_routers + k + 1;
  }
};

void validate_groups(const std::string& what, int groups, int global_ports_per_group,
                     const std::string& ports_expr) {
  require(groups >= 2, what + ": needs at least 2 groups, got g=" + std::to_string(groups));
  require(groups <= kMaxGroups, what + ": at most " + std::to_string(kMaxGroups) + " groups, got " +
                                    std::to_string(groups));
  require(groups - 1 <= global_ports_per_group,
          what + ": " + std::to_string(groups) + " groups need at least " +
              std::to_string(groups - 1) + " global ports per group to connect every pair, but " +
              ports_expr + " = " + std::to_string(global_ports_per_group));
}

Fabric build(const Shape& s, std::string label, int gpus_per_node, double gbps) {
  require(gpus_per_node >= 0 && gpus_per_node <= 64,
          "gpus per node must be 0..64, got " + std::to_string(gpus_per_node));
  const int rpg = s.routers_per_group();
  const auto num_hosts = static_cast<std::uint64_t>(s.groups) *
                         static_cast<std::uint64_t>(s.host_routers) *
                         static_cast<std::uint64_t>(s.hosts_per_router);
  Fabric f;
  f.kind_label = std::move(label);
  DragonflyLayout x;
  x.kind = s.kind;
  x.groups = s.groups;
  x.hosts_per_router = s.hosts_per_router;
  x.host_routers = s.host_routers;
  x.spines = s.spines;

  const int hw = width_of(num_hosts, 4);
  x.hosts.reserve(num_hosts);
  for (std::uint64_t i = 0; i < num_hosts; ++i) {
    const std::string name = numbered("n", i + 1, hw);
    const NodeIdx id =
        f.add_node(NodeKind::kHca, name, 1, Guid(s.hca_guid + (i + 1) * kHcaGuidStride));
    Node& nd = f.node(id);
    nd.description = name + " HCA-1";
    nd.gpus = static_cast<std::uint16_t>(gpus_per_node);
    x.hosts.push_back(id);
  }
  const int gw = width_of(static_cast<std::uint64_t>(s.groups), 2);
  const int lw = width_of(static_cast<std::uint64_t>(s.host_routers), 2);
  const int sw = width_of(static_cast<std::uint64_t>(s.spines), 2);
  std::uint64_t guid_seq = 1;
  x.routers.resize(static_cast<std::size_t>(s.groups));
  for (int g = 0; g < s.groups; ++g) {
    const std::string gname = numbered("g", static_cast<std::uint64_t>(g) + 1, gw);
    for (int r = 0; r < rpg; ++r) {
      const bool spine = r >= s.host_routers;
      const std::uint64_t one_based =
          static_cast<std::uint64_t>(spine ? r - s.host_routers : r) + 1;
      const std::string name = s.kind == DragonflyKind::kCanonical1D
                                   ? numbered(gname + "r", one_based, lw)
                               : spine ? numbered(gname + "s", one_based, sw)
                                       : numbered(gname + "l", one_based, lw);
      const NodeIdx id =
          f.add_node(NodeKind::kSwitch, name, static_cast<std::size_t>(s.router_ports(r)),
                     Guid(s.switch_guid + guid_seq++));
      f.node(id).description = name;
      x.routers[static_cast<std::size_t>(g)].push_back(id);
    }
  }

  // Hosts, in host-index order, on ports 1..hosts_per_router of the host routers.
  std::size_t host = 0;
  for (int g = 0; g < s.groups; ++g) {
    for (int r = 0; r < s.host_routers; ++r) {
      for (int k = 0; k < s.hosts_per_router; ++k) {
        f.connect(x.hosts[host++], port_num(1), x.routers[static_cast<std::size_t>(g)][r],
                  port_num(k + 1), gbps);
      }
    }
  }
  // Intra-group cables.
  for (int g = 0; g < s.groups; ++g) {
    const auto& rs = x.routers[static_cast<std::size_t>(g)];
    if (s.kind == DragonflyKind::kCanonical1D) {
      for (int r = 0; r < s.host_routers; ++r) {
        for (int q = r + 1; q < s.host_routers; ++q) {
          // r's local port to q is p+1+(q-1) (q > r); q's to r is p+1+r.
          f.connect(rs[r], port_num(s.hosts_per_router + q), rs[q],
                    port_num(s.hosts_per_router + r + 1), gbps);
        }
      }
    } else {
      for (int l = 0; l < s.host_routers; ++l) {
        for (int sp = 0; sp < s.spines; ++sp) {
          f.connect(rs[l], port_num(s.hosts_per_router + sp + 1), rs[s.host_routers + sp],
                    port_num(l + 1), gbps);
        }
      }
    }
  }
  // Global cables, see the arrangement in dragonfly.hpp.
  const int d = s.groups - 1;
  const int ports = s.ports_per_group();
  for (int i = 0; i < s.groups; ++i) {
    for (int j = 0; j < ports; ++j) {
      const int o = j % d;
      const int c = j / d;
      const int t = (i + 1 + o) % s.groups;
      const int partner = c * d + (d - 1 - o);
      if (partner >= ports || t < i) continue;  // partner missing, or cabled from group t
      const auto end = [&](int group, int port_index) {
        const int r = s.global_router_index(port_index / s.global_per_router);
        return std::pair{x.routers[static_cast<std::size_t>(group)][r],
                         port_num(s.global_port(port_index % s.global_per_router))};
      };
      const auto [ra, pa] = end(i, j);
      const auto [rb, pb] = end(t, partner);
      f.connect(ra, pa, rb, pb, gbps);
    }
  }

  // Index the cabling for the routings.
  x.role.assign(f.num_nodes(), RouterRole::kHost);
  for (const auto& rs : x.routers) {
    for (int r = 0; r < rpg; ++r) {
      x.role[rs[r].value()] = s.kind == DragonflyKind::kCanonical1D ? RouterRole::kRouter
                              : r < s.host_routers                  ? RouterRole::kLeaf
                                                                    : RouterRole::kSpine;
    }
  }
  index_dragonfly_cabling(f, x);
  for (int i = 0; i < s.groups; ++i) {
    for (int j = 0; j < s.groups; ++j) {
      if (i != j && x.global_links(i, j).empty()) {
        throw std::invalid_argument(s.what + ": groups " + std::to_string(i + 1) + " and " +
                                    std::to_string(j + 1) + " would not be connected");
      }
    }
  }
  f.compute_levels();
  f.set_dragonfly(std::move(x));
  return f;
}

}  // namespace

void index_dragonfly_cabling(const Fabric& f, DragonflyLayout& x) {
  const std::size_t n = f.num_nodes();
  const auto groups = static_cast<std::size_t>(x.groups);
  assert(x.routers.size() == groups && x.role.size() == n);
  x.group_of_node.assign(n, -1);
  x.index_in_group.assign(n, -1);
  x.edge_router.assign(n, NodeIdx{});
  x.host_up.assign(n, LinkId{});
  x.host_down.assign(n, LinkId{});
  x.local_link.assign(n, {});
  x.pair_links.assign(groups * groups, {});
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& rs = x.routers[g];
    for (std::size_t r = 0; r < rs.size(); ++r) {
      x.group_of_node[rs[r].value()] = static_cast<int>(g);
      x.index_in_group[rs[r].value()] = static_cast<int>(r);
    }
  }
  for (NodeIdx h : x.hosts) {
    for (const Port& up : f.node(h).ports) {
      if (!up.connected()) continue;
      x.edge_router[h.value()] = up.peer;
      x.host_up[h.value()] = up.out;
      x.host_down[h.value()] = f.reverse(up.out);
      break;
    }
  }
  const auto model_cable = [&x](NodeIdx a, NodeIdx b) {
    return a != b && (!x.megafly() || x.role[a.value()] != x.role[b.value()]);
  };
  const auto rpg = static_cast<std::size_t>(x.host_routers + x.spines);
  bool complete = true;
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& rs = x.routers[g];
    complete = complete && rs.size() == rpg;
    for (std::size_t r = 0; r < rs.size(); ++r) {
      const bool host_router = r < static_cast<std::size_t>(x.host_routers);
      complete = complete && (x.role[rs[r].value()] == RouterRole::kSpine) != host_router;
    }
    for (NodeIdx r : rs) {
      auto& local = x.local_link[r.value()];
      local.assign(rs.size(), LinkId{});
      for (const Port& p : f.node(r).ports) {
        if (!p.connected() || f.node(p.peer).is_hca()) continue;
        const int pg = x.group_of_node[p.peer.value()];
        assert(pg >= 0);
        if (static_cast<std::size_t>(pg) == g) {
          LinkId& slot = local[static_cast<std::size_t>(x.index_in_group[p.peer.value()])];
          if (!slot.valid()) slot = p.out;  // the first of parallel local cables
        } else {
          x.pair_links[g * groups + static_cast<std::size_t>(pg)].push_back(
              DragonflyLayout::GlobalLink{p.out, r, p.peer});
        }
      }
      for (std::size_t q = 0; q < rs.size() && complete; ++q) {
        complete = !model_cable(r, rs[q]) || local[q].valid();
      }
    }
  }
  x.complete_groups = complete;
}

DragonflyParams DragonflyParams::parse(std::string_view text) {
  const auto v = parse_param_values(text, "dragonfly", {"p", "a", "h", "g"});
  DragonflyParams d{v[0], v[1], v[2], v[3]};
  d.validate();
  return d;
}

void DragonflyParams::validate() const {
  require(p >= 1, "dragonfly: p (hosts per router) must be >= 1, got " + std::to_string(p));
  require(a >= 1, "dragonfly: a (routers per group) must be >= 1, got " + std::to_string(a));
  require(h >= 1, "dragonfly: h (global ports per router) must be >= 1, got " + std::to_string(h));
  const long ports = static_cast<long>(p) + a - 1 + h;
  require(ports <= kMaxPorts, "dragonfly: routers would need p+a-1+h = " + std::to_string(ports) +
                                  " ports (max " + std::to_string(kMaxPorts) + ")");
  validate_groups("dragonfly", g, a * h, "a*h");
  require(num_hosts() <= kMaxNodes, "dragonfly: more than 1,000,000 hosts");
}

std::string DragonflyParams::to_string() const {
  return "dragonfly(" + std::to_string(p) + "," + std::to_string(a) + "," + std::to_string(h) +
         "," + std::to_string(g) + ")";
}

std::uint64_t DragonflyParams::num_hosts() const {
  return static_cast<std::uint64_t>(p) * static_cast<std::uint64_t>(a) *
         static_cast<std::uint64_t>(g);
}

MegaflyParams MegaflyParams::parse(std::string_view text) {
  const auto v = parse_param_values(
      text, "megafly", {"nodes_per_leaf", "leaves", "spines", "global_per_spine", "groups"});
  MegaflyParams m{v[0], v[1], v[2], v[3], v[4]};
  m.validate();
  return m;
}

void MegaflyParams::validate() const {
  require(nodes_per_leaf >= 1,
          "megafly: nodes_per_leaf must be >= 1, got " + std::to_string(nodes_per_leaf));
  require(leaves >= 1, "megafly: leaves must be >= 1, got " + std::to_string(leaves));
  require(spines >= 1, "megafly: spines must be >= 1, got " + std::to_string(spines));
  require(global_per_spine >= 1,
          "megafly: global_per_spine must be >= 1, got " + std::to_string(global_per_spine));
  const long leaf_ports = static_cast<long>(nodes_per_leaf) + spines;
  const long spine_ports = static_cast<long>(leaves) + global_per_spine;
  require(leaf_ports <= kMaxPorts,
          "megafly: leaves would need nodes_per_leaf+spines = " + std::to_string(leaf_ports) +
              " ports (max " + std::to_string(kMaxPorts) + ")");
  require(spine_ports <= kMaxPorts,
          "megafly: spines would need leaves+global_per_spine = " + std::to_string(spine_ports) +
              " ports (max " + std::to_string(kMaxPorts) + ")");
  validate_groups("megafly", groups, spines * global_per_spine, "spines*global_per_spine");
  require(num_hosts() <= kMaxNodes, "megafly: more than 1,000,000 hosts");
}

std::string MegaflyParams::to_string() const {
  return "megafly(" + std::to_string(nodes_per_leaf) + "," + std::to_string(leaves) + "," +
         std::to_string(spines) + "," + std::to_string(global_per_spine) + "," +
         std::to_string(groups) + ")";
}

std::uint64_t MegaflyParams::num_hosts() const {
  return static_cast<std::uint64_t>(nodes_per_leaf) * static_cast<std::uint64_t>(leaves) *
         static_cast<std::uint64_t>(groups);
}

Fabric generate_dragonfly(const DragonflyParams& params, int gpus_per_node, double gbps) {
  params.validate();
  Shape s;
  s.kind = DragonflyKind::kCanonical1D;
  s.what = "dragonfly";
  s.groups = params.g;
  s.hosts_per_router = params.p;
  s.host_routers = params.a;
  s.global_per_router = params.h;
  s.switch_guid = 0x0002c90400000000ULL;
  s.hca_guid = 0x0002c90500000000ULL;
  return build(s, params.to_string(), gpus_per_node, gbps);
}

Fabric generate_dragonfly(int p, int a, int h, int g, int gpus_per_node, double gbps) {
  return generate_dragonfly(DragonflyParams{p, a, h, g}, gpus_per_node, gbps);
}

Fabric generate_megafly(const MegaflyParams& params, int gpus_per_node, double gbps) {
  params.validate();
  Shape s;
  s.kind = DragonflyKind::kMegafly;
  s.what = "megafly";
  s.groups = params.groups;
  s.hosts_per_router = params.nodes_per_leaf;
  s.host_routers = params.leaves;
  s.spines = params.spines;
  s.global_per_router = params.global_per_spine;
  s.switch_guid = 0x0002c90600000000ULL;
  s.hca_guid = 0x0002c90700000000ULL;
  return build(s, params.to_string(), gpus_per_node, gbps);
}

Fabric generate_megafly(int nodes_per_leaf, int leaves, int spines, int global_per_spine,
                        int groups, int gpus_per_node, double gbps) {
  return generate_megafly(MegaflyParams{nodes_per_leaf, leaves, spines, global_per_spine, groups},
                          gpus_per_node, gbps);
}

int DragonflyLayout::group_of(NodeIdx n) const {
  if (role[n.value()] == RouterRole::kHost) return group_of_node[edge_router[n.value()].value()];
  return group_of_node[n.value()];
}

bool DragonflyLayout::one_local_hop(NodeIdx a, NodeIdx b) const {
  return a == b ||
         local_link[a.value()][static_cast<std::size_t>(index_in_group[b.value()])].valid();
}

std::size_t DragonflyLayout::local_route_count(NodeIdx from, NodeIdx to) const {
  if (one_local_hop(from, to)) return 1;
  const RouterRole rf = role[from.value()];
  if (complete_groups) {
    // Only two leaves or two spines of a megafly group lack a cable.
    return static_cast<std::size_t>(rf == RouterRole::kLeaf ? spines : host_routers);
  }
  std::size_t count = 0;
  for (NodeIdx via : routers[static_cast<std::size_t>(group_of_node[from.value()])]) {
    count += one_local_hop(from, via) && one_local_hop(via, to) && via != from && via != to;
  }
  // Zero only between a megafly leaf and spine whose cable is missing: one detour.
  return std::max<std::size_t>(count, 1);
}

void DragonflyLayout::append_local_route(NodeIdx from, NodeIdx to, std::size_t choice,
                                         Path& out) const {
  if (from == to) return;
  assert(group_of_node[from.value()] == group_of_node[to.value()]);
  assert(choice < local_route_count(from, to));
  const auto link = [this](NodeIdx a, NodeIdx b) {
    return local_link[a.value()][static_cast<std::size_t>(index_in_group[b.value()])];
  };
  if (const LinkId direct = link(from, to); direct.valid()) {
    out.push_back(direct);
    return;
  }
  const auto& rs = routers[static_cast<std::size_t>(group_of_node[from.value()])];
  if (complete_groups) {
    // Two leaves or two spines of a megafly group: bounce through the other layer.
    const std::size_t via_index = role[from.value()] == RouterRole::kLeaf
                                      ? static_cast<std::size_t>(host_routers) + choice
                                      : choice;
    out.push_back(local_link[from.value()][via_index]);
    out.push_back(link(rs[via_index], to));
    return;
  }
  for (NodeIdx via : rs) {
    if (via == from || via == to || !link(from, via).valid() || !link(via, to).valid()) continue;
    if (choice-- == 0) {
      out.push_back(link(from, via));
      out.push_back(link(via, to));
      return;
    }
  }
  // A megafly leaf and spine without their cable: leaf, another spine, a leaf of both, spine (or
  // the reverse). recognize_dragonfly refuses a group where this does not exist: each leaf has a
  // spine, and any two spines share a leaf (each is cabled to more than half of them).
  for (NodeIdx first : rs) {
    if (!link(from, first).valid()) continue;
    for (NodeIdx second : rs) {
      if (second != from && link(first, second).valid() && link(second, to).valid()) {
        out.push_back(link(from, first));
        out.push_back(link(first, second));
        out.push_back(link(second, to));
        return;
      }
    }
  }
  assert(false && "recognize_dragonfly guarantees a local route");
}

std::size_t DragonflyLayout::minimal_global(NodeIdx rs, NodeIdx rd, std::size_t choice) const {
  if (complete_groups) return choice;
  const auto links = global_links(group_of_node[rs.value()], group_of_node[rd.value()]);
  std::size_t direct = 0;
  for (const GlobalLink& l : links) direct += one_local_hop(rs, l.from) && one_local_hop(l.to, rd);
  if (direct == 0) return choice;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (one_local_hop(rs, links[i].from) && one_local_hop(links[i].to, rd) && choice-- == 0) {
      return i;
    }
  }
  assert(false && "choice < minimal_path_count");
  return 0;
}

std::size_t DragonflyLayout::minimal_path_count(NodeIdx src, NodeIdx dst) const {
  const NodeIdx rs = edge_router[src.value()];
  const NodeIdx rd = edge_router[dst.value()];
  const int gs = group_of_node[rs.value()];
  const int gd = group_of_node[rd.value()];
  if (gs == gd) return local_route_count(rs, rd);
  const auto links = global_links(gs, gd);
  if (complete_groups) return links.size();
  std::size_t direct = 0;
  for (const GlobalLink& l : links) direct += one_local_hop(rs, l.from) && one_local_hop(l.to, rd);
  return direct > 0 ? direct : links.size();
}

void DragonflyLayout::minimal_path(NodeIdx src, NodeIdx dst, std::size_t choice, Path& out) const {
  const NodeIdx rs = edge_router[src.value()];
  const NodeIdx rd = edge_router[dst.value()];
  const int gs = group_of_node[rs.value()];
  const int gd = group_of_node[rd.value()];
  out.push_back(host_up[src.value()]);
  if (gs == gd) {
    append_local_route(rs, rd, choice, out);
  } else {
    const GlobalLink& g = global_links(gs, gd)[minimal_global(rs, rd, choice)];
    append_local_route(rs, g.from, 0, out);
    out.push_back(g.id);
    append_local_route(g.to, rd, 0, out);
  }
  out.push_back(host_down[dst.value()]);
}

void DragonflyLayout::valiant_path(NodeIdx src, NodeIdx dst, int mid, std::size_t first,
                                   std::size_t second, std::size_t local, Path& out) const {
  const NodeIdx rs = edge_router[src.value()];
  const NodeIdx rd = edge_router[dst.value()];
  const int gs = group_of_node[rs.value()];
  const int gd = group_of_node[rd.value()];
  assert(mid != gs && mid != gd);
  const GlobalLink& g1 = global_links(gs, mid)[first];
  const GlobalLink& g2 = global_links(mid, gd)[second];
  out.push_back(host_up[src.value()]);
  append_local_route(rs, g1.from, 0, out);
  out.push_back(g1.id);
  append_local_route(g1.to, g2.from, local, out);
  out.push_back(g2.id);
  append_local_route(g2.to, rd, 0, out);
  out.push_back(host_down[dst.value()]);
}

std::uint64_t flow_hash(std::uint64_t salt, NodeIdx src, NodeIdx dst) {
  // splitmix64 finaliser over the salt and both endpoints.
  const auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(salt) ^ src.value()) ^ (static_cast<std::uint64_t>(dst.value()) << 32));
}

}  // namespace ibsdn
