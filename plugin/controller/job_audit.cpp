// JobController: the switches as the controller knows them, the audit that compares their tables
// with the intent (and repairs them), the periodic check, and reading tables back for queries.
#include <algorithm>

#include "flowtable/flow_text.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/switch_sync.hpp"

namespace ibsdn::plugin {
namespace {

using nlohmann::json;

/// An audit finding's lines for the log: at most a few, the rest counted.
std::string findings_text(const std::vector<AuditFinding>& findings, Guid sw) {
  constexpr std::size_t kShown = 4;
  std::string out;
  std::size_t n = 0;
  for (const AuditFinding& f : findings) {
    if (f.switch_guid != sw) continue;
    if (n++ < kShown) out += "; " + f.kind + " " + f.detail;
  }
  if (n > kShown) out += "; and " + std::to_string(n - kShown) + " more";
  return out;
}

}  // namespace

std::optional<JobController::Switch> JobController::switch_of(Guid g) const {
  const auto found = fabric_->subnet.fabric.find_guid(g);
  if (!found) return std::nullopt;
  const Node& node = fabric_->subnet.fabric.node(*found);
  if (!node.is_switch()) return std::nullopt;
  const Lid lid = fabric_->subnet.lids.lid(*found, PortNum(0));
  if (lid.value() == 0) return std::nullopt;
  return Switch{*found, g, lid, node.name};
}

std::vector<JobController::Switch> JobController::all_switches() const {
  std::vector<Switch> out;
  for (const NodeIdx n : fabric_->subnet.fabric.switches()) {
    if (auto s = switch_of(fabric_->subnet.fabric.node(n).guid)) out.push_back(std::move(*s));
  }
  std::sort(out.begin(), out.end(),
            [](const Switch& a, const Switch& b) { return a.name < b.name; });
  return out;
}

std::vector<JobController::Switch> JobController::due_switches() const {
  const auto now = std::chrono::steady_clock::now();
  std::vector<Switch> out = all_switches();
  std::erase_if(out, [&](const Switch& sw) {
    const auto it = health_.find(sw.guid);
    return it != health_.end() && it->second.state == SwitchHealth::State::kIncapable &&
           now < it->second.next_probe;
  });
  return out;
}

std::set<Guid> JobController::incapable_switches() const {
  std::set<Guid> out;
  for (const auto& [g, h] : health_) {
    if (h.state == SwitchHealth::State::kIncapable) out.insert(g);
  }
  return out;
}

void JobController::note_answer(const Switch& sw, bool answered, const std::string& why) {
  using State = SwitchHealth::State;
  SwitchHealth& h = health_[sw.guid];
  if (answered) {
    if (h.state == State::kUnreachable || h.state == State::kIncapable) {
      log(LogLevel::kInfo, "switch " + sw.name + " answers the SDN class" +
                               (h.state == State::kIncapable ? " now: SDN-capable" : " again"));
    }
    h.state = State::kCapable;
    h.failures = 0;
    return;
  }
  if (h.state == State::kCapable) {
    h.state = State::kUnreachable;
    log(LogLevel::kWarn, "switch " + sw.name + " unreachable: " + why);
    return;
  }
  if (h.state == State::kUnreachable) return;  // checked again next round, logged once
  // Never answered: no SDN agent there. Probe again after 1, 2, 4, ... check intervals (at
  // least 30 s, at most an hour), or at once when its cabling changes.
  if (h.state == State::kUnknown) {
    log(LogLevel::kInfo, "switch " + sw.name + " does not answer the SDN class (" + why +
                             "): not SDN-capable; its traffic stays on the LFT");
  }
  h.state = State::kIncapable;
  const auto base =
      std::chrono::milliseconds(std::max<std::uint32_t>(config_.audit_interval_ms, 30'000));
  const auto wait = std::min<std::chrono::milliseconds>(base * (1u << std::min(h.failures, 7u)),
                                                        std::chrono::hours(1));
  ++h.failures;
  h.next_probe = std::chrono::steady_clock::now() + wait;
}

void JobController::note_cabling() {
  const Fabric& f = fabric_->subnet.fabric;
  for (const NodeIdx n : f.switches()) {
    std::string ports;
    for (const Port& p : f.node(n).ports) {
      if (p.connected()) {
        ports += std::to_string(p.num.value()) + ":" + guid_text(f.node(p.peer).guid) + ",";
      }
    }
    SwitchHealth& h = health_[f.node(n).guid];
    if (h.ports != ports && h.state == SwitchHealth::State::kIncapable) {
      h.next_probe = {};  // a port-state change: probe again now
    }
    h.ports = std::move(ports);
  }
}

void JobController::note_generations(const std::map<Guid, std::uint64_t>& generations) {
  for (const auto& [g, gen] : generations) generation_[g] = gen;
}

json JobController::flows_from_switches(const FlowsQuery& q) {
  std::vector<Switch> selected = q.switch_ref ? all_switches() : due_switches();
  if (q.switch_ref) {
    std::erase_if(selected, [&](const Switch& s) {
      return !switch_matches(fabric_->subnet.fabric, s.node, s.lid, *q.switch_ref);
    });
    if (selected.empty()) {
      throw NoticeFailure(ErrorCode::kInvalid,
                          "no switch with that LID, GUID or name in the fabric", "/switch");
    }
    selected.resize(1);
  }
  std::vector<SwitchFlows> out;
  json warnings = json::array();
  for (const Switch& sw : selected) {
    SwitchFlows sf{sw.guid, sw.lid, sw.name, {}};
    mad::Result<mad::TableRead> read = client_.read_table(sw.lid, config_.switch_key);
    if (!read) {
      warnings.push_back(sw.name + ": " + read.error().message);
      continue;
    }
    sf.entries = std::move(read.value().entries);
    if (q.job) {
      std::erase_if(sf.entries, [&](const FlowEntry& e) { return e.cookie != q.job->value(); });
    }
    if (!sf.entries.empty() || q.switch_ref) out.push_back(std::move(sf));
  }
  json r = flows_response(out, true);
  r["warnings"] = std::move(warnings);
  return r;
}

json JobController::audit(const AuditQuery& q) {
  const AuditOutcome a = audit_switches(due_switches(), q.repair);
  json r = audit_response(a.checked, a.findings);
  r["repaired"] = a.repaired;
  // Switches without an agent are not asked (each would cost a timeout and a log line).
  r["not_sdn_capable"] = all_switches().size() - a.checked;
  return r;
}

JobController::AuditOutcome JobController::audit_switches(const std::vector<Switch>& switches,
                                                          bool repair) {
  AuditOutcome out;
  ++counters_["audits"];
  std::vector<SwitchChange> repairs;
  for (const Switch& sw : switches) {
    ++out.checked;
    mad::Result<mad::TableRead> read = client_.read_table(sw.lid, config_.switch_key);
    note_answer(sw, static_cast<bool>(read), read ? std::string() : read.error().message);
    if (!read) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unreachable", read.error().message});
      generation_.erase(sw.guid);
      continue;
    }
    const std::vector<FlowEntry> want = intended(sw.guid);
    std::vector<FlowEntry> have = std::move(read.value().entries);
    note_quarantined_entries(sw.guid, have);
    std::erase_if(have, [&](const FlowEntry& e) { return quarantined_.contains(e.cookie); });
    const TableComparison c = compare_tables(have, want);
    for (const FlowEntry& e : c.missing) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "missing", format_flow(e)});
    }
    for (const FlowEntry& e : c.unexpected) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unexpected", format_flow(e)});
    }
    for (const auto& [held, should] : c.differs) {
      out.findings.push_back(
          AuditFinding{sw.guid, sw.name, "differs",
                       format_flow(held) + " (intended: " + format_flow(should) + ")"});
    }
    if (c.consistent()) {
      generation_[sw.guid] = read.value().generation;
    } else if (repair) {
      repairs.push_back(SwitchChange{sw.guid, sw.lid, sw.name, have, want});
    } else {
      generation_.erase(sw.guid);  // not what we intend: the periodic check looks again
    }
  }
  if (!repairs.empty()) {
    const SyncResult res = apply_changes(client_, config_.switch_key, repairs);
    note_generations(res.generation);
    out.repaired = res.flow_mods;
    counters_["flow_mods_sent"] += res.flow_mods;
    counters_["repairs"] += res.flow_mods;
    for (const SwitchChange& c : repairs) {
      const auto failed = res.failed.find(c.guid);
      if (failed != res.failed.end()) generation_.erase(c.guid);
      const std::string repaired = "switch " + c.name + " repaired to its " +
                                   std::to_string(c.after.size()) + " intended entries (it held " +
                                   std::to_string(c.before.size()) + ")" +
                                   findings_text(out.findings, c.guid);
      if (failed == res.failed.end()) {
        log(LogLevel::kWarn, repaired);
      } else {
        log(LogCode::kRepairFailed, repaired + ": failed: " + failed->second);
      }
    }
  }
  return out;
}

