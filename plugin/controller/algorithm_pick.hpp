// Which routing algorithm routes a job, and why (docs/routing.md, "The default routing"): the one
// its notice names, else the configuration's for the fabric's topology, where `auto` (the
// fat-trees' default) decides by the job's flows: balancing flow counts balances bytes only when
// every flow carries the same bytes, so flows whose volumes differ go to the volume-aware routing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "plugin/controller/config.hpp"
#include "routing/flow.hpp"

namespace ibsdn::plugin {

/// Why a job has its algorithm: the ready and jobs answers' `algorithm_reason`.
enum class AlgorithmReason : std::uint8_t {
  kRequest,         // "request": the job's notice names it
  kConfiguration,   // "configuration": algorithms.fat_tree / dragonfly / other names it
  kVolumes,         // "volumes": auto, and the flows' byte volumes differ: sdn-volume
  kUnit,            // "unit": auto, and the flows carry no bytes or all the same: sdn-optimal
  kVolumesTimeout,  // "volumes_timeout": as kVolumes, but sdn-volume did not finish in its share
                    // of job_start_timeout_ms (JobController::plan): sdn-optimal
  kFallback,  // "fallback": the notice's algorithm cannot route this fabric (any more; it can at
              // the start): the configuration's choice
};
std::string_view to_string(AlgorithmReason r);

struct AlgorithmPick {
  std::string name;
  AlgorithmReason reason = AlgorithmReason::kConfiguration;
};

/// The algorithms `auto` chooses between.
inline constexpr std::string_view kVolumeAlgorithm = "sdn-volume";
inline constexpr std::string_view kUnitAlgorithm = "sdn-optimal";

/// The algorithm for a job's `flows` on `f`: `requested` (the notice's) when it can route `f`,
/// else `choice`'s for `f`'s topology; kAutoAlgorithm gives kVolumeAlgorithm when
/// volumes_differ() (routing/flow.hpp), kUnitAlgorithm otherwise. `requested` must be a known
/// algorithm.
[[nodiscard]] AlgorithmPick pick_algorithm(const AlgorithmChoice& choice, const Fabric& f,
                                           const std::optional<std::string>& requested,
                                           std::span<const Flow> flows);

}  // namespace ibsdn::plugin
