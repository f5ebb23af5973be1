#include "sim_backend/flowmodel/max_min_sharing.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ibsdn {
namespace {

// A function object, not a function: the heap operations inline it (a function pointer made
// the comparisons 40 % of a solve).
constexpr auto later = [](const auto& a, const auto& b) {
  return a.level != b.level ? a.level > b.level : a.index > b.index;
};

/// Relative slack of the re-solve's comparisons (header comment): far above the rounding of a
/// link's sums, far below the 1e-9 the rates are compared with.
constexpr double kSlack = 1e-12;
constexpr double kNoLevel = std::numeric_limits<double>::infinity();
/// set_full_fallback(): after an incremental solve that re-solved more than this share of the
/// flows it already had, this many solves are full ones. Per flow an incremental solve costs about
/// 3x a full one (bench/flow_bench), so past about a third a full solve is the cheaper; at 30 %
/// single busy events among cheap ones (10k flows spread) set off runs of full solves that cost
/// more than they saved (flow_bench's "as run" 0.81 ms against 0.21 ms at 40 %).
constexpr double kFallbackShare = 0.4;
constexpr std::uint32_t kFallbackRun = 16;
/// The longest route a flow may take: a traced path crosses at most 64 switches (lft.hpp), and a
/// stride this long keeps the route rows' memory bounded.
constexpr std::size_t kMaxHops = 66;

}  // namespace

MaxMinSharing::MaxMinSharing(std::vector<double> capacities, std::vector<TrafficClass> classes)
    : classes_(std::move(classes)) {
  if (classes_.empty() || classes_.size() > 256) {
    throw std::invalid_argument("max-min sharing: 1 to 256 traffic classes");
  }
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    if (!(classes_[c].link_share > 0 && classes_[c].link_share <= 1)) {
      throw std::invalid_argument("max-min sharing: traffic class " + std::to_string(c) +
                                  ": link share outside (0, 1]");
    }
    class_order_.push_back(static_cast<std::uint8_t>(c));
    borrowing_ = borrowing_ || (classes_[c].borrow && classes_[c].link_share < 1);
  }
  std::stable_sort(class_order_.begin(), class_order_.end(), [&](std::uint8_t a, std::uint8_t b) {
    return classes_[a].priority > classes_[b].priority;
  });
  class_rank_.resize(classes_.size());
  for (std::size_t r = 0; r < class_order_.size(); ++r) {
    class_rank_[class_order_[r]] = static_cast<std::uint8_t>(r);
  }
  links_.resize(capacities.size());
  link_heap_.resize(capacities.size());
  for (std::size_t i = 0; i < capacities.size(); ++i) {
    if (!(capacities[i] > 0) || capacities[i] == std::numeric_limits<double>::infinity()) {
      throw std::invalid_argument("max-min sharing: link " + std::to_string(i) +
                                  " has no positive finite capacity");
    }
    links_[i].capacity = capacities[i];
  }
}

void MaxMinSharing::touch(LinkId l) {
  Link& link = links_[l.value()];
  if (link.touched) return;
  link.touched = true;
  touched_.push_back(l.value());
}

MaxMinSharing::FlowSlot MaxMinSharing::add(std::span<const LinkId> route, double weight, double cap,
                                           std::uint8_t traffic_class) {
  assert(!route.empty() && weight > 0 && cap >= 0);
  if (traffic_class >= classes_.size()) {
    throw std::invalid_argument("max-min sharing: no traffic class " +
                                std::to_string(traffic_class));
  }
  if (route.size() > kMaxHops) {
    throw std::invalid_argument("max-min sharing: a route of " + std::to_string(route.size()) +
                                " links (at most " + std::to_string(kMaxHops) + ")");
  }
  for (const LinkId l : route) {
    if (l.value() >= links_.size()) {
      throw std::out_of_range("max-min sharing: no link " + std::to_string(l.value()));
    }
  }
  widen_routes(route.size());
  FlowSlot f = 0;
  if (!free_slots_.empty()) {
    f = free_slots_.back();
    free_slots_.pop_back();
  } else {
    f = static_cast<FlowSlot>(flows_.size());
    flows_.emplace_back();
    mark_.push_back(0);
    route_links_.resize(route_links_.size() + stride_);
    route_pos_.resize(route_pos_.size() + stride_);
  }
  Flow& flow = flows_[f];
  flow.weight = weight;
  flow.cap = cap;
  flow.traffic_class = traffic_class;
  flow.rate = 0;
  flow.bottleneck = kUnsolved;
  flow.hops = static_cast<std::uint16_t>(route.size());
  flow.live = true;
  const std::size_t row = std::size_t{f} * stride_;
  for (std::size_t h = 0; h < route.size(); ++h) {
    Link& link = links_[route[h].value()];
    route_links_[row + h] = route[h].value();
    route_pos_[row + h] = static_cast<std::uint32_t>(link.flows.size());
    link.flows.push_back(f);
    touch(route[h]);
  }
  added_.push_back(f);
  ++active_;
  return f;
}

