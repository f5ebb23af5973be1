#include "routing/subnet.hpp"

#include <stdexcept>

#include "flowtable/guid_text.hpp"

namespace ibsdn {

NodeIdx Subnet::node_of(Guid guid) const {
  if (const auto n = fabric.find_guid(guid)) return *n;
  throw std::invalid_argument("no node with GUID " + guid_text(guid));
}

}  // namespace ibsdn
