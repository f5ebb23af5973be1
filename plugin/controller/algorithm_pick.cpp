// Which routing algorithm routes a job (algorithm_pick.hpp).
#include "plugin/controller/algorithm_pick.hpp"

#include "routing/algorithm.hpp"

namespace ibsdn::plugin {

std::string_view to_string(AlgorithmReason r) {
  switch (r) {
    case AlgorithmReason::kRequest:
      return "request";
    case AlgorithmReason::kConfiguration:
      return "configuration";
    case AlgorithmReason::kVolumes:
      return "volumes";
    case AlgorithmReason::kUnit:
      return "unit";
    case AlgorithmReason::kVolumesTimeout:
      return "volumes_timeout";
    case AlgorithmReason::kFallback:
      return "fallback";
  }
  return "?";
}

AlgorithmPick pick_algorithm(const AlgorithmChoice& choice, const Fabric& f,
                             const std::optional<std::string>& requested,
                             std::span<const Flow> flows) {
  if (requested && make_algorithm(*requested)->unsupported_reason(f).empty()) {
    return {*requested, AlgorithmReason::kRequest};
  }
  const std::string& configured = choice.for_fabric(f);
  AlgorithmPick p{configured,
                  requested ? AlgorithmReason::kFallback : AlgorithmReason::kConfiguration};
  if (configured == kAutoAlgorithm) {
    const bool differ = volumes_differ(flows);
    p.name = differ ? kVolumeAlgorithm : kUnitAlgorithm;
    if (!requested) p.reason = differ ? AlgorithmReason::kVolumes : AlgorithmReason::kUnit;
  }
  return p;
}

}  // namespace ibsdn::plugin
