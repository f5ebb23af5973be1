#include "sim_backend/flowmodel/flow_engine.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ibsdn {
namespace {

/// Events closer than this (relative to the time) happen together: flows meant to end at one time
/// but a few ulps apart end at once, rather than one re-solving the others for a few bytes' worth
/// of femtoseconds.
constexpr double kSameTime = 1e-12;

double horizon(double t) {
  return t + kSameTime * std::max(t, std::numeric_limits<double>::min());
}

constexpr auto later = [](const auto& a, const auto& b) {
  return a.time != b.time ? a.time > b.time : a.id > b.id;
};

constexpr std::uint32_t kNoOwner = 0xffffffff;

std::vector<double> capacities(const std::vector<FlowLink>& links) {
  std::vector<double> c(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) c[i] = links[i].bandwidth;
  return c;
}

}  // namespace

FlowEngine::FlowEngine(std::vector<FlowLink> links, FlowModelOptions options)
    : links_(std::move(links)),
      options_(std::move(options)),
      sharing_(capacities(links_), options_.classes) {
  for (std::size_t l = 0; l < links_.size(); ++l) {
    if (!(links_[l].latency >= 0) || !std::isfinite(links_[l].latency)) {
      throw std::invalid_argument("flow model: link " + std::to_string(l) + " (" + links_[l].name +
                                  ") has a negative or infinite latency");
    }
  }
  link_flows_.assign(links_.size(), 0);
  link_rate_.assign(links_.size(), 0.0);
  utilisation_.assign(links_.size(), 0.0);
  link_bytes_.assign(links_.size(), 0.0);
  link_since_.assign(links_.size(), 0.0);
}

void FlowEngine::check_routes(std::uint64_t id,
                              const std::vector<std::vector<LinkId>>& routes) const {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("flow model: message " + std::to_string(id) + ": " + what);
  };
  if (routes.empty()) fail("no route");
  if (routes.size() > EngineMessage::kMaxRoutes) {
    fail(std::to_string(routes.size()) + " routes, more than " +
         std::to_string(EngineMessage::kMaxRoutes));
  }
  std::vector<LinkId> sorted;
  for (std::size_t r = 0; r < routes.size(); ++r) {
    const std::string which = routes.size() == 1 ? "" : " (route " + std::to_string(r) + ")";
    if (routes[r].empty()) fail("empty route" + which);
    sorted = routes[r];
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      fail("a link twice" + which);
    }
    if (!sorted.back().valid() || sorted.back().value() >= links_.size())
      fail("no such link" + which);
  }
}

void FlowEngine::validate(const EngineMessage& m) const {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("flow model: message " + std::to_string(m.id) + ": " + what);
  };
  if (!(m.size > 0) || !std::isfinite(m.size)) fail("size is not positive and finite");
  if (!(m.rate_cap >= 0) || !std::isfinite(m.rate_cap)) fail("rate cap is not finite and >= 0");
  if (m.traffic_class >= options_.classes.size()) {
    fail("no traffic class " + std::to_string(m.traffic_class));
  }
  check_routes(m.id, m.routes);
}

void FlowEngine::start(const EngineMessage& m) {
  validate(m);
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("flow model: message " + std::to_string(m.id) + ": " + what);
  };
  if (by_id_.contains(m.id)) fail("an unfinished message has this id");
  if (messages_.size() >= kNoOwner - 1 && free_messages_.empty()) fail("too many messages");

  std::uint32_t i = 0;
  if (!free_messages_.empty()) {
    i = free_messages_.back();
    free_messages_.pop_back();
  } else {
    i = static_cast<std::uint32_t>(messages_.size());
    messages_.emplace_back();
  }
  Message& msg = messages_[i];
  const std::uint32_t version = msg.version + 1;
  msg = Message{};
  msg.version = version;
  msg.id = m.id;
  msg.routes = m.routes;
  msg.cap = m.rate_cap / static_cast<double>(m.routes.size());
  msg.remaining = m.size;
  msg.since = now_;
  msg.traffic_class = m.traffic_class;
  msg.live = true;
  by_id_.emplace(m.id, i);
  ++live_;
  schedule_activation(i);
}

