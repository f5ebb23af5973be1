// The phased workloads of thesis 4.4.2, with explicit barriers between their phases (the thesis
// synchronises them "so that each communication phase is fully completed before the next
// begins").
#include <stdexcept>

#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rng.hpp"
#include "sim_backend/apps/app_builders.hpp"

namespace ibsdn {

using app_builders::add_torus_halo;
using app_builders::comm_phase;
using app_builders::gap_phase;
using app_builders::Grid;
using app_builders::Messages;

namespace {

// Draws of the second permutation before giving up. Two uniform derangements agree on no rank
// with probability about 1/e (at least 1/2 for 3 ranks), so 1000 draws all fail with
// probability below 0.69^1000.
constexpr int kMaxPermutationDraws = 1000;

std::vector<RankFlow> permutation(const AppSpec& spec, std::uint32_t ranks, std::uint64_t seed) {
  PatternSpec p;
  p.name = "random-perm";
  p.bytes = spec.bytes;
  return generate_pattern(p, ranks, seed);
}

// A, gap, B, then for every further round gap, A, gap, B; every phase after the first waits for a
// barrier.
std::vector<AppPhase> rounds_of(const AppSpec& spec, std::uint32_t ranks, const AppPhase& a,
                                const AppPhase& b) {
  std::vector<AppPhase> out;
  for (std::uint32_t round = 0; round < spec.rounds; ++round) {
    if (round > 0) out.push_back(gap_phase(spec, ranks));
    out.push_back(a);
    out.back().barrier_before = round > 0;
    out.push_back(gap_phase(spec, ranks));
    out.push_back(b);
    out.back().barrier_before = true;
  }
  return out;
}

std::vector<RankFlow> torus_halo(const std::vector<std::uint32_t>& dims, std::uint32_t ranks,
                                 std::uint64_t bytes) {
  const Grid grid(dims);
  Messages out;
  out.reserve(std::uint64_t{ranks} * 2 * dims.size());
  for (std::uint32_t r = 0; r < ranks; ++r) add_torus_halo(out, grid, r, bytes);
  return out.take();
}

}  // namespace

// Random permutation mixed: phase A is the random permutation of the job's seed (the same flows
// as `random-perm`), phase B another one in which every rank has a different partner ("each
// communication phase uses a different source-destination pair").
std::vector<AppPhase> generate_app_random_perm_mixed(const AppSpec& spec, std::uint32_t ranks,
                                                     std::uint64_t seed) {
  std::vector<RankFlow> a = permutation(spec, ranks, seed);
  PatternRng seeds(seed);
  for (int draw = 0; draw < kMaxPermutationDraws; ++draw) {
    std::vector<RankFlow> b = permutation(spec, ranks, seeds.next());
    bool differs = true;
    // Both hold one flow per rank, ordered by source: position i is rank i's.
    for (std::size_t i = 0; i < a.size() && differs; ++i) differs = a[i].dst != b[i].dst;
    if (differs) {
      return rounds_of(spec, ranks, comm_phase("perm-a", spec, ranks, std::move(a)),
                       comm_phase("perm-b", spec, ranks, std::move(b)));
    }
  }
  throw std::logic_error("random-perm-mixed: no second permutation after " +
                         std::to_string(kMaxPermutationDraws) + " draws");
}

std::uint64_t app_messages_random_perm_mixed(const AppSpec& spec, std::uint32_t ranks) {
  if (ranks < 3) {
    throw std::invalid_argument("app '" + spec.name + "': needs at least 3 ranks (" +
                                std::to_string(ranks) +
                                " have no two permutations that differ for every rank)");
  }
  return std::uint64_t{2} * ranks * spec.rounds;
}

// Stencil mixed: stencil3d, then stencil4d, on the thesis' grids (8x8x16 and 8x8x4x4 on 1024
// ranks, 8x8x24 and 8x8x6x4 on 1536; the most cubic ones otherwise).
std::vector<AppPhase> generate_app_stencil_mixed(const AppSpec& spec, std::uint32_t ranks,
                                                 std::uint64_t /*seed*/) {
  return rounds_of(spec, ranks,
                   comm_phase("stencil3d", spec, ranks,
                              torus_halo(default_stencil_dims(ranks, 3), ranks, spec.bytes)),
                   comm_phase("stencil4d", spec, ranks,
                              torus_halo(default_stencil_dims(ranks, 4), ranks, spec.bytes)));
}

std::uint64_t app_messages_stencil_mixed(const AppSpec& spec, std::uint32_t ranks) {
  return std::uint64_t{14} * ranks * spec.rounds;
}

// Random permutation third: on the 3:1 tapered tree a leaf's 24 hosts share 8 up-links; keeping
// the flows whose source rank is a multiple of 3 keeps 8 of the 24 flows leaving a leaf when the
// ranks fill the leaves in order ("only eight out of the 24 communication flows passing through a
// leaf router"). The kept flows are those of `random-perm` with the same seed.
std::vector<AppPhase> generate_app_random_perm_third(const AppSpec& spec, std::uint32_t ranks,
                                                     std::uint64_t seed) {
  std::vector<RankFlow> kept;
  for (const RankFlow& f : permutation(spec, ranks, seed)) {
    if (f.src % 3 == 0) kept.push_back(f);
  }
  std::vector<AppPhase> out;
  out.push_back(comm_phase(spec.name, spec, ranks, std::move(kept)));
  return out;
}

std::uint64_t app_messages_random_perm_third(const AppSpec& /*spec*/, std::uint32_t ranks) {
  return ranks;
}

}  // namespace ibsdn
