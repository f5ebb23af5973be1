// Flows between fabric nodes and the paths chosen for them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/ids.hpp"

namespace ibsdn {

/// One elephant flow between two compute nodes (HCAs). Rank pairs that map to the same node pair
/// are merged into one flow (InfiniBand routes by LID pair, so they share a path anyway);
/// `multiplicity` counts them and `bytes` adds them up.
struct Flow {
  NodeIdx src{};
  NodeIdx dst{};
  std::uint64_t bytes = 0;
  std::uint32_t multiplicity = 1;
  /// Seed 002's weight: min(1/s_out, 1/d_in) over the job's flows; 1 until set_weights() runs.
  double weight = 1.0;
  bool elephant = true;
};

/// A path as the directed links it uses, from the source HCA's link to the destination HCA's.
using Path = std::vector<LinkId>;

/// The volume the volume-aware measures give a flow: its bytes, or 1 when it carries no byte
/// count (a named pattern without sizes counts every flow alike).
[[nodiscard]] inline double flow_volume(const Flow& f) {
  return f.bytes > 0 ? static_cast<double>(f.bytes) : 1.0;
}

/// Whether the flows' volumes (flow_volume) are not all the same: then balancing flows is not
/// balancing bytes. A pattern's flows carry its `bytes=` per rank flow (1 MiB by default), so only
/// merged rank flows (several ranks per node) or a traffic matrix make them differ.
[[nodiscard]] bool volumes_differ(std::span<const Flow> flows);

/// Sets every flow's weight to min(1/s_out, 1/d_in), counting distinct flows per node.
void set_weights(std::vector<Flow>& flows);

/// NL_D: the largest number of flows leaving one source or entering one destination.
std::uint32_t node_load(const std::vector<Flow>& flows);

}  // namespace ibsdn
