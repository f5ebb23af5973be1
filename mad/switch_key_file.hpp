// The switches' key kept in a file (docs/security.md, section 4), the way ssh keeps a private key:
// one line, readable by its owner only. The one reader of that format for every program that
// trusts a key file: the controller (STATE_DIR/switch.key, `switch_key_file`), ibsdn-switch-agent
// and ibsdn-madtool (`--key-file`). The key is the one every SDN MAD carries
// (docs/wire-format.md, section 3).
//
// A key file holds one line: 0x followed by 1 to 16 hex digits, or a decimal number without a
// leading 0, with an optional trailing newline; the key is not 0 (0 means "no authentication",
// which a program must be told in its own way). A key file is refused unless it is a regular
// file (not a symbolic link, directory, FIFO or device) owned by the reading program's effective
// uid (or root), without any group or other permission bit: a key that others could read may
// have leaked, which chmod cannot undo (rotate it, docs/security.md). Messages never repeat the
// file's text: it may hold a key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ibsdn::mad {

/// What is wrong with a key file. what() reads "SOURCE:LINE:COLUMN: reason", or
/// "SOURCE:LINE: reason" / "SOURCE: reason" when the column / line is not known (0).
class KeyFileError : public std::runtime_error {
 public:
  KeyFileError(std::string source, std::size_t line, std::size_t column, std::string reason);
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] std::size_t line() const { return line_; }
  [[nodiscard]] std::size_t column() const { return column_; }
  /// what() without the location.
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  std::string source_;
  std::size_t line_;
  std::size_t column_;
  std::string reason_;
};

/// The program that reads a key file, as its messages name it.
struct KeyFileReader {
  /// "the controller", "ibsdn-switch-agent".
  std::string_view name;
  /// How that program is told to go without a key, for the refusal of key 0:
  /// "write `switch_key: none` in the configuration", "run with --no-key".
  std::string_view without_key;
};

/// A larger file is not a key file (a key line has at most 21 bytes).
inline constexpr std::size_t kMaxKeyFileBytes = 4096;

/// Parses a key file's text; `source` names the file in errors. Throws KeyFileError
/// "SOURCE:LINE[:COLUMN]: what" for anything but one key line.
std::uint64_t parse_key_file_text(std::string_view text, std::string_view source,
                                  const KeyFileReader& reader);

/// Reads the key file at `path` (format and checks above). Throws KeyFileError "PATH: what" for
/// the file itself, "PATH:LINE[:COLUMN]: what" for its text.
std::uint64_t read_key_file(const std::string& path, const KeyFileReader& reader);

/// A key as a new key file holds it: "0x%016x\n".
std::string key_file_text(std::uint64_t key);

}  // namespace ibsdn::mad
