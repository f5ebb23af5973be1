// The IBA common MAD header (24 bytes, big-endian) read straight from bytes, for the cases where
// the codec refuses the whole MAD but the header is still useful: a responder answering a
// malformed request, a requester matching an error reply it cannot decode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "mad/sdn_mad.hpp"

namespace ibsdn::mad {

struct RawHeader {
  std::uint8_t base_version = 0;
  std::uint8_t mgmt_class = 0;
  std::uint8_t class_version = 0;
  std::uint8_t method = 0;  // with the R bit
  std::uint16_t status = 0;
  std::uint64_t tid = 0;
  std::uint16_t attr_id = 0;
  std::uint32_t attr_mod = 0;
  [[nodiscard]] bool response() const { return (method & 0x80) != 0; }
};

/// The header of `mad`, or nullopt when fewer than 24 bytes are there.
std::optional<RawHeader> peek_header(std::span<const std::uint8_t> mad);

/// The part of a transaction id that survives the trip: the kernel replaces the upper 32 bits of
/// a request's TID with its agent's id (under ibsim, umad2sim puts its agent id in bits 32-47 and
/// ibsim its client id in bits 48-63). Requesters number and match transactions by the low half.
inline std::uint32_t tid_low(std::uint64_t tid) {
  return static_cast<std::uint32_t>(tid);
}

/// A GetResp to a request the codec refused: the request's header with R set, `status`, the key
/// bytes echoed when present, the rest zero. nullopt when there is no header to reply to, or the
/// bytes are themselves a response (responses are never answered).
std::optional<MadBytes> make_error_reply(std::span<const std::uint8_t> request, Status status);

/// Method / attribute names for logs ("Set", "FlowMod"; unknown values in hex).
std::string method_name(std::uint8_t method);
std::string attribute_name(std::uint16_t attr_id);

}  // namespace ibsdn::mad
