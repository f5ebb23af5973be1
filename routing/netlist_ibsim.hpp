// Internal to routing/netlist_*.cpp: what ibsim 0.10 makes of a netlist, which the reader and the
// writer of netlist.hpp both hold to.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ibsdn::netlist_detail {

// Limits of ibsim 0.10 (sim.h: NODEIDLEN 65, nodedesc[64], MAXNETNODES 2048, MAXNETSWITCHS 256).
inline constexpr std::size_t kIbsimMaxIdLen = 64;
inline constexpr std::size_t kIbsimMaxDescLen = 63;
inline constexpr std::size_t kIbsimDefaultNodes = 2048;
inline constexpr std::size_t kIbsimDefaultSwitches = 256;
// ibsim's GUID counters before any switchguid= / caguid= line.
inline constexpr std::uint64_t kIbsimFirstSwitchGuid = 0x100000;
inline constexpr std::uint64_t kIbsimFirstCaGuid = 0x200000;

/// A control byte: the reader refuses one in a node id, the writer in a name or description.
inline bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

}  // namespace ibsdn::netlist_detail
