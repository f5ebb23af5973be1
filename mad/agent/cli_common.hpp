// Command-line pieces shared by ibsdn-switch-agent and ibsdn-madtool.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "flowtable/types.hpp"

namespace ibsdn::mad::cli {

/// "0x1234abcd" or "1234abcd", at most 16 hex digits. Throws std::invalid_argument.
std::uint64_t parse_hex_u64(std::string_view text, std::string_view what);

/// Where a program's authentication key comes from: --key HEX (tests), --key-file PATH, or
/// --no-key (no authentication, said explicitly).
struct KeySource {
  std::string key_text;  // --key
  std::string key_file;  // --key-file
  bool no_key = false;   // --no-key
};
/// The key to use: exactly one source must be given; a key of 0 is accepted only as --no-key.
/// `program` names the caller in a key file's refusals ("ibsdn-switch-agent"). Throws
/// std::invalid_argument (or mad::KeyFileError, naming the file) with a message for the user.
std::uint64_t resolve_key(const KeySource& src, std::string_view program);
/// A unicast LID, decimal or 0x-hex (1 .. 0xBFFF). Throws std::invalid_argument.
Lid parse_lid(std::string_view text);
/// A file of hex bytes (whitespace and '#' comments ignored), at most 256 bytes. Throws
/// std::runtime_error naming the file and the offending token.
std::string read_hex_file(const std::string& path);
/// "2024-05-01T12:00:00.123" in local time, for log lines.
std::string timestamp();

}  // namespace ibsdn::mad::cli
