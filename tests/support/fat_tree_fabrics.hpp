// Fat-trees that are not complete XGFTs, built the way their operators describe them, for the
// recognition and routing tests.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/pod_tree.hpp"

namespace ibsdn::test {

// The generator's pods (routing/pod_tree.hpp): every leaf cabled to every aggregate of its pod,
// every top to every aggregate.
using PodTree = PodTreeParams;
using ibsdn::generate_pod_tree;

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
