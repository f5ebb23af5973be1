#include "flowtable/flow_table.hpp"

#include <algorithm>

namespace ibsdn {

std::string_view to_string(FlowModStatus s) {
  switch (s) {
    case FlowModStatus::kOk:
      return "ok";
    case FlowModStatus::kTableFull:
      return "table full";
    case FlowModStatus::kBadMatch:
      return "bad match";
    case FlowModStatus::kUnsupportedField:
      return "unsupported match field";
    case FlowModStatus::kBadAction:
      return "bad action";
  }
  return "?";
}

namespace {

bool exact_dlid(const FlowMatch& m) {
  return m.dlid && m.dlid->mask == 0xFFFF;
}

FlowModResult fail(FlowModStatus s, std::string detail) {
  return {s, 0, std::move(detail)};
}

}  // namespace

FlowModResult FlowTable::check(const FlowEntry& e) const {
  if (std::string why = e.match.validate(); !why.empty())
    return fail(FlowModStatus::kBadMatch, why);
  if (e.match.required_level() > cfg_.level) {
    return fail(FlowModStatus::kUnsupportedField,
                "match needs flow definition level " +
                    std::string(to_string(e.match.required_level())) + ", table supports " +
                    std::string(to_string(cfg_.level)));
  }
  const auto port = e.action.output.value();
  if (port == 0 || port > cfg_.num_ports) {
    return fail(FlowModStatus::kBadAction, "output port " + std::to_string(port) +
                                               " is not a data port of this switch (1.." +
                                               std::to_string(cfg_.num_ports) + ")");
  }
  if (e.action.set_sl && e.action.set_sl->value() > kSlMask) {
    return fail(FlowModStatus::kBadAction,
                "set_sl " + std::to_string(e.action.set_sl->value()) + " is above 15");
  }
  return {};
}

std::optional<std::uint32_t> FlowTable::find_strict(const FlowMatch& m,
                                                    std::uint16_t priority) const {
  const std::vector<std::uint32_t>* bucket = &wild_;
  if (exact_dlid(m)) {
    auto it = by_dlid_.find(m.dlid->value);
    if (it == by_dlid_.end()) return std::nullopt;
    bucket = &it->second;
  }
  for (std::uint32_t s : *bucket) {
    if (slots_[s]->priority == priority && slots_[s]->match == m) return s;
  }
  return std::nullopt;
}

void FlowTable::index(std::uint32_t slot) {
  const FlowEntry& e = *slots_[slot];
  if (exact_dlid(e.match)) {
    by_dlid_[e.match.dlid->value].push_back(slot);
  } else {
    wild_.push_back(slot);
  }
}

void FlowTable::erase(std::uint32_t slot) {
  const FlowEntry& e = *slots_[slot];
  std::vector<std::uint32_t>* bucket = &wild_;
  if (exact_dlid(e.match)) bucket = &by_dlid_[e.match.dlid->value];
  bucket->erase(std::find(bucket->begin(), bucket->end(), slot));
  if (bucket != &wild_ && bucket->empty()) by_dlid_.erase(e.match.dlid->value);
  slots_[slot].reset();
  --live_;
}

FlowModResult FlowTable::add(const FlowEntry& e) {
  if (FlowModResult r = check(e); !r.ok()) return r;
  if (auto s = find_strict(e.match, e.priority)) {
    FlowEntry& old = *slots_[*s];
    old.cookie = e.cookie;
    old.action = e.action;
    old.n_packets = 0;
    ++generation_;
    return {FlowModStatus::kOk, 1, {}};
  }
  if (live_ >= cfg_.capacity) {
    return fail(FlowModStatus::kTableFull, "table holds " + std::to_string(live_) + " of " +
                                               std::to_string(cfg_.capacity) + " entries");
  }
  if (slots_.size() > 2 * live_ + 64) {
    // Compact erased slots so indexes stay dense; installation order is preserved.
    std::vector<std::optional<FlowEntry>> old = std::move(slots_);
    std::vector<std::uint64_t> old_seq = std::move(seq_);
    slots_.clear();
    seq_.clear();
    by_dlid_.clear();
    wild_.clear();
    for (std::size_t i = 0; i < old.size(); ++i) {
      if (!old[i]) continue;
      slots_.push_back(std::move(old[i]));
      seq_.push_back(old_seq[i]);
      index(static_cast<std::uint32_t>(slots_.size() - 1));
    }
  }
  FlowEntry fresh = e;
  fresh.n_packets = 0;
  slots_.push_back(std::move(fresh));
  seq_.push_back(next_seq_++);
  index(static_cast<std::uint32_t>(slots_.size() - 1));
  ++live_;
  ++generation_;
  return {FlowModStatus::kOk, 1, {}};
}

FlowModResult FlowTable::modify_strict(const FlowMatch& m, std::uint16_t priority,
                                       const FlowAction& a) {
  FlowEntry probe;
  probe.match = m;
  probe.priority = priority;
  probe.action = a;
  if (FlowModResult r = check(probe); !r.ok()) return r;
  auto s = find_strict(m, priority);
  if (!s) return {FlowModStatus::kOk, 0, "no entry with this match and priority"};
  slots_[*s]->action = a;
  ++generation_;
  return {FlowModStatus::kOk, 1, {}};
}

FlowModResult FlowTable::delete_strict(const FlowMatch& m, std::uint16_t priority) {
  if (std::string why = m.validate(); !why.empty()) return fail(FlowModStatus::kBadMatch, why);
  auto s = find_strict(m, priority);
  if (!s) return {FlowModStatus::kOk, 0, {}};
  erase(*s);
  ++generation_;
  return {FlowModStatus::kOk, 1, {}};
}

FlowModResult FlowTable::delete_matching(const FlowMatch& m) {
  if (std::string why = m.validate(); !why.empty()) return fail(FlowModStatus::kBadMatch, why);
  std::uint32_t n = 0;
  for (std::uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s] && slots_[s]->match.covered_by(m)) {
      erase(s);
      ++n;
    }
  }
  if (n) ++generation_;
  return {FlowModStatus::kOk, n, {}};
}

