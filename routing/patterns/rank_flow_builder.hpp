// Collects the (src, dst) rank pairs a pattern produces and turns them into its flows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "routing/patterns/pattern.hpp"

namespace ibsdn {

/// Drops self pairs, keeps repeated pairs once and orders the result by source, then destination,
/// so that pattern files can add neighbours without checking for coincidences.
class RankFlowBuilder {
 public:
  explicit RankFlowBuilder(std::uint64_t bytes) : bytes_(bytes) {}

  void reserve(std::size_t pairs) { keys_.reserve(pairs); }
  void add(std::uint32_t src, std::uint32_t dst) {
    if (src != dst) keys_.push_back(std::uint64_t{src} << 32 | dst);
  }

  std::vector<RankFlow> take() {
    std::sort(keys_.begin(), keys_.end());
    keys_.erase(std::unique(keys_.begin(), keys_.end()), keys_.end());
    std::vector<RankFlow> out;
    out.reserve(keys_.size());
    for (const std::uint64_t key : keys_) {
      out.push_back(
          {static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), bytes_});
    }
    keys_.clear();
    return out;
  }

 private:
  std::uint64_t bytes_;
  std::vector<std::uint64_t> keys_;
};

}  // namespace ibsdn
