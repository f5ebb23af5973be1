// The flow-level timing model (docs/simulation-flow.md): messages become flows that share directed
// links max-min fairly, re-solved at every flow start and end, as SimGrid's CM02 model does
// (latency and bandwidth factors 1, no TCP-gamma bound).
//
// A message becomes active at its start time, first waits its route's latency (the sum of its
// links' latencies) without using bandwidth, then shares bandwidth with the other flows until its
// size is sent: every link's capacity is split max-min fairly among the flows crossing it
// (progressive filling), a flow's rate set at its bottleneck or at its own cap. One flow alone
// takes latency + size / bandwidth.
//
// Sharing weights: kMaxMin gives every flow weight 1 (plain max-min, what InfiniBand's credit
// flow control approximates). kCm02 is SimGrid's CM02 as its source has it: a flow's sharing
// penalty is its route latency (1 when that is 0), so at a bottleneck rates are inversely
// proportional to route latency (TCP's RTT unfairness); the same as kMaxMin when all routes have
// equal latency.
//
// Re-solving: kIncremental re-solves only the flows whose rates a change can move, widening from
// the links it touched as far as rates move (max_min_sharing.hpp says why that is exact; rates
// agree with kFull's within rounding); completion times sit in a heap with lazy updates (a flow's
// remaining bytes are brought up to date only when its rate changes, as SimGrid's lazy update).
// kFull re-solves every active flow at every event, for comparison.
//
// Traffic classes (seed 004): a message carries a class; classes are served in strict
// priority on every link, each capped by its share of every link, max-min within a class
// (max_min_sharing.hpp). A message of a class that higher ones starve waits at rate 0. The flow
// case format has no classes yet: they are set through this interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "routing/ids.hpp"
#include "sim_backend/flowmodel/max_min_sharing.hpp"

namespace ibsdn {

/// One direction of a link: capacity in bytes/s (> 0), latency in seconds (>= 0).
struct FlowLink {
  std::string name;
  double bandwidth = 0;
  double latency = 0;
};

/// A message: its id, start time (s), size (bytes, > 0), route (links in order, at least one, no
/// link twice), an optional cap on its rate (bytes/s; 0: none) and its traffic class (an index
/// into FlowModelOptions::classes).
struct FlowMessage {
  std::uint64_t id = 0;
  double start = 0;
  double size = 0;
  std::vector<LinkId> route;
  double rate_cap = 0;
  std::uint8_t traffic_class = 0;
};

enum class FlowSharing : std::uint8_t { kMaxMin, kCm02 };
enum class FlowSolve : std::uint8_t { kIncremental, kFull };

struct FlowModelOptions {
  FlowSharing sharing = FlowSharing::kMaxMin;
  FlowSolve solve = FlowSolve::kIncremental;
  std::vector<TrafficClass> classes{TrafficClass{}};  // one class of share 1: plain max-min
};

/// What a run did, beside the completion times.
struct FlowRunStats {
  std::size_t events = 0;        // times at which something started or ended
  std::size_t solved_flows = 0;  // flows re-solved, summed over the events
  std::size_t rate_changes = 0;  // flows whose rate changed, summed over the events
};

/// Runs the messages over the links and returns each message's completion time (s), in the
/// order of `messages`. Throws std::invalid_argument when a message does not satisfy FlowMessage's
/// conditions or names a link out of range.
std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowMessage>& messages,
                                   const FlowModelOptions& options = {},
                                   FlowRunStats* stats = nullptr);

}  // namespace ibsdn
