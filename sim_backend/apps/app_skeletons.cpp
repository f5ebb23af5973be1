// The skeletons of the thesis' applications (2.3, 3.2, 4.4.2): the communication structure of one
// iteration of each main loop, with the defaults of apps.def. Which parts of each structure come
// from the thesis and which are assumed: docs/simulation-timing.md, "Applications in the flow
// model".
#include "routing/patterns/pattern.hpp"
#include "sim_backend/apps/app_builders.hpp"

namespace ibsdn {

using app_builders::add_allreduce;
using app_builders::add_mesh_faces;
using app_builders::add_torus_halo;
using app_builders::allreduce_messages_per_rank;
using app_builders::comm_phase;
using app_builders::Grid;
using app_builders::kAllreduceBytes;
using app_builders::Messages;
using app_builders::skeleton_grid;

namespace {

// One phase, `per_rank(out, grid, rank)` giving each rank's messages.
template <typename PerRank>
std::vector<AppPhase> one_phase(const AppSpec& spec, std::uint32_t ranks,
                                std::vector<std::uint32_t> dims, std::uint64_t reserve,
                                PerRank per_rank) {
  const Grid grid(std::move(dims));
  Messages out;
  out.reserve(reserve);
  for (std::uint32_t r = 0; r < ranks; ++r) per_rank(out, grid, r);
  std::vector<AppPhase> phases;
  phases.push_back(comm_phase(spec.name, spec, ranks, out.take()));
  phases.back().collective = out.take_collective();
  return phases;
}

std::uint64_t times(std::uint32_t ranks, std::uint64_t per_rank) {
  return std::uint64_t{ranks} * per_rank;
}

std::uint32_t log_levels(std::uint32_t ranks) {
  return static_cast<std::uint32_t>(allreduce_messages_per_rank(ranks));
}

// AMG's V-cycle: the face halo on the finest level and on two coarser ones, each coarsening
// doubling the distance to the neighbour and quartering the face (assumed, see the docs).
constexpr std::uint32_t kAmgLevels = 3;

// Nekbone's gather-scatter exchanges faces, edges and corners of the spectral elements; with
// N = 16 points along an element edge they carry N^2 : N : 1 points (assumed, see the docs).
constexpr std::uint64_t kNekboneEdgeDivisor = 16;
constexpr std::uint64_t kNekboneCornerDivisor = 256;

std::uint64_t at_least_one(std::uint64_t bytes) {
  return bytes == 0 ? 1 : bytes;
}

}  // namespace

std::vector<AppPhase> generate_app_stencil3d(const AppSpec& spec, std::uint32_t ranks,
                                             std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, default_stencil_dims(ranks, 3)),
                   times(ranks, 6), [&](Messages& out, const Grid& g, std::uint32_t r) {
                     add_torus_halo(out, g, r, spec.bytes);
                   });
}

std::uint64_t app_messages_stencil3d(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, default_stencil_dims(ranks, 3));
  return times(ranks, 6);
}

std::vector<AppPhase> generate_app_stencil4d(const AppSpec& spec, std::uint32_t ranks,
                                             std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, default_stencil_dims(ranks, 4)),
                   times(ranks, 8), [&](Messages& out, const Grid& g, std::uint32_t r) {
                     add_torus_halo(out, g, r, spec.bytes);
                   });
}

std::uint64_t app_messages_stencil4d(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, default_stencil_dims(ranks, 4));
  return times(ranks, 8);
}

// Subcomm3d: the x, y and z lines of the grid are sub-communicators; each runs an all-to-all of
// `bytes` per pair, the three at once (MPI_Ialltoall on each, one MPI_Waitall).
std::uint64_t app_messages_subcomm3d(const AppSpec& spec, std::uint32_t ranks) {
  const std::vector<std::uint32_t> dims = skeleton_grid(spec, ranks, most_cubic(ranks, 3));
  return times(ranks, std::uint64_t{dims[0]} + dims[1] + dims[2] - 3);
}

std::vector<AppPhase> generate_app_subcomm3d(const AppSpec& spec, std::uint32_t ranks,
                                             std::uint64_t /*seed*/) {
  const std::vector<std::uint32_t> dims = skeleton_grid(spec, ranks, most_cubic(ranks, 3));
  return one_phase(spec, ranks, dims, app_messages_subcomm3d(spec, ranks),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     for (std::size_t d = 0; d < g.dims(); ++d) {
                       const std::int64_t c = g.coord(r, d);
                       for (std::int64_t other = 0; other < g.extent(d); ++other) {
                         out.add(r, g.step(r, d, other - c, false), spec.bytes);
                       }
                     }
                   });
}

