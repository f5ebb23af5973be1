// Traffic-matrix files: measured or hand-written rank-to-rank volumes (seed 003's profiles).
//
// Text, one `src_rank dst_rank bytes` per line, fields separated by spaces or tabs. `#` starts a
// comment (whole line or after the fields); blank lines are ignored. Ranks and bytes are decimal,
// non-negative integers; ranks fit 32 bits, bytes 64. A pair listed twice adds its bytes.
//
// Real profiler output lists pairs that carry no fabric traffic; they are skipped and counted
// (SkippedPairs), not refused: a pair whose bytes total zero (full-matrix dumps list every pair)
// is a zero pair; a pair with src == dst and bytes is a self pair, intra-rank traffic (a rank's
// copies to itself), whose bytes are counted too. A self pair with zero bytes is a zero pair.
// The notice's "matrix" follows the same rule (TrafficMatrixBuilder).
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

/// The pairs of a traffic matrix that give no flow, for the reports.
struct SkippedPairs {
  std::uint64_t self_pairs = 0;        // src == dst, bytes > 0
  std::uint64_t intra_rank_bytes = 0;  // the self pairs' bytes
  std::uint64_t zero_pairs = 0;        // bytes total 0, self pairs included
  [[nodiscard]] bool any() const { return self_pairs != 0 || zero_pairs != 0; }
  bool operator==(const SkippedPairs&) const = default;
};

/// A traffic matrix: one flow per pair of distinct ranks with bytes, ordered by source, then
/// destination, and the pairs skipped.
struct TrafficMatrix {
  std::vector<RankFlow> flows;
  SkippedPairs skipped;
  bool operator==(const TrafficMatrix&) const = default;
};

/// Sums a matrix's rows per pair, then keeps or skips each pair by the rule above: the one rule
/// of matrix files and of the notice's "matrix", which differ only in how they name a bad row.
class TrafficMatrixBuilder {
 public:
  enum class Overflow : std::uint8_t {
    kNone,
    kPair,       // the pair's bytes, summed over its rows, exceed 2^64-1
    kIntraRank,  // the bytes of all self pairs, summed, exceed 2^64-1
  };
  /// Adds one row, in any order; on overflow the row is not added.
  [[nodiscard]] Overflow add(const RankFlow& row);
  /// The matrix of the rows added; the builder is empty again.
  [[nodiscard]] TrafficMatrix finish();

 private:
  // Keyed by (src, dst) so duplicates merge and the flows come out ordered.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> totals_;
  std::uint64_t intra_rank_bytes_ = 0;
};

/// The flows of a traffic matrix and the pairs skipped. With `ranks`, every rank must be below
/// it. Throws std::invalid_argument("SOURCE:LINE: what") for a malformed line, a negative or
/// non-integer field, a missing or extra field, a rank out of range or a byte total that
/// overflows (a pair's, or the intra-rank bytes of all self pairs).
TrafficMatrix parse_traffic_matrix(std::istream& in, std::string_view source,
                                   std::optional<std::uint32_t> ranks);

/// parse_traffic_matrix on a file; throws std::invalid_argument("PATH: cannot open ...") when the
/// file cannot be read.
TrafficMatrix read_traffic_matrix(const std::string& path, std::optional<std::uint32_t> ranks);

/// How ibsdn-sim and ibsdnctl report a matrix: "3 pairs, 1 self pair skipped (4096 bytes
/// intra-rank), 2 zero pairs skipped", `pairs` being the pairs kept.
std::string matrix_summary(std::uint64_t pairs, const SkippedPairs& skipped);

}  // namespace ibsdn
