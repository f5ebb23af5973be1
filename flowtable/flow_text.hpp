// Flow entries as text, in the form operators know from `ovs-ofctl dump-flows` / `add-flow`:
//   cookie=0x2a, priority=100, slid=0x12, dlid=0x40 actions=output:7, n_packets=3
// Masked fields read `dlid=0x40/0xfff0`; an SL rewrite is `actions=set_sl:2,output:7`.
// And as JSON for scripts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "flowtable/flow_entry.hpp"

namespace ibsdn {

std::string format_flow(const FlowEntry& e);
/// Parses the format_flow() text (n_packets optional; fields in any order, separated by commas
/// and/or spaces). Throws std::invalid_argument naming the offending token.
FlowEntry parse_flow(std::string_view text);

nlohmann::json flow_to_json(const FlowEntry& e);
/// Throws std::invalid_argument naming the offending key.
FlowEntry flow_from_json(const nlohmann::json& j);

}  // namespace ibsdn