// Kripke: a KBA sweep over the 8 octants passes angular fluxes across every face of a rank's
// zone set; over one iteration that is one message per face neighbour (the wavefront order of
// the sweep is not modelled: all are posted at once).
std::vector<AppPhase> generate_app_kripke(const AppSpec& spec, std::uint32_t ranks,
                                          std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, most_cubic(ranks, 3)), times(ranks, 6),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     add_mesh_faces(out, g, r, spec.bytes, 1);
                   });
}

std::uint64_t app_messages_kripke(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, most_cubic(ranks, 3));
  return times(ranks, 6);
}

// Laghos: face exchanges of the domain decomposition and the MPI_Allreduce of Fig 2.6.
std::vector<AppPhase> generate_app_laghos(const AppSpec& spec, std::uint32_t ranks,
                                          std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, most_cubic(ranks, 3)),
                   times(ranks, 6 + log_levels(ranks)),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     add_mesh_faces(out, g, r, spec.bytes, 1);
                     add_allreduce(out, r, ranks, kAllreduceBytes);
                   });
}

std::uint64_t app_messages_laghos(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, most_cubic(ranks, 3));
  return times(ranks, 6 + log_levels(ranks));
}

std::vector<AppPhase> generate_app_amg(const AppSpec& spec, std::uint32_t ranks,
                                       std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, most_cubic(ranks, 3)),
                   times(ranks, 6 * kAmgLevels + log_levels(ranks)),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     for (std::uint32_t level = 0; level < kAmgLevels; ++level) {
                       add_mesh_faces(out, g, r, at_least_one(spec.bytes >> (2 * level)),
                                      1u << level);
                     }
                     add_allreduce(out, r, ranks, kAllreduceBytes);
                   });
}

std::uint64_t app_messages_amg(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, most_cubic(ranks, 3));
  return times(ranks, 6 * kAmgLevels + log_levels(ranks));
}

// SW4lite decomposes the domain in the two horizontal directions only.
std::vector<AppPhase> generate_app_sw4lite(const AppSpec& spec, std::uint32_t ranks,
                                           std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, most_cubic(ranks, 2)),
                   times(ranks, 4 + log_levels(ranks)),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     add_mesh_faces(out, g, r, spec.bytes, 1);
                     add_allreduce(out, r, ranks, kAllreduceBytes);
                   });
}

std::uint64_t app_messages_sw4lite(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, most_cubic(ranks, 2));
  return times(ranks, 4 + log_levels(ranks));
}

// MILC: the 4-D lattice is periodic; near-neighbour exchanges and the CG's allreduce (2.3).
std::vector<AppPhase> generate_app_milc(const AppSpec& spec, std::uint32_t ranks,
                                        std::uint64_t /*seed*/) {
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, most_cubic(ranks, 4)),
                   times(ranks, 8 + log_levels(ranks)),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     add_torus_halo(out, g, r, spec.bytes);
                     add_allreduce(out, r, ranks, kAllreduceBytes);
                   });
}

std::uint64_t app_messages_milc(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, most_cubic(ranks, 4));
  return times(ranks, 8 + log_levels(ranks));
}

// Nekbone: the 26 neighbours of a box of elements (faces, edges, corners; no wrap-around), in
// lexicographic order of the offset (dx, dy, dz) in {-1, 0, 1}^3, and the allreduce (2.3).
std::vector<AppPhase> generate_app_nekbone(const AppSpec& spec, std::uint32_t ranks,
                                           std::uint64_t /*seed*/) {
  const std::uint64_t sizes[] = {
      0,
      spec.bytes,
      at_least_one(spec.bytes / kNekboneEdgeDivisor),
      at_least_one(spec.bytes / kNekboneCornerDivisor),
  };
  return one_phase(spec, ranks, skeleton_grid(spec, ranks, most_cubic(ranks, 3)),
                   times(ranks, 26 + log_levels(ranks)),
                   [&](Messages& out, const Grid& g, std::uint32_t r) {
                     for (int dx = -1; dx <= 1; ++dx) {
                       for (int dy = -1; dy <= 1; ++dy) {
                         for (int dz = -1; dz <= 1; ++dz) {
                           const int moved = (dx != 0) + (dy != 0) + (dz != 0);
                           if (moved == 0) continue;
                           std::int64_t to = g.step(r, 0, dx, false);
                           if (to >= 0) to = g.step(static_cast<std::uint32_t>(to), 1, dy, false);
                           if (to >= 0) to = g.step(static_cast<std::uint32_t>(to), 2, dz, false);
                           out.add(r, to, sizes[moved]);
                         }
                       }
                     }
                     add_allreduce(out, r, ranks, kAllreduceBytes);
                   });
}

std::uint64_t app_messages_nekbone(const AppSpec& spec, std::uint32_t ranks) {
  skeleton_grid(spec, ranks, most_cubic(ranks, 3));
  return times(ranks, 26 + log_levels(ranks));
}

}  // namespace ibsdn
