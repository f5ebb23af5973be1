// The timing simulator (docs/simulation-timing.md): jobs run iteration by iteration on the fabric,
// their messages become flows of the flow-level engine (flow_engine.hpp), and what comes out is how
// long each job takes — its communication time, and so its slowdown or speedup against another run.
//
// Nodes and ranks (thesis chapter 3): a job places `ranks_per_node` ranks (one per GPU) on each
// of its nodes (map_ranks(): block or cyclic). A message between two ranks of one node crosses
// that node's GPU link for the pair (the GPUs are all-to-all connected, each pair by a link of
// gpu_link_factor x the node's network link bandwidth) and never the NIC. A message between
// nodes waits in its source node's NIC queue and is injected according to the NIC policy:
//   FCFS  one message at a time, in the order the ranks posted them: the next starts when the
//         one before is delivered;
//   RR    every queued message at once, sharing the node's link (max-min);
//   RR-N  the first N of the queue at once, the next admitted as one is delivered.
// Each traffic class has its own queue on the NIC, as each InfiniBand virtual lane has (a
// collective in a high class does not wait behind a halo in a low one); the policy applies per
// queue, and the classes' priorities and caps share the links (max_min_sharing.hpp).
// The flow model has no packets: a message holds its share of the NIC until its last byte is
// delivered, so FCFS admits the next one a route latency later than a packet-level NIC would.
//
// A job's program is a list of phases; a phase repeats `iterations` times: every rank computes
// for the phase's compute time, then posts its messages of the iteration; a rank's iteration
// ends when its own messages are delivered and those sent to it in that iteration have arrived
// (MPI_Waitall), and it goes straight on to its next iteration. No global barrier: ranks drift
// apart as far as their partners allow, except at a phase with barrier_before. A message is
// sent when its source rank posts it: the receiver's readiness is not modelled (eager protocol).
//
// Routes: a RouteSource says which links a message between two nodes takes: the LFTs, the LFTs
// and the controller's flow tables as the fabric would hold them (its flows re-routed when the
// controller re-routes the job), or an adaptive routing that looks at the links' utilisation. A
// route is chosen when the message enters the engine (its NIC admits it), so adaptive choices see
// the fabric as it is then.
//
// Jobs start at their start time once every node they were given is free of earlier jobs (in
// the order of start time, then id): when congestion stretches a job, the jobs after it on its
// nodes wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/lft.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "routing/patterns/pattern_spec.hpp"
#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/flowmodel/flow_engine.hpp"
#include "sim_backend/timing/adaptive_routes.hpp"

