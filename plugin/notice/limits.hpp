// Limits that keep one notice from exhausting the controller (a prolog must not be able to stall
// OpenSM): checked before the values are looked at (docs/notice-protocol.md, "Limits").
#pragma once

#include <cstddef>
#include <cstdint>

namespace ibsdn {

inline constexpr std::size_t kMaxNoticeLineBytes = std::size_t{1} << 20;  // without the '\n'
inline constexpr std::size_t kMaxNoticeDepth = 8;  // nesting of arrays and objects
inline constexpr std::size_t kMaxJobNodes = 100'000;
inline constexpr std::size_t kMaxMatrixEntries = 1'000'000;
inline constexpr std::size_t kMaxElephants = 1'000'000;
inline constexpr std::size_t kMaxPhases = 256;
inline constexpr std::size_t kMaxPatternText = 256;
/// A switch named by its node name or NodeDescription in a flows query.
inline constexpr std::size_t kMaxSwitchName = 64;
inline constexpr std::uint32_t kMaxRanksPerNode = 4096;
inline constexpr std::uint32_t kMaxLinksTop = 1'000'000;
/// Job ids are 1..2^63-1: they are SQLite INTEGER keys in the state store (signed 64 bits).
inline constexpr std::uint64_t kMaxJobId = (std::uint64_t{1} << 63) - 1;
/// uid 4294967295 is (uid_t)-1, "no user": refused.
inline constexpr std::uint64_t kMaxUid = 4'294'967'294;

}  // namespace ibsdn
