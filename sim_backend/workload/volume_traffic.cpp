#include "sim_backend/workload/volume_traffic.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rng.hpp"

namespace ibsdn {
namespace {

constexpr std::array kKinds{VolumeTraffic::kStencil27, VolumeTraffic::kStencilAxes,
                            VolumeTraffic::kCg, VolumeTraffic::kFt, VolumeTraffic::kUnstructured};

/// Log-uniform in [lo, hi]: the draw's top 53 bits as a fraction of the exponent range.
double log_uniform(PatternRng& rng, double lo, double hi) {
  const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  return lo * std::pow(hi / lo, u);
}

/// Collects (src, dst, bytes) and sums repeated pairs: on small tori two offsets can reach the
/// same neighbour, and the CG partners can coincide; the application then sends both messages.
class Accumulator {
 public:
  void add(std::uint32_t src, std::uint32_t dst, double bytes) {
    if (src == dst) return;
    entries_.push_back(
        {std::uint64_t{src} << 32 | dst,
         std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(bytes)))});
  }
  std::vector<RankFlow> take() {
    std::sort(entries_.begin(), entries_.end());
    std::vector<RankFlow> out;
    for (const auto& [key, bytes] : entries_) {
      const auto src = static_cast<std::uint32_t>(key >> 32);
      const auto dst = static_cast<std::uint32_t>(key);
      if (!out.empty() && out.back().src == src && out.back().dst == dst) {
        out.back().bytes += bytes;
      } else {
        out.push_back({src, dst, bytes});
      }
    }
    entries_.clear();
    return out;
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> entries_;
};

struct Torus3 {
  std::array<std::uint32_t, 3> dims{};
  [[nodiscard]] std::uint32_t rank(std::array<std::int64_t, 3> c) const {
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      const auto e = static_cast<std::int64_t>(dims[i]);
      r = r * dims[i] + static_cast<std::uint64_t>(((c[i] % e) + e) % e);
    }
    return static_cast<std::uint32_t>(r);
  }
  [[nodiscard]] std::array<std::int64_t, 3> coords(std::uint32_t r) const {
    return {r / (dims[1] * dims[2]), (r / dims[2]) % dims[1], r % dims[2]};
  }
};

Torus3 most_cubic_torus(std::uint32_t ranks) {
  const std::vector<std::uint32_t> d = most_cubic(ranks, 3);
  return Torus3{{d[0], d[1], d[2]}};
}

std::vector<RankFlow> stencil27(std::uint32_t ranks, PatternRng& rng) {
  constexpr double kCellBytes = 64;
  constexpr double kEdgeCells = 32;
  const Torus3 t = most_cubic_torus(ranks);
  Accumulator out;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const double scale = log_uniform(rng, 0.8, 1.25);
    const auto c = t.coords(r);
    for (int dx = -1; dx <= 1; ++dx) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dz = -1; dz <= 1; ++dz) {
          const int moved = (dx != 0) + (dy != 0) + (dz != 0);
          if (moved == 0) continue;
          // A face shares n^2 cells, an edge n, a corner 1.
          const double cells = std::pow(kEdgeCells, 3 - moved);
          out.add(r, t.rank({c[0] + dx, c[1] + dy, c[2] + dz}), cells * kCellBytes * scale);
        }
      }
    }
  }
  return out.take();
}

std::vector<RankFlow> stencil_axes(std::uint32_t ranks, PatternRng& rng) {
  constexpr double kCellBytes = 8;
  constexpr std::array<double, 3> kCells{2, 32, 2048};  // subdomain extent along each axis
  const Torus3 t = most_cubic_torus(ranks);
  Accumulator out;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const double scale = log_uniform(rng, 0.8, 1.25);
    const auto c = t.coords(r);
    for (std::size_t axis = 0; axis < 3; ++axis) {
      const double face = kCells[0] * kCells[1] * kCells[2] / kCells[axis];
      for (const int step : {-1, 1}) {
        auto n = c;
        n[axis] += step;
        out.add(r, t.rank(n), face * kCellBytes * scale);
      }
    }
  }
  return out.take();
}

