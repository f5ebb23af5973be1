#include "routing/patterns/grid.hpp"

#include <limits>
#include <stdexcept>

#include "routing/patterns/pattern.hpp"

namespace ibsdn {
namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kSaturated / a) return kSaturated;
  return a * b;
}

std::uint64_t saturating_pow(std::uint64_t base, unsigned k) {
  std::uint64_t p = 1;
  for (unsigned i = 0; i < k; ++i) p = saturating_mul(p, base);
  return p;
}

// Depth-first over ascending factor tuples drawn from the divisors of n; `best` is ascending too,
// so comparing from the back compares largest factors first.
void search_factorizations(const std::vector<std::uint32_t>& divisors, std::uint32_t remaining,
                           std::size_t slots, std::size_t first, std::vector<std::uint32_t>& tuple,
                           std::vector<std::uint32_t>& best) {
  if (slots == 1) {
    if (!tuple.empty() && remaining < tuple.back()) return;
    tuple.push_back(remaining);
    if (best.empty() ||
        std::lexicographical_compare(tuple.rbegin(), tuple.rend(), best.rbegin(), best.rend())) {
      best = tuple;
    }
    tuple.pop_back();
    return;
  }
  for (std::size_t i = first; i < divisors.size(); ++i) {
    const std::uint32_t f = divisors[i];
    // The remaining slots hold factors >= f, so f^slots must not exceed what is left.
    if (saturating_pow(f, static_cast<unsigned>(slots)) > remaining) break;
    if (remaining % f != 0) continue;
    tuple.push_back(f);
    search_factorizations(divisors, remaining / f, slots - 1, i, tuple, best);
    tuple.pop_back();
  }
}

}  // namespace

std::uint32_t ceil_root(std::uint32_t n, unsigned k) {
  if (k == 0) throw std::invalid_argument("ceil_root: k must be at least 1");
  // Binary search on r^k >= n: exact, and cheap for 32-bit n.
  std::uint64_t lo = 0;
  std::uint64_t hi = n;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (saturating_pow(mid, k) >= n) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return static_cast<std::uint32_t>(lo);
}

std::vector<std::uint32_t> most_cubic(std::uint32_t n, std::size_t d) {
  if (n == 0 || d == 0) throw std::invalid_argument("most_cubic: n and d must be at least 1");
  std::vector<std::uint32_t> small;
  std::vector<std::uint32_t> large;
  for (std::uint64_t f = 1; f * f <= n; ++f) {
    if (n % f != 0) continue;
    small.push_back(static_cast<std::uint32_t>(f));
    if (f * f != n) large.push_back(static_cast<std::uint32_t>(n / f));
  }
  std::vector<std::uint32_t> divisors(small);
  divisors.insert(divisors.end(), large.rbegin(), large.rend());
  std::vector<std::uint32_t> tuple;
  std::vector<std::uint32_t> best;
  search_factorizations(divisors, n, d, 0, tuple, best);
  return best;
}

std::uint64_t grid_points(std::span<const std::uint32_t> extents) {
  std::uint64_t p = 1;
  for (const std::uint32_t e : extents) p = saturating_mul(p, e);
  return p;
}

void require_dims_match(std::string_view pattern, std::span<const std::uint32_t> extents,
                        std::uint32_t ranks) {
  const std::uint64_t points = grid_points(extents);
  if (points != ranks) {
    throw std::invalid_argument(
        "pattern '" + std::string(pattern) + "': dims=" + dims_to_string(extents) + " holds " +
        (points == kSaturated ? std::string("too many") : std::to_string(points)) +
        " ranks, but the job has " + std::to_string(ranks));
  }
}

void add_torus_neighbours(RankFlowBuilder& out, std::span<const std::uint32_t> extents,
                          std::uint32_t ranks) {
  const std::size_t d = extents.size();
  if (grid_points(extents) < ranks) {
    throw std::logic_error("add_torus_neighbours: the grid " + dims_to_string(extents) +
                           " is smaller than " + std::to_string(ranks) + " ranks");
  }
  // Row-major strides: the last extent varies fastest.
  std::vector<std::uint64_t> stride(d, 1);
  for (std::size_t i = d; i-- > 1;) stride[i - 1] = stride[i] * extents[i];
  out.reserve(static_cast<std::size_t>(ranks) * 2 * d);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    for (std::size_t i = 0; i < d; ++i) {
      const std::uint64_t e = extents[i];
      if (e == 1) continue;
      const std::uint64_t c = (r / stride[i]) % e;
      const std::uint64_t base = r - c * stride[i];
      for (const std::uint64_t next : {(c + 1) % e, (c + e - 1) % e}) {
        const std::uint64_t neighbour = base + next * stride[i];
        if (neighbour < ranks) out.add(r, static_cast<std::uint32_t>(neighbour));
      }
    }
  }
}

}  // namespace ibsdn
