// What the switch agent learns about its own node from the subnet management agent: the number of
// ports (NodeInfo:NumPorts), which bounds the output ports a flow entry may use.
#pragma once

#include <string>
#include <variant>

namespace ibsdn::mad {

/// NumPorts of the local node, from a NodeInfo SMP sent over a zero-hop directed route (libibmad;
/// works under umad2sim too, where ibsim answers it). A string saying what failed otherwise.
std::variant<int, std::string> query_local_num_ports(const std::string& ca, int port);

}  // namespace ibsdn::mad