void MaxMinSharing::widen_routes(std::size_t hops) {
  if (hops <= stride_) return;
  // Rare (a route longer than any before): every row is copied once into the wider layout.
  const std::size_t wider = std::max(hops, 2 * stride_);
  const std::size_t cap = std::min(wider, kMaxHops);
  std::vector<std::uint32_t> links(flows_.size() * cap);
  std::vector<std::uint32_t> pos(flows_.size() * cap);
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    std::copy_n(route_links_.begin() + static_cast<std::ptrdiff_t>(f * stride_), stride_,
                links.begin() + static_cast<std::ptrdiff_t>(f * cap));
    std::copy_n(route_pos_.begin() + static_cast<std::ptrdiff_t>(f * stride_), stride_,
                pos.begin() + static_cast<std::ptrdiff_t>(f * cap));
  }
  route_links_ = std::move(links);
  route_pos_ = std::move(pos);
  stride_ = cap;
}

void MaxMinSharing::remove(FlowSlot f) {
  Flow& flow = flows_.at(f);
  assert(flow.live);
  const std::size_t row = std::size_t{f} * stride_;
  for (std::size_t h = 0; h < flow.hops; ++h) {
    const std::uint32_t l = route_links_[row + h];
    Link& link = links_[l];
    const std::uint32_t at = route_pos_[row + h];
    const FlowSlot moved = link.flows.back();
    link.flows[at] = moved;
    link.flows.pop_back();
    if (moved != f) {
      const std::span<const std::uint32_t> r = route(moved);
      const auto it = std::find(r.begin(), r.end(), l);
      route_pos_[std::size_t{moved} * stride_ + static_cast<std::size_t>(it - r.begin())] = at;
    }
    touch(LinkId(l));
  }
  flow.live = false;
  flow.rate = 0;
  flow.hops = 0;
  mark_[f] = 0;
  free_slots_.push_back(f);
  --active_;
}

void MaxMinSharing::next_epoch() {
  epoch_ += 2;
  if (epoch_ != 0) return;
  // Wrapped after 2^31 class solves: clear the old marks once.
  for (Link& l : links_) l.mark = 0;
  std::fill(mark_.begin(), mark_.end(), 0);
  epoch_ = 2;
}

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

std::size_t MaxMinSharing::solve_all(std::vector<FlowSlot>& changed) {
  return solve(true, changed);
}

void MaxMinSharing::add_seed(std::uint32_t l) {
  if (links_[l].seed == solve_count_) return;
  links_[l].seed = solve_count_;
  seeds_.push_back(l);
}

std::size_t MaxMinSharing::solve(bool all, std::vector<FlowSlot>& changed) {
  if (++solve_count_ == 0) {
    for (Link& l : links_) l.seed = 0;
    solve_count_ = 1;
  }
  seeds_.clear();
  for (const std::uint32_t l : touched_) {
    links_[l].touched = false;
    add_seed(l);
  }
  touched_.clear();
  // Borrowing: every class from scratch, then the borrowing; the flows that moved are found by
  // their rates before and after (the header comment).
  std::vector<FlowSlot>& moved = borrowing_ ? class_changed_ : changed;
  if (borrowing_) {
    all = true;
    class_changed_.clear();
    prior_rates_.resize(flows_.size());
    for (FlowSlot f = 0; f < flows_.size(); ++f) prior_rates_[f] = flows_[f].rate;
  }
  std::size_t solved = 0;
  for (const std::uint8_t c : class_order_) {
    const std::size_t first = moved.size();
    solved += solve_class(c, all, moved);
    if (class_order_.size() == 1) break;
    // The classes after this one share what it leaves: where its load moved, they start.
    for (std::size_t i = first; i < moved.size(); ++i) {
      for (const std::uint32_t l : route(moved[i])) add_seed(l);
    }
  }
  added_.clear();
  if (!borrowing_) return solved;
  solve_borrowed();
  for (FlowSlot f = 0; f < flows_.size(); ++f) {
    if (flows_[f].live && flows_[f].rate != prior_rates_[f]) changed.push_back(f);
  }
  return solved;
}

