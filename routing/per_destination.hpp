// Whether a routing fits a target that holds one output port per (switch, destination): a linear
// forwarding table, or flow entries at FlowDefinitionLevel::kDlid. There every flow toward one
// destination leaves a switch through the same port, so a destination's flows form one tree
// (RouteRequest::per_destination).
#pragma once

#include <span>
#include <string>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

/// True when no switch sends two flows toward one destination HCA through different ports. An
/// empty path (a flow not routed yet) takes no port. Otherwise false, and `why` (when given) names
/// the switch, the destination, the two ports and two flows that need them. Throws
/// std::invalid_argument when there is not one path per flow.
bool per_destination_consistent(const Fabric& f, std::span<const Flow> flows,
                                std::span<const Path> paths, std::string* why);

}  // namespace ibsdn
