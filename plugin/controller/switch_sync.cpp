#include "plugin/controller/switch_sync.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace ibsdn::plugin {
namespace {

/// An entry's identity in a table: what an ADD replaces and a DELETE_STRICT removes.
struct RuleKey {
  std::uint16_t priority;
  FlowMatch match;
  bool operator==(const RuleKey&) const = default;
};

const FlowEntry* find_rule(std::span<const FlowEntry> entries, const RuleKey& k) {
  for (const FlowEntry& e : entries) {
    if (e.priority == k.priority && e.match == k.match) return &e;
  }
  return nullptr;
}

mad::FlowMod add_of(const FlowEntry& e) {
  mad::FlowMod m;
  m.command = mad::FlowModCommand::kAdd;
  m.cookie = e.cookie;
  m.priority = e.priority;
  m.match = e.match;
  m.action = e.action;
  return m;
}

mad::FlowMod delete_of(const FlowEntry& e) {
  mad::FlowMod m;
  m.command = mad::FlowModCommand::kDeleteStrict;
  m.priority = e.priority;
  m.match = e.match;
  return m;
}

struct Step {
  std::size_t change;  // index into the changes
  mad::FlowModJob job;
};

/// Sends `steps`, then a Barrier to each switch that had a step and has not failed.
void run_steps(mad::MadClient& client, std::uint64_t key, std::span<const SwitchChange> changes,
               const std::vector<Step>& steps, SyncResult& out) {
  if (steps.empty()) return;
  std::vector<mad::FlowModJob> jobs;
  jobs.reserve(steps.size());
  for (const Step& s : steps) jobs.push_back(s.job);
  const auto results = client.flow_mods(jobs);
  out.flow_mods += jobs.size();
  std::vector<bool> touched(changes.size(), false);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SwitchChange& c = changes[steps[i].change];
    touched[steps[i].change] = true;
    if (results[i]) {
      out.affected[c.guid] += results[i].value().affected;
      continue;
    }
    const mad::ClientError& err = results[i].error();
    if (err.kind == mad::ClientErrorKind::kStatus && err.status == mad::Status::kTableFull) {
      out.full[c.guid] = true;
    }
    out.failed.emplace(c.guid, err.message);
  }
  std::vector<Lid> lids;
  std::vector<Guid> guids;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (!touched[i] || out.failed.contains(changes[i].guid)) continue;
    lids.push_back(changes[i].lid);
    guids.push_back(changes[i].guid);
  }
  const auto acks = client.barriers(lids, key);
  out.barriers += lids.size();
  for (std::size_t i = 0; i < acks.size(); ++i) {
    if (!acks[i]) {
      out.failed.emplace(guids[i], acks[i].error().message);
    } else {
      out.generation[guids[i]] = acks[i].value().generation;
    }
  }
}

}  // namespace

TableDiff diff_tables(std::span<const FlowEntry> before, std::span<const FlowEntry> after) {
  TableDiff d;
  for (const FlowEntry& e : after) {
    const FlowEntry* old = find_rule(before, RuleKey{e.priority, e.match});
    if (old == nullptr || !old->same_rule(e)) d.adds.push_back(add_of(e));
  }
  for (const FlowEntry& e : before) {
    if (find_rule(after, RuleKey{e.priority, e.match}) == nullptr)
      d.deletes.push_back(delete_of(e));
  }
  return d;
}

SyncResult apply_changes(mad::MadClient& client, std::uint64_t key,
                         std::span<const SwitchChange> changes) {
  SyncResult out;
  std::vector<Step> adds;
  std::vector<Step> deletes;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const TableDiff d = diff_tables(changes[i].before, changes[i].after);
    for (const mad::FlowMod& m : d.adds) adds.push_back(Step{i, {changes[i].lid, key, m}});
    for (const mad::FlowMod& m : d.deletes) deletes.push_back(Step{i, {changes[i].lid, key, m}});
  }
  run_steps(client, key, changes, adds, out);
  // Full switches that still hold entries being replaced: break before make there.
  std::set<Guid> full_with_room;
  for (const Step& s : deletes) {
    const Guid g = changes[s.change].guid;
    if (out.full.contains(g)) full_with_room.insert(g);
  }
  if (!full_with_room.empty()) {
    std::vector<Step> first;
    std::vector<Step> again;
    for (const Step& s : deletes) {
      if (full_with_room.contains(changes[s.change].guid)) first.push_back(s);
    }
    for (const Step& s : adds) {
      if (full_with_room.contains(changes[s.change].guid)) again.push_back(s);
    }
    std::erase_if(deletes,
                  [&](const Step& s) { return full_with_room.contains(changes[s.change].guid); });
    for (const Guid g : full_with_room) {
      out.failed.erase(g);
      out.full.erase(g);
    }
    run_steps(client, key, changes, first, out);
    std::erase_if(again,
                  [&](const Step& s) { return out.failed.contains(changes[s.change].guid); });
    run_steps(client, key, changes, again, out);
  }
  std::erase_if(deletes,
                [&](const Step& s) { return out.failed.contains(changes[s.change].guid); });
  run_steps(client, key, changes, deletes, out);
  return out;
}

SyncResult delete_cookie(mad::MadClient& client, std::uint64_t key,
                         std::span<const SwitchChange> switches, std::uint64_t cookie) {
  std::vector<Step> steps;
  for (std::size_t i = 0; i < switches.size(); ++i) {
    mad::FlowMod m;
    m.command = mad::FlowModCommand::kDelete;
    m.cookie = cookie;
    m.cookie_mask = ~std::uint64_t{0};
    steps.push_back(Step{i, {switches[i].lid, key, m}});
  }
  SyncResult r;
  run_steps(client, key, switches, steps, r);
  return r;
}

TableComparison compare_tables(std::span<const FlowEntry> actual,
                               std::span<const FlowEntry> intended) {
  TableComparison c;
  for (const FlowEntry& want : intended) {
    const FlowEntry* have = find_rule(actual, RuleKey{want.priority, want.match});
    if (have == nullptr) {
      c.missing.push_back(want);
    } else if (!have->same_rule(want)) {
      c.differs.emplace_back(*have, want);
    }
  }
  for (const FlowEntry& have : actual) {
    if (find_rule(intended, RuleKey{have.priority, have.match}) == nullptr) {
      c.unexpected.push_back(have);
    }
  }
  return c;
}

}  // namespace ibsdn::plugin
