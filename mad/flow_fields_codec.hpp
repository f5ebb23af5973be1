// Internal to the SDN MAD codec: the InfiniBand match fields and the action values as both FlowMod
// (experimenter OXM TLVs) and FlowStats (fixed entry slots) carry them: their numbers, widths,
// names, and the rules a value / mask pair and an action must follow on the wire.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "flowtable/flow_entry.hpp"
#include "flowtable/match.hpp"

namespace ibsdn::mad::wire {

// The InfiniBand match fields (oxm_field numbers in the experimenter class) and their widths.
enum class IbField : std::uint8_t { kDlid = 0, kSlid = 1, kSl = 2, kDestQp = 3 };
constexpr std::size_t kNumIbFields = 4;
constexpr std::size_t kFieldBytes[kNumIbFields] = {2, 2, 1, 4};
constexpr std::uint32_t kFieldWidthMask[kNumIbFields] = {0xFFFF, 0xFFFF, kSlMask, kQpMask};
constexpr const char* kFieldName[kNumIbFields] = {"DLID", "SLID", "SL", "DEST_QP"};

// --- encode -------------------------------------------------------------------------------------

/// Throws (unrepresentable) unless FlowMatch::validate() accepts `m`.
void check_match(const FlowMatch& m);
/// Throws (unrepresentable) for an output port outside 1-254 or an SL rewrite above 15.
void check_action(const FlowAction& a);

// --- decode -------------------------------------------------------------------------------------

/// value / mask of one field, wherever it came from: the width and consistency rules of
/// FlowMatch::validate(), rejected (kMalformedMatch) at the byte where they fail.
/// Inline with store(): both run for every field of every decoded MAD (out of line, a FlowMod
/// decodes 20% slower).
[[noreturn]] void reject_field(IbField f, std::uint32_t value, std::uint32_t mask,
                               std::size_t value_off, std::size_t mask_off);
inline void check_field(IbField f, std::uint32_t value, std::uint32_t mask, std::size_t value_off,
                        std::size_t mask_off) {
  const std::uint32_t width = kFieldWidthMask[static_cast<std::size_t>(f)];
  if (mask == 0 || (mask & ~width) != 0 || (value & ~width) != 0 || (value & ~mask) != 0) {
    reject_field(f, value, mask, value_off, mask_off);
  }
}

template <typename T>
void store_field(std::optional<Masked<T>>& slot, std::uint32_t value, std::uint32_t mask) {
  slot = Masked<T>{static_cast<T>(value), static_cast<T>(mask)};
}

/// Sets field `f` of `m` (value and mask already checked).
inline void store(FlowMatch& m, IbField f, std::uint32_t value, std::uint32_t mask) {
  switch (f) {
    case IbField::kDlid:
      store_field(m.dlid, value, mask);
      break;
    case IbField::kSlid:
      store_field(m.slid, value, mask);
      break;
    case IbField::kSl:
      store_field(m.sl, value, mask);
      break;
    case IbField::kDestQp:
      store_field(m.dest_qp, value, mask);
      break;
  }
}

}  // namespace ibsdn::mad::wire
