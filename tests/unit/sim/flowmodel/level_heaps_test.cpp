// The priority queues under MaxMinSharing (sim_backend/flowmodel/level_heaps.hpp), against a sorted
// set on random operations: the indexed heap always tops the least (level, index), whatever was
// pushed, lowered, raised at the top or erased; the radix heap gives out levels in order while
// pushes stay at or above the last level taken, ties included.
#include "sim_backend/flowmodel/level_heaps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace ibsdn {
namespace {

TEST(IndexedLevelHeap, TopsTheLeastThroughRandomChanges) {
  std::mt19937_64 rng(12);
  constexpr std::uint32_t kIndices = 200;
  IndexedLevelHeap heap;
  heap.resize(kIndices);
  std::set<std::pair<double, std::uint32_t>> want;
  std::vector<double> level(kIndices, -1);  // -1: not in the heap
  // Few distinct levels, so that ties between indices are common.
  const auto draw = [&] { return static_cast<double>(rng() % 50) / 4; };
  for (int step = 0; step < 20000; ++step) {
    const auto i = static_cast<std::uint32_t>(rng() % kIndices);
    switch (rng() % 4) {
      case 0:
        if (level[i] < 0) {
          level[i] = draw();
          heap.push(i, level[i]);
          want.insert({level[i], i});
        }
        break;
      case 1:
        if (level[i] > 0) {
          want.erase({level[i], i});
          level[i] = level[i] / 2;
          heap.decrease(i, level[i]);
          want.insert({level[i], i});
        }
        break;
      case 2:
        if (!want.empty()) {
          const std::uint32_t top = want.begin()->second;
          want.erase(want.begin());
          level[top] += draw();
          heap.update_top(level[top]);
          want.insert({level[top], top});
        }
        break;
      default:
        if (level[i] >= 0) {
          want.erase({level[i], i});
          level[i] = -1;
          heap.erase(i);
        }
        break;
    }
    ASSERT_EQ(heap.empty(), want.empty()) << "step " << step;
    if (!want.empty()) {
      ASSERT_EQ(heap.top().index, want.begin()->second) << "step " << step;
      ASSERT_EQ(heap.top().level, want.begin()->first) << "step " << step;
    }
    for (std::uint32_t k = 0; k < kIndices; k += 37) {
      ASSERT_EQ(heap.contains(k), level[k] >= 0);
      if (level[k] >= 0) {
        ASSERT_EQ(heap.level(k), level[k]);
      }
    }
  }
  heap.clear();
  EXPECT_TRUE(heap.empty());
  for (std::uint32_t k = 0; k < kIndices; ++k) EXPECT_FALSE(heap.contains(k));
  heap.push(7, 1.5);  // usable again after clear()
  EXPECT_EQ(heap.top().index, 7U);
}

TEST(RadixLevelHeap, GivesLevelsOutInOrderWhilePushesStayAboveTheLast) {
  std::mt19937_64 rng(34);
  RadixLevelHeap heap;
  for (int round = 0; round < 3; ++round) {
    heap.clear();
    std::multiset<std::pair<double, std::uint32_t>> want;
    double last = 0;
    std::uint32_t next = 0;
    for (int step = 0; step < 20000; ++step) {
      if (want.empty() || rng() % 3 != 0) {
        // At or above the last level taken: 0, the same level (ties), or anywhere above,
        // from tiny to large, as link levels in bytes per second are.
        const std::uint64_t kind = rng() % 4;
        const double level = kind == 0   ? last
                             : kind == 1 ? last + static_cast<double>(rng() % 8)
                             : kind == 2
                                 ? last * (1 + 1e-12 * static_cast<double>(rng() % 100))
                                 : last + 1e9 * std::ldexp(1.0, -static_cast<int>(rng() % 40));
        heap.push(next, level);
        want.insert({level, next++});
      } else {
        const LevelEntry top = heap.top();
        ASSERT_EQ(top.level, want.begin()->first) << "step " << step;
        const auto it = want.find({top.level, top.index});
        ASSERT_NE(it, want.end()) << "an entry that was pushed, step " << step;
        want.erase(it);
        heap.pop();
        last = top.level;
      }
      ASSERT_EQ(heap.empty(), want.empty());
    }
    while (!want.empty()) {
      const LevelEntry top = heap.top();
      ASSERT_EQ(top.level, want.begin()->first);
      want.erase(want.find({top.level, top.index}));
      heap.pop();
    }
    EXPECT_TRUE(heap.empty());
  }
}

}  // namespace
}  // namespace ibsdn
