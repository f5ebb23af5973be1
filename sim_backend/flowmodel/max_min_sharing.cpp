#include "sim_backend/flowmodel/max_min_sharing.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>
#include <utility>

#include "sim_backend/flowmodel/max_min_internal.hpp"

namespace ibsdn {
namespace {

using max_min_detail::kNoLevel;
using max_min_detail::kSlack;
using max_min_detail::later;

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