namespace ibsdn {

/// NIC message scheduling (thesis 3.1).
struct NicPolicy {
  enum class Kind : std::uint8_t { kFcfs, kRoundRobin, kRoundRobinN };
  static constexpr std::uint32_t kMaxN = 4096;
  Kind kind = Kind::kFcfs;
  std::uint32_t n = 0;  // kRoundRobinN: 1..kMaxN
  /// "fcfs", "rr" or "rr-N". Throws std::invalid_argument saying what is accepted.
  static NicPolicy parse(std::string_view text);
  [[nodiscard]] std::string to_string() const;
  /// How many messages one NIC has in flight at most (SIZE_MAX for RR).
  [[nodiscard]] std::size_t limit() const;
  bool operator==(const NicPolicy&) const = default;
};

/// One phase of a job's program, repeated `iterations` times.
struct TimingPhase {
  std::string name;
  std::uint32_t iterations = 1;
  /// No rank starts this phase before every rank has finished the one before (a barrier of no
  /// cost); without it each rank moves on when its own part is done.
  bool barrier_before = false;
  /// Seconds each rank computes at the start of an iteration: one value for every rank, or one
  /// per rank.
  std::vector<double> compute{0.0};
  /// What the ranks send in one iteration (bytes > 0, src != dst, both < the job's ranks).
  std::vector<RankFlow> messages;
  /// Empty, or one flag per message: 1 for a collective's (AppPhase::collective).
  std::vector<std::uint8_t> collective;
};

/// Seed 004's uniform random background traffic, as a job without phases: every node of the job
/// sends a message of `bytes` to a node of the job drawn uniformly among the others, one every
/// bytes / (load x the node's link bandwidth) seconds from a random offset within the first
/// period (open loop: injection does not wait for deliveries). An injection that finds
/// kMaxQueued of the node's messages undelivered is skipped (a full send queue). It injects
/// until `duration` after its start, or with duration 0 until every job that is not background
/// has ended; the run ends then, whatever background messages are still in flight.
struct BackgroundTraffic {
  static constexpr std::uint32_t kMaxQueued = 16;
  double bytes = 0;        // per message, > 0, at most kMaxAppMessageBytes
  double load = 0;         // (0, 1]: the share of the node's link bandwidth offered
  double duration = 0;     // seconds, >= 0
  std::uint64_t seed = 0;  // destinations and offsets
  std::uint64_t max_messages = 10'000'000;  // injected at most; then it stops injecting
};

struct TimingJob {
  std::uint64_t id = 0;  // distinct
  double start = 0;      // seconds, >= 0: the earliest start
  std::vector<NodeIdx> nodes;
  std::uint32_t ranks_per_node = 1;
  std::uint32_t ranks = 0;  // 0: nodes x ranks_per_node
  Mapping mapping = Mapping::kBlock;
  std::vector<TimingPhase> phases;
  /// The traffic class (FlowModelOptions::classes) of its messages, and of its collectives'
  /// (TimingPhase::collective) when collective_class is set.
  std::uint8_t traffic_class = 0;
  std::optional<std::uint8_t> collective_class;
  /// A background job: no phases, one sender per node (BackgroundTraffic).
  std::optional<BackgroundTraffic> background;
  [[nodiscard]] std::uint32_t rank_count() const;
};

/// The network links as the messages in flight use them, when a route is chosen (LinkId order).
struct LinkState {
  /// The rate crossing each link over its bandwidth, as the last re-solve left them.
  std::span<const double> utilisation;
  /// The messages routed over each link: 1 per message, 1/k per route of a message split over
  /// k, scaled by the fabric's fastest link's bandwidth over the link's (LinkFlowLoads,
  /// adaptive_routes.hpp); counted from the moment a route is chosen, so messages admitted at one
  /// instant see each other before any re-solve.
  std::span<const double> flows;
};

/// A program of the application model (app_model.hpp) as the simulator's phases.
std::vector<TimingPhase> timing_phases(const AppProgram& program);

/// Where a message between two nodes goes. One source serves one simulation.
class RouteSource {
 public:
  virtual ~RouteSource() = default;
  /// Before a job's first message; returns its status ("ok", "degraded", "refused: ...").
  virtual std::string job_started(const TimingJob& job, std::span<const NodeIdx> rank_node,
                                  double now) = 0;
  virtual void job_ended(std::uint64_t job, double now) = 0;
  /// The routes (one, or several to split the message over) from node `src` to node `dst` for
  /// a message of `job`, appended to `out`, given the links as they are used now.
  virtual void routes(std::uint64_t job, NodeIdx src, NodeIdx dst, const LinkState& links,
                      std::vector<std::vector<LinkId>>& out) = 0;
  /// The jobs whose routes changed since the last call (a controller re-routed them): their
  /// messages in flight move to the new routes.
  virtual std::vector<std::uint64_t> take_changed() { return {}; }
};

/// Routes through the LFTs alone (what the fabric does without a controller), traced once per
/// node pair.
std::unique_ptr<RouteSource> lft_routes(const Fabric& fabric, const LftSet& lfts);

/// The fabric's adaptive routing at flow granularity (adaptive_routes.hpp): a split over up-ports
/// on a fat-tree, UGAL or PAR on a dragonfly or megafly, decided on LinkState::flows. Throws
/// std::invalid_argument for a fabric that is neither.
std::unique_ptr<RouteSource> adaptive_routes(const Fabric& fabric,
                                             const AdaptiveRoutingOptions& options = {});

/// A message as it went, reported at its delivery (TimingOptions::on_delivered).
struct DeliveredMessage {
  std::uint64_t job = 0;
  std::uint32_t src = 0;  // ranks
  std::uint32_t dst = 0;
  NodeIdx src_node{};
  NodeIdx dst_node{};
  double bytes = 0;
  double posted = 0;     // its rank posted it
  double admitted = 0;   // its NIC let it into the network (posted, for a GPU link message)
  double delivered = 0;  // its last byte arrived
  bool network = false;  // false: a GPU link between two ranks of one node
  /// The engine links it crossed: network LinkIds, or one GPU link (>= the fabric's links).
  std::span<const std::vector<LinkId>> routes;
};

struct TimingOptions {
  NicPolicy nic;
  double gpu_link_factor = 2.0;        // GPU pair links: x the node's network link bandwidth
  double link_latency = 0;             // seconds, every directed network link
  double gpu_link_latency = 0;         // seconds, every GPU pair link
  FlowModelOptions flow;               // sharing, re-solve, traffic classes
  double sample_interval = 0;          // > 0: network link bytes per interval (utilisation)
  std::uint32_t max_samples = 10'000;  // intervals sampled at most: the first ones
  /// Called at every delivery, in delivery order (ties by message), when set.
  std::function<void(const DeliveredMessage&)> on_delivered;
};

/// A background job's (TimingJob::background) messages are its `messages`, `network_bytes` the
/// bytes delivered; `comm_time` is their mean time from injection to delivery, `max_comm_time`
/// the longest (seed 004's measure of the background), `compute_time` 0, `end` when it stopped.
struct TimedJob {
  std::uint64_t id = 0;
  double start = 0;
  double end = 0;
  std::uint32_t ranks = 0;
  double compute_time = 0;   // the most any rank computed, seconds
  double comm_time = 0;      // ranks' mean time not computing (waiting for messages)
  double max_comm_time = 0;  // the longest any rank waited
  std::uint64_t messages = 0;
  double network_bytes = 0;
  double gpu_link_bytes = 0;     // between ranks of one node
  std::uint64_t skipped = 0;     // background: injections skipped, the node's queue full
  std::uint64_t unfinished = 0;  // background: messages still in flight when the run ended
  std::string status = "ok";
  [[nodiscard]] double total_time() const { return end - start; }
};

/// Network link bytes in one interval [index x interval, (index + 1) x interval).
struct LinkSample {
  std::uint32_t interval = 0;
  LinkId link{};
  double bytes = 0;
};

struct TimingResult {
  std::vector<TimedJob> jobs;  // in the order given
  double makespan = 0;         // when the last job ended
  std::uint64_t messages = 0;
  FlowRunStats stats;
  std::vector<double> link_bytes;   // per network link, the whole run
  double sample_interval = 0;       // as used
  std::vector<LinkSample> samples;  // links with bytes only, by interval then link
};

/// Runs `jobs` on `fabric`. Throws std::invalid_argument naming the job for a bad job (an id
/// twice, no nodes, a node not an HCA, more ranks than places, a message out of range, a bad
/// phase) and std::runtime_error when a route source cannot route a message.
TimingResult simulate_timing(const Fabric& fabric, std::span<const TimingJob> jobs,
                             RouteSource& routes, const TimingOptions& options = {});

}  // namespace ibsdn
