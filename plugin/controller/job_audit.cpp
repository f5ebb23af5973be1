// JobController: the audit that compares the switches' tables with the intent (and repairs
// them), the periodic check, reading tables back for queries, and the log lines of a switch's
// SDN agent coming and going (what the controller knows of each switch: switch_registry.hpp).
#include <string>

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

void JobController::note_answer(const Switch& sw, bool answered, const std::string& why) {
  using Change = SwitchRegistry::Change;
  switch (switches_.note_answer(sw.guid, answered, SwitchRegistry::Clock::now())) {
    case Change::kNone:
      break;
    case Change::kAnswersAgain:
      log(LogLevel::kInfo, "switch " + sw.name + " answers the SDN class again");
      break;
    case Change::kNowCapable:
      log(LogLevel::kInfo, "switch " + sw.name + " answers the SDN class now: SDN-capable");
      break;
    case Change::kUnreachable:
      log(LogLevel::kWarn, "switch " + sw.name + " unreachable: " + why);
      break;
    case Change::kNotSdnCapable:
      log(LogLevel::kInfo, "switch " + sw.name + " does not answer the SDN class (" + why +
                               "): not SDN-capable; its traffic stays on the LFT");
      break;
  }
}

json JobController::flows_from_switches(const FlowsQuery& q) {
  std::vector<Switch> selected =
      q.switch_ref ? switches_.all() : switches_.due(SwitchRegistry::Clock::now());
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
  lft_entries_held(q, out, warnings);
  json r = flows_response(out, true);
  r["warnings"] = std::move(warnings);
  return r;
}

json JobController::audit(const AuditQuery& q) {
  AuditOutcome a = audit_switches(switches_.due(SwitchRegistry::Clock::now()), q.repair);
  // Switches without an agent are not asked (each would cost a timeout and a log line)...
  const std::size_t not_sdn_capable = switches_.all().size() - a.checked;
  // ... but the LFT blocks that hold jobs' entries are read (SubnGet) on every switch.
  audit_lft_blocks(a, q.repair);
  json r = audit_response(a.checked + a.lft_switches, a.findings);
  r["repaired"] = a.repaired;
  r["lft_blocks_checked"] = a.lft_blocks;
  r["lft_blocks_repaired"] = a.lft_repaired;
  r["not_sdn_capable"] = not_sdn_capable;
  return r;
}

JobController::AuditOutcome JobController::audit_switches(const std::vector<Switch>& switches,
                                                          bool repair) {
  AuditOutcome out;
  ++counters_["audits"];
  std::vector<SwitchChange> repairs;
  for (const Switch& sw : switches) {
    // A switch that never answered (a stock switch, re-probed now that its wait is over) is
    // not audited by failing again: its entries, if any, are in its LFT.
    const SwitchRegistry::Agent before = switches_.agent(sw.guid);
    const bool probe =
        before == SwitchRegistry::Agent::kIncapable || before == SwitchRegistry::Agent::kUnknown;
    mad::Result<mad::TableRead> read = client_.read_table(sw.lid, config_.switch_key);
    note_answer(sw, static_cast<bool>(read), read ? std::string() : read.error().message);
    if (!read && probe) continue;
    ++out.checked;
    if (!read) {
      out.findings.push_back(AuditFinding{sw.guid, sw.name, "unreachable", read.error().message});
      switches_.forget_generation(sw.guid);
      continue;
    }
    const std::vector<FlowEntry> want = intended(sw.guid);
    std::vector<FlowEntry> have = std::move(read.value().entries);
    quarantined_.note_table(sw.guid, have);
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
      switches_.set_generation(sw.guid, read.value().generation);
    } else if (repair) {
      repairs.push_back(SwitchChange{sw.guid, sw.lid, sw.name, have, want});
    } else {
      switches_.forget_generation(sw.guid);  // not what we intend: the periodic check looks again
    }
  }
  if (!repairs.empty()) {
    const SyncResult res = apply_changes(client_, config_.switch_key, repairs);
    switches_.note_sync(res);
    out.repaired = res.flow_mods;
    counters_["flow_mods_sent"] += res.flow_mods;
    counters_["repairs"] += res.flow_mods;
    for (const SwitchChange& c : repairs) {
      const auto failed = res.failed.find(c.guid);
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
  const std::vector<Switch> switches = switches_.due(SwitchRegistry::Clock::now());
  std::vector<Lid> lids;
  for (const Switch& s : switches) lids.push_back(s.lid);
  const auto infos = client_.table_infos(lids, config_.switch_key);
  std::vector<Switch> suspicious;
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const Switch& sw = switches[i];
    const bool was_unreachable = switches_.agent(sw.guid) != SwitchRegistry::Agent::kCapable;
    note_answer(sw, static_cast<bool>(infos[i]),
                infos[i] ? std::string() : infos[i].error().message);
    if (!infos[i]) {
      switches_.forget_generation(sw.guid);
      continue;
    }
    // A table changed behind the controller's back (an entry rewritten in place keeps the
    // count) has another generation than the one the controller left.
    const bool moved = switches_.generation(sw.guid) != infos[i].value().generation;
    // Entries of quarantined jobs stay on the switches: then only the generation tells.
    const bool count_off =
        quarantined_.empty() && infos[i].value().used != intended(sw.guid).size();
    if (was_unreachable || moved || count_off) {
      suspicious.push_back(sw);
    }
  }
  ++counters_["periodic_checks"];
  // The LFT blocks holding jobs' entries: one read per block (the blocks are few: only those
  // with an override), repaired where they differ.
  AuditOutcome lft;
  audit_lft_blocks(lft, true);
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
