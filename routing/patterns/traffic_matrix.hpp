// Traffic-matrix files: measured or hand-written rank-to-rank volumes (seed 003's profiles).
//
// Text, one `src_rank dst_rank bytes` per line, fields separated by spaces or tabs. `#` starts a
// comment (whole line or after the fields); blank lines are ignored. Ranks and bytes are decimal,
// non-negative integers; ranks fit 32 bits, bytes 64. A pair listed twice adds its bytes. A zero
// byte count is accepted (full-matrix dumps list every pair) and adds no traffic; a pair whose
// total stays zero gives no flow.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

/// The flows of a traffic matrix, ordered by source, then destination. With `ranks`, every rank
/// must be below it. Throws std::invalid_argument("SOURCE:LINE: what") for a malformed line, a
/// negative or non-integer field, a missing or extra field, a self pair, a rank out of range or a
/// byte total that overflows.
std::vector<RankFlow> parse_traffic_matrix(std::istream& in, std::string_view source,
                                           std::optional<std::uint32_t> ranks);

/// parse_traffic_matrix on a file; throws std::invalid_argument("PATH: cannot open ...") when the
/// file cannot be read.
std::vector<RankFlow> read_traffic_matrix(const std::string& path,
                                          std::optional<std::uint32_t> ranks);

}  // namespace ibsdn
