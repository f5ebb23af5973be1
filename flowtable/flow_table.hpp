// A switch's flow table (seed 002 III.A): consulted before the LFT; a miss means the packet
// follows the LFT's default route. Capacity-limited like real TCAMs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "flowtable/flow_entry.hpp"

namespace ibsdn {

enum class FlowModStatus : std::uint8_t {
  kOk,
  kTableFull,         // no room for a new entry
  kBadMatch,          // malformed match (FlowMatch::validate)
  kUnsupportedField,  // the match needs a higher flow definition level than the table has
  kBadAction,         // output port 0 or beyond the switch's ports, SL above 15
};
std::string_view to_string(FlowModStatus s);

struct FlowModResult {
  FlowModStatus status = FlowModStatus::kOk;
  std::uint32_t affected = 0;  // entries added, replaced, modified or deleted
  std::string detail;          // why, when status != kOk
  [[nodiscard]] bool ok() const { return status == FlowModStatus::kOk; }
};

/// The largest table the controller and the simulator accept (entries per switch); real TCAMs
/// hold thousands.
inline constexpr std::size_t kMaxTableCapacity = 1'000'000;

struct FlowTableConfig {
  std::uint32_t capacity = 4096;
  FlowDefinitionLevel level = FlowDefinitionLevel::kSlidDlidSlQp;
  std::uint8_t num_ports = 254;  // highest valid output port
};

struct FlowTableCounters {
  std::uint64_t lookups = 0;
  std::uint64_t matched = 0;
  std::uint64_t missed = 0;
};

class FlowTable {
 public:
  explicit FlowTable(FlowTableConfig cfg = {}) : cfg_(cfg) {}

  /// OpenFlow ADD: a new entry, or, when one with the same match and priority exists, replaces
  /// its cookie and actions (counters restart).
  FlowModResult add(const FlowEntry& e);
  /// MODIFY_STRICT: changes the actions of the entry with exactly this match and priority.
  FlowModResult modify_strict(const FlowMatch& m, std::uint16_t priority, const FlowAction& a);
  /// DELETE_STRICT: the entry with exactly this match and priority.
  FlowModResult delete_strict(const FlowMatch& m, std::uint16_t priority);
  /// DELETE (non-strict): every entry whose match is covered by `m` (an empty match covers all).
  FlowModResult delete_matching(const FlowMatch& m);
  /// Every entry whose cookie equals `cookie` under `mask` (mask 0 deletes everything).
  FlowModResult delete_by_cookie(std::uint64_t cookie, std::uint64_t mask = ~std::uint64_t{0});
  void clear();

  /// The winning entry: highest priority, then most specific match, then oldest. Counts the
  /// lookup; nullopt is a miss (use the LFT).
  std::optional<FlowAction> lookup(const PacketHeader& h);
  /// Same decision without touching counters.
  [[nodiscard]] const FlowEntry* peek(const PacketHeader& h) const;

  /// Entries in installation order.
  [[nodiscard]] std::vector<FlowEntry> entries() const;
  [[nodiscard]] std::size_t size() const { return live_; }
  [[nodiscard]] const FlowTableConfig& config() const { return cfg_; }
  [[nodiscard]] const FlowTableCounters& counters() const { return counters_; }
  /// Changes on every successful modification (a reader can detect that a paged read raced).
  [[nodiscard]] std::uint64_t generation() const { return generation_; }

 private:
  FlowModResult check(const FlowEntry& e) const;
  std::optional<std::uint32_t> find_strict(const FlowMatch& m, std::uint16_t priority) const;
  void erase(std::uint32_t slot);
  void index(std::uint32_t slot);
  bool better(std::uint32_t a, std::uint32_t b) const;
  std::optional<std::uint32_t> best_slot(const PacketHeader& h) const;

  FlowTableConfig cfg_;
  // Slots in installation order; erased slots are compacted away lazily.
  std::vector<std::optional<FlowEntry>> slots_;
  std::vector<std::uint64_t> seq_;  // installation sequence per slot, for the "oldest" tie-break
  std::unordered_map<std::uint16_t, std::vector<std::uint32_t>> by_dlid_;  // exact-DLID entries
  std::vector<std::uint32_t> wild_;                                        // all others
  std::size_t live_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t generation_ = 0;
  FlowTableCounters counters_;
};

}  // namespace ibsdn
