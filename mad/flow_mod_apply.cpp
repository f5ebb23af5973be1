#include "mad/flow_mod_apply.hpp"

#include <vector>

namespace ibsdn::mad {
namespace {

bool cookie_selected(const FlowEntry& e, const FlowMod& m) {
  return (e.cookie & m.cookie_mask) == (m.cookie & m.cookie_mask);
}

FlowModResult bad_match(std::string why) {
  return {FlowModStatus::kBadMatch, 0, std::move(why)};
}

/// The entries a non-strict command selects, copied out first so that the table may change
/// while they are processed.
std::vector<FlowEntry> selected(const FlowTable& t, const FlowMod& m) {
  std::vector<FlowEntry> out;
  for (const FlowEntry& e : t.entries()) {
    if (e.match.covered_by(m.match) && cookie_selected(e, m)) out.push_back(e);
  }
  return out;
}

/// The strict commands' cookie restriction: the one entry with this match and priority must
/// carry a selected cookie.
bool strict_target_selected(const FlowTable& t, const FlowMod& m) {
  if (m.cookie_mask == 0) return true;
  for (const FlowEntry& e : t.entries()) {
    if (e.priority == m.priority && e.match == m.match) return cookie_selected(e, m);
  }
  return false;
}

}  // namespace

FlowModResult apply_flow_mod(FlowTable& table, const FlowMod& mod) {
  switch (mod.command) {
    case FlowModCommand::kAdd: {
      FlowEntry e;
      e.cookie = mod.cookie;
      e.priority = mod.priority;
      e.match = mod.match;
      e.action = mod.action;
      return table.add(e);
    }
    case FlowModCommand::kModify: {
      if (std::string why = mod.match.validate(); !why.empty()) return bad_match(why);
      std::uint32_t n = 0;
      for (const FlowEntry& e : selected(table, mod)) {
        // Every entry gets the same action, so a refused action fails on the first one, before
        // anything changed.
        FlowModResult r = table.modify_strict(e.match, e.priority, mod.action);
        if (!r.ok()) return r;
        n += r.affected;
      }
      return {FlowModStatus::kOk, n, {}};
    }
    case FlowModCommand::kModifyStrict:
      if (!strict_target_selected(table, mod)) return {FlowModStatus::kOk, 0, {}};
      return table.modify_strict(mod.match, mod.priority, mod.action);
    case FlowModCommand::kDelete: {
      if (mod.cookie_mask == 0) return table.delete_matching(mod.match);
      if (mod.match == FlowMatch{}) return table.delete_by_cookie(mod.cookie, mod.cookie_mask);
      if (std::string why = mod.match.validate(); !why.empty()) return bad_match(why);
      std::uint32_t n = 0;
      for (const FlowEntry& e : selected(table, mod))
        n += table.delete_strict(e.match, e.priority).affected;
      return {FlowModStatus::kOk, n, {}};
    }
    case FlowModCommand::kDeleteStrict:
      if (!strict_target_selected(table, mod)) return {FlowModStatus::kOk, 0, {}};
      return table.delete_strict(mod.match, mod.priority);
  }
  return bad_match("unknown flow_mod command " + std::to_string(static_cast<int>(mod.command)));
}

Status to_mad_status(FlowModStatus s) {
  switch (s) {
    case FlowModStatus::kOk:
      return Status::kOk;
    case FlowModStatus::kTableFull:
      return Status::kTableFull;
    case FlowModStatus::kBadMatch:
      return Status::kMalformedMatch;
    case FlowModStatus::kUnsupportedField:
      return Status::kUnsupportedField;
    case FlowModStatus::kBadAction:
      return Status::kBadAction;
  }
  return Status::kInvalidField;
}

}  // namespace ibsdn::mad
