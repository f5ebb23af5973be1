// The switches as the controller knows them (switch_registry.hpp).
#include "plugin/controller/switch_registry.hpp"

#include <algorithm>
#include <utility>

#include "flowtable/guid_text.hpp"

namespace ibsdn::plugin {

SwitchRegistry::SwitchRegistry(std::chrono::milliseconds check_interval)
    : probe_base_(std::max(check_interval, kMinProbeWait)) {}

void SwitchRegistry::update(std::shared_ptr<const Subnet> subnet) {
  subnet_ = std::move(subnet);
  const Fabric& f = subnet_->fabric;
  all_.clear();
  for (const NodeIdx n : f.switches()) {
    if (auto s = find(f.node(n).guid)) all_.push_back(std::move(*s));
  }
  std::sort(all_.begin(), all_.end(),
            [](const Switch& a, const Switch& b) { return a.name < b.name; });
  for (const NodeIdx n : f.switches()) {
    std::string ports;
    for (const Port& p : f.node(n).ports) {
      if (p.connected()) {
        ports += std::to_string(p.num.value()) + ":" + guid_text(f.node(p.peer).guid) + ",";
      }
    }
    Health& h = health_[f.node(n).guid];
    if (h.ports != ports && h.agent == Agent::kIncapable) {
      h.next_probe = {};  // a port-state change: probe again now
    }
    h.ports = std::move(ports);
  }
}

std::optional<SwitchRegistry::Switch> SwitchRegistry::find(Guid g) const {
  if (!subnet_) return std::nullopt;
  const auto found = subnet_->fabric.find_guid(g);
  if (!found) return std::nullopt;
  const Node& node = subnet_->fabric.node(*found);
  if (!node.is_switch()) return std::nullopt;
  const Lid lid = subnet_->lids.lid(*found, PortNum(0));
  if (lid.value() == 0) return std::nullopt;
  return Switch{*found, g, lid, node.name};
}

std::vector<SwitchRegistry::Switch> SwitchRegistry::due(Clock::time_point now) const {
  std::vector<Switch> out = all_;
  std::erase_if(out, [&](const Switch& sw) {
    const auto it = health_.find(sw.guid);
    return it != health_.end() && it->second.agent == Agent::kIncapable &&
           now < it->second.next_probe;
  });
  return out;
}

SwitchRegistry::Change SwitchRegistry::note_answer(Guid g, bool answered, Clock::time_point now) {
  Health& h = health_[g];
  if (answered) {
    const Agent was = h.agent;
    h.agent = Agent::kCapable;
    h.failures = 0;
    if (was == Agent::kUnreachable) return Change::kAnswersAgain;
    return was == Agent::kIncapable ? Change::kNowCapable : Change::kNone;
  }
  if (h.agent == Agent::kCapable) {
    h.agent = Agent::kUnreachable;
    return Change::kUnreachable;
  }
  if (h.agent == Agent::kUnreachable) return Change::kNone;  // checked again next round
  // Never answered: no SDN agent there. Probe again after 1, 2, 4, ... times the base (at most
  // kMaxProbeWait), or at once when its cabling changes.
  const Change change = h.agent == Agent::kUnknown ? Change::kNotSdnCapable : Change::kNone;
  h.agent = Agent::kIncapable;
  const auto wait = std::min<std::chrono::milliseconds>(
      probe_base_ * (1u << std::min(h.failures, 7u)), kMaxProbeWait);
  ++h.failures;
  h.next_probe = now + wait;
  return change;
}

SwitchRegistry::Agent SwitchRegistry::agent(Guid g) const {
  const auto it = health_.find(g);
  return it == health_.end() ? Agent::kUnknown : it->second.agent;
}

std::set<Guid> SwitchRegistry::incapable() const {
  std::set<Guid> out;
  for (const auto& [g, h] : health_) {
    if (h.agent == Agent::kIncapable) out.insert(g);
  }
  return out;
}

std::size_t SwitchRegistry::unreachable_count() const {
  std::size_t n = 0;
  for (const auto& [g, h] : health_) n += h.agent == Agent::kUnreachable;
  return n;
}

std::optional<std::uint64_t> SwitchRegistry::generation(Guid g) const {
  const auto it = generation_.find(g);
  if (it == generation_.end()) return std::nullopt;
  return it->second;
}

void SwitchRegistry::note_sync(const SyncResult& result) {
  note_generations(result.generation);
  for (const auto& [g, why] : result.failed) generation_.erase(g);
}

void SwitchRegistry::note_generations(const std::map<Guid, std::uint64_t>& generations) {
  for (const auto& [g, gen] : generations) generation_[g] = gen;
}

}  // namespace ibsdn::plugin