FlowModResult FlowTable::delete_by_cookie(std::uint64_t cookie, std::uint64_t mask) {
  std::uint32_t n = 0;
  for (std::uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s] && (slots_[s]->cookie & mask) == (cookie & mask)) {
      erase(s);
      ++n;
    }
  }
  if (n) ++generation_;
  return {FlowModStatus::kOk, n, {}};
}

void FlowTable::clear() {
  const bool had = live_ != 0;
  slots_.clear();
  seq_.clear();
  by_dlid_.clear();
  wild_.clear();
  live_ = 0;
  if (had) ++generation_;
}

bool FlowTable::better(std::uint32_t a, std::uint32_t b) const {
  const FlowEntry& x = *slots_[a];
  const FlowEntry& y = *slots_[b];
  if (x.priority != y.priority) return x.priority > y.priority;
  const int sx = x.match.specificity();
  const int sy = y.match.specificity();
  if (sx != sy) return sx > sy;
  return seq_[a] < seq_[b];
}

std::optional<std::uint32_t> FlowTable::best_slot(const PacketHeader& h) const {
  std::optional<std::uint32_t> best;
  auto consider = [&](const std::vector<std::uint32_t>& bucket) {
    for (std::uint32_t s : bucket) {
      if (slots_[s]->match.matches(h) && (!best || better(s, *best))) best = s;
    }
  };
  if (auto it = by_dlid_.find(h.dlid.value()); it != by_dlid_.end()) consider(it->second);
  consider(wild_);
  return best;
}

const FlowEntry* FlowTable::peek(const PacketHeader& h) const {
  const auto s = best_slot(h);
  return s ? &*slots_[*s] : nullptr;
}

std::optional<FlowAction> FlowTable::lookup(const PacketHeader& h) {
  ++counters_.lookups;
  const auto s = best_slot(h);
  if (!s) {
    ++counters_.missed;
    return std::nullopt;
  }
  ++counters_.matched;
  FlowEntry& e = *slots_[*s];
  ++e.n_packets;
  return e.action;
}

std::vector<FlowEntry> FlowTable::entries() const {
  std::vector<FlowEntry> out;
  out.reserve(live_);
  for (const auto& s : slots_) {
    if (s) out.push_back(*s);
  }
  return out;
}

}  // namespace ibsdn
