// JobController: the switches as the controller knows them, the audit that compares their tables
// with the intent (and repairs them), the periodic check, and reading tables back for queries.
#include <algorithm>

#include "flowtable/flow_text.hpp"
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

void JobController::note_generations(const std::map<Guid, std::uint64_t>& generations) {
  for (const auto& [g, gen] : generations) generation_[g] = gen;
}

json JobController::flows_from_switches(const FlowsQuery& q) {
  std::vector<Switch> selected = all_switches();
  if (q.switch_ref) {
    std::erase_if(selected, [&](const Switch& s) {
      const Node& node = fabric_->subnet.fabric.node(s.node);
      return !std::visit(
          [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, Lid>) return s.lid == r;
            if constexpr (std::is_same_v<T, Guid>) return s.guid == r;
            if constexpr (std::is_same_v<T, std::string>) {
              return node.name == r || node.description == r;
            }
          },
          *q.switch_ref);
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
  const AuditOutcome a = audit_switches(all_switches(), q.repair);
  json r = audit_response(a.checked, a.findings);
  r["repaired"] = a.repaired;
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
    if (!read) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unreachable", read.error().message});
      generation_.erase(sw.guid);
      if (unreachable_.insert(sw.guid).second) {
        log(LogLevel::kWarn, "switch " + sw.name + " unreachable: " + read.error().message);
      }
      continue;
    }
    if (unreachable_.erase(sw.guid) > 0) {
      log(LogLevel::kInfo, "switch " + sw.name + " answers again");
    }
    const std::vector<FlowEntry> want = intended(sw.guid);
    const TableComparison c = compare_tables(read.value().entries, want);
    for (const FlowEntry& e : c.missing) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "missing", format_flow(e)});
    }
    for (const FlowEntry& e : c.unexpected) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unexpected", format_flow(e)});
    }
    for (const auto& [have, should] : c.differs) {
      out.findings.push_back(
          AuditFinding{sw.guid, sw.name, "differs",
                       format_flow(have) + " (intended: " + format_flow(should) + ")"});
    }
    if (c.consistent()) {
      generation_[sw.guid] = read.value().generation;
    } else if (repair) {
      repairs.push_back(SwitchChange{sw.guid, sw.lid, sw.name, read.value().entries, want});
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
      log(failed == res.failed.end() ? LogLevel::kWarn : LogLevel::kError,
          "switch " + c.name + " repaired to its " + std::to_string(c.after.size()) +
              " intended entries (it held " + std::to_string(c.before.size()) + ")" +
              findings_text(out.findings, c.guid) +
              (failed == res.failed.end() ? "" : ": failed: " + failed->second));
    }
  }
  return out;
}

void JobController::periodic_check() {
  if (!fabric_) return;
  const std::vector<Switch> switches = all_switches();
  std::vector<Lid> lids;
  for (const Switch& s : switches) lids.push_back(s.lid);
  const auto infos = client_.table_infos(lids, config_.switch_key);
  std::vector<Switch> suspicious;
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const Switch& sw = switches[i];
    if (!infos[i]) {
      generation_.erase(sw.guid);
      if (unreachable_.insert(sw.guid).second) {
        log(LogLevel::kWarn, "switch " + sw.name + " unreachable: " + infos[i].error().message);
      }
      continue;
    }
    const bool was_unreachable = unreachable_.erase(sw.guid) > 0;
    // A table changed behind the controller's back (an entry rewritten in place keeps the
    // count) has another generation than the one the controller left.
    const auto known = generation_.find(sw.guid);
    const bool moved = known == generation_.end() || known->second != infos[i].value().generation;
    if (was_unreachable || moved || infos[i].value().used != intended(sw.guid).size()) {
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
