// JobController: the LFT backend (docs/routing.md, "Install backends"). On a switch without a
// flow table a job's routes are destination entries written into the switch's Linear Forwarding
// Table: the job's entries there are DLID-only (compile_flows with CompileOptions.lft_switches),
// every job's LFT entries together are "overrides" of the default routes, and a change is the
// 64-entry blocks whose contents differ, written through LftAccess (OpenSM inside opensm).
#include <algorithm>

#include "flowtable/flow_text.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"
#include "plugin/controller/switch_sync.hpp"

namespace ibsdn::plugin {
namespace {

using BlockKey = std::pair<Guid, std::uint16_t>;

std::uint16_t block_of(std::uint16_t dlid) {
  return static_cast<std::uint16_t>(dlid / kLftBlockSize);
}

std::string block_text(const LftBlock& b) {
  return "block " + std::to_string(b.block) + " (LIDs " + std::to_string(b.block * kLftBlockSize) +
         "-" + std::to_string(b.block * kLftBlockSize + kLftBlockSize - 1) + ")";
}

}  // namespace

std::chrono::milliseconds JobController::lft_timeout() const {
  // OpenSM resends an unanswered SMP itself; twice the MAD settings' whole budget, at least 1 s.
  return std::chrono::milliseconds(std::max<std::uint64_t>(
      1000, std::uint64_t{config_.mad.timeout_ms} * (std::uint64_t{config_.mad.retries} + 1) * 2));
}

InstallBackend JobController::backend_of(const Job& j) const {
  return j.request.backend ? *j.request.backend : config_.install_backend;
}

std::string JobController::lft_unavailable() const {
  if (lft_ == nullptr) return "this controller has no access to the switches' LFTs";
  if (std::string why = lft_->unavailable_reason(); !why.empty()) return why;
  if (fabric_->engine != "sdn") {
    return "opensm routed the fabric with routing engine '" + fabric_->engine +
           "', whose next sweep would overwrite LFT entries; use routing_engine sdn";
  }
  if (fabric_->subnet.fabric.fat_tree() == nullptr) {
    return "the fabric is not a fat-tree: LFT entries are written only where every route stays a "
           "shortest up*/down* path (deadlock-free); credit-loop checking for other fabrics does "
           "not exist yet";
  }
  return {};
}

std::vector<bool> JobController::lft_switch_mask(const Job& j) const {
  const Fabric& f = fabric_->subnet.fabric;
  std::vector<bool> mask(f.num_nodes(), false);
  const InstallBackend b = backend_of(j);
  if (b == InstallBackend::kFlowTable) return mask;
  const std::string why = lft_unavailable();
  if (!why.empty()) {
    if (b == InstallBackend::kLft) {
      throw NoticeFailure(ErrorCode::kUnroutable, "install backend lft: " + why);
    }
    return mask;  // auto / dry run: flow tables only
  }
  for (const NodeIdx sw : f.switches()) {
    if (b == InstallBackend::kLft) {
      mask[sw.value()] = true;
      continue;
    }
    // auto: the LFT where no SDN agent ever answered.
    const auto a = switches_.agent(f.node(sw).guid);
    mask[sw.value()] =
        a == SwitchRegistry::Agent::kIncapable || a == SwitchRegistry::Agent::kUnknown;
  }
  return mask;
}

LftOverrides JobController::lft_overrides(
    std::optional<std::pair<JobId, Placement>> replace) const {
  LftOverrides out;
  const auto add = [&](const Placement& p) {
    for (const Guid g : p.lft) {
      const auto it = p.entries.find(g);
      if (it == p.entries.end()) continue;
      auto& table = out[g];
      for (const FlowEntry& e : it->second) {
        if (e.match.dlid) table[e.match.dlid->value] = e.action.output;
      }
    }
  };
  for (const auto& [id, j] : jobs_) {
    if (replace && replace->first == id) continue;
    add(Placement{j.entries, j.lft_switches});
  }
  if (replace) add(replace->second);
  return out;
}

LftBlock JobController::lft_block(const LftOverrides& overrides, Guid sw,
                                  std::uint16_t block) const {
  LftBlock b{sw, block, {}};
  b.ports.fill(kLftUnset.value());
  const auto node = fabric_->subnet.fabric.find_guid(sw);
  const bool has_table = node && fabric_->lfts.has_table(*node);
  const auto o = overrides.find(sw);
  for (std::size_t i = 0; i < kLftBlockSize; ++i) {
    const auto lid = static_cast<std::uint16_t>(block * kLftBlockSize + i);
    if (has_table) b.ports[i] = fabric_->lfts.table(*node).out(Lid(lid)).value();
    if (o != overrides.end()) {
      if (const auto p = o->second.find(lid); p != o->second.end()) b.ports[i] = p->second.value();
    }
  }
  return b;
}

std::vector<LftBlock> JobController::lft_blocks_between(const LftOverrides& before,
                                                        const LftOverrides& after,
                                                        const std::set<Guid>& skip) const {
  // Only blocks that hold an override on either side can differ.
  std::set<BlockKey> candidates;
  for (const LftOverrides* side : {&before, &after}) {
    for (const auto& [g, table] : *side) {
      if (skip.contains(g)) continue;
      for (const auto& [lid, port] : table) candidates.emplace(g, block_of(lid));
    }
  }
  std::vector<LftBlock> out;
  for (const auto& [g, block] : candidates) {
    LftBlock a = lft_block(after, g, block);
    if (a != lft_block(before, g, block)) out.push_back(std::move(a));
  }
  return out;
}

std::uint8_t JobController::pick_lid_offset(JobId id, const Job& j) const {
  const Subnet& s = fabric_->subnet;
  if (!j.request.path_bits || s.lmc_aliases.empty()) return 0;
  unsigned lids = 128;  // LID offsets stop at 127 (LMC 7)
  for (const NodeIdx h : j.nodes) lids = std::min(lids, lids_per_node_.at(h.value()));
  if (lids <= 1) return 0;
  std::vector<bool> mine(s.fabric.num_nodes(), false);
  for (const NodeIdx h : j.nodes) mine[h.value()] = true;
  // Per offset: how many of this job's nodes running jobs on that offset also use.
  std::vector<std::size_t> shared(lids, 0);
  for (const auto& [oid, o] : jobs_) {
    if (oid == id || o.lid_offset >= lids) continue;
    for (const NodeIdx h : o.nodes) shared[o.lid_offset] += mine[h.value()] ? 1 : 0;
  }
  return static_cast<std::uint8_t>(std::min_element(shared.begin(), shared.end()) - shared.begin());
}

std::uint8_t JobController::offset_in_effect(const Job& j) const {
  if (j.lid_offset == 0) return 0;
  for (const NodeIdx h : j.nodes) {
    if (h.value() >= lids_per_node_.size() || lids_per_node_[h.value()] <= j.lid_offset) return 0;
  }
  return j.lid_offset;
}

const LidMap& JobController::lids_of(const Job& j, std::optional<LidMap>& holder,
                                     std::string* why) const {
  const std::uint8_t offset = offset_in_effect(j);
  if (offset == 0) {
    if (j.lid_offset != 0 && why != nullptr) {
      *why = "the job's LID offset " + std::to_string(j.lid_offset) +
             " is gone from the fabric (a host of the job answers fewer LIDs: LMC lowered): it "
             "is routed on the base LIDs";
    }
    return fabric_->lfts.lids;
  }
  holder.emplace(lids_at_offset(fabric_->subnet, offset, {}));
  return *holder;
}

Lid JobController::dlid_at(std::uint8_t offset, NodeIdx n) const {
  const Lid base = fabric_->lfts.lids.lid(n);
  if (offset == 0 || base.value() == 0 || n.value() >= lids_per_node_.size() ||
      lids_per_node_[n.value()] <= offset) {
    return base;
  }
  return Lid(static_cast<std::uint16_t>(base.value() + offset));
}

void JobController::keep_lft_overrides() {
  if (lft_ != nullptr) {
    handed_lft_ = std::make_shared<const LftOverrides>(lft_overrides(std::nullopt));
    lft_->keep(handed_lft_);
  }
}

std::size_t JobController::rewrite_swept_lft_blocks(
    const std::shared_ptr<const LftOverrides>& swept) {
  if (lft_ == nullptr || !swept || !handed_lft_ || !lft_unavailable().empty()) return 0;
  const std::vector<LftBlock> blocks = lft_blocks_between(*swept, *handed_lft_, {});
  if (blocks.empty()) return 0;
  const LftWriteResult res = lft_->write(blocks, lft_timeout());
  counters_["lft_blocks_written"] += res.blocks;
  log(res.failed.empty() ? LogLevel::kInfo : LogLevel::kWarn,
      "LFTs: " + std::to_string(blocks.size()) +
          " block(s) the sweep wrote with entries of jobs that changed or ended rewritten" +
          (res.failed.empty() ? std::string()
                              : ", " + std::to_string(res.failed.size()) + " switch(es) failed"));
  return res.blocks;
}

JobController::Installed JobController::install(JobId id, Placement from, Placement to,
                                                const std::set<Guid>& skip) {
  Installed out;
  // Flow tables: the entries on switches that hold them there.
  static const std::vector<FlowEntry> kNone;
  const auto table_part = [](const Placement& p, Guid g) -> const std::vector<FlowEntry>& {
    if (p.lft.contains(g)) return kNone;
    const auto it = p.entries.find(g);
    return it == p.entries.end() ? kNone : it->second;
  };
  std::set<Guid> touched;
  for (const auto& [g, e] : from.entries) touched.insert(g);
  for (const auto& [g, e] : to.entries) touched.insert(g);
  std::vector<SwitchChange> changes;
  for (const Guid g : touched) {
    if (skip.contains(g)) continue;
    const std::vector<FlowEntry>& before = table_part(from, g);
    const std::vector<FlowEntry>& after = table_part(to, g);
    if (before.empty() && after.empty()) continue;
    if (before.size() == after.size() &&
        std::equal(before.begin(), before.end(), after.begin(),
                   [](const auto& x, const auto& y) { return x.same_rule(y); })) {
      continue;
    }
    const auto sw = switches_.find(g);
    if (!sw) continue;  // gone from the fabric: nothing to send
    changes.push_back(SwitchChange{g, sw->lid, sw->name, before, after});
  }
  if (!changes.empty()) {
    const SyncResult res = apply_changes(client_, config_.switch_key, changes);
    out.failed = res.failed;
    out.full = res.full;
    out.generation = res.generation;
    out.flow_mods = res.flow_mods;
    out.barriers = res.barriers;
  }

  // LFTs: the blocks whose contents change, with every other job's overrides in place.
  if (from.lft.empty() && to.lft.empty()) return out;
  const LftOverrides before = lft_overrides(std::make_pair(id, from));
  auto after = std::make_shared<const LftOverrides>(lft_overrides(std::make_pair(id, to)));
  const std::vector<LftBlock> blocks = lft_blocks_between(before, *after, skip);
  if (lft_ == nullptr) {
    for (const LftBlock& b : blocks) out.failed.emplace(b.sw, "no access to the LFTs");
    return out;
  }
  // The routing engine keeps the new entries from now on: a sweep in between writes them too.
  handed_lft_ = after;
  lft_->keep(after);
  if (blocks.empty()) return out;
  const auto timeout = lft_timeout();
  const LftWriteResult res = lft_->write(blocks, timeout);
  out.lft_blocks = res.blocks;
  counters_["lft_blocks_written"] += res.blocks;
  for (const auto& [g, why] : res.failed) out.failed.emplace(g, why);
  return out;
}

void JobController::audit_lft_blocks(AuditOutcome& out, bool repair) {
  if (lft_ == nullptr) return;
  const LftOverrides all = lft_overrides(std::nullopt);
  std::vector<LftBlock> want;
  for (const auto& [g, table] : all) {
    std::set<std::uint16_t> blocks;
    for (const auto& [lid, port] : table) blocks.insert(block_of(lid));
    for (const std::uint16_t b : blocks) want.push_back(lft_block(all, g, b));
  }
  if (want.empty()) return;
  std::vector<LftBlock> have = want;
  const auto timeout = lft_timeout();
  const std::vector<bool> answered = lft_->read(have, timeout);
  std::set<Guid> checked;
  std::vector<LftBlock> repairs;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Guid g = want[i].sw;
    const auto sw = switches_.find(g);
    const std::string name = sw ? sw->name : guid_text(g);
    checked.insert(g);
    if (i >= answered.size() || !answered[i]) {
      out.findings.push_back(
          AuditFinding{g, name, "unreachable", "LFT " + block_text(want[i]) + " not read"});
      continue;
    }
    if (have[i].ports == want[i].ports) continue;
    std::string detail = "LFT " + block_text(want[i]) + ":";
    std::size_t shown = 0;
    for (std::size_t k = 0; k < kLftBlockSize; ++k) {
      if (have[i].ports[k] == want[i].ports[k]) continue;
      if (shown++ < 4) {
        detail += " LID " + std::to_string(want[i].block * kLftBlockSize + k) + " port " +
                  std::to_string(have[i].ports[k]) + " (intended " +
                  std::to_string(want[i].ports[k]) + ")";
      }
    }
    out.findings.push_back(AuditFinding{g, name, "differs", detail});
    if (repair) repairs.push_back(want[i]);
  }
  out.lft_switches += checked.size();
  out.lft_blocks += want.size();
  if (repairs.empty()) return;
  const LftWriteResult res = lft_->write(repairs, timeout);
  out.lft_repaired += res.blocks;
  counters_["lft_blocks_written"] += res.blocks;
  counters_["repairs"] += res.blocks;
  log(LogLevel::kWarn,
      "LFT audit: " + std::to_string(repairs.size()) + " block(s) repaired" +
          (res.failed.empty() ? std::string()
                              : ", " + std::to_string(res.failed.size()) + " switch(es) failed"));
}

