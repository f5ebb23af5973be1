// The compiler from a job's paths to per-switch flow entries (seed 002 III.A): entries only where
// a path leaves the LFT's default route, aggregated per destination where possible, and within
// each switch's table capacity, keeping the most important flows.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/flow_table.hpp"
#include "flowtable/match.hpp"
#include "routing/deadline.hpp"
#include "routing/fabric.hpp"
#include "routing/flow.hpp"
#include "routing/lft.hpp"

namespace ibsdn {

/// Per-switch entries loaded into flow tables (matching every field), for lookups by tracers.
using FlowTables = std::map<NodeIdx, FlowTable>;

/// The ports other jobs' traffic leaves each switch by toward each destination LID: where one of
/// this job's destination-wide entries would divert it, the compiler uses per-pair entries.
using ForeignTraffic = std::map<std::pair<NodeIdx, std::uint16_t>, std::set<std::uint8_t>>;

struct CompileOptions {
  /// What the switches can match on. At kDlid every entry is a destination entry, so flows that
  /// need different ports toward one destination at one switch cannot all be honoured.
  FlowDefinitionLevel level = FlowDefinitionLevel::kSlidDlid;
  /// Entries a switch's table can hold in total.
  std::uint32_t capacity = 4096;
  /// Per switch (indexed by NodeIdx; null or shorter: none): the switch takes this job's entries
  /// into its LFT, not a flow table. There every entry is a destination entry whatever `level`
  /// says (one port per DLID, as at kDlid), and `capacity` does not apply: an LFT has a slot for
  /// every LID. `used` must not count other jobs' entries there either.
  const std::vector<bool>* lft_switches = nullptr;
  /// Entries other jobs already hold, per switch (indexed by NodeIdx); may be null.
  const std::vector<std::uint32_t>* used = nullptr;
  std::uint16_t priority = 100;
  /// Collapse a destination's entries at a switch into one SLID-wildcarded entry when every flow
  /// of the job through that switch toward that destination takes the same port (and no other
  /// job's traffic or entry disagrees, see `foreign` and `foreign_traffic`).
  bool aggregate = true;
  /// Other jobs' entries, by switch: packets meet them before the LFT, so they are this job's
  /// default route where they match. The compiler never emits an entry with the same match and
  /// priority as one of these: a flow that would need one stays on its default route.
  const FlowTables* foreign = nullptr;
  /// Other jobs' traffic, which this job's destination-wide entries must not divert.
  const ForeignTraffic* foreign_traffic = nullptr;
  /// Per flow (empty: none): the flow must keep the path the current tables give it (another job
  /// owns its host pair, or it is beyond the job's flow limit); it gets no entries.
  const std::vector<bool>* pinned = nullptr;
  /// Checked inside the loops: compile_flows throws DeadlineExceeded once it passes.
  Deadline deadline{};
  /// The LIDs the job's packets carry, when not `lfts.lids` (TraceOptions::lids): its entries
  /// match them.
  const LidMap* lids = nullptr;
};

struct CompiledFlows {
  std::map<NodeIdx, std::vector<FlowEntry>> tables;  // per switch, cookie = the job id
  std::vector<bool> on_default;   // per flow: left on the LFT's default route (capacity, conflict)
  std::vector<Path> effective;    // per flow: the path packets will take (traced)
  std::size_t entries = 0;        // entries installed
  std::size_t override_hops = 0;  // switch hops where a kept path leaves the LFT
  std::size_t path_hops = 0;      // switch hops on all chosen paths
  std::size_t flows_on_default = 0;
  std::int32_t effective_max_link_load = 0;  // L_D of the effective paths
};

/// Compiles `paths` (one per flow, as routing chose them) against the default routes in `lfts`.
/// Flows are admitted in order of importance (elephants first, then larger weight, then more
/// bytes, then input order); a flow whose entries do not fit every switch it needs stays wholly
/// on its default route. The effective paths are traced through the LFTs plus the compiled
/// entries, so the reported L_D is what the fabric will carry. Throws std::invalid_argument when
/// a path is invalid or the LFTs cannot deliver a demoted flow.
CompiledFlows compile_flows(const Fabric& f, const LftSet& lfts, std::span<const Flow> flows,
                            std::span<const Path> paths, JobId job, const CompileOptions& opt);

/// Per-switch entries as flow tables. Throws std::invalid_argument when an entry does not load.
FlowTables build_flow_tables(const std::map<NodeIdx, std::vector<FlowEntry>>& tables);

/// The entry that wins at switch `sw` for header `h`, or nullptr (the LFT decides).
const FlowEntry* winning_entry(const FlowTables& tables, NodeIdx sw, const PacketHeader& h);
/// The entry that wins at `sw` among the entries of both sets (a switch holds them all).
const FlowEntry* winning_entry(const FlowTables& a, const FlowTables& b, NodeIdx sw,
                               const PacketHeader& h);

/// A tracer hook that consults per-switch entries (e.g. CompiledFlows::tables) before the LFT.
ForwardingOverride flow_table_override(const std::map<NodeIdx, std::vector<FlowEntry>>& tables);
/// The same over tables already built (shared with the caller, e.g. to ask winning_entry()).
ForwardingOverride flow_table_override(std::shared_ptr<const FlowTables> tables);
/// The same over tables the caller keeps alive for as long as the override is used.
ForwardingOverride flow_table_override_of(const FlowTables& tables);

}  // namespace ibsdn
