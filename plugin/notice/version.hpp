// The notice protocol's version: every request and every response carries "v": 1
// (docs/notice-protocol.md, "Versioning").
#pragma once

#include <cstdint>

namespace ibsdn {

inline constexpr std::int64_t kNoticeProtocolVersion = 1;

}  // namespace ibsdn
