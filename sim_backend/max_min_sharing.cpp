#include "sim_backend/max_min_sharing.hpp"

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
  links_.resize(capacities.size());
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
  FlowSlot f = 0;
  if (!free_slots_.empty()) {
    f = free_slots_.back();
    free_slots_.pop_back();
  } else {
    f = static_cast<FlowSlot>(flows_.size());
    flows_.emplace_back();
  }
  Flow& flow = flows_[f];
  flow.route.assign(route.begin(), route.end());
  flow.pos.resize(route.size());
  flow.weight = weight;
  flow.cap = cap;
  flow.traffic_class = traffic_class;
  flow.rate = 0;
  flow.live = true;
  for (std::size_t h = 0; h < route.size(); ++h) {
    Link& link = links_.at(route[h].value());
    flow.pos[h] = static_cast<std::uint32_t>(link.flows.size());
    link.flows.push_back(f);
    touch(route[h]);
  }
  ++active_;
  return f;
}

void MaxMinSharing::remove(FlowSlot f) {
  Flow& flow = flows_.at(f);
  assert(flow.live);
  for (std::size_t h = 0; h < flow.route.size(); ++h) {
    const LinkId l = flow.route[h];
    Link& link = links_[l.value()];
    const std::uint32_t at = flow.pos[h];
    const FlowSlot moved = link.flows.back();
    link.flows[at] = moved;
    link.flows.pop_back();
    if (moved != f) {
      Flow& m = flows_[moved];
      const auto it = std::find(m.route.begin(), m.route.end(), l);
      m.pos[static_cast<std::size_t>(it - m.route.begin())] = at;
    }
    touch(l);
  }
  flow.live = false;
  flow.rate = 0;
  flow.route.clear();
  flow.pos.clear();
  free_slots_.push_back(f);
  --active_;
}

void MaxMinSharing::next_epoch() {
  if (++epoch_ != 0) return;
  // Wrapped after 2^32 solves: clear the old marks once.
  for (Link& l : links_) l.mark = 0;
  for (Flow& f : flows_) f.mark = 0;
  epoch_ = 1;
}

bool MaxMinSharing::collect_touched() {
  next_epoch();
  link_set_.clear();
  flow_set_.clear();
  for (const std::uint32_t l : touched_) {
    links_[l].touched = false;
    if (links_[l].mark == epoch_) continue;
    links_[l].mark = epoch_;
    // Breadth first over the component; link_set_ is the queue.
    std::size_t head = link_set_.size();
    link_set_.push_back(l);
    while (head < link_set_.size()) {
      const Link& link = links_[link_set_[head++]];
      for (const FlowSlot f : link.flows) {
        Flow& flow = flows_[f];
        if (flow.mark == epoch_) continue;
        flow.mark = epoch_;
        flow_set_.push_back(f);
        if (2 * flow_set_.size() > active_) return false;
        for (const LinkId next : flow.route) {
          Link& n = links_[next.value()];
          if (n.mark == epoch_) continue;
          n.mark = epoch_;
          link_set_.push_back(next.value());
        }
      }
    }
  }
  touched_.clear();
  return true;
}

void MaxMinSharing::collect_all() {
  next_epoch();
  link_set_.clear();
  flow_set_.clear();
  for (const std::uint32_t l : touched_) links_[l].touched = false;
  touched_.clear();
  for (std::uint32_t l = 0; l < links_.size(); ++l) {
    if (links_[l].flows.empty()) continue;
    links_[l].mark = epoch_;
    link_set_.push_back(l);
  }
  for (FlowSlot f = 0; f < flows_.size(); ++f) {
    if (!flows_[f].live) continue;
    flows_[f].mark = epoch_;
    flow_set_.push_back(f);
  }
}

std::size_t MaxMinSharing::solve_touched(std::vector<FlowSlot>& changed) {
  // A component holding most flows is solved whole: walking it costs more than listing every
  // link and flow in memory order, and the rates come out the same.
  if (!collect_touched()) collect_all();
  return solve_collected(changed);
}

std::size_t MaxMinSharing::solve_all(std::vector<FlowSlot>& changed) {
  collect_all();
  return solve_collected(changed);
}

bool MaxMinSharing::heap_less(std::uint32_t a, std::uint32_t b) const {
  const double la = links_[a].level;
  const double lb = links_[b].level;
  return la != lb ? la < lb : a < b;
}

void MaxMinSharing::heap_place(std::size_t i, std::uint32_t l) {
  link_heap_[i] = l;
  links_[l].heap_pos = static_cast<std::uint32_t>(i);
}

void MaxMinSharing::heap_up(std::size_t i) {
  const std::uint32_t l = link_heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!heap_less(l, link_heap_[parent])) break;
    heap_place(i, link_heap_[parent]);
    i = parent;
  }
  heap_place(i, l);
}

void MaxMinSharing::heap_down(std::size_t i) {
  const std::uint32_t l = link_heap_[i];
  const std::size_t n = link_heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_less(link_heap_[child + 1], link_heap_[child])) ++child;
    if (!heap_less(link_heap_[child], l)) break;
    heap_place(i, link_heap_[child]);
    i = child;
  }
  heap_place(i, l);
}

void MaxMinSharing::heap_erase(std::uint32_t l) {
  const std::size_t i = links_[l].heap_pos;
  links_[l].heap_pos = kNotInHeap;
  const std::uint32_t last = link_heap_.back();
  link_heap_.pop_back();
  if (last == l) return;
  heap_place(i, last);
  heap_up(i);
  heap_down(links_[last].heap_pos);
}

