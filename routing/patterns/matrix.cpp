// Matrix: the flows of a traffic-matrix file (traffic_matrix.hpp), with its own byte counts. The
// pairs the file skips are not flows; callers that report them read the file themselves.
#include "routing/patterns/pattern.hpp"
#include "routing/patterns/traffic_matrix.hpp"

namespace ibsdn {

std::vector<RankFlow> generate_matrix(const PatternSpec& spec, std::uint32_t ranks,
                                      std::uint64_t /*seed*/) {
  return read_traffic_matrix(spec.file, ranks).flows;
}

}  // namespace ibsdn
