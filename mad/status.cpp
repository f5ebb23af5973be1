#include "mad/sdn_mad.hpp"

namespace ibsdn::mad {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kBadVersion:
      return "bad base or class version";
    case Status::kUnsupportedMethod:
      return "unsupported method";
    case Status::kUnsupportedAttribute:
      return "unsupported method/attribute combination";
    case Status::kInvalidField:
      return "invalid field";
    case Status::kBadKey:
      return "bad authentication key";
    case Status::kTableFull:
      return "flow table full";
    case Status::kMalformedMatch:
      return "malformed match";
    case Status::kBadAction:
      return "bad action";
    case Status::kUnsupportedField:
      return "match field beyond the flow definition level";
    case Status::kNotAuthorized:
      return "sender not authorized to write (not the master SM)";
  }
  return "unknown status";
}

}  // namespace ibsdn::mad
