// The application model of the flow-level timing simulator (docs/simulation-timing.md): what each
// rank of a job computes and sends, iteration by iteration. generate_app(spec, ranks, seed) turns
// an AppSpec (app_spec.hpp) into an AppProgram, deterministically: the same spec, rank count and
// seed give the same program on every platform (random draws use PatternRng).
//
// A program is a sequence of phases; a phase is `iterations` repetitions of one step: every rank
// computes (compute_s[rank] seconds), then exchanges the phase's messages.
//
// How a simulator runs a program (MPI_Isend / MPI_Irecv / MPI_Waitall, thesis Fig 2.5):
// - Rank r, iteration k of phase p: compute compute_s[r]; then post at once every message of the
//   phase with src == r (its sends, in the order they appear in `messages`: the order its NIC
//   queues them, which FCFS and RR-N scheduling follow) and expect every message with dst == r
//   (its receives); then wait until all of them are done: each of its sends delivered (the last
//   byte arrived at the destination) and each of its receives arrived. Only then does r start the
//   compute of iteration k + 1 (or of the next phase).
// - A message of iteration k starts when its sender posts it. Receives count as pre-posted (no
//   rendezvous handshake is modelled): a message that reaches a rank still busy with an earlier
//   iteration is held, without cost, for the iteration it belongs to; messages are matched by
//   (phase, iteration, position in `messages`), never across iterations.
// - A rank with no message in a phase only computes, iteration after iteration; a phase without
//   messages (the compute gap of the phased workloads) is compute only.
// - barrier_before: no rank starts the phase before every rank has finished the previous one (a
//   global barrier of no cost; thesis 4.4.2 separates the phases of its mixed workloads so).
//   Without it a rank moves on as soon as it is done with its own part of the previous phase.
// - The job ends when every rank has finished the last iteration of the last phase.
//
// GPU compute scaling (thesis 3.1-3.2): one rank is one GPU. The traces were CPU traces; the
// thesis divides their compute regions by a per-application factor to emulate GPUs, which moves
// Fig 3.1's shares from left to right. Here compute_s = base compute / gpu_speedup for every
// compute period of the program (the gap of the phased workloads too). The compute of a rank does
// not depend on how many GPUs share a node: the thesis keeps the GPU count (2048) fixed and
// changes only the GPUs per node, so what GPUs per node change is the network share per GPU (more
// ranks per NIC, and messages between GPUs of one node on the node's GPU link), which is the
// simulator's part (rank to node mapping), not the program's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "routing/patterns/pattern_spec.hpp"
#include "sim_backend/apps/app_spec.hpp"

namespace ibsdn {

/// The thesis' base link bandwidth x (3.1: 11.9 GB/s, EDR as on Quartz), bytes per second: the
/// bandwidth at which the skeletons' defaults give Fig 3.1's shares.
inline constexpr double kThesisLinkBandwidth = 11.9e9;
/// The rank count of Fig 3.1, at which the skeletons' shares are stated.
inline constexpr std::uint32_t kAppReferenceRanks = 32;

struct AppPhase {
  std::string name;  // "halo", "perm-a", "gap", ... (phase hints for the controller, reports)
  std::uint32_t iterations = 1;
  bool barrier_before = false;
  /// Compute per iteration, seconds, per rank (size == ranks), GPU speedup applied.
  std::vector<double> compute_s;
  /// One iteration's messages: src != dst, both < ranks, bytes > 0. Ordered by source rank and,
  /// within one source, in posting order. A pair may appear more than once (two messages; a
  /// stencil on an extent of 2 sends to the same neighbour as +1 and as -1).
  std::vector<RankFlow> messages;
  /// Which messages belong to a collective (the allreduces): empty when none, else one flag per
  /// message (1: collective). A job may send them in a traffic class of their own (seed 004).
  std::vector<std::uint8_t> collective;
};

struct AppProgram {
  std::string app;  // the spec's canonical text
  std::uint32_t ranks = 0;
  double gpu_speedup = 1;
  std::vector<AppPhase> phases;
};

/// The program of `spec` for `ranks` ranks. Checks everything before generating: the spec
/// (validate()), 1 <= ranks <= kMaxAppRanks, the grid against the rank count, and
/// app_message_bound() <= kMaxAppMessages. Throws std::invalid_argument naming the app and the
/// option or limit ("app 'subcomm3d': option dims: 2x2x3 holds 12 ranks, the job has 8").
AppProgram generate_app(const AppSpec& spec, std::uint32_t ranks, std::uint64_t seed);

/// An upper bound on the messages of one pass of the program (every phase once), computed from
/// the spec and rank count alone, without generating (a matrix: from its file's size). Throws
/// like generate_app for a spec or grid that does not fit the rank count.
std::uint64_t app_message_bound(const AppSpec& spec, std::uint32_t ranks);

enum class TrafficSpan : std::uint8_t {
  kOnePass,   // every phase's messages once: one iteration of each phase
  kWholeRun,  // every phase's messages times its iterations
};

/// The job's traffic as rank pairs: the messages of the span with the same (src, dst) summed,
/// ordered by source then destination; every pair once, src != dst, bytes > 0: the patterns'
/// contract (pattern.hpp), so the static load model and the controller can take it as they take
/// a pattern's flows (to_fabric_flows() in routing/patterns/mapping.hpp makes host pairs of it,
/// dropping intra-node pairs). The timing model sends exactly these pairs, so the two agree on
/// which links are loaded. Throws std::overflow_error when a pair's sum exceeds 2^64-1.
std::vector<RankFlow> aggregate_rank_traffic(const AppProgram& program,
                                             TrafficSpan span = TrafficSpan::kOnePass);
/// The same for one phase's iteration.
std::vector<RankFlow> phase_rank_traffic(const AppPhase& phase);

/// What a program costs without contention, analytically: per phase, the slowest rank's compute
/// and the largest volume one rank injects or receives (max over ranks of max(bytes sent, bytes
/// received)) over `bandwidth` (bytes/s), times the phase's iterations, summed over the phases.
/// The compute/communication ratio of thesis Fig 3.1 is comm_s / (compute_s + comm_s).
struct AppProfile {
  double compute_s = 0;
  double comm_s = 0;
  [[nodiscard]] double comm_share() const {
    const double total = compute_s + comm_s;
    return total > 0 ? comm_s / total : 0;
  }
};
AppProfile estimate_profile(const AppProgram& program, double bandwidth);

}  // namespace ibsdn