void JobController::lft_entries_held(const FlowsQuery& q, std::vector<SwitchFlows>& out,
                                     nlohmann::json& warnings) {
  // The selected jobs' LFT entries per switch, and the blocks holding them.
  std::map<Guid, std::vector<FlowEntry>> held;
  std::set<BlockKey> keys;
  for (const auto& [id, j] : jobs_) {
    if (q.job && id != *q.job) continue;
    for (const Guid g : j.lft_switches) {
      const auto it = j.entries.find(g);
      if (it == j.entries.end()) continue;
      const auto sw = switches_.find(g);
      if (q.switch_ref &&
          !(sw && switch_matches(fabric_->subnet.fabric, sw->node, sw->lid, *q.switch_ref))) {
        continue;
      }
      for (const FlowEntry& e : it->second) {
        if (!e.match.dlid) continue;
        held[g].push_back(e);
        keys.emplace(g, block_of(e.match.dlid->value));
      }
    }
  }
  if (held.empty()) return;
  if (lft_ == nullptr) {
    warnings.push_back("the LFTs cannot be read: " + lft_unavailable());
    return;
  }
  std::vector<LftBlock> blocks;
  for (const auto& [g, b] : keys) blocks.push_back(LftBlock{g, b, {}});
  const std::vector<bool> answered = lft_->read(blocks, lft_timeout());
  std::map<BlockKey, const LftBlock*> read;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto sw = switches_.find(blocks[i].sw);
    if (i < answered.size() && answered[i]) {
      read.emplace(BlockKey(blocks[i].sw, blocks[i].block), &blocks[i]);
    } else {
      warnings.push_back((sw ? sw->name : guid_text(blocks[i].sw)) + ": LFT " +
                         block_text(blocks[i]) + " not read");
    }
  }
  for (auto& [g, entries] : held) {
    const auto sw = switches_.find(g);
    SwitchFlows sf{g, sw ? sw->lid : Lid(0), sw ? sw->name : guid_text(g), {}};
    for (const FlowEntry& e : entries) {
      const std::uint16_t lid = e.match.dlid->value;
      const auto b = read.find(BlockKey(g, block_of(lid)));
      if (b == read.end() || b->second->ports[lid % kLftBlockSize] != e.action.output.value()) {
        continue;
      }
      sf.entries.push_back(e);
      sf.in_lft.push_back(true);
    }
    const Guid guid = g;  // (a structured binding cannot be captured before C++20's P1091 in clang)
    const auto same =
        std::find_if(out.begin(), out.end(), [&](const SwitchFlows& o) { return o.guid == guid; });
    if (same == out.end()) {
      if (!sf.entries.empty()) out.push_back(std::move(sf));
      continue;
    }
    same->in_lft.resize(same->entries.size(), false);
    same->entries.insert(same->entries.end(), sf.entries.begin(), sf.entries.end());
    same->in_lft.insert(same->in_lft.end(), sf.in_lft.begin(), sf.in_lft.end());
  }
}