void FlowEngine::reroute(std::uint64_t id, const std::vector<std::vector<LinkId>>& routes) {
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) {
    throw std::invalid_argument("flow model: reroute: no unfinished message " + std::to_string(id));
  }
  check_routes(id, routes);
  Message& m = messages_[it->second];
  settle(m);
  if (m.active) {
    leave_links(m);
    resolve_pending_ = true;  // the links it left are re-solved now, not at the next event
  }
  m.cap = m.cap * static_cast<double>(m.routes.size()) / static_cast<double>(routes.size());
  m.routes = routes;
  m.subs.clear();
  m.active = false;
  m.rate = 0;
  ++m.version;
  schedule_activation(it->second);
}

void FlowEngine::schedule_activation(std::uint32_t i) {
  Message& m = messages_[i];
  double latency = 0;
  for (const auto& route : m.routes) {
    double l = 0;
    for (const LinkId link : route) l += links_[link.value()].latency;
    latency = std::max(latency, l);
  }
  m.activation = now_ + latency;
  activations_.push_back({m.activation, m.id, i, m.version});
  std::push_heap(activations_.begin(), activations_.end(), later);
}

void FlowEngine::activate(std::uint32_t i) {
  Message& m = messages_[i];
  const double k = static_cast<double>(m.routes.size());
  m.subs.clear();
  for (std::uint32_t r = 0; r < m.routes.size(); ++r) {
    double weight = 1;
    if (options_.sharing == FlowSharing::kCm02) {
      // SimGrid's CM02: sharing penalty = route latency, or 1 when that is 0 (network_cm02.cpp).
      double latency = 0;
      for (const LinkId link : m.routes[r]) latency += links_[link.value()].latency;
      if (latency > 0) weight = 1 / latency;
    }
    const MaxMinSharing::FlowSlot slot =
        sharing_.add(m.routes[r], weight / k, m.cap, m.traffic_class);
    if (slot >= slot_owner_.size()) slot_owner_.resize(slot + 1, {kNoOwner, 0});
    slot_owner_[slot] = {i, r};
    m.subs.push_back({slot, r, 0.0});
    for (const LinkId link : m.routes[r]) link_rate(link, 0.0, +1);
  }
  m.active = true;
  m.since = now_;
  m.rate = 0;
}

void FlowEngine::leave_links(Message& m) {
  for (const SubFlow& s : m.subs) {
    for (const LinkId link : m.routes[s.route]) link_rate(link, -s.rate, -1);
    sharing_.remove(s.slot);
    slot_owner_[s.slot] = {kNoOwner, 0};
  }
}

void FlowEngine::finish(std::uint32_t i) {
  Message& m = messages_[i];
  leave_links(m);
  m.subs.clear();
  m.live = false;
  m.active = false;
  ++m.version;
  by_id_.erase(m.id);
  free_messages_.push_back(i);
  --live_;
}

/// SimGrid's lazy update: the bytes sent at the old rate are counted only now.
void FlowEngine::settle(Message& m) {
  m.remaining -= m.rate * (now_ - m.since);
  m.since = now_;
}

void FlowEngine::link_rate(LinkId l, double delta, int flows) {
  const std::size_t i = l.value();
  link_bytes_[i] += link_rate_[i] * (now_ - link_since_[i]);
  link_since_[i] = now_;
  link_flows_[i] = static_cast<std::uint32_t>(static_cast<int>(link_flows_[i]) + flows);
  // Sums of deltas drift by rounding; a link nothing crosses carries exactly 0.
  link_rate_[i] = link_flows_[i] == 0 ? 0.0 : link_rate_[i] + delta;
  utilisation_[i] = link_rate_[i] / links_[i].bandwidth;
}

double FlowEngine::link_bytes(LinkId l) const {
  const std::size_t i = l.value();
  return link_bytes_[i] + link_rate_[i] * (now_ - link_since_[i]);
}

