// What the timing simulator (timing_sim.hpp) takes from a job before running it: the checks of a
// TimingJob against the fabric, and each phase's messages laid out by source rank with their
// traffic classes and every rank's in-degree, as the ranks post and wait for them.
#pragma once

#include <cstdint>
#include <vector>

#include "routing/fabric.hpp"
#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

/// Throws std::invalid_argument naming the job and what is wrong with it.
void check_timing_job(const Fabric& fabric, const TimingJob& job);

struct PhasePlan {
  std::vector<RankFlow> messages;        // sorted by source rank
  std::vector<std::uint8_t> cls;         // each message's traffic class
  std::vector<std::uint32_t> out_begin;  // per rank + 1: its messages' range
  std::vector<std::uint32_t> in_degree;  // per rank: messages it receives per iteration
};

/// Phase `p` of `job` (checked, not a background job) over its `ranks` ranks. A message is in
/// the job's class, or in its collective_class when the phase flags it a collective.
PhasePlan plan_phase(const TimingJob& job, const TimingPhase& p, std::uint32_t ranks);

}  // namespace ibsdn
