#include "sim_backend/workload/unit_pool.hpp"

#include <bit>
#include <stdexcept>
#include <utility>

namespace ibsdn {

void IndexSet::insert(std::uint32_t u) {
  if (pos_[u] != kNoUnit) return;
  pos_[u] = static_cast<std::uint32_t>(items_.size());
  items_.push_back(u);
}

void IndexSet::erase(std::uint32_t u) {
  const std::uint32_t p = pos_[u];
  if (p == kNoUnit) return;
  const std::uint32_t last = items_.back();
  items_[p] = last;
  pos_[last] = p;
  items_.pop_back();
  pos_[u] = kNoUnit;
}

SearchBits::SearchBits(std::uint32_t universe)
    : universe_(universe), words_((universe + 63) / 64), summary_((words_.size() + 63) / 64) {}

void SearchBits::set(std::uint32_t i) {
  words_[i / 64] |= std::uint64_t{1} << (i % 64);
  summary_[i / 4096] |= std::uint64_t{1} << ((i / 64) % 64);
}

void SearchBits::reset(std::uint32_t i) {
  std::uint64_t& w = words_[i / 64];
  w &= ~(std::uint64_t{1} << (i % 64));
  if (w == 0) summary_[i / 4096] &= ~(std::uint64_t{1} << ((i / 64) % 64));
}

std::uint32_t SearchBits::next(std::uint32_t from) const {
  if (from >= universe_) return kNoUnit;
  std::size_t w = from / 64;
  const std::uint64_t here = words_[w] & (~std::uint64_t{0} << (from % 64));
  if (here != 0) return static_cast<std::uint32_t>(w * 64 + std::countr_zero(here));
  ++w;
  if (w >= words_.size()) return kNoUnit;
  std::size_t s = w / 64;
  std::uint64_t bits = summary_[s] & (~std::uint64_t{0} << (w % 64));
  while (bits == 0) {
    if (++s >= summary_.size()) return kNoUnit;
    bits = summary_[s];
  }
  const std::size_t word = s * 64 + static_cast<std::size_t>(std::countr_zero(bits));
  return static_cast<std::uint32_t>(word * 64 + std::countr_zero(words_[word]));
}

UnitPool::UnitPool(std::vector<std::uint32_t> capacity)
    : capacity_(std::move(capacity)),
      free_(capacity_),
      whole_set_(size()),
      partial_set_(size()),
      whole_bits_(size()),
      partial_bits_(size()) {
  for (std::uint32_t u = 0; u < size(); ++u) move(u, State::kBusy);
}

UnitPool::State UnitPool::state(std::uint32_t u) const {
  if (free_[u] == 0) return State::kBusy;
  return free_[u] == capacity_[u] ? State::kWhole : State::kPartial;
}

const IndexSet& UnitPool::in(State s) const {
  if (s == State::kBusy) throw std::logic_error("unit pool: busy units are not indexed");
  return s == State::kWhole ? whole_set_ : partial_set_;
}

// A unit moves between the sets only when its state changes, so that the sets' order (and with
// it every seeded draw) depends on the states alone, not on how many nodes moved in between.
void UnitPool::move(std::uint32_t u, State before) {
  const State after = state(u);
  if (after == before) return;
  if (before != State::kBusy) {
    (before == State::kWhole ? whole_set_ : partial_set_).erase(u);
    (before == State::kWhole ? whole_bits_ : partial_bits_).reset(u);
  }
  if (after != State::kBusy) {
    (after == State::kWhole ? whole_set_ : partial_set_).insert(u);
    (after == State::kWhole ? whole_bits_ : partial_bits_).set(u);
  }
}

void UnitPool::take(std::uint32_t u) {
  if (free_[u] == 0) throw std::logic_error("unit pool: a node taken from a busy unit");
  const State before = state(u);
  --free_[u];
  move(u, before);
}

void UnitPool::give(std::uint32_t u) {
  if (free_[u] == capacity_[u]) throw std::logic_error("unit pool: a node given to a whole unit");
  const State before = state(u);
  ++free_[u];
  move(u, before);
}

std::uint32_t UnitPool::next(State s, std::uint32_t from) const {
  if (s == State::kBusy) throw std::logic_error("unit pool: busy units are not indexed");
  return (s == State::kWhole ? whole_bits_ : partial_bits_).next(from);
}

std::uint32_t UnitPool::next_cyclic(State s, std::uint32_t from) const {
  const std::uint32_t u = next(s, from);
  return u != kNoUnit ? u : next(s, 0);
}

}  // namespace ibsdn
