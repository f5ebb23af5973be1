// Internal to the SDN MAD codec: where the parts every attribute shares sit in the 256 bytes.
// Offsets are from the start of the MAD, the unit in which DecodeError reports them;
// docs/wire-format.md has the same numbers in its tables.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mad/sdn_mad.hpp"

namespace ibsdn::mad::wire {

// --- IBA common header (bytes 0-23) -------------------------------------------------------------
constexpr std::size_t kOffBaseVersion = 0;
constexpr std::size_t kOffMgmtClass = 1;
constexpr std::size_t kOffClassVersion = 2;
constexpr std::size_t kOffMethod = 3;
constexpr std::size_t kOffStatus = 4;
constexpr std::size_t kOffClassSpecific = 6;
constexpr std::size_t kOffTid = 8;
constexpr std::size_t kOffAttrId = 16;
constexpr std::size_t kOffReserved = 18;
constexpr std::size_t kOffAttrMod = 20;

// --- data area (bytes 24-255) -------------------------------------------------------------------
// The key comes first in every attribute so that a switch can check it before parsing anything
// else, as an SMA checks M_Key; it also keeps the OpenFlow message 8-byte aligned.
constexpr std::size_t kOffKey = kHeaderSize;   // 24
constexpr std::size_t kOffBody = kOffKey + 8;  // 32

// Output ports, in FlowMod actions and FlowStats entries alike.
constexpr std::uint8_t kMinPort = 1;
constexpr std::uint8_t kMaxPort = 254;  // IBA switches have physical ports 1-254; 255 is reserved

}  // namespace ibsdn::mad::wire
