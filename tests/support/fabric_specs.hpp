// A fabric as plain node and cable lists, to rebuild it changed (cables cut, nodes left out,
// cables moved) without any layout: the graph alone, as a recogniser receives it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn::test {

struct NodeSpec {
  NodeKind kind;
  std::string name;
  std::size_t ports;
  Guid guid;
  std::string description;
};
struct CableSpec {
  std::string a;
  int pa;
  std::string b;
  int pb;
};

inline std::vector<NodeSpec> nodes_of(const Fabric& f) {
  std::vector<NodeSpec> out;
  for (const Node& n : f.nodes())
    out.push_back({n.kind, n.name, n.ports.size(), n.guid, n.description});
  return out;
}

/// Cable k is the pair of directed links 2k, 2k+1 (Fabric::connect creates them together).
inline std::vector<CableSpec> cables_of(const Fabric& f) {
  std::vector<CableSpec> out;
  for (std::size_t i = 0; i < f.num_links(); i += 2) {
    const Link& l = f.links()[i];
    out.push_back({f.node(l.from).name, l.from_port.value(), f.node(l.to).name, l.to_port.value()});
  }
  return out;
}

/// Nodes in the given order, then the cables; levels computed, no layout.
inline Fabric build(const std::vector<NodeSpec>& nodes, const std::vector<CableSpec>& cables) {
  Fabric f;
  for (const NodeSpec& n : nodes) {
    f.node(f.add_node(n.kind, n.name, n.ports, n.guid)).description = n.description;
  }
  for (const CableSpec& c : cables) {
    f.connect(*f.find(c.a), PortNum(static_cast<std::uint8_t>(c.pa)), *f.find(c.b),
              PortNum(static_cast<std::uint8_t>(c.pb)), 100.0);
  }
  f.compute_levels();
  return f;
}

}  // namespace ibsdn::test
