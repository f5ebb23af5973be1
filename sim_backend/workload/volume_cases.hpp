// The catalogue of volume cases that the volume-aware routing is proved and measured on
// (tests/unit/routing/volume_routing_test.cpp, bench/volume_bench.cpp): heavy-tailed traffic
// (volume_traffic.hpp) of jobs placed 8 or 16 ranks per node, block or cyclic, on 2- and 3-level
// trees, one full-bisection and one 2:1 tapered 3-level tree among them.
//
// A case's flows are what the fabric sees (routing/patterns/mapping.hpp): pairs between ranks of
// one node dropped, the rank pairs of one node pair merged into one flow with their bytes summed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "sim_backend/workload/volume_traffic.hpp"

namespace ibsdn {

struct VolumeTopology {
  const char* label;  // "2L-64", in case names
  const char* xgft;   // XgftParams text, "2;8,8;1,8"
  bool full_bisection;
};

/// XGFT(2;8,8;1,8), XGFT(2;16,16;1,16), XGFT(3;8,8,8;1,8,8) and the tapered XGFT(3;8,8,8;1,4,4).
std::vector<VolumeTopology> volume_topologies();

struct VolumeCase {
  VolumeTopology topology;
  VolumeTraffic traffic = VolumeTraffic::kStencil27;
  std::uint32_t nodes = 0;  // drawn at random (seeded) from the fabric's hosts; all when equal
  std::uint32_t ranks_per_node = 8;
  Mapping mapping = Mapping::kBlock;
  std::uint64_t seed = 1;
  /// Every fabric flow of the job with the same bytes: the exactness check (L_D = NL_D).
  bool unit = false;

  /// "3L-512-tapered cg 128n 16rpn cyclic s1" (" unit" appended for unit demands).
  [[nodiscard]] std::string name() const;
};

/// kTest: jobs of 32-128 nodes that the unit tests route in seconds, also under the sanitizers,
/// FT's all-to-all up to 512 ranks. kBench: jobs of 32-256 nodes and two seeds; FT's all-to-all up
/// to 2048 ranks (beyond, the rank pairs alone take gigabytes).
enum class VolumeCaseScale : std::uint8_t { kTest, kBench };
std::vector<VolumeCase> volume_cases(VolumeCaseScale scale);

/// The fabric flows of `c` on `f` (the fabric of c.topology). Throws std::invalid_argument when
/// the job does not fit the fabric.
std::vector<Flow> volume_case_flows(const Fabric& f, const VolumeCase& c);

/// The cases' fabrics, each generated once.
class VolumeCaseFabrics {
 public:
  const Fabric& get(const VolumeTopology& t);

 private:
  std::map<std::string, std::unique_ptr<Fabric>> by_xgft_;
};

}  // namespace ibsdn
