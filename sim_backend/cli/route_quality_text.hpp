// The lines of a RouteQuality that `ibsdn-sim route` and `ibsdn-sim lft-quality` both print: the
// largest link load L_D, its lower bound with the term that binds it, and their ratio.
#pragma once

#include "routing/route_quality.hpp"

namespace ibsdn {

/// Prints "L_D", "bound" and "L_D/bound" to stdout, aligned like the commands' other lines.
void print_link_load(const RouteQuality& q);

}  // namespace ibsdn
