#include "routing/link_capacity.hpp"

#include <algorithm>

namespace ibsdn {

std::vector<double> relative_inverse_capacity(const Fabric& f) {
  double fastest = 0.0;
  for (const Link& l : f.links()) fastest = std::max(fastest, l.gbps);
  std::vector<double> out(f.num_links(), 1.0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double g = f.link(LinkId(i)).gbps;
    if (g > 0.0) out[i] = fastest / g;
  }
  return out;
}

}  // namespace ibsdn
