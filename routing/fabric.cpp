#include "routing/fabric.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <utility>

#include "flowtable/guid_text.hpp"
#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

Fabric::Fabric() = default;
Fabric::~Fabric() = default;
Fabric::Fabric(Fabric&&) noexcept = default;
Fabric& Fabric::operator=(Fabric&&) noexcept = default;

NodeIdx Fabric::add_node(NodeKind kind, std::string name, std::size_t num_ports, Guid guid) {
  if (name.empty() || name.find_first_of(" \t\r\n\"") != std::string::npos) {
    throw std::invalid_argument("node name '" + name + "' is empty or contains whitespace/quotes");
  }
  if (num_ports == 0 || num_ports > 254) {
    throw std::invalid_argument("node '" + name + "' must have 1..254 ports, not " +
                                std::to_string(num_ports));
  }
  const NodeIdx idx(nodes_.size());
  if (by_name_.contains(name)) throw std::invalid_argument("duplicate node name '" + name + "'");
  if (guid.value() != 0 && !by_guid_.emplace(guid.value(), idx).second) {
    throw std::invalid_argument("node '" + name + "': GUID " + guid_text(guid) + " is already " +
                                "node '" + nodes_[by_guid_.at(guid.value()).value()].name + "'");
  }
  by_name_.emplace(name, idx);
  Node n;
  n.kind = kind;
  n.name = std::move(name);
  n.guid = guid;
  n.ports.resize(num_ports);
  for (std::size_t i = 0; i < num_ports; ++i)
    n.ports[i].num = PortNum(static_cast<std::uint8_t>(i + 1));
  nodes_.push_back(std::move(n));
  (kind == NodeKind::kSwitch ? switches_ : hcas_).push_back(idx);
  levels_.clear();
  return idx;
}

const Port& Fabric::port(NodeIdx n, PortNum p) const {
  const Node& nd = node(n);
  if (p.value() == 0 || p.value() > nd.ports.size()) {
    throw std::out_of_range("node '" + nd.name + "' has no port " + std::to_string(p.value()));
  }
  return nd.ports[p.value() - 1u];
}

void Fabric::connect(NodeIdx a, PortNum pa, NodeIdx b, PortNum pb, double gbps) {
  if (a == b) throw std::invalid_argument("cannot cable node '" + node(a).name + "' to itself");
  const Port& porta = port(a, pa);
  const Port& portb = port(b, pb);
  if (porta.connected() || portb.connected()) {
    throw std::invalid_argument("port " + node(a).name + ":" + std::to_string(pa.value()) + " or " +
                                node(b).name + ":" + std::to_string(pb.value()) +
                                " is already cabled");
  }
  const LinkId ab(links_.size());
  const LinkId ba(links_.size() + 1);
  links_.push_back(Link{a, pa, b, pb, gbps});
  links_.push_back(Link{b, pb, a, pa, gbps});
  Port& qa = nodes_[a.value()].ports[pa.value() - 1u];
  qa.peer = b;
  qa.peer_port = pb;
  qa.out = ab;
  qa.gbps = gbps;
  Port& qb = nodes_[b.value()].ports[pb.value() - 1u];
  qb.peer = a;
  qb.peer_port = pa;
  qb.out = ba;
  qb.gbps = gbps;
  levels_.clear();
}

std::optional<NodeIdx> Fabric::find_guid(Guid guid) const {
  const auto it = by_guid_.find(guid.value());
  if (it == by_guid_.end()) return std::nullopt;
  return it->second;
}

std::optional<NodeIdx> Fabric::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

LinkId Fabric::reverse(LinkId l) const {
  // connect() creates the two directions of a cable as a consecutive even/odd pair.
  return LinkId(l.value() ^ 1u);
}

