// A path as text, the one form the tools that print paths share: `ibsdn-sim route --paths`,
// `ibsdn-sim paths` (a replay's traced paths) and `osmsdn-route-check --paths` (the same flows
// traced through a real fabric's tables), so that their outputs compare line by line.
#pragma once

#include <string>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

/// A switch a path crosses and the port it leaves that switch by.
struct SwitchHop {
  NodeIdx node{};
  PortNum port{};
};

/// The switches `path` crosses, in order (the hosts' own ports are left out).
std::vector<SwitchHop> switch_hops(const Fabric& f, const Path& path);

/// "SRC DST SW:PORT SW:PORT ...": the two hosts' names, then switch_hops() as NAME:PORT. No
/// newline.
std::string path_line(const Fabric& f, NodeIdx src, NodeIdx dst, const Path& path);

}  // namespace ibsdn
