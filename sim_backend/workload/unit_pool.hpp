// The free capacity of allocation units (nodes, routers, chassis, groups, leaf switches): which
// units are wholly free, which partly, and the lowest or a uniformly drawn one of each kind, all
// in O(1) or a few word scans, because a trace replay asks thousands of times on fabrics of
// hundreds of thousands of nodes.
#pragma once

#include <cstdint>
#include <vector>

namespace ibsdn {

inline constexpr std::uint32_t kNoUnit = 0xFFFFFFFFu;

/// A set of indexes of [0, universe) with O(1) insert, erase and access by position: what a
/// uniform draw needs. The order of members follows the history of inserts and erases, so it is
/// the same for the same history.
class IndexSet {
 public:
  explicit IndexSet(std::uint32_t universe) : pos_(universe, kNoUnit) {}
  void insert(std::uint32_t u);
  void erase(std::uint32_t u);
  [[nodiscard]] bool contains(std::uint32_t u) const { return pos_[u] != kNoUnit; }
  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(items_.size()); }
  [[nodiscard]] bool empty() const { return items_.empty(); }
  [[nodiscard]] std::uint32_t at(std::uint32_t i) const { return items_[i]; }

 private:
  std::vector<std::uint32_t> items_;
  std::vector<std::uint32_t> pos_;
};

/// A bitset that finds the next set bit at or after an index by skipping empty 64-bit words
/// through a summary word per 64 words: a search touches at most two words plus
/// universe / 4096 summary words (90 for 368,640 nodes).
class SearchBits {
 public:
  explicit SearchBits(std::uint32_t universe);
  void set(std::uint32_t i);
  void reset(std::uint32_t i);
  [[nodiscard]] bool test(std::uint32_t i) const { return (words_[i / 64] >> (i % 64)) & 1u; }
  /// The lowest set bit >= from, kNoUnit when none.
  [[nodiscard]] std::uint32_t next(std::uint32_t from) const;

 private:
  std::uint32_t universe_;
  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> summary_;  // bit w set when words_[w] != 0
};

class UnitPool {
 public:
  /// Units with capacity 0 (a router whose hosts are all missing) are never free.
  explicit UnitPool(std::vector<std::uint32_t> capacity);

  /// Whole: every node free; partial: some; busy: none (or no nodes at all).
  enum class State : std::uint8_t { kWhole, kPartial, kBusy };

  /// One node of unit u becomes busy / free again. Precondition: free(u) > 0 / < capacity(u).
  void take(std::uint32_t u);
  void give(std::uint32_t u);

  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(free_.size()); }
  [[nodiscard]] std::uint32_t free(std::uint32_t u) const { return free_[u]; }
  [[nodiscard]] std::uint32_t capacity(std::uint32_t u) const { return capacity_[u]; }
  [[nodiscard]] State state(std::uint32_t u) const;
  /// The whole or partial units, for uniform draws.
  [[nodiscard]] const IndexSet& in(State s) const;
  /// The lowest whole or partial unit >= from; kNoUnit when none is.
  [[nodiscard]] std::uint32_t next(State s, std::uint32_t from) const;
  /// next(s, from), or else the lowest such unit at all; kNoUnit when none is.
  [[nodiscard]] std::uint32_t next_cyclic(State s, std::uint32_t from) const;

 private:
  void move(std::uint32_t u, State before);

  std::vector<std::uint32_t> capacity_;
  std::vector<std::uint32_t> free_;
  IndexSet whole_set_;
  IndexSet partial_set_;
  SearchBits whole_bits_;
  SearchBits partial_bits_;
};

}  // namespace ibsdn