void MaxMinSharing::push_level(std::uint32_t l) {
  Link& link = links_[l];
  if (link.unfixed == 0) {
    if (link.heap_pos != kNotInHeap) heap_erase(l);
    return;
  }
  // Rounding may leave a saturated link a hair below zero.
  link.level = std::max(link.remaining, 0.0) / link.weight_sum;
  if (link.heap_pos == kNotInHeap) {
    link_heap_.push_back(l);
    heap_up(link_heap_.size() - 1);
  } else {
    // Fixing flows at a lower level only raises a link's level; either way is handled.
    heap_up(link.heap_pos);
    heap_down(link.heap_pos);
  }
}

void MaxMinSharing::fix(FlowSlot f, double rate, std::vector<FlowSlot>& changed) {
  Flow& flow = flows_[f];
  flow.fixed = true;
  if (rate != flow.rate) {
    flow.rate = rate;
    changed.push_back(f);
  }
  for (const LinkId l : flow.route) {
    Link& link = links_[l.value()];
    link.remaining -= rate - flow.base;
    link.weight_sum -= flow.weight;
    --link.unfixed;
    if (link.dirty != epoch_) {
      link.dirty = epoch_;
      dirty_.push_back(l.value());
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

std::size_t MaxMinSharing::solve_collected(std::vector<FlowSlot>& changed) {
  for (const std::uint32_t l : link_set_) links_[l].left = links_[l].capacity;
  for (const std::uint8_t c : class_order_) solve_class(c, changed);
  if (borrowing_) solve_borrowed(changed);
  return flow_set_.size();
}

void MaxMinSharing::solve_class(std::uint8_t c, std::vector<FlowSlot>& changed) {
  link_heap_.clear();
  cap_heap_.clear();
  bool any = false;
  for (const FlowSlot f : flow_set_) {
    Flow& flow = flows_[f];
    // Flows of other classes count as fixed: solved before, or after this class.
    flow.fixed = flow.traffic_class != c;
    if (flow.fixed) continue;
    any = true;
    flow.base = 0;
    if (flow.cap > 0) {
      cap_heap_.push_back({flow.cap / flow.weight, f});
      std::push_heap(cap_heap_.begin(), cap_heap_.end(), later);
    }
  }
  if (!any) return;
  const double share = classes_[c].link_share;
  for (const std::uint32_t l : link_set_) {
    Link& link = links_[l];
    // A share of 1 leaves `left` as it is: one class solves exactly as plain max-min.
    open_link(l, share == 1 ? link.left : std::min(link.left, share * link.capacity));
  }
  fill(changed);
  if (classes_.size() == 1 && !borrowing_) return;
  for (const std::uint32_t l : link_set_) {
    Link& link = links_[l];
    for (const FlowSlot f : link.flows) {
      if (flows_[f].traffic_class == c) link.left -= flows_[f].rate;
    }
    link.left = std::max(link.left, 0.0);
  }
}

void MaxMinSharing::fill(std::vector<FlowSlot>& changed) {
  for (;;) {
    while (!cap_heap_.empty() && flows_[cap_heap_.front().index].fixed) {
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
    }
    if (link_heap_.empty()) break;  // every flow crosses a link: all are fixed
    if (!cap_heap_.empty() && cap_heap_.front().level <= links_[link_heap_.front()].level) {
      const FlowSlot f = cap_heap_.front().index;
      std::pop_heap(cap_heap_.begin(), cap_heap_.end(), later);
      cap_heap_.pop_back();
      fix(f, flows_[f].cap, changed);
    } else {
      const std::uint32_t l = link_heap_.front();
      const double level = links_[l].level;
      heap_erase(l);
      for (const FlowSlot f : links_[l].flows) {
        if (!flows_[f].fixed) fix(f, flows_[f].base + level * flows_[f].weight, changed);
      }
    }
    flush_dirty();
  }
}

void MaxMinSharing::solve_borrowed(std::vector<FlowSlot>& changed) {
  link_heap_.clear();
  cap_heap_.clear();
  bool any = false;
  for (const FlowSlot f : flow_set_) {
    Flow& flow = flows_[f];
    const TrafficClass& c = classes_[flow.traffic_class];
    // Only a class held below its share can have been held back by it; a flow at its own cap
    // cannot take more.
    flow.fixed = !c.borrow || c.link_share == 1 || (flow.cap > 0 && flow.rate >= flow.cap);
    if (flow.fixed) continue;
    any = true;
    flow.base = flow.rate;
    if (flow.cap > 0) {
      cap_heap_.push_back({(flow.cap - flow.rate) / flow.weight, f});
      std::push_heap(cap_heap_.begin(), cap_heap_.end(), later);
    }
  }
  if (!any) return;
  for (const std::uint32_t l : link_set_) open_link(l, links_[l].left);
  fill(changed);
  for (const FlowSlot f : flow_set_) flows_[f].base = 0;
}

void MaxMinSharing::open_link(std::uint32_t l, double remaining) {
  Link& link = links_[l];
  link.remaining = remaining;
  link.weight_sum = 0;
  link.unfixed = 0;
  for (const FlowSlot f : link.flows) {
    if (flows_[f].fixed) continue;
    link.weight_sum += flows_[f].weight;
    ++link.unfixed;
  }
  link.dirty = 0;
  push_level(l);
}

}  // namespace ibsdn