void JobController::periodic_check() {
  if (!fabric_ || !master_ || takeover_) return;
  const std::vector<Switch> switches = due_switches();
  std::vector<Lid> lids;
  for (const Switch& s : switches) lids.push_back(s.lid);
  const auto infos = client_.table_infos(lids, config_.switch_key);
  std::vector<Switch> suspicious;
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const Switch& sw = switches[i];
    const bool was_unreachable = health_[sw.guid].state != SwitchHealth::State::kCapable;
    note_answer(sw, static_cast<bool>(infos[i]),
                infos[i] ? std::string() : infos[i].error().message);
    if (!infos[i]) {
      generation_.erase(sw.guid);
      continue;
    }
    // A table changed behind the controller's back (an entry rewritten in place keeps the
    // count) has another generation than the one the controller left.
    const auto known = generation_.find(sw.guid);
    const bool moved = known == generation_.end() || known->second != infos[i].value().generation;
    // Entries of quarantined jobs stay on the switches: then only the generation tells.
    const bool count_off =
        quarantined_.empty() && infos[i].value().used != intended(sw.guid).size();
    if (was_unreachable || moved || count_off) {
      suspicious.push_back(sw);
    }
  }
  ++counters_["periodic_checks"];
  if (!suspicious.empty()) {
    const AuditOutcome a = audit_switches(suspicious, true);
    if (a.repaired > 0) {
      log(LogLevel::kWarn, "periodic check: " + std::to_string(suspicious.size()) +
                               " switch(es) audited, " + std::to_string(a.repaired) +
                               " FlowMods to repair");
    }
  }
  publish();
}

}  // namespace ibsdn::plugin
