// Link capacities as routing compares them.
#pragma once

#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn {

/// Per directed link, the fastest link's capacity divided by this link's: the factor that turns a
/// load into load per unit of capacity while keeping loads on the fastest links unchanged (so on
/// a fabric of equal links every factor is 1 and loads stay flow counts). A link without a
/// capacity (0 Gb/s) counts as the fastest.
std::vector<double> relative_inverse_capacity(const Fabric& f);

}  // namespace ibsdn
