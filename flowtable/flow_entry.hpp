// One entry of a switch's flow table: match, priority, actions, the owning job (cookie), counters.
#pragma once

#include <cstdint>
#include <optional>

#include "flowtable/match.hpp"

namespace ibsdn {

struct FlowAction {
  PortNum output{};                    // the port the packet leaves by
  std::optional<ServiceLevel> set_sl;  // rewrite the SL first (traffic classes, seed 004)
  bool operator==(const FlowAction&) const = default;
};

struct FlowEntry {
  std::uint64_t cookie = 0;  // the job id that owns the entry
  std::uint16_t priority = 0;
  FlowMatch match;
  FlowAction action;
  std::uint64_t n_packets = 0;  // lookups this entry won
  /// Compares what was installed (not the counters).
  [[nodiscard]] bool same_rule(const FlowEntry& o) const {
    return cookie == o.cookie && priority == o.priority && match == o.match && action == o.action;
  }
};

}  // namespace ibsdn
