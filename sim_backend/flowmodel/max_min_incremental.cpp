// The incremental re-solve of max-min sharing (max_min_sharing.hpp): solve_touched() and its
// fallback to full solves, and the progressive filling of a set S of flows that widens as the
// level rises (held flows joining, bottleneck checks; the header comment says why that is exact),
// its links in an indexed heap. The full solve, the fixing of flows both use (fix, saturate) and
// the flows' bookkeeping are in max_min_sharing.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim_backend/flowmodel/max_min_internal.hpp"
#include "sim_backend/flowmodel/max_min_sharing.hpp"

namespace ibsdn {
namespace {

using max_min_detail::kNoLevel;
using max_min_detail::kSlack;
using max_min_detail::later;

/// set_full_fallback(): after an incremental solve that re-solved more than this share of the
/// flows it already had, this many solves are full ones. Per flow an incremental solve costs about
/// 3x a full one (bench/flow_bench), so past about a third a full solve is the cheaper; at 30 %
/// single busy events among cheap ones (10k flows spread) set off runs of full solves that cost
/// more than they saved (flow_bench's "as run" 0.81 ms against 0.21 ms at 40 %).
constexpr double kFallbackShare = 0.4;
constexpr std::uint32_t kFallbackRun = 16;

}  // namespace

std::size_t MaxMinSharing::solve_touched(std::vector<FlowSlot>& changed) {
  if (full_solves_left_ > 0) {
    --full_solves_left_;
    return solve(true, changed);
  }
  // New flows are re-solved whatever the scheme (a batch of them starts every iteration of a
  // job): only how far the solve reached into the flows it already had counts.
  std::size_t added = 0;
  for (const FlowSlot f : added_) added += flows_[f].live ? 1 : 0;
  const std::size_t solved = solve(false, changed);
  const std::size_t old_solved = solved - std::min(solved, added);
  const std::size_t old_flows = active_ - std::min(active_, added);
  if (full_fallback_ &&
      static_cast<double>(old_solved) > kFallbackShare * static_cast<double>(old_flows)) {
    full_solves_left_ = kFallbackRun;
  }
  return solved;
}

void MaxMinSharing::push_level(std::uint32_t l) {
  const double level = link_level(links_[l]);
  if (!link_heap_.contains(l)) {
    if (level != kNoLevel) link_heap_.push(l, level);
  } else if (level < link_heap_.level(l)) {
    link_heap_.decrease(l, level);
  }
  // A level that rose stays in the heap at its old value, a bound from below, and is brought up
  // to date when it reaches the top (settle_top): fixing flows only raises levels, so most
  // links move once instead of at every fix.
}

void MaxMinSharing::settle_top() {
  while (!link_heap_.empty()) {
    const LevelEntry top = link_heap_.top();
    const double level = link_level(links_[top.index]);
    if (level == top.level) return;
    if (level == kNoLevel) {
      link_heap_.erase(top.index);
    } else {
      link_heap_.update_top(level);
    }
  }
}

void MaxMinSharing::flush_dirty() {
  // One heap entry per link changed by a batch of fixes, not one per fix.
  for (const std::uint32_t l : dirty_) {
    links_[l].dirty = 0;
    push_level(l);
  }
  dirty_.clear();
}

void MaxMinSharing::enter(std::uint32_t l, std::uint8_t c) {
  Link& link = links_[l];
  link.mark = epoch_;
  double remaining = class_capacity(link, c);
  double weight_sum = 0;
  std::uint32_t unfixed = 0;
  std::uint32_t held = 0;
  double held_max = 0;
  double check = kNoLevel;
  for (const FlowSlot f : link.flows) {
    const Flow& flow = flows_[f];
    if (flow.traffic_class != c) continue;
    if (in_set(f)) {
      weight_sum += flow.weight;
      ++unfixed;
      continue;
    }
    remaining -= flow.rate;
    ++held;
    const double normalised = flow.rate / flow.weight;
    held_max = std::max(held_max, normalised);
    if (flow.bottleneck == l) check = std::min(check, normalised);
  }
  link.remaining = remaining;
  link.weight_sum = weight_sum;
  link.unfixed = unfixed;
  link.held = held;
  link.held_max = held_max;
  if (check != kNoLevel) {
    // The flows it is the bottleneck of got its level when it saturated: one check for all.
    check_heap_.push_back({check, l});
    std::push_heap(check_heap_.begin(), check_heap_.end(), later);
  }
  if (link.dirty != epoch_) {
    link.dirty = epoch_;
    dirty_.push_back(l);
  }
}

void MaxMinSharing::join(FlowSlot f, std::uint8_t c) {
  Flow& flow = flows_[f];
  mark_[f] = epoch_;
  flow_set_.push_back(f);
  if (flow.cap > 0) {
    cap_heap_.push_back({flow.cap / flow.weight, f});
    std::push_heap(cap_heap_.begin(), cap_heap_.end(), later);
  }
  for (const std::uint32_t l : route(f)) {
    Link& link = links_[l];
    if (link.mark != epoch_) {
      enter(l, c);
      continue;
    }
    // Its old rate was held out of the link's capacity; from the current level on it fills.
    link.remaining += flow.rate;
    link.weight_sum += flow.weight;
    ++link.unfixed;
    --link.held;
    if (link.dirty != epoch_) {
      link.dirty = epoch_;
      dirty_.push_back(l);
    }
  }
}

bool MaxMinSharing::release_held(std::uint32_t l, double level, std::uint8_t c) {
  Link& link = links_[l];
  const double above = level * (1 + kSlack);
  if (link.held == 0 || link.held_max <= above) return false;
  bool any = false;
  double held_max = 0;
  // join() changes links' counters, never a link's flow list.
  for (const FlowSlot f : link.flows) {
    const Flow& flow = flows_[f];
    if (flow.traffic_class != c || in_set(f)) continue;
    if (flow.rate > above * flow.weight) {
      join(f, c);
      any = true;
    } else {
      held_max = std::max(held_max, flow.rate / flow.weight);
    }
  }
  link.held_max = held_max;
  return any;
}

void MaxMinSharing::check_bottleneck(std::uint32_t l, double level, std::uint8_t c) {
  const Link& link = links_[l];
  if (link.remaining - level * link.weight_sum <= kSlack * link.capacity) return;
  for (const FlowSlot f : link.flows) {
    const Flow& flow = flows_[f];
    if (flow.traffic_class == c && !in_set(f) && flow.bottleneck == l) join(f, c);
  }
}

void MaxMinSharing::fill(std::uint8_t c, std::vector<FlowSlot>& changed) {
  flush_dirty();
  for (;;) {
    settle_top();
    while (!cap_heap_.empty() && !open(cap_heap_.front().index)) {
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
    }
    // Every unfixed flow of S crosses a link in the heap: when it is empty, S is solved.
    if (link_heap_.empty() && check_heap_.empty()) break;
    const double top_level = link_heap_.empty() ? kNoLevel : link_heap_.top().level;
    const double cap_level = cap_heap_.empty() ? kNoLevel : cap_heap_.front().level;
    const double check_level = check_heap_.empty() ? kNoLevel : check_heap_.front().level;
    if (check_level <= cap_level && check_level <= top_level) {
      const std::uint32_t l = check_heap_.front().index;
      std::pop_heap(check_heap_.begin(), check_heap_.end(), later);
      check_heap_.pop_back();
      check_bottleneck(l, check_level, c);
    } else if (cap_level <= top_level) {
      const FlowSlot f = cap_heap_.front().index;
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
      fix(f, flows_[f].cap, kAtCap, changed);
    } else if (!release_held(link_heap_.top().index, top_level, c)) {
      const std::uint32_t l = link_heap_.top().index;
      link_heap_.erase(l);
      saturate(l, top_level, changed);
    }
    flush_dirty();
  }
}

}  // namespace ibsdn
