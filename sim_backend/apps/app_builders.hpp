// What the app generators (app_skeletons.cpp, app_phased.cpp) share: process grids and the
// messages of halos, all-to-alls and allreduces, in each rank's posting order. Internal to
// sim_backend/.
//
// Grids are numbered as the patterns number them (pattern.hpp): row-major, the last extent
// fastest, so on A x B x C rank = (a * B + b) * C + c.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim_backend/apps/app_model.hpp"

namespace ibsdn::app_builders {

/// The skeleton's grid: spec.dims, or else `fallback`; throws std::invalid_argument ("app 'x':
/// option dims: 2x2x3 holds 12 ranks, the job has 8") unless its points are `ranks`.
std::vector<std::uint32_t> skeleton_grid(const AppSpec& spec, std::uint32_t ranks,
                                         std::vector<std::uint32_t> fallback);

/// Every rank's compute per iteration, base / GPU speedup.
std::vector<double> uniform_compute(double base_s, const AppSpec& spec, std::uint32_t ranks);

/// A phase of spec.iterations iterations with spec's compute.
AppPhase comm_phase(std::string name, const AppSpec& spec, std::uint32_t ranks,
                    std::vector<RankFlow> messages);
/// A compute-only phase of one iteration: spec.gap_s / GPU speedup on every rank, after a barrier.
AppPhase gap_phase(const AppSpec& spec, std::uint32_t ranks);

/// A grid's coordinates and steps.
class Grid {
 public:
  explicit Grid(std::vector<std::uint32_t> extents);
  [[nodiscard]] std::size_t dims() const { return extents_.size(); }
  [[nodiscard]] std::uint32_t extent(std::size_t d) const { return extents_[d]; }
  [[nodiscard]] std::uint32_t coord(std::uint32_t rank, std::size_t d) const;
  /// The rank `delta` steps from `rank` along d: with wrap-around (torus), or -1 when it falls
  /// off the grid (mesh).
  [[nodiscard]] std::int64_t step(std::uint32_t rank, std::size_t d, std::int64_t delta,
                                  bool wrap) const;

 private:
  std::vector<std::uint32_t> extents_;
  std::vector<std::uint32_t> strides_;
};

/// Rank `src`'s messages, appended in posting order; a message to `src` itself is dropped.
class Messages {
 public:
  void reserve(std::size_t n) { out_.reserve(n); }
  void add(std::uint32_t src, std::int64_t dst, std::uint64_t bytes, bool collective = false) {
    if (dst >= 0 && static_cast<std::uint32_t>(dst) != src) {
      out_.push_back({src, static_cast<std::uint32_t>(dst), bytes});
      if (collective && flags_.empty()) flags_.assign(out_.size() - 1, 0);
      if (!flags_.empty()) flags_.push_back(collective ? 1 : 0);
    }
  }
  /// The messages and their AppPhase::collective flags (empty when none is collective).
  std::vector<RankFlow> take() { return std::move(out_); }
  std::vector<std::uint8_t> take_collective() { return std::move(flags_); }

 private:
  std::vector<RankFlow> out_;
  std::vector<std::uint8_t> flags_;
};

/// The thesis' stencils (Fig 2.5): for each dimension in order, one message to the +1 and one to
/// the -1 neighbour on the torus (on an extent of 2 both go to the same rank; an extent of 1 has
/// none).
void add_torus_halo(Messages& out, const Grid& grid, std::uint32_t rank, std::uint64_t bytes);
/// Face halos of a mesh without wrap-around: for each dimension, +distance then -distance, where
/// they exist.
void add_mesh_faces(Messages& out, const Grid& grid, std::uint32_t rank, std::uint64_t bytes,
                    std::uint32_t distance);
/// A small allreduce as a dissemination exchange: rank r sends `bytes` to (r + 2^k) mod ranks for
/// every 2^k < ranks (ceil(log2 ranks) messages; thesis Fig 2.6's MPI_Allreduce of a double),
/// flagged as a collective.
void add_allreduce(Messages& out, std::uint32_t rank, std::uint32_t ranks, std::uint64_t bytes);
/// The messages of one rank in the allreduce above.
std::uint64_t allreduce_messages_per_rank(std::uint32_t ranks);

/// The bytes of an allreduce message: one double.
inline constexpr std::uint64_t kAllreduceBytes = 8;

}  // namespace ibsdn::app_builders
