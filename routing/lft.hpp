// Linear forwarding tables (LFTs): what every switch does with a packet by its DLID alone, read
// from OpenSM's dumps or filled from a destination-based algorithm, and a hop-by-hop tracer.
//
// OpenSM conventions kept here: in a switch's table, port 0 is the switch itself (its management
// port, where its own LID goes) and 255 means "no route" (OSM_NO_PATH); a LID beyond the table is
// unset too. With `-D 0x43 --dump_files_dir DIR` OpenSM writes the two files read below:
//
// opensm-lfts.dump, one block per switch:
//   Unicast lids [0-24] of switch Lid 2 guid 0x0002c90200000001 ('l1s001'):
//   0x0001 001 # Channel Adapter portguid 0x0002c90300000002: 'n0001 HCA-1'
//   0x0002 000 # Switch portguid 0x0002c90200000001: 'l1s001'
//   24 lids dumped
// Entries whose port is 255 (or beyond the switch) are not written; the trailer repeats the
// highest LID of the header, not a count.
//
// opensm-subnet.lst, one line per cabled port, seen from each end:
//   { SW Ports:08 SystemGUID:.. NodeGUID:0002c90200000001 PortGUID:.. VenID:.. DevID:.. Rev:..
//     {l1s001} LID:0002 PN:05 } { CA-SM Ports:01 ... {n0001 HCA-1} LID:0001 PN:01 } PHY=4x ...
// (one line in the file). A switch's LID is its port 0's; a CA's is the listed port's. The node
// type is SW, CA, Rt or **, with "-SM" appended on the master SM's node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_line_error.hpp"
#include "flowtable/match.hpp"
#include "routing/algorithm.hpp"
#include "routing/fabric.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

/// OpenSM's "no path" entry; also what a LID beyond a table reads as.
inline constexpr PortNum kLftUnset{255};
/// A switch's own management port: packets to the switch's LID end there.
inline constexpr PortNum kSwitchPort0{0};
/// Highest unicast LID (0xC000 and above are multicast).
inline constexpr Lid kMaxUnicastLid{0xBFFF};

/// A malformed or inconsistent dump. what() reads "SOURCE:LINE: what was wrong".
class DumpError : public FileLineError {
 public:
  using FileLineError::FileLineError;
};

/// Which port of which node a LID addresses.
struct LidOwner {
  NodeIdx node{};
  PortNum port{};  // 0 for a switch
};

/// The LIDs of a fabric: one per HCA port, one per switch (on port 0), as the SM assigned them.
class LidMap {
 public:
  LidMap() = default;
  explicit LidMap(const Fabric& f);

  /// Throws std::invalid_argument if the LID is 0 or multicast, is already given to another
  /// port, or the port already has another LID, or `port` does not fit the node (0 for switches,
  /// a physical port for HCAs).
  void assign(NodeIdx node, PortNum port, Lid lid);
  /// The node's LID: a switch's port 0, an HCA's lowest-numbered port that has one; Lid{0} if none.
  [[nodiscard]] Lid lid(NodeIdx node) const;
  [[nodiscard]] Lid lid(NodeIdx node, PortNum port) const;
  [[nodiscard]] std::optional<LidOwner> owner(Lid lid) const;
  /// The highest LID assigned (0 when none).
  [[nodiscard]] Lid max_lid() const { return Lid(static_cast<std::uint16_t>(owners_.size() - 1)); }

 private:
  std::vector<std::vector<Lid>> port_lids_;  // node -> port (index 0 = port 0) -> LID
  std::vector<bool> is_switch_;
  std::vector<LidOwner> owners_{LidOwner{}};  // LID -> owner (index 0 unused)
};

/// LIDs 1, 2, ... to every cabled HCA port in Fabric::hcas() order, then to every switch.
LidMap sequential_lids(const Fabric& f);

/// One switch's table: output port per destination LID.
class Lft {
 public:
  /// kLftUnset for LIDs never set or beyond the table.
  [[nodiscard]] PortNum out(Lid dlid) const {
    return dlid.value() < ports_.size() ? ports_[dlid.value()] : kLftUnset;
  }
  void set(Lid dlid, PortNum port);
  /// Room for entries up to `max` without reallocating (size() unchanged).
  void reserve(Lid max) { ports_.reserve(max.value() + 1u); }
  /// One past the highest LID with an entry (LinearFDBTop + 1).
  [[nodiscard]] std::size_t size() const { return ports_.size(); }

 private:
  std::vector<PortNum> ports_;
};

/// Every switch's LFT plus the LIDs they route to.
class LftSet {
 public:
  LftSet() = default;
  explicit LftSet(const Fabric& f) : lids(f), tables_(f.num_nodes()), present_(f.num_nodes()) {}

  LidMap lids;

  /// Whether a table was read or built for this switch.
  [[nodiscard]] bool has_table(NodeIdx sw) const { return present_.at(sw.value()); }
  [[nodiscard]] const Lft& table(NodeIdx sw) const { return tables_.at(sw.value()); }
  /// Creates the (empty) table on first use.
  Lft& table(NodeIdx sw);

