#include "mad/flow_fields_codec.hpp"

#include <string>

#include "mad/codec_bytes.hpp"
#include "mad/codec_layout.hpp"

namespace ibsdn::mad::wire {

void check_match(const FlowMatch& m) {
  if (std::string e = m.validate(); !e.empty()) unrepresentable("match: " + e);
}

void check_action(const FlowAction& a) {
  if (a.output.value() < kMinPort || a.output.value() > kMaxPort) {
    unrepresentable("output port " + std::to_string(a.output.value()) + " outside 1-254");
  }
  if (a.set_sl && a.set_sl->value() > kSlMask) {
    unrepresentable("set_sl " + std::to_string(a.set_sl->value()) + " above 15");
  }
}

// The rule check_field() found broken, reported in the order of FlowMatch::validate().
void reject_field(IbField f, std::uint32_t value, std::uint32_t mask, std::size_t value_off,
                  std::size_t mask_off) {
  const auto idx = static_cast<std::size_t>(f);
  const char* name = kFieldName[idx];
  if (mask == 0) {
    reject(Status::kMalformedMatch, mask_off,
           std::string(name) + " mask is zero (a wildcard is expressed by leaving the field out)");
  }
  if ((mask & ~kFieldWidthMask[idx]) != 0) {
    reject(Status::kMalformedMatch, mask_off,
           std::string(name) + " mask " + hex(mask) + " wider than the field (" +
               hex(kFieldWidthMask[idx]) + ")");
  }
  if ((value & ~kFieldWidthMask[idx]) != 0) {
    reject(Status::kMalformedMatch, value_off,
           std::string(name) + " value " + hex(value) + " wider than the field (" +
               hex(kFieldWidthMask[idx]) + ")");
  }
  // check_field() found a rule broken, and this is the only one left: value bits outside the mask.
  reject(Status::kMalformedMatch, value_off,
         std::string(name) + " value " + hex(value) + " has bits outside mask " + hex(mask));
}

}  // namespace ibsdn::mad::wire