nlohmann::json JobController::dry_run(JobId id, const Job& j, const Deadline& deadline) {
  using nlohmann::json;
  const Fabric& f = fabric_->subnet.fabric;
  Plan p;
  try {
    p = plan(id, j, {}, false, deadline);
  } catch (const DeadlineExceeded& e) {
    throw NoticeFailure(ErrorCode::kTimeout, std::string("job_start_timeout_ms (") +
                                                 std::to_string(config_.job_start_timeout_ms) +
                                                 " ms): " + e.what());
  }
  // What the switches would be sent.
  const std::map<Guid, std::vector<FlowEntry>> none;
  const std::set<Guid> no_switches;
  const LftOverrides before = lft_overrides(std::make_pair(id, Placement{none, no_switches}));
  const LftOverrides after =
      lft_overrides(std::make_pair(id, Placement{p.entries, p.lft_switches}));
  const std::vector<LftBlock> blocks = lft_blocks_between(before, after, {});
  constexpr std::size_t kListed = 256;
  json block_list = json::array();
  for (const LftBlock& b : blocks) {
    if (block_list.size() >= kListed) break;
    const LftBlock old = lft_block(before, b.sw, b.block);
    json changes = json::array();
    for (std::size_t i = 0; i < kLftBlockSize; ++i) {
      if (old.ports[i] == b.ports[i]) continue;
      changes.push_back({{"lid", b.block * kLftBlockSize + i},
                         {"port", b.ports[i]},
                         {"default_port", old.ports[i]}});
    }
    const auto sw = switches_.find(b.sw);
    block_list.push_back({{"switch", sw ? sw->name : guid_text(b.sw)},
                          {"guid", guid_text(b.sw)},
                          {"block", b.block},
                          {"changes", std::move(changes)}});
  }
  json entry_list = json::array();
  std::size_t table_entries = 0;
  for (const auto& [g, entries] : p.entries) {
    if (p.lft_switches.contains(g)) continue;
    table_entries += entries.size();
    const auto sw = switches_.find(g);
    for (const FlowEntry& e : entries) {
      if (entry_list.size() >= kListed) break;
      entry_list.push_back({{"switch", sw ? sw->name : guid_text(g)},
                            {"guid", guid_text(g)},
                            {"text", format_flow(e)}});
    }
  }
  // What it would buy: the busiest link the job uses, other jobs' load included, on the planned
  // routes and on the LFT's routes alone.
  const auto busiest = [&](const std::vector<Path>& paths) {
    LinkLoad load = net_->load();
    if (const NetworkState::Job* mine = net_->job(id)) {
      for (std::size_t i = 0; i < mine->flows.size() && i < mine->paths.size(); ++i) {
        load.remove(mine->paths[i], mine->flows[i].weight, flow_volume(mine->flows[i]));
      }
    }
    for (std::size_t i = 0; i < paths.size() && i < p.flows.size(); ++i)
      load.add(paths[i], p.flows[i]);
    std::int32_t flows = 0;
    double seconds = 0.0;
    for (const Path& path : paths) {
      for (const LinkId l : path) {
        flows = std::max(flows, load.flows(l));
        seconds = std::max(seconds, link_seconds(load.volume(l), f.link(l).gbps));
      }
    }
    return json{{"max_link_load", flows}, {"max_link_ms", seconds * 1e3}};
  };
  p.ready.lft_blocks = blocks.size();
  const json planned = busiest(p.effective);
  p.ready.max_link_load = planned.at("max_link_load").get<double>();
  p.ready.max_link_ms = planned.at("max_link_ms").get<double>();
  json r = ready_response(p.ready);
  r["dry_run"] = {{"written", false},
                  {"lft_blocks", std::move(block_list)},
                  {"lft_blocks_total", blocks.size()},
                  {"flow_entries", std::move(entry_list)},
                  {"flow_entries_total", table_entries},
                  {"planned", planned},
                  {"lft_only", busiest(p.lft)},
                  {"bound", {{"max_link_load", p.ready.bound}, {"max_link_ms", p.ready.bound_ms}}}};
  log(LogLevel::kInfo, job_text(id) + " dry run: " + std::to_string(p.ready.entries) +
                           " entries (" + std::to_string(blocks.size()) + " LFT blocks), L_D " +
                           std::to_string(p.ready.max_link_load) + " against " +
                           std::to_string(r["dry_run"]["lft_only"]["max_link_load"].get<int>()) +
                           " on the LFT alone, bound " + std::to_string(p.ready.bound));
  return r;
}

}  // namespace ibsdn::plugin
