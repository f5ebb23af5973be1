// Fat-trees that are not complete XGFTs, built the way their operators describe them, for the
// recognition and routing tests.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn::test {

struct PodTree {
  int pods = 2;
  int leaves = 4;       // per pod
  int hosts = 4;        // per leaf
  int aggregates = 4;   // per pod, every leaf cabled to every aggregate
  int tops = 4;         // every top cabled to every aggregate of every pod
  int leaf_cables = 1;  // parallel cables between a leaf and an aggregate
  int top_cables = 1;   // parallel cables between an aggregate and a top
  double host_gbps = 100.0;
  double leaf_gbps = 100.0;  // per leaf-aggregate cable
  double top_gbps = 100.0;   // per aggregate-top cable
};

/// Leaves: host ports first, then their up cables, aggregate by aggregate; aggregates: leaf
/// cables first, then tops; tops: aggregate by aggregate, pod by pod. Names p1l2 / p1a3 / t04.
inline Fabric generate_pod_tree(const PodTree& s) {
  Fabric f;
  std::vector<std::vector<NodeIdx>> leaf(static_cast<std::size_t>(s.pods));
  std::vector<std::vector<NodeIdx>> agg(static_cast<std::size_t>(s.pods));
  std::vector<NodeIdx> tops;
  int host_no = 0;
  for (int p = 0; p < s.pods; ++p) {
    for (int l = 0; l < s.leaves; ++l) {
      const NodeIdx n =
          f.add_node(NodeKind::kSwitch, "p" + std::to_string(p + 1) + "l" + std::to_string(l + 1),
                     static_cast<std::size_t>(s.hosts + s.aggregates * s.leaf_cables));
      leaf[static_cast<std::size_t>(p)].push_back(n);
      for (int h = 0; h < s.hosts; ++h) {
        const NodeIdx hca = f.add_node(NodeKind::kHca, "n" + std::to_string(++host_no), 1);
        f.connect(hca, PortNum(1), n, PortNum(static_cast<std::uint8_t>(h + 1)), s.host_gbps);
      }
    }
    for (int a = 0; a < s.aggregates; ++a) {
      agg[static_cast<std::size_t>(p)].push_back(
          f.add_node(NodeKind::kSwitch, "p" + std::to_string(p + 1) + "a" + std::to_string(a + 1),
                     static_cast<std::size_t>(s.leaves * s.leaf_cables + s.tops * s.top_cables)));
    }
  }
  for (int t = 0; t < s.tops; ++t) {
    tops.push_back(f.add_node(NodeKind::kSwitch, "t" + std::to_string(t + 1),
                              static_cast<std::size_t>(s.pods * s.aggregates * s.top_cables)));
  }
  const auto port = [](int p) { return PortNum(static_cast<std::uint8_t>(p)); };
  for (int p = 0; p < s.pods; ++p) {
    for (int l = 0; l < s.leaves; ++l) {
      for (int a = 0; a < s.aggregates; ++a) {
        for (int c = 0; c < s.leaf_cables; ++c) {
          f.connect(leaf[static_cast<std::size_t>(p)][static_cast<std::size_t>(l)],
                    port(s.hosts + a * s.leaf_cables + c + 1),
                    agg[static_cast<std::size_t>(p)][static_cast<std::size_t>(a)],
                    port(l * s.leaf_cables + c + 1), s.leaf_gbps);
        }
      }
    }
    for (int a = 0; a < s.aggregates; ++a) {
      for (int t = 0; t < s.tops; ++t) {
        for (int c = 0; c < s.top_cables; ++c) {
          f.connect(agg[static_cast<std::size_t>(p)][static_cast<std::size_t>(a)],
                    port(s.leaves * s.leaf_cables + t * s.top_cables + c + 1),
                    tops[static_cast<std::size_t>(t)],
                    port((p * s.aggregates + a) * s.top_cables + c + 1), s.top_gbps);
        }
      }
    }
  }
  return f;
}

/// The switch-to-switch cables of `f`, each once, shuffled by `seed`.
inline std::vector<CableEnd> switch_cables(const Fabric& f, std::uint64_t seed) {
  std::vector<CableEnd> out;
  for (const Link& l : f.links()) {
    if (f.node(l.from).is_switch() && f.node(l.to).is_switch() && l.from < l.to)
      out.push_back(CableEnd{l.from, l.from_port});
  }
  std::mt19937_64 rng(seed);
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace ibsdn::test
