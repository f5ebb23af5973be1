// InfiniBand identifiers shared by every layer of ibsdn.
#pragma once

#include <cstdint>

#include "flowtable/strong_id.hpp"

namespace ibsdn {

struct LidTag;
struct GuidTag;
struct PortNumTag;
struct JobIdTag;
struct SlTag;

/// Local identifier assigned by the subnet manager (unicast range 0x0001-0xBFFF).
using Lid = StrongId<LidTag, std::uint16_t>;
/// 64-bit globally unique identifier of a node or port.
using Guid = StrongId<GuidTag, std::uint64_t>;
/// Physical port number on a node; 0 is a switch's management port.
using PortNum = StrongId<PortNumTag, std::uint8_t>;
/// Scheduler job id; also the cookie of every flow entry the job owns.
using JobId = StrongId<JobIdTag, std::uint64_t>;
/// Service level (0-15).
using ServiceLevel = StrongId<SlTag, std::uint8_t>;

}  // namespace ibsdn
