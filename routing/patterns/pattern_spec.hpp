// The syntax of a communication pattern: its name and options as written on a command line or in
// a job notice, checked without generating anything.
//
// A leaf of its own (target ibsdn_pattern_spec, nothing linked): the notice protocol
// (plugin/notice) and ibsdnctl check pattern texts with it without the generators or the rest of
// routing. The generators (pattern.hpp, patterns.def) are registered separately; a unit test keeps
// the two tables naming the same patterns.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

/// One directed rank-to-rank communication of a job.
struct RankFlow {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  bool operator==(const RankFlow&) const = default;
};

/// A pattern name and its options, as written on a command line or in a job notice:
/// `NAME` or `NAME:OPT=VALUE,OPT=VALUE` (e.g. `shift:k=3`, `stencil3d:dims=8x8x16`,
/// `umesh:min=6,max=20,range=30,bytes=4M`, `matrix:file=tm.txt`). Each pattern accepts only its
/// own options (see pattern_syntax.def); a field it does not accept must keep its default.
struct PatternSpec {
  static constexpr std::uint64_t kDefaultBytes = std::uint64_t{1} << 20;

  std::string name;
  /// Bytes per rank flow: `bytes=N`, with an optional K / M / G suffix (powers of 1024).
  std::uint64_t bytes = kDefaultBytes;
  /// shift: rank i sends to (i + k) mod N; may be negative; k mod N must not be 0.
  std::int64_t k = 1;
  /// stencil3d, stencil4d, many-to-many: `dims=8x8x16`; empty means the pattern's default.
  std::vector<std::uint32_t> dims;
  /// umesh, spread: partners per rank, drawn uniformly in [min_partners, max_partners].
  std::uint32_t min_partners = 6;
  std::uint32_t max_partners = 20;
  /// umesh: partners lie within [r - range, r + range].
  std::uint32_t range = 30;
  /// matrix: the traffic-matrix file (see traffic_matrix.hpp). Cannot contain ','.
  std::string file;

  /// Throws std::invalid_argument naming the pattern and the offending option or value.
  static PatternSpec parse(std::string_view text);
  /// Throws std::invalid_argument when the name is unknown, a field the pattern does not accept
  /// differs from its default, or a value is out of its range (independent of the rank count).
  void validate() const;
  /// The canonical text: name plus the accepted options that differ from their defaults.
  /// parse(to_string()) == *this.
  [[nodiscard]] std::string to_string() const;
  bool operator==(const PatternSpec&) const = default;
};

/// The known pattern names, in pattern_syntax.def order.
std::vector<std::string> pattern_names();
/// One line saying what the pattern does. Throws std::invalid_argument for an unknown name.
std::string_view pattern_summary(std::string_view name);
/// The option names the pattern accepts, e.g. {"k", "bytes"}. Throws for an unknown name.
std::vector<std::string> pattern_options(std::string_view name);

/// A byte count as option `bytes=` writes it: decimal digits, optionally followed by K, M or G
/// (powers of 1024), e.g. `4096`, `64K`, `1M`. nullopt when malformed, and `why` (when given) says
/// how: "is negative", "is not an integer" or "is out of range" (beyond 2^64-1).
std::optional<std::uint64_t> parse_byte_count(std::string_view value, std::string* why);

/// Grid extents as option `dims=` writes them, "8x8x16" (any count, 0 allowed: the callers check
/// count and range). nullopt when malformed, and `why` (when given) says how: "bad extent in dims
/// '8xx8'", "'a' is not an extent in dims '8xa'".
std::optional<std::vector<std::uint32_t>> parse_extents(std::string_view value, std::string* why);

/// "8x8x16".
std::string dims_to_string(std::span<const std::uint32_t> extents);

}  // namespace ibsdn