std::vector<RankFlow> cg(std::uint32_t ranks, PatternRng& rng) {
  constexpr double kSegmentBytes = 1 << 20;
  constexpr std::uint32_t kLightPartners = 8;
  std::uint32_t rows = 1;
  for (std::uint32_t d = 1; std::uint64_t{d} * d <= ranks; ++d) {
    if (ranks % d == 0) rows = d;
  }
  const std::uint32_t cols = ranks / rows;
  const bool pow2 = (cols & (cols - 1)) == 0;
  Accumulator out;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const double segment = kSegmentBytes * log_uniform(rng, 0.8, 1.25);
    const std::uint32_t i = r / cols;
    const std::uint32_t j = r % cols;
    // NAS CG's exchange with the transposed block; with cols = k * rows the k column blocks
    // each pair with one row block. Grids that are not such a multiple pair across the middle.
    const std::uint32_t transpose =
        cols % rows == 0 ? (j % rows) * cols + i + rows * (j / rows) : (r + ranks / 2) % ranks;
    out.add(r, transpose, segment);
    double part = segment / 2;
    for (std::uint32_t step = 1; step < cols; step *= 2, part /= 2) {
      const std::uint32_t partner = pow2 ? (j ^ step) : (j + step) % cols;
      out.add(r, i * cols + partner, part);
    }
    const std::uint32_t light = std::min(kLightPartners, ranks - 1);
    for (const std::uint32_t k : rng.distinct(ranks - 1, light)) {
      out.add(r, k < r ? k : k + 1, segment * log_uniform(rng, 1.0 / 4096, 1.0 / 64));
    }
  }
  return out.take();
}

std::vector<RankFlow> ft(std::uint32_t ranks, PatternRng& rng) {
  Accumulator out;
  for (std::uint32_t s = 0; s < ranks; ++s) {
    for (std::uint32_t d = 0; d < ranks; ++d) {
      if (s != d) out.add(s, d, log_uniform(rng, 1024, 1024 * 1024));
    }
  }
  return out.take();
}

std::vector<RankFlow> unstructured(std::uint32_t ranks, PatternRng& rng) {
  constexpr std::uint32_t kWindow = 24;
  Accumulator out;
  for (std::uint32_t r = 0; r + 1 < ranks; ++r) {
    const std::uint32_t window = std::min(kWindow, ranks - 1 - r);
    const std::uint32_t count = std::min(rng.between(2, 6), window);
    for (const std::uint32_t k : rng.distinct(window, count)) {
      const double face = log_uniform(rng, 256, 256 * 1024);
      out.add(r, r + 1 + k, face);
      out.add(r + 1 + k, r, face);
    }
  }
  return out.take();
}

}  // namespace

std::span<const VolumeTraffic> volume_traffic_kinds() {
  return kKinds;
}

std::string_view to_string(VolumeTraffic kind) {
  switch (kind) {
    case VolumeTraffic::kStencil27:
      return "stencil27";
    case VolumeTraffic::kStencilAxes:
      return "stencil-axes";
    case VolumeTraffic::kCg:
      return "cg";
    case VolumeTraffic::kFt:
      return "ft";
    case VolumeTraffic::kUnstructured:
      return "unstructured";
  }
  return "?";
}

std::vector<RankFlow> volume_traffic(VolumeTraffic kind, std::uint32_t ranks, std::uint64_t seed) {
  if (ranks < 2) {
    throw std::invalid_argument("volume traffic " + std::string(to_string(kind)) +
                                ": needs at least 2 ranks, not " + std::to_string(ranks));
  }
  PatternRng rng(seed);
  switch (kind) {
    case VolumeTraffic::kStencil27:
      return stencil27(ranks, rng);
    case VolumeTraffic::kStencilAxes:
      return stencil_axes(ranks, rng);
    case VolumeTraffic::kCg:
      return cg(ranks, rng);
    case VolumeTraffic::kFt:
      return ft(ranks, rng);
    case VolumeTraffic::kUnstructured:
      return unstructured(ranks, rng);
  }
  throw std::invalid_argument("volume traffic: unknown kind");
}

}  // namespace ibsdn
