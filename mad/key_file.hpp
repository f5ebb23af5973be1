// The SDN MAD class's authentication key kept in a file, the way ssh keeps a private key: one
// line, readable by its owner only. ibsdn-switch-agent and ibsdn-madtool read it (--key-file);
// the key is the one the controller sends in every MAD (docs/wire-format.md section 3).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ibsdn::mad {

/// What is wrong with a key file, starting with the file's name ("PATH: ..." or "PATH:LINE: ...").
class KeyFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A key as a key file spells it: "0x" (or "0X") and 1-16 hex digits, or decimal digits that fit
/// in 64 bits. Nothing else: no sign, no spaces. nullopt otherwise.
std::optional<std::uint64_t> parse_key_text(std::string_view text);

/// The key in the file at `path`. The file must be a regular file (not a symbolic link, directory,
/// FIFO or device), owned by the user running this program or by root, with no permission for
/// group or others (mode & 077 == 0, as ssh demands of private keys), and hold exactly one line:
/// a key as parse_key_text() reads it, then optionally one newline. A key of 0 is refused: it
/// means "no authentication", which a program must be told explicitly (--no-key). Throws
/// KeyFileError saying what is wrong.
std::uint64_t read_key_file(const std::string& path);

}  // namespace ibsdn::mad