void Fabric::compute_levels() {
  levels_.assign(nodes_.size(), -1);
  std::deque<NodeIdx> queue;
  for (NodeIdx h : hcas_) {
    levels_[h.value()] = 0;
  }
  for (NodeIdx h : hcas_) {
    for (const Port& p : nodes_[h.value()].ports) {
      if (p.connected() && nodes_[p.peer.value()].is_switch() && levels_[p.peer.value()] < 0) {
        levels_[p.peer.value()] = 1;
        queue.push_back(p.peer);
      }
    }
  }
  while (!queue.empty()) {
    const NodeIdx n = queue.front();
    queue.pop_front();
    for (const Port& p : nodes_[n.value()].ports) {
      if (p.connected() && levels_[p.peer.value()] < 0) {
        levels_[p.peer.value()] = levels_[n.value()] + 1;
        queue.push_back(p.peer);
      }
    }
  }
}

void Fabric::set_xgft(XgftLayout layout) {
  xgft_ = std::make_unique<XgftLayout>(std::move(layout));
}

void Fabric::set_fat_tree(FatTreeLayout layout) {
  fat_tree_ = std::make_unique<FatTreeLayout>(std::move(layout));
}

void Fabric::set_dragonfly(DragonflyLayout layout) {
  dragonfly_ = std::make_unique<DragonflyLayout>(std::move(layout));
}

namespace {

/// Adds a node like `n` (kind, name, ports, GUID, description, LID, GPUs), without its cables.
NodeIdx add_copy(Fabric& out, const Node& n) {
  const NodeIdx i = out.add_node(n.kind, n.name, n.ports.size(), n.guid);
  Node& copy = out.node(i);
  copy.description = n.description;
  copy.lid = n.lid;
  copy.gpus = n.gpus;
  return i;
}

}  // namespace

Fabric without_cables(const Fabric& f, std::span<const CableEnd> removed) {
  std::vector<std::vector<bool>> gone(f.num_nodes());
  for (std::size_t i = 0; i < f.num_nodes(); ++i)
    gone[i].assign(f.nodes()[i].ports.size() + 1, false);
  for (const CableEnd& c : removed) {
    const Port& p = f.port(c.node, c.port);
    if (!p.connected()) {
      throw std::invalid_argument("port " + f.node(c.node).name + ":" +
                                  std::to_string(c.port.value()) + " is not cabled");
    }
    gone[c.node.value()][c.port.value()] = true;
    gone[p.peer.value()][p.peer_port.value()] = true;
  }
  Fabric out;
  for (const Node& n : f.nodes()) add_copy(out, n);
  std::size_t cut = 0;
  for (const Link& l : f.links()) {
    // Each cable once: from its end with the smaller (node, port).
    if (std::pair(l.from.value(), l.from_port.value()) > std::pair(l.to.value(), l.to_port.value()))
      continue;
    if (gone[l.from.value()][l.from_port.value()]) {
      ++cut;
      continue;
    }
    out.connect(l.from, l.from_port, l.to, l.to_port, l.gbps);
  }
  out.kind_label = f.kind_label + " without " + std::to_string(cut) + " cables";
  return out;
}

Fabric in_subnet_order(const Fabric& f) {
  std::vector<NodeIdx> order;
  order.reserve(f.num_nodes());
  for (std::size_t i = 0; i < f.num_nodes(); ++i) order.emplace_back(static_cast<std::uint32_t>(i));
  std::stable_sort(order.begin(), order.end(), [&f](NodeIdx a, NodeIdx b) {
    return subnet_order_before(f.node(a).kind, f.node(a).guid, f.node(b).kind, f.node(b).guid);
  });
  std::vector<NodeIdx> new_index(f.num_nodes());
  Fabric out;
  for (const NodeIdx old : order) new_index[old.value()] = add_copy(out, f.node(old));
  for (const NodeIdx old : order) {
    const NodeIdx a = new_index[old.value()];
    for (const Port& p : f.node(old).ports) {
      if (!p.connected()) continue;
      const NodeIdx b = new_index[p.peer.value()];
      if (std::pair(a.value(), p.num.value()) > std::pair(b.value(), p.peer_port.value())) continue;
      out.connect(a, p.num, b, p.peer_port, p.gbps);
    }
  }
  out.kind_label = f.kind_label;
  out.compute_levels();
  return out;
}

}  // namespace ibsdn
