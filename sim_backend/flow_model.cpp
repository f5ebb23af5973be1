#include "sim_backend/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "sim_backend/max_min_sharing.hpp"

namespace ibsdn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Events closer than this (relative to the time) happen together: flows meant to end at one time
/// but a few ulps apart end at once, rather than one re-solving the others for a few bytes' worth
/// of femtoseconds.
constexpr double kSameTime = 1e-12;

double horizon(double t) {
  return t + kSameTime * std::max(t, std::numeric_limits<double>::min());
}

void check(const std::vector<FlowLink>& links, std::size_t classes, const FlowMessage& m) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("flow model: message " + std::to_string(m.id) + ": " + what);
  };
  if (!(m.size > 0) || !std::isfinite(m.size)) fail("size is not positive and finite");
  if (!(m.start >= 0) || !std::isfinite(m.start)) fail("start is not a finite time >= 0");
  if (!(m.rate_cap >= 0) || !std::isfinite(m.rate_cap)) fail("rate cap is not finite and >= 0");
  if (m.route.empty()) fail("empty route");
  if (m.traffic_class >= classes) fail("no traffic class " + std::to_string(m.traffic_class));
  std::vector<LinkId> sorted = m.route;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) fail("a link twice");
  if (!sorted.back().valid() || sorted.back().value() >= links.size()) fail("no such link");
}

struct MessageState {
  double activation = 0;  // start + route latency
  double weight = 1;
  double remaining = 0;
  double rate = 0;
  double since = 0;  // when `remaining` was last brought up to date
  std::uint32_t version = 0;
  MaxMinSharing::FlowSlot slot = 0;
};

struct Completion {
  double time;
  std::uint64_t id;
  std::uint32_t message;
  std::uint32_t version;
};

constexpr auto later = [](const Completion& a, const Completion& b) {
  return a.time != b.time ? a.time > b.time : a.id > b.id;
};

class FlowRun {
 public:
  FlowRun(const std::vector<FlowLink>& links, const std::vector<FlowMessage>& messages,
          const FlowModelOptions& options)
      : messages_(messages), options_(options), sharing_(capacities(links), options.classes) {
    state_.resize(messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const FlowMessage& m = messages[i];
      check(links, options.classes.size(), m);
      double latency = 0;
      for (const LinkId l : m.route) latency += links[l.value()].latency;
      MessageState& s = state_[i];
      s.activation = m.start + latency;
      // SimGrid's CM02: sharing penalty = route latency, or 1 when that is 0 (network_cm02.cpp).
      if (options.sharing == FlowSharing::kCm02 && latency > 0) s.weight = 1 / latency;
      s.remaining = m.size;
    }
    order_.resize(messages.size());
    std::iota(order_.begin(), order_.end(), 0u);
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return state_[a].activation != state_[b].activation
                 ? state_[a].activation < state_[b].activation
                 : messages[a].id < messages[b].id;
    });
    completion_.assign(messages.size(), kInf);
  }

  std::vector<double> run(FlowRunStats& stats) {
    std::size_t next = 0;
    for (;;) {
      drop_stale();
      const double next_activation = next < order_.size() ? state_[order_[next]].activation : kInf;
      const double next_end = heap_.empty() ? kInf : heap_.front().time;
      const double t = std::min(next_activation, next_end);
      if (t == kInf) break;
      const double until = horizon(t);
      ++stats.events;
      while (!heap_.empty() && heap_.front().time <= until) {
        const Completion c = heap_.front();
        std::pop_heap(heap_.begin(), heap_.end(), later);
        heap_.pop_back();
        if (c.version != state_[c.message].version || completion_[c.message] != kInf) continue;
        completion_[c.message] = t;
        sharing_.remove(state_[c.message].slot);
        slot_owner_[state_[c.message].slot] = kNoMessage;
      }
      while (next < order_.size() && state_[order_[next]].activation <= until) {
        const std::uint32_t i = order_[next++];
        MessageState& s = state_[i];
        s.slot = sharing_.add(messages_[i].route, s.weight, messages_[i].rate_cap,
                              messages_[i].traffic_class);
        if (s.slot >= slot_owner_.size()) slot_owner_.resize(s.slot + 1, kNoMessage);
        slot_owner_[s.slot] = i;
        s.since = t;
      }
      changed_.clear();
      stats.solved_flows += options_.solve == FlowSolve::kFull ? sharing_.solve_all(changed_)
                                                               : sharing_.solve_touched(changed_);
      stats.rate_changes += changed_.size();
      for (const MaxMinSharing::FlowSlot f : changed_) rate_changed(slot_owner_[f], t);
      compact();
    }
    if (sharing_.active_flows() != 0) {
      // Only a class starved by classes whose flows never end could leave flows here.
      throw std::logic_error("flow model: flows left at rate 0 with nothing left to end");
    }
    return std::move(completion_);
  }

 private:
  static constexpr std::uint32_t kNoMessage = std::numeric_limits<std::uint32_t>::max();

  static std::vector<double> capacities(const std::vector<FlowLink>& links) {
    std::vector<double> c(links.size());
    for (std::size_t i = 0; i < links.size(); ++i) c[i] = links[i].bandwidth;
    return c;
  }

  /// SimGrid's lazy update: the bytes sent at the old rate are counted only now.
  void rate_changed(std::uint32_t i, double t) {
    MessageState& s = state_[i];
    s.remaining -= s.rate * (t - s.since);
    s.since = t;
    s.rate = sharing_.rate(s.slot);
    ++s.version;
    if (s.rate == 0) return;  // starved by higher classes until their flows end
    const double end = t + std::max(s.remaining, 0.0) / s.rate;
    heap_.push_back({end, messages_[i].id, i, s.version});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  void drop_stale() {
    while (!heap_.empty() && heap_.front().version != state_[heap_.front().message].version) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      heap_.pop_back();
    }
  }

  /// Keeps the heap within twice the active flows (stale entries pile up under frequent rate
  /// changes); amortised O(1) per entry.
  void compact() {
    if (heap_.size() <= 2 * sharing_.active_flows() + 1024) return;
    std::erase_if(heap_,
                  [&](const Completion& c) { return c.version != state_[c.message].version; });
    std::make_heap(heap_.begin(), heap_.end(), later);
  }

  const std::vector<FlowMessage>& messages_;
  FlowModelOptions options_;
  MaxMinSharing sharing_;
  std::vector<MessageState> state_;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> slot_owner_;
  std::vector<Completion> heap_;
  std::vector<MaxMinSharing::FlowSlot> changed_;
  std::vector<double> completion_;
};

}  // namespace

std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowMessage>& messages,
                                   const FlowModelOptions& options, FlowRunStats* stats) {
  if (messages.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("flow model: more than 2^32 - 2 messages");
  }
  FlowRunStats local;
  return FlowRun(links, messages, options).run(stats != nullptr ? *stats : local);
}

}  // namespace ibsdn
