#include "routing/patterns/mapping_kind.hpp"

#include <stdexcept>
#include <string>

namespace ibsdn {

Mapping parse_mapping(std::string_view text) {
  if (text == "block") return Mapping::kBlock;
  if (text == "cyclic") return Mapping::kCyclic;
  throw std::invalid_argument("unknown mapping '" + std::string(text) + "' (known: block, cyclic)");
}

std::string_view to_string(Mapping m) {
  return m == Mapping::kBlock ? "block" : "cyclic";
}

}  // namespace ibsdn
