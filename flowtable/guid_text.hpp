// The one text form of a GUID used everywhere: "0x" and 16 lower-case hex digits, the way
// OpenSM, ibnetdiscover and ibsim print them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "flowtable/types.hpp"

namespace ibsdn {

/// "0x0002c90300a1b2c3".
std::string guid_text(Guid g);

/// "0x" or "0X" followed by 1 to 16 hex digits, nothing else; nullopt otherwise.
std::optional<Guid> parse_guid(std::string_view text);

}  // namespace ibsdn
