// The priority queues of MaxMinSharing's progressive filling (max_min_sharing.hpp): links (or
// flows) by the level at which they saturate. Levels are never negative.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibsdn {

struct LevelEntry {
  double level;
  std::uint32_t index;  // a flow slot or a link
};

/// An indexed 4-ary min-heap of indices below a bound, by (level, index), at most one entry per
/// index. Four children share a cache line or two and the heap is half as deep as a binary one;
/// sifts pick among children with conditional moves, not branches that mispredict half the time.
class IndexedLevelHeap {
 public:
  /// Indices 0 .. n-1 may enter; the heap must be empty.
  void resize(std::size_t n) { pos_.assign(n, kAbsent); }
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] const LevelEntry& top() const { return heap_.front(); }
  [[nodiscard]] bool contains(std::uint32_t i) const { return pos_[i] != kAbsent; }
  /// Index i's level (it must be in the heap).
  [[nodiscard]] double level(std::uint32_t i) const { return heap_[pos_[i]].level; }
  void clear();
  /// Index i enters at `level` (it must not be in the heap).
  void push(std::uint32_t i, double level);
  /// Lowers index i's level (it must be in the heap).
  void decrease(std::uint32_t i, double level);
  /// Sets the top's level: one that rose sinks to its place, one that fell stays on top.
  void update_top(double level);
  void erase(std::uint32_t i);

 private:
  static constexpr std::uint32_t kAbsent = 0xffffffff;
  static constexpr std::size_t kArity = 4;
  void place(std::size_t at, const LevelEntry& e);
  void up(std::size_t at);
  void down(std::size_t at);

  std::vector<LevelEntry> heap_;
  std::vector<std::uint32_t> pos_;  // an index's place in heap_, or kAbsent
};

/// A monotone radix heap: a min-heap whose pushes are never below the last level taken from it,
/// which a filling whose levels only rise guarantees. A level's bits order as it does (levels are
/// not negative), and an entry sits in the bucket of the highest bit in which it differs from the
/// last level taken: a push is one bucket append, and taking the least moves each entry down a
/// bucket at a time, instead of a sift through the whole heap per push. Entries of equal levels
/// come out in no particular (but repeatable) order.
class RadixLevelHeap {
 public:
  void clear();
  [[nodiscard]] bool empty() const { return size_ == 0; }
  /// `level` must not be below the last top()'s.
  void push(std::uint32_t i, double level);
  /// The entry of the least level (the heap must not be empty).
  [[nodiscard]] LevelEntry top();
  void pop();

 private:
  struct Entry {
    std::uint64_t key;  // the level's bits
    std::uint32_t index;
  };
  [[nodiscard]] std::size_t bucket(std::uint64_t key) const;

  std::array<std::vector<Entry>, 65> buckets_;
  std::uint64_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace ibsdn
