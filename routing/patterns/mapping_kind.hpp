// How a job's ranks are placed on its nodes, as a name: part of the traffic syntax the notice
// protocol shares (leaf target ibsdn_pattern_spec); the placement itself is in mapping.hpp.
#pragma once

#include <cstdint>
#include <string_view>

namespace ibsdn {

/// Seed 003's process placements. Block: ranks 0..r-1 on the first node, r..2r-1 on the second,
/// and so on (r ranks per node). Cyclic: rank i on node i mod n (n nodes), round-robin.
enum class Mapping : std::uint8_t { kBlock, kCyclic };

/// "block" or "cyclic"; throws std::invalid_argument otherwise.
Mapping parse_mapping(std::string_view text);
std::string_view to_string(Mapping m);

}  // namespace ibsdn
