#include "bench/alloc_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};
std::atomic<bool> g_counting{true};
// Blocks allocated while counting was off carry this bit in their size header, so that freeing
// them later does not subtract what was never added.
constexpr std::size_t kUncounted = std::size_t{1} << (sizeof(std::size_t) * 8 - 1);

// Every block carries its size in a header so operator delete can subtract it.
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* counted_alloc(std::size_t n) {
  void* raw = std::malloc(n + kHeader);
  if (!raw) throw std::bad_alloc();
  if (!g_counting.load(std::memory_order_relaxed)) {
    *static_cast<std::size_t*>(raw) = n | kUncounted;
    return static_cast<char*>(raw) + kHeader;
  }
  *static_cast<std::size_t*>(raw) = n;
  const std::size_t live = g_live.fetch_add(n) + n;
  std::size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return static_cast<char*>(raw) + kHeader;
}

void counted_free(void* p) noexcept {
  if (!p) return;
  void* raw = static_cast<char*>(p) - kHeader;
  const std::size_t n = *static_cast<std::size_t*>(raw);
  if ((n & kUncounted) == 0) g_live.fetch_sub(n);
  std::free(raw);
}

}  // namespace

void* operator new(std::size_t n) {
  return counted_alloc(n);
}
void* operator new[](std::size_t n) {
  return counted_alloc(n);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}

namespace ibsdn::bench {

std::size_t live_bytes() {
  return g_live.load();
}
std::size_t peak_bytes() {
  return g_peak.load();
}
void reset_peak() {
  g_peak.store(g_live.load());
}
void set_counting(bool on) {
  g_counting.store(on);
}

}  // namespace ibsdn::bench
