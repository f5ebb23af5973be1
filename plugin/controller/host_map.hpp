// The optional host map: which HCA a Slurm host name stands for, when the NodeDescription's first
// word is not already the host name (the default of most HCA drivers: "node01 HCA-1").
//
// One mapping per line: the host name, blanks, then either a GUID (`0x` and 1-16 hex digits) or a
// NodeDescription prefix, optionally in double quotes (needed when it contains '#' or looks like
// a GUID). A prefix matches whole words: "node01" matches "node01 HCA-1" but not "node010 HCA-1".
// '#' after blanks starts a comment; blank lines and comment lines are ignored.
//
//   node01  0x0002c90300a1b2c4
//   node02  "gpu02 mlx5_0"
//   node03  gpu03 mlx5_0      # unquoted: the text up to the comment, trimmed
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flowtable/types.hpp"

namespace ibsdn {

inline constexpr std::size_t kMaxNodeDescription =
    64;  // bytes, as in the NodeDescription attribute

struct HostMapEntry {
  std::string hostname;
  std::optional<Guid> guid;        // set: the HCA with this node GUID
  std::string description_prefix;  // otherwise: the HCA whose NodeDescription starts so
  std::size_t line = 0;            // where the entry was read, for messages
  bool operator==(const HostMapEntry&) const = default;
};

class HostMap {
 public:
  /// Parses the map text. Throws ConfigError ("SOURCE:LINE:COLUMN: what") for a malformed line, a
  /// bad host name, and a host name, GUID or prefix given twice (naming the first line too).
  static HostMap parse(std::string_view text, std::string_view source_name);
  /// parse() on a file; throws ConfigError ("PATH: why") when it cannot be read.
  static HostMap load(const std::string& path);

  /// The entry of `hostname` (exact comparison, as Slurm compares node names), or nullptr.
  [[nodiscard]] const HostMapEntry* find(std::string_view hostname) const;
  [[nodiscard]] const std::vector<HostMapEntry>& entries() const { return entries_; }

 private:
  std::vector<HostMapEntry> entries_;
  std::unordered_map<std::string, std::size_t> by_host_;  // index into entries_
};

/// Whole-word prefix match of a NodeDescription (see the header comment).
bool description_matches(std::string_view description, std::string_view prefix);

}  // namespace ibsdn
