// Command-line pieces shared by ibsdn-switch-agent and ibsdn-madtool.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "flowtable/types.hpp"

namespace ibsdn::mad::cli {

/// "0x1234abcd" or "1234abcd", at most 16 hex digits. Throws std::invalid_argument.
std::uint64_t parse_hex_u64(std::string_view text, std::string_view what);
/// A unicast LID, decimal or 0x-hex (1 .. 0xBFFF). Throws std::invalid_argument.
Lid parse_lid(std::string_view text);
/// A file of hex bytes (whitespace and '#' comments ignored), at most 256 bytes. Throws
/// std::runtime_error naming the file and the offending token.
std::string read_hex_file(const std::string& path);
/// "2024-05-01T12:00:00.123" in local time, for log lines.
std::string timestamp();

}  // namespace ibsdn::mad::cli
