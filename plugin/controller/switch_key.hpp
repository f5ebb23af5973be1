// The key every SDN MAD carries (docs/security.md): where the controller takes it from
// (Config::switch_key_source) and the key's creation on first start. The key file's format and
// the checks a key file must pass are mad/switch_key_file.hpp's, shared with
// `ibsdn-switch-agent --key-file`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mad/switch_key_file.hpp"
#include "plugin/controller/config.hpp"

namespace ibsdn {

inline constexpr const char* kSwitchKeyFileName = "switch.key";

/// How the controller's refusals of a key file name it and what it should be told instead of
/// key 0.
inline constexpr mad::KeyFileReader kControllerKeyReader{
    "the controller", "write `switch_key: none` in the configuration"};

/// Reads the key file at `path` (mad::read_key_file()). Throws ConfigError "PATH: what" or
/// "PATH:LINE[:COLUMN]: what".
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
