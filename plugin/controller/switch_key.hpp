// The key every SDN MAD carries (docs/security.md): where the controller takes it from
// (Config::switch_key_source), the key file's format, and the key's creation on first start.
//
// A key file holds one line: 0x followed by 1 to 16 hex digits, or a decimal number, with an
// optional trailing newline; the key is not 0. `ibsdn-switch-agent --key-file` reads the same
// format. A key file is refused unless it is a regular file (not a symbolic link) owned by the
// controller's effective uid and without any group or other permission bit: a key that others
// could read may have leaked, which chmod cannot undo (rotate it, docs/security.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/controller/config.hpp"

namespace ibsdn {

inline constexpr const char* kSwitchKeyFileName = "switch.key";

/// Parses a key file's text; `source` names the file in errors. Throws ConfigError
/// "SOURCE:LINE[:COLUMN]: what" for anything but one key line. The message never repeats the
/// file's text: it may hold a key.
std::uint64_t parse_switch_key_text(std::string_view text, std::string_view source);

/// A key as a key file holds it: "0x%016x\n".
std::string switch_key_text(std::uint64_t key);

/// Reads the key file at `path` (format and checks above). Throws ConfigError "PATH: what" or
/// "PATH:LINE: what".
std::uint64_t read_switch_key_file(const std::string& path);

/// A random non-zero 64-bit key from getrandom(2). Throws StateError when there is none.
std::uint64_t generate_switch_key();

/// The key `config` names, for Config::switch_key: 0 for `switch_key: none`, the configured key,
/// or the key file's. STATE_DIR/switch.key is created when missing (generate_switch_key(),
/// written atomically with mode 0600); the state directory must exist, and the caller should hold
/// its lock (StateStore::open does both) so that two controllers do not generate two keys.
/// Appends what the operator must know to `warnings` (a new key was generated). Throws
/// ConfigError for a key file that is missing (switch_key_file), refused or unparsable,
/// StateError when a new key cannot be written.
std::uint64_t resolve_switch_key(const Config& config, std::vector<std::string>& warnings);

}  // namespace ibsdn
