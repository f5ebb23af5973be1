#include "sim_backend/flowmodel/level_heaps.hpp"

#include <algorithm>
#include <bit>
#include <cassert>

namespace ibsdn {
namespace {

/// (level, index) order, without short-circuits so that the compiler can use conditional moves.
bool less(const LevelEntry& a, const LevelEntry& b) {
  return static_cast<bool>(
      static_cast<int>(a.level < b.level) |
      (static_cast<int>(a.level == b.level) & static_cast<int>(a.index < b.index)));
}

}  // namespace

void IndexedLevelHeap::place(std::size_t at, const LevelEntry& e) {
  heap_[at] = e;
  pos_[e.index] = static_cast<std::uint32_t>(at);
}

void IndexedLevelHeap::up(std::size_t at) {
  const LevelEntry e = heap_[at];
  while (at > 0) {
    const std::size_t parent = (at - 1) / kArity;
    if (!less(e, heap_[parent])) break;
    place(at, heap_[parent]);
    at = parent;
  }
  place(at, e);
}

void IndexedLevelHeap::down(std::size_t at) {
  const LevelEntry e = heap_[at];
  const std::size_t n = heap_.size();
  for (;;) {
    const std::size_t first = kArity * at + 1;
    if (first >= n) break;
    std::size_t child = first;
    const std::size_t end = std::min(first + kArity, n);
    for (std::size_t k = first + 1; k < end; ++k) {
      child = less(heap_[k], heap_[child]) ? k : child;
    }
    if (!less(heap_[child], e)) break;
    place(at, heap_[child]);
    at = child;
  }
  place(at, e);
}

void IndexedLevelHeap::push(std::uint32_t i, double level) {
  assert(!contains(i));
  heap_.push_back({level, i});
  up(heap_.size() - 1);
}

void IndexedLevelHeap::decrease(std::uint32_t i, double level) {
  const std::size_t at = pos_[i];
  assert(level <= heap_[at].level);
  heap_[at].level = level;
  up(at);
}

void IndexedLevelHeap::update_top(double level) {
  heap_.front().level = level;
  down(0);
}

void IndexedLevelHeap::clear() {
  for (const LevelEntry& e : heap_) pos_[e.index] = kAbsent;
  heap_.clear();
}

void IndexedLevelHeap::erase(std::uint32_t i) {
  const std::size_t at = pos_[i];
  pos_[i] = kAbsent;
  const LevelEntry last = heap_.back();
  heap_.pop_back();
  if (last.index == i) return;
  place(at, last);
  up(at);
  down(pos_[last.index]);
}

void RadixLevelHeap::clear() {
  for (std::vector<Entry>& b : buckets_) b.clear();
  last_ = 0;
  size_ = 0;
}

std::size_t RadixLevelHeap::bucket(std::uint64_t key) const {
  return key == last_ ? 0 : 64 - static_cast<std::size_t>(std::countl_zero(key ^ last_));
}

void RadixLevelHeap::push(std::uint32_t i, double level) {
  const auto key = std::bit_cast<std::uint64_t>(level);
  assert(level >= 0 && key >= last_);
  buckets_[bucket(key)].push_back({key, i});
  ++size_;
}

LevelEntry RadixLevelHeap::top() {
  assert(size_ > 0);
  if (buckets_[0].empty()) {
    std::size_t b = 1;
    while (buckets_[b].empty()) ++b;
    std::vector<Entry>& from = buckets_[b];
    std::uint64_t least = from.front().key;
    for (const Entry& e : from) least = std::min(least, e.key);
    last_ = least;
    // Every entry lands in a lower bucket: they all agree with the new least above bit b - 1.
    for (const Entry& e : from) buckets_[bucket(e.key)].push_back(e);
    from.clear();
  }
  const Entry& e = buckets_[0].back();
  return {std::bit_cast<double>(e.key), e.index};
}

void RadixLevelHeap::pop() {
  buckets_[0].pop_back();
  --size_;
}

}  // namespace ibsdn
