// The registry of apps.def, shared by the spec (app_spec.cpp: names, options, defaults) and the
// model (app_model.cpp: generators and message bounds). Internal to sim_backend/.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/apps/app_spec.hpp"

namespace ibsdn::app_registry {

// The options of an app; every app takes kBytes (a pattern source through its pattern), kIter,
// kCompute and kGpu.
enum Option : unsigned {
  kBytes = 1u << 0,
  kIter = 1u << 1,
  kCompute = 1u << 2,
  kGpu = 1u << 3,
  kDims = 1u << 4,
  kGap = 1u << 5,
  kRounds = 1u << 6,
};

struct Entry {
  std::string_view name;
  AppKind kind;
  unsigned options;
  std::size_t dims;  // extents of dims=, 0 for none
  std::uint64_t bytes;
  double compute_s;
  double gpu_speedup;
  std::string_view summary;
  std::vector<AppPhase> (*generate)(const AppSpec&, std::uint32_t ranks, std::uint64_t seed);
  std::uint64_t (*bound)(const AppSpec&, std::uint32_t ranks);
};

/// The entry of a skeleton or phased workload; nullptr for any other name (a pattern or unknown).
const Entry* find(std::string_view name);
std::span<const Entry> entries();

}  // namespace ibsdn::app_registry