 private:
  std::vector<Lft> tables_;
  std::vector<bool> present_;
};

/// Reads OpenSM's opensm-lfts.dump and opensm-subnet.lst (formats above) for fabric `f`. Nodes
/// are matched by node GUID; LIDs come from the subnet list, tables from the LFT dump. Every
/// cable the subnet list reports must be a cable of `f` (a dump of another fabric is refused).
/// Throws DumpError naming the file (`*_name`) and line: malformed lines, unknown GUIDs, a GUID
/// of the wrong node kind, LIDs or ports out of range, duplicates, truncated blocks.
LftSet lfts_from_opensm_dump(const Fabric& f, std::string_view lfts_dump_text,
                             std::string_view subnet_lst_text,
                             std::string_view lfts_name = "opensm-lfts.dump",
                             std::string_view subnet_name = "opensm-subnet.lst");

/// The LIDs of OpenSM's opensm-subnet.lst alone, for fabric `f` (nodes matched by node GUID):
/// what a replay of the fabric needs to number its ports as OpenSM did. Throws DumpError like
/// lfts_from_opensm_dump.
LidMap lids_from_opensm_subnet_list(const Fabric& f, std::string_view subnet_lst_text,
                                    std::string_view subnet_name = "opensm-subnet.lst");

/// Fills the LFTs that `alg` implies: every HCA-to-HCA route it chooses, written into the tables
/// of the switches it crosses, and each switch's own LID to port 0; then, like OpenSM, completes
/// every table with a route to every LID (complete_lfts). Throws std::invalid_argument if `alg`
/// cannot route on `f` or is not destination-based (one switch would need two ports for one LID).
LftSet lfts_from_destination_routes(const Fabric& f, const LidMap& lids,
                                    const RoutingAlgorithm& alg);

/// The tables of lfts_from_destination_routes, built one destination at a time from `alg`'s
/// columns (RoutingAlgorithm::route_by_destination): for every HCA LID, the entries along the
/// routes that lead the other HCAs with a LID to it (each switch written once), the switches' own
/// LIDs to port 0, then complete_lfts. O(destinations x switches) where the pairwise builder is
/// O(pairs x hops): the sdn engine's tables, computed under OpenSM's lock. Throws
/// std::invalid_argument if `alg` cannot route on `f`, routes pairs only, or a column does not
/// lead a source it starts from to its destination (a route that stops on the way, a loop,
/// another node); a switch where the column has no port at all is a source the algorithm cannot
/// route (a cut-off part of a degraded fabric) and gets complete_lfts's entry. DeadlineExceeded
/// once `deadline` passes.
LftSet lfts_per_destination(const Fabric& f, const LidMap& lids, const RoutingAlgorithm& alg,
                            const Deadline& deadline = {});

/// Gives every switch an entry for every LID it lacks one for: a port toward a neighbour one hop
/// closer to the LID's node (spread over the candidates by LID: the (LID mod n)-th of the n
/// candidates in port order). Existing entries are kept. When they lie on shortest paths, as a
/// minimal destination-based algorithm's do, every route stays loop-free: each hop either follows
/// the kept entries' tree or gets one hop closer. Throws DeadlineExceeded once `deadline` passes.
void complete_lfts(const Fabric& f, LftSet& lfts, const Deadline& deadline = {});

/// A per-switch decision consulted before the LFT (a switch's flow table). nullopt = use the LFT.
using ForwardingOverride = std::function<std::optional<PortNum>(NodeIdx sw, const PacketHeader&)>;

struct TraceOptions {
  ForwardingOverride override_port;
  /// Switch hops before giving up; InfiniBand's directed routes stop at 64 too.
  std::size_t max_hops = 64;
  /// The LIDs the packet carries, when not `lfts.lids`: a job on an LMC LID offset addresses the
  /// hosts at their base LID + offset (routing/subnet.hpp, lids_at_offset). Must outlive the call.
  const LidMap* lids = nullptr;
};

enum class TraceStatus : std::uint8_t {
  kDelivered,
  kNoLid,             // the source or destination has no LID
  kNoTable,           // a switch on the way has no LFT
  kUnset,             // the entry for the DLID is 255 / beyond the table
  kNoSuchPort,        // the entry names a port the switch does not have
  kUncabled,          // the entry names a port without a cable
  kLoop,              // the packet came back to a switch it had crossed
  kTooManyHops,       // more than max_hops switches
  kWrongDestination,  // the packet ended at another node (or at a switch's port 0)
};
std::string_view to_string(TraceStatus s);

struct Trace {
  TraceStatus status = TraceStatus::kDelivered;
  Path path;          // the links crossed so far; the whole route when delivered
  std::string error;  // empty when delivered; otherwise where and why it stopped
  [[nodiscard]] bool ok() const { return status == TraceStatus::kDelivered; }
};

/// Follows the LFTs from HCA `src` (leaving through the port that has its LID) to HCA `dst`'s LID.
Trace trace(const Fabric& f, const LftSet& lfts, NodeIdx src, NodeIdx dst,
            const TraceOptions& opts = {});

}  // namespace ibsdn
