// The SDN management class (seed 002 III.D, Figure 4): MAD class 0x09, class version 1, carrying
// OpenFlow-style messages that manage a switch's flow table. This header is the decoded form;
// mad_codec.hpp turns it into the 256 wire bytes and back (docs/wire-format.md has every byte).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/match.hpp"

namespace ibsdn::mad {

inline constexpr std::uint8_t kBaseVersion = 1;
inline constexpr std::uint8_t kMgmtClass = 0x09;  // first vendor class (IBA range 0x09-0x0F)
inline constexpr std::uint8_t kClassVersion = 1;
inline constexpr std::size_t kMadSize = 256;
inline constexpr std::size_t kHeaderSize = 24;
inline constexpr std::size_t kDataSize = kMadSize - kHeaderSize;  // 232
/// The revision of docs/wire-format.md this code speaks. It is not on the wire: the ClassVersion
/// stays 1 because OpenSM's vendor layer and the kernel bind a class per version (the doc's
/// section 10 says why and what a mismatch looks like). The agent logs it at start.
inline constexpr int kWireFormatRevision = 2;

using MadBytes = std::array<std::uint8_t, kMadSize>;

enum class Method : std::uint8_t { kGet = 0x01, kSet = 0x02, kGetResp = 0x81 };

enum class AttributeId : std::uint16_t {
  kFlowMod = 0x0010,    // Set: apply one ofp_flow_mod; GetResp echoes it with the outcome
  kFlowStats = 0x0011,  // Get: read entries from index AttributeModifier on (paged)
  kTableInfo = 0x0012,  // Get: capacity, used, generation, level, counters
  kBarrier = 0x0013,    // Get: answered once every earlier FlowMod from this sender is applied
};

/// The MAD Status field. The low bits follow the IBA common status codes; the class-specific
/// codes sit in bits 8-14 as IBA reserves them for each class.
enum class Status : std::uint16_t {
  kOk = 0x0000,
  kBadVersion = 0x0004,            // base or class version not supported
  kUnsupportedMethod = 0x0008,     // method not supported
  kUnsupportedAttribute = 0x000C,  // method / attribute combination not supported
  kInvalidField = 0x001C,          // a field value is invalid (generic malformed data)
  kBadKey = 0x0100,                // class-specific: authentication key mismatch
  kTableFull = 0x0200,             // class-specific: no room for the entry
  kMalformedMatch = 0x0300,        // class-specific: match TLVs invalid or inconsistent
  kBadAction = 0x0400,             // class-specific: action invalid for this switch
  kUnsupportedField = 0x0500,      // class-specific: match beyond the flow definition level
  kNotAuthorized = 0x0600,         // class-specific: this sender may not change the table (it is
                                   // neither the subnet's master SM nor an allowed LID)
};
std::string_view to_string(Status s);

struct MadHeader {
  std::uint8_t base_version = kBaseVersion;
  std::uint8_t mgmt_class = kMgmtClass;
  std::uint8_t class_version = kClassVersion;
  Method method = Method::kGet;
  Status status = Status::kOk;
  std::uint16_t class_specific = 0;
  std::uint64_t tid = 0;
  AttributeId attr_id = AttributeId::kTableInfo;
  std::uint32_t attr_mod = 0;
  bool operator==(const MadHeader&) const = default;
};

/// OpenFlow's flow_mod commands (OFPFC_*), same numeric values.
enum class FlowModCommand : std::uint8_t {
  kAdd = 0,
  kModify = 1,
  kModifyStrict = 2,
  kDelete = 3,        // non-strict: entries covered by the match, restricted by cookie/mask
  kDeleteStrict = 4,  // exact match and priority
};

struct FlowMod {
  FlowModCommand command = FlowModCommand::kAdd;
  std::uint64_t cookie = 0;
  std::uint64_t cookie_mask = 0;  // delete: only entries with (cookie & mask) == (cookie_mask's)
  std::uint16_t priority = 0;
  FlowMatch match;
  FlowAction action;           // add / modify; ignored for deletes
  std::uint32_t affected = 0;  // in the GetResp: entries the switch added/changed/removed
  bool operator==(const FlowMod&) const = default;
};

struct FlowStatsRequest {  // the start index travels in AttributeModifier
  bool operator==(const FlowStatsRequest&) const = default;
};

struct FlowStatsReply {
  std::uint32_t total = 0;         // entries in the table
  std::uint64_t generation = 0;    // table generation when this page was read
  std::vector<FlowEntry> entries;  // as many as fit, starting at AttributeModifier
  /// Same page: the installed rules and their counters (FlowEntry itself has no operator==).
  bool operator==(const FlowStatsReply& o) const {
    if (total != o.total || generation != o.generation || entries.size() != o.entries.size()) {
      return false;
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (!entries[i].same_rule(o.entries[i]) || entries[i].n_packets != o.entries[i].n_packets) {
        return false;
      }
    }
    return true;
  }
};

struct TableInfo {
  std::uint32_t capacity = 0;
  std::uint32_t used = 0;
  std::uint64_t generation = 0;
  FlowDefinitionLevel level = FlowDefinitionLevel::kSlidDlidSlQp;
  std::uint8_t num_ports = 0;
  std::uint64_t lookups = 0;
  std::uint64_t matched = 0;
  std::uint64_t missed = 0;
  bool operator==(const TableInfo&) const = default;
};

struct Barrier {
  std::uint64_t generation = 0;  // in the GetResp: the table generation after all earlier mods
  bool operator==(const Barrier&) const = default;
};

using Payload = std::variant<FlowMod, FlowStatsRequest, FlowStatsReply, TableInfo, Barrier>;

/// A decoded SDN MAD: header, the authentication key (checked by the switch before it applies
/// anything, like the SM's M_Key), and the attribute's payload.
struct SdnMad {
  MadHeader hdr;
  std::uint64_t key = 0;
  Payload payload;
  bool operator==(const SdnMad&) const = default;
};

}  // namespace ibsdn::mad