void FlowEngine::drop_stale() {
  const auto stale = [&](const Timed& e, bool active) {
    const Message& m = messages_[e.message];
    return !m.live || m.version != e.version || m.active != active;
  };
  while (!completions_.empty() && stale(completions_.front(), true)) {
    std::pop_heap(completions_.begin(), completions_.end(), later);
    completions_.pop_back();
  }
  while (!activations_.empty() && stale(activations_.front(), false)) {
    std::pop_heap(activations_.begin(), activations_.end(), later);
    activations_.pop_back();
  }
}

double FlowEngine::next_event_time() {
  drop_stale();
  const double a = activations_.empty() ? kNever : activations_.front().time;
  const double c = completions_.empty() ? kNever : completions_.front().time;
  return resolve_pending_ ? now_ : std::min(a, c);
}

double FlowEngine::advance(double t, std::vector<std::uint64_t>& completed) {
  if (!(t >= now_) || !std::isfinite(t)) {
    throw std::invalid_argument("flow model: advance to " + std::to_string(t) +
                                ", before now or not finite");
  }
  const double event = next_event_time();
  if (event > horizon(t)) {
    now_ = t;
    return now_;
  }
  now_ = std::max(now_, event);
  const double until = horizon(now_);
  ++stats_.events;
  done_.clear();
  while (!completions_.empty() && completions_.front().time <= until) {
    const Timed c = completions_.front();
    std::pop_heap(completions_.begin(), completions_.end(), later);
    completions_.pop_back();
    const Message& m = messages_[c.message];
    if (!m.live || m.version != c.version || !m.active) continue;
    done_.push_back(c.message);
  }
  std::sort(done_.begin(), done_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return messages_[a].id < messages_[b].id; });
  for (const std::uint32_t i : done_) {
    completed.push_back(messages_[i].id);
    finish(i);
  }
  while (!activations_.empty() && activations_.front().time <= until) {
    const Timed a = activations_.front();
    std::pop_heap(activations_.begin(), activations_.end(), later);
    activations_.pop_back();
    const Message& m = messages_[a.message];
    if (!m.live || m.version != a.version || m.active) continue;
    activate(a.message);
  }
  changed_.clear();
  stats_.solved_flows += options_.solve == FlowSolve::kFull ? sharing_.solve_all(changed_)
                                                            : sharing_.solve_touched(changed_);
  stats_.rate_changes += changed_.size();
  resolve_pending_ = false;
  apply_rates();
  compact();
  return now_;
}

void FlowEngine::apply_rates() {
  // Settle each message at its old rate first, then move its sub-flows to their new rates.
  touched_messages_.clear();
  for (const MaxMinSharing::FlowSlot f : changed_) {
    const auto [i, s] = slot_owner_[f];
    Message& m = messages_[i];
    if (m.mark != m.version) {
      m.mark = m.version;
      settle(m);
      touched_messages_.push_back(i);
    }
    SubFlow& sub = m.subs[s];
    const double rate = sharing_.rate(f);
    for (const LinkId link : m.routes[sub.route]) link_rate(link, rate - sub.rate, 0);
    sub.rate = rate;
  }
  for (const std::uint32_t i : touched_messages_) {
    Message& m = messages_[i];
    m.rate = 0;
    for (const SubFlow& sub : m.subs) m.rate += sub.rate;
    ++m.version;
    if (m.rate == 0) continue;  // starved by higher classes until their flows end
    const double end = now_ + std::max(m.remaining, 0.0) / m.rate;
    completions_.push_back({end, m.id, i, m.version});
    std::push_heap(completions_.begin(), completions_.end(), later);
  }
}

/// Keeps the heaps within twice the unfinished messages (stale entries pile up under frequent
/// rate changes); amortised O(1) per entry.
void FlowEngine::compact() {
  if (completions_.size() <= 2 * live_ + 1024) return;
  std::erase_if(completions_, [&](const Timed& c) {
    const Message& m = messages_[c.message];
    return !m.live || m.version != c.version || !m.active;
  });
  std::make_heap(completions_.begin(), completions_.end(), later);
}

}  // namespace ibsdn
