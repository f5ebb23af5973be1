// Flow sets the routing tests draw at random.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "routing/flow.hpp"

namespace ibsdn::test {

/// A random permutation among `hosts` (every host sends once and receives once; a host drawn to
/// itself sends nothing), with seed 002's weights.
inline std::vector<Flow> permutation(const std::vector<NodeIdx>& hosts, std::uint64_t seed) {
  std::vector<NodeIdx> to = hosts;
  std::mt19937_64 rng(seed);
  std::shuffle(to.begin(), to.end(), rng);
  std::vector<Flow> out;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i] == to[i]) continue;
    Flow fl;
    fl.src = hosts[i];
    fl.dst = to[i];
    out.push_back(fl);
  }
  set_weights(out);
  return out;
}

}  // namespace ibsdn::test
