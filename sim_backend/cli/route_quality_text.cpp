#include "sim_backend/cli/route_quality_text.hpp"

#include <cstdio>

namespace ibsdn {

void print_link_load(const RouteQuality& q) {
  std::printf("L_D         %d\n", q.max_link_load);
  if (q.bound.binding == "NL_D") {
    std::printf("bound       %u (NL_D)\n", q.bound.value);
  } else {
    std::printf("bound       %u (%s; NL_D = %u)\n", q.bound.value, q.bound.binding.c_str(),
                q.bound.node_load);
  }
  std::printf("L_D/bound   %.2f\n", q.ratio());
}

}  // namespace ibsdn
