// Bringing switches' flow tables to what the controller intends, over the SDN MAD class: the
// difference between two entry lists as FlowMods (make before break: additions and changes
// first, a barrier, then removals and a barrier), and the comparison an audit makes between a
// table read back with FlowStats and the intent.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/types.hpp"
#include "mad/mad_client.hpp"

namespace ibsdn::plugin {

/// One switch's table, before and after.
struct SwitchChange {
  Guid guid;
  Lid lid;
  std::string name;
  std::vector<FlowEntry> before;  // what the switch holds (or is believed to hold)
  std::vector<FlowEntry> after;   // what it should hold
};

/// The FlowMods that turn `before` into `after`: an ADD for every rule of `after` not in
/// `before` as it is (an ADD replaces an entry with the same match and priority), a
/// DELETE_STRICT for every (match, priority) of `before` that `after` does not have.
struct TableDiff {
  std::vector<mad::FlowMod> adds;
  std::vector<mad::FlowMod> deletes;
  [[nodiscard]] bool empty() const { return adds.empty() && deletes.empty(); }
};
TableDiff diff_tables(std::span<const FlowEntry> before, std::span<const FlowEntry> after);

struct SyncResult {
  std::size_t flow_mods = 0;  // sent (each once; the client retries under the hood)
  std::size_t barriers = 0;
  /// Switches that did not take every change, by GUID, with the first reason.
  std::map<Guid, std::string> failed;
  /// Of those, switches that refused an ADD because their table is full.
  std::map<Guid, bool> full;
  /// Of the others, each switch's table generation after its last Barrier: the controller's
  /// mark of "this is the table we wrote", which the periodic check compares with TableInfo.
  std::map<Guid, std::uint64_t> generation;
  /// Entries each switch reported added, changed or removed (the FlowMod answers' `affected`).
  std::map<Guid, std::uint64_t> affected;
};

/// Applies every change: all switches' additions pipelined, a Barrier to each switch touched,
/// then the removals and Barriers (make before break). A switch whose table is too full to hold
/// the new entries beside the ones they replace gets its removals first and its additions again
/// (break before make there: its traffic takes the default routes meanwhile). A switch that
/// fails a step otherwise gets no later step.
SyncResult apply_changes(mad::MadClient& client, std::uint64_t key,
                         std::span<const SwitchChange> changes);

/// Deletes every entry with `cookie` from each switch (one non-strict DELETE with a full cookie
/// mask), then a Barrier (SyncResult::failed: the switches that failed, with the reason).
SyncResult delete_cookie(mad::MadClient& client, std::uint64_t key,
                         std::span<const SwitchChange> switches, std::uint64_t cookie);

/// What an audit finds on one switch.
struct TableComparison {
  std::vector<FlowEntry> missing;     // intended, not on the switch
  std::vector<FlowEntry> unexpected;  // on the switch, not intended (match and priority)
  std::vector<std::pair<FlowEntry, FlowEntry>> differs;  // (on the switch, intended)
  [[nodiscard]] bool consistent() const {
    return missing.empty() && unexpected.empty() && differs.empty();
  }
};
TableComparison compare_tables(std::span<const FlowEntry> actual,
                               std::span<const FlowEntry> intended);

}  // namespace ibsdn::plugin
