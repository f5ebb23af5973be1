// What a flow entry matches: the InfiniBand header fields of seed 002's flow concept (III.B),
// each as value + mask, and which of them a switch's table supports (its flow definition level).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "flowtable/types.hpp"

namespace ibsdn {

/// The header fields a flow table looks at, from a data packet's LRH and BTH.
struct PacketHeader {
  Lid slid{};
  Lid dlid{};
  ServiceLevel sl{};
  std::uint32_t dest_qp = 0;  // 24 bits
};

/// A field matched under a mask: x matches when (x & mask) == value. value has no bits outside
/// mask (FlowMatch::validate() checks).
template <typename T>
struct Masked {
  T value{};
  T mask{};
  [[nodiscard]] bool matches(T x) const { return static_cast<T>(x & mask) == value; }
  bool operator==(const Masked&) const = default;
};

/// Seed 002 III.B: the fields a flow may be defined by, in increasing order of complexity. A
/// table configured at one level refuses entries that match on fields beyond it.
enum class FlowDefinitionLevel : std::uint8_t {
  kDlid = 1,          // DLID only (like the LFT, but per application)
  kSlidDlid = 2,      // + SLID: per source-destination routes
  kSlidDlidSl = 3,    // + SL: per service level
  kSlidDlidSlQp = 4,  // + DestQP: per queue pair
};
std::optional<FlowDefinitionLevel> parse_flow_definition_level(std::string_view text);
std::string_view to_string(FlowDefinitionLevel level);

inline constexpr std::uint32_t kQpMask = 0x00FFFFFFu;
inline constexpr std::uint8_t kSlMask = 0x0Fu;

struct FlowMatch {
  std::optional<Masked<std::uint16_t>> dlid;
  std::optional<Masked<std::uint16_t>> slid;
  std::optional<Masked<std::uint8_t>> sl;
  std::optional<Masked<std::uint32_t>> dest_qp;

  static FlowMatch exact_dlid(Lid dlid);
  static FlowMatch exact_pair(Lid slid, Lid dlid);

  [[nodiscard]] bool matches(const PacketHeader& h) const;
  /// Every packet this match accepts is accepted by `other` too (OpenFlow's non-strict delete
  /// removes the entries a match covers).
  [[nodiscard]] bool covered_by(const FlowMatch& other) const;
  /// Number of mask bits set: more specific matches win ties between equal priorities.
  [[nodiscard]] int specificity() const;
  /// The lowest flow definition level that can express this match.
  [[nodiscard]] FlowDefinitionLevel required_level() const;
  /// Empty when well formed; otherwise what is wrong (value bits outside the mask, an SL above
  /// 15, a QP above 24 bits, a zero mask that should have been left out).
  [[nodiscard]] std::string validate() const;
  bool operator==(const FlowMatch&) const = default;
};

}  // namespace ibsdn
