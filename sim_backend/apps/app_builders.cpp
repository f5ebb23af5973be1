#include "sim_backend/apps/app_builders.hpp"

#include <stdexcept>
#include <utility>

#include "routing/patterns/grid.hpp"

namespace ibsdn::app_builders {

std::vector<std::uint32_t> skeleton_grid(const AppSpec& spec, std::uint32_t ranks,
                                         std::vector<std::uint32_t> fallback) {
  std::vector<std::uint32_t> dims = spec.dims.empty() ? std::move(fallback) : spec.dims;
  const std::uint64_t points = grid_points(dims);
  if (points != ranks) {
    throw std::invalid_argument("app '" + spec.name + "': option dims: " + dims_to_string(dims) +
                                " holds " + std::to_string(points) + " ranks, the job has " +
                                std::to_string(ranks));
  }
  return dims;
}

std::vector<double> uniform_compute(double base_s, const AppSpec& spec, std::uint32_t ranks) {
  return std::vector<double>(ranks, base_s / spec.gpu_speedup);
}

AppPhase comm_phase(std::string name, const AppSpec& spec, std::uint32_t ranks,
                    std::vector<RankFlow> messages) {
  AppPhase phase;
  phase.name = std::move(name);
  phase.iterations = spec.iterations;
  phase.compute_s = uniform_compute(spec.compute_s, spec, ranks);
  phase.messages = std::move(messages);
  return phase;
}

AppPhase gap_phase(const AppSpec& spec, std::uint32_t ranks) {
  AppPhase phase;
  phase.name = "gap";
  phase.iterations = 1;
  phase.barrier_before = true;
  phase.compute_s = uniform_compute(spec.gap_s, spec, ranks);
  return phase;
}

Grid::Grid(std::vector<std::uint32_t> extents)
    : extents_(std::move(extents)), strides_(extents_.size(), 1) {
  for (std::size_t d = extents_.size(); d-- > 1;) strides_[d - 1] = strides_[d] * extents_[d];
}

std::uint32_t Grid::coord(std::uint32_t rank, std::size_t d) const {
  return rank / strides_[d] % extents_[d];
}

std::int64_t Grid::step(std::uint32_t rank, std::size_t d, std::int64_t delta, bool wrap) const {
  const std::int64_t e = extents_[d];
  const std::int64_t c = coord(rank, d);
  std::int64_t to = c + delta;
  if (wrap) {
    to = ((to % e) + e) % e;
  } else if (to < 0 || to >= e) {
    return -1;
  }
  return static_cast<std::int64_t>(rank) + (to - c) * static_cast<std::int64_t>(strides_[d]);
}

void add_torus_halo(Messages& out, const Grid& grid, std::uint32_t rank, std::uint64_t bytes) {
  for (std::size_t d = 0; d < grid.dims(); ++d) {
    out.add(rank, grid.step(rank, d, +1, true), bytes);
    out.add(rank, grid.step(rank, d, -1, true), bytes);
  }
}

void add_mesh_faces(Messages& out, const Grid& grid, std::uint32_t rank, std::uint64_t bytes,
                    std::uint32_t distance) {
  for (std::size_t d = 0; d < grid.dims(); ++d) {
    out.add(rank, grid.step(rank, d, distance, false), bytes);
    out.add(rank, grid.step(rank, d, -static_cast<std::int64_t>(distance), false), bytes);
  }
}

void add_allreduce(Messages& out, std::uint32_t rank, std::uint32_t ranks, std::uint64_t bytes) {
  for (std::uint64_t hop = 1; hop < ranks; hop *= 2) {
    out.add(rank, static_cast<std::int64_t>((rank + hop) % ranks), bytes, true);
  }
}

std::uint64_t allreduce_messages_per_rank(std::uint32_t ranks) {
  std::uint64_t n = 0;
  for (std::uint64_t hop = 1; hop < ranks; hop *= 2) ++n;
  return n;
}

}  // namespace ibsdn::app_builders