double MaxMinSharing::link_level(const Link& link) {
  if (link.unfixed == 0) return kNoLevel;
  // Rounding leaves a full link a hair above or below zero: what is left within the slack is
  // nothing, so flows that higher classes starve get 0, not noise, whichever way they are solved.
  return link.remaining <= kSlack * link.capacity ? 0.0 : link.remaining / link.weight_sum;
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

void MaxMinSharing::fix(FlowSlot f, double rate, std::uint32_t bottleneck,
                        std::vector<FlowSlot>& changed) {
  Flow& flow = flows_[f];
  mark_[f] = epoch_ + 1;
  flow.bottleneck = bottleneck;
  if (rate != flow.rate) {
    flow.rate = rate;
    changed.push_back(f);
  }
  const double taken = rate - flow.base;
  for (const std::uint32_t l : route(f)) {
    Link& link = links_[l];
    link.remaining -= taken;
    link.weight_sum -= flow.weight;
    --link.unfixed;
    if (rising_only_) continue;
    if (link.dirty != epoch_) {
      link.dirty = epoch_;
      dirty_.push_back(l);
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

double MaxMinSharing::class_capacity(const Link& link, std::uint8_t c) const {
  if (classes_.size() == 1) return link.capacity;
  double above = 0;
  for (const FlowSlot f : link.flows) {
    if (class_rank_[flows_[f].traffic_class] < class_rank_[c]) above += flows_[f].rate;
  }
  const double left = std::max(link.capacity - above, 0.0);
  const double share = classes_[c].link_share;
  // A share of 1 leaves `left` as it is: one class solves exactly as plain max-min.
  return share == 1 ? left : std::min(left, share * link.capacity);
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

void MaxMinSharing::enter_empty(std::uint32_t l, std::uint8_t c) {
  Link& link = links_[l];
  link.mark = epoch_;
  link.remaining = class_capacity(link, c);
  link.weight_sum = 0;
  link.unfixed = 0;
  link.held = 0;
  link.held_max = 0;
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

std::size_t MaxMinSharing::solve_class(std::uint8_t c, bool all, std::vector<FlowSlot>& changed) {
  next_epoch();
  flow_set_.clear();
  link_heap_.clear();
  cap_heap_.clear();
  check_heap_.clear();
  if (all) {
    // Every flow of the class is in S, so no link holds any: the links' sums are gathered flow
    // by flow, in slot order, rather than by reading every flow of every link out of order.
    for (FlowSlot f = 0; f < flows_.size(); ++f) {
      const Flow& flow = flows_[f];
      if (!flow.live || flow.traffic_class != c) continue;
      mark_[f] = epoch_;
      flow_set_.push_back(f);
      if (flow.cap > 0) cap_heap_.push_back({flow.cap / flow.weight, f});
      for (const std::uint32_t l : route(f)) {
        Link& link = links_[l];
        if (link.mark != epoch_) enter_empty(l, c);
        link.weight_sum += flow.weight;
        ++link.unfixed;
      }
    }
    std::make_heap(cap_heap_.begin(), cap_heap_.end(), later);
  } else {
    for (const FlowSlot f : added_) {
      const Flow& flow = flows_[f];
      if (flow.live && flow.traffic_class == c && !in_set(f)) join(f, c);
    }
    for (const std::uint32_t l : seeds_) {
      if (links_[l].mark != epoch_) enter(l, c);
      // Over-full: the classes before this one took more of it than before.
      if (links_[l].remaining < -kSlack * links_[l].capacity) release_held(l, 0.0, c);
    }
  }
  // With every flow of the class in S nothing joins and nothing is checked: only fixes change
  // levels, and a fix at the lowest level (or a cap below it) only raises the others' (a link at
  // level r / w >= t keeps (r - t x w_f) / (w - w_f) >= r / w). So no fix pushes a level, the
  // links' entries stay as lower bounds until they come up (fill_rising), and the levels taken
  // never fall, which lets a radix heap order them.
  rising_only_ = all;
  if (all) {
    fill_rising(changed);
  } else {
    fill(c, changed);
  }
  rising_only_ = false;
  return flow_set_.size();
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

void MaxMinSharing::saturate(std::uint32_t l, double level, std::vector<FlowSlot>& changed) {
  // The open flows are gathered from the dense marks first and their records and routes fetched
  // ahead: fixing one walks its route, too long a step for the processor to overlap the next
  // flow's cache misses by itself (they were most of a full solve's time).
  batch_.clear();
  const std::uint32_t* marks = mark_.data();
  const Flow* records = flows_.data();
  const std::uint32_t* routes = route_links_.data();
  const std::uint32_t open_mark = epoch_;
  for (const FlowSlot f : links_[l].flows) {
    if (marks[f] != open_mark) continue;  // open(f)
    batch_.push_back(f);
    __builtin_prefetch(records + f);
    __builtin_prefetch(routes + std::size_t{f} * stride_);
  }
  for (const FlowSlot f : batch_) {
    const Flow& flow = flows_[f];
    fix(f, flow.base + level * flow.weight, l, changed);
  }
}

void MaxMinSharing::fill_rising(std::vector<FlowSlot>& changed) {
  rising_heap_.clear();
  for (const std::uint32_t l : dirty_) {
    links_[l].dirty = 0;
    const double level = link_level(links_[l]);
    if (level != kNoLevel) rising_heap_.push(l, level);
  }
  dirty_.clear();
  for (;;) {
    // The lowest link, its level brought up to date (a level that rose goes back in).
    std::uint32_t top = 0;
    double top_level = kNoLevel;
    while (!rising_heap_.empty()) {
      const LevelEntry e = rising_heap_.top();
      const double level = link_level(links_[e.index]);
      if (level == kNoLevel || level > e.level) {
        rising_heap_.pop();
        if (level != kNoLevel) rising_heap_.push(e.index, level);
        continue;
      }
      top = e.index;
      top_level = level;
      break;
    }
    // Every open flow crosses a link in the rising heap: when it is empty, S is solved.
    if (top_level == kNoLevel) break;
    while (!cap_heap_.empty() && !open(cap_heap_.front().index)) {
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
    }
    if (!cap_heap_.empty() && cap_heap_.front().level <= top_level) {
      const FlowSlot f = cap_heap_.front().index;
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
      fix(f, flows_[f].cap, kAtCap, changed);
      continue;
    }
    rising_heap_.pop();
    saturate(top, top_level, changed);
  }
}

void MaxMinSharing::solve_borrowed() {
  next_epoch();
  flow_set_.clear();
  link_heap_.clear();
  cap_heap_.clear();
  check_heap_.clear();
  for (FlowSlot f = 0; f < flows_.size(); ++f) {
    Flow& flow = flows_[f];
    if (!flow.live) continue;
    const TrafficClass& c = classes_[flow.traffic_class];
    // Only a class held below its share can have been held back by it; a flow at its own cap
    // cannot take more.
    if (!c.borrow || c.link_share == 1 || (flow.cap > 0 && flow.rate >= flow.cap)) continue;
    mark_[f] = epoch_;
    flow.base = flow.rate;
    flow_set_.push_back(f);
    if (flow.cap > 0) cap_heap_.push_back({(flow.cap - flow.rate) / flow.weight, f});
  }
  std::make_heap(cap_heap_.begin(), cap_heap_.end(), later);
  for (const FlowSlot f : flow_set_) {
    for (const std::uint32_t l : route(f)) {
      if (links_[l].mark != epoch_) enter_spare(l);
    }
  }
  // No flow is held: fill() never looks at a class, and levels only rise (solve_class).
  rising_only_ = true;
  fill_rising(class_changed_);
  rising_only_ = false;
  for (const FlowSlot f : flow_set_) flows_[f].base = 0;
}

void MaxMinSharing::enter_spare(std::uint32_t l) {
  Link& link = links_[l];
  link.mark = epoch_;
  double taken = 0;
  link.weight_sum = 0;
  link.unfixed = 0;
  for (const FlowSlot f : link.flows) {
    const Flow& flow = flows_[f];
    taken += flow.rate;
    if (!in_set(f)) continue;
    link.weight_sum += flow.weight;
    ++link.unfixed;
  }
  // The borrowers' own rates are taken too: they fill from them (fix takes rate - base).
  link.remaining = std::max(link.capacity - taken, 0.0);
  link.held = 0;
  link.held_max = 0;
  if (link.dirty != epoch_) {
    link.dirty = epoch_;
    dirty_.push_back(l);
  }
}

}  // namespace ibsdn
