// A path as the switches see it: (node GUID, output port) per hop. Unlike LinkIds it compares
// across fabrics, so the controller notices a change that moved a job's traffic.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn::plugin {

using Signature = std::vector<std::pair<std::uint64_t, std::uint8_t>>;

inline Signature signature_of(const Fabric& f, const Path& p) {
  Signature sig;
  sig.reserve(p.size());
  for (const LinkId l : p) {
    const Link& link = f.link(l);
    sig.emplace_back(f.node(link.from).guid.value(), link.from_port.value());
  }
  return sig;
}

}  // namespace ibsdn::plugin
