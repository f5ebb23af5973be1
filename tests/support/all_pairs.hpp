// Every ordered pair of a fabric's hosts as flows, in host order: the demand that checks a
// routing or a table exhaustively.
#pragma once

#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn::test {

inline std::vector<Flow> all_pairs(const Fabric& f) {
  std::vector<Flow> flows;
  for (NodeIdx s : f.hcas()) {
    for (NodeIdx d : f.hcas()) {
      if (s == d) continue;
      Flow fl;
      fl.src = s;
      fl.dst = d;
      flows.push_back(fl);
    }
  }
  return flows;
}

}  // namespace ibsdn::test
