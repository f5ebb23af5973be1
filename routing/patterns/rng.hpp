// The seeded random source of the random patterns and of the simulator's random node allocation.
//
// Our own generator instead of <random>'s distributions: std::uniform_int_distribution gives
// different numbers on different standard libraries, and a pattern must give the same flows for
// the same seed everywhere (a controller on another host re-derives a job's flows from its seed).
// SplitMix64 (Steele, Lea and Flood, 2014) is a few lines, passes BigCrush, and accepts any seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace ibsdn {

class PatternRng {
 public:
  explicit PatternRng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, bound), bound > 0. Draws below 2^64 mod bound are rejected, so that the
  /// remaining range is a whole number of buckets and the result has no modulo bias.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t short_bucket = (0 - bound) % bound;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= short_bucket) return r % bound;
    }
  }

  /// Uniform in [lo, hi], lo <= hi.
  std::uint32_t between(std::uint32_t lo, std::uint32_t hi) {
    return lo + static_cast<std::uint32_t>(below(std::uint64_t{hi} - lo + 1));
  }

  /// `count` distinct values of [0, population), every subset equally likely, in draw order.
  /// Floyd's algorithm: exactly `count` draws whatever the population, no rejection loop.
  std::vector<std::uint32_t> distinct(std::uint32_t population, std::uint32_t count) {
    std::vector<std::uint32_t> out;
    out.reserve(count);
    // A linear scan beats hashing for the usual handful of partners.
    constexpr std::uint32_t kScanLimit = 32;
    std::unordered_set<std::uint32_t> seen;
    for (std::uint32_t j = population - count; j < population; ++j) {
      const auto t = static_cast<std::uint32_t>(below(std::uint64_t{j} + 1));
      const bool taken = count <= kScanLimit ? std::find(out.begin(), out.end(), t) != out.end()
                                             : seen.contains(t);
      const std::uint32_t pick = taken ? j : t;
      out.push_back(pick);
      if (count > kScanLimit) seen.insert(pick);
    }
    return out;
  }

 private:
  std::uint64_t state_;
};

}  // namespace ibsdn
