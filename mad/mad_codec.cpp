#include "mad/mad_codec.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "mad/codec_bytes.hpp"
#include "mad/codec_layout.hpp"
#include "mad/flow_mod_codec.hpp"
#include "mad/flow_stats_codec.hpp"
#include "mad/table_info_codec.hpp"

// The common header, the status and method / attribute rules, and the dispatch to each
// attribute's codec (Barrier's one field is read and written here).

namespace ibsdn::mad {
namespace {

using namespace wire;  // NOLINT(google-build-using-namespace): the codec's own internals

// Barrier GetResp.
constexpr std::size_t kOffBarrierGeneration = 32;
constexpr std::size_t kOffBarrierEnd = 40;

bool known_status(std::uint16_t s) {
  switch (static_cast<Status>(s)) {
    case Status::kOk:
    case Status::kBadVersion:
    case Status::kUnsupportedMethod:
    case Status::kUnsupportedAttribute:
    case Status::kInvalidField:
    case Status::kBadKey:
    case Status::kTableFull:
    case Status::kMalformedMatch:
    case Status::kBadAction:
    case Status::kUnsupportedField:
    case Status::kNotAuthorized:
      return true;
  }
  return false;
}

// Which payload alternative a method/attribute pair carries; npos when the pair is not part of
// the class.
constexpr std::size_t kNoPayload = static_cast<std::size_t>(-1);
template <typename T, typename V>
struct IndexIn;
template <typename T, typename... Ts>
struct IndexIn<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    std::size_t i = 0;
    (void)((std::is_same_v<T, Ts> ? false : (++i, true)) && ...);
    return i;
  }();
};
template <typename T>
constexpr std::size_t payload_index() {
  return IndexIn<T, Payload>::value;
}

std::size_t expected_payload(Method m, AttributeId a) {
  const bool resp = m == Method::kGetResp;
  switch (a) {
    case AttributeId::kFlowMod:
      return (m == Method::kSet || resp) ? payload_index<FlowMod>() : kNoPayload;
    case AttributeId::kFlowStats:
      if (m == Method::kGet) return payload_index<FlowStatsRequest>();
      return resp ? payload_index<FlowStatsReply>() : kNoPayload;
    case AttributeId::kTableInfo:
      return (m == Method::kGet || resp) ? payload_index<TableInfo>() : kNoPayload;
    case AttributeId::kBarrier:
      return (m == Method::kGet || resp) ? payload_index<Barrier>() : kNoPayload;
  }
  return kNoPayload;
}

bool known_method(std::uint8_t m) {
  return m == static_cast<std::uint8_t>(Method::kGet) ||
         m == static_cast<std::uint8_t>(Method::kSet) ||
         m == static_cast<std::uint8_t>(Method::kGetResp);
}

SdnMad read_mad(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != kMadSize) {
    const std::size_t at = bytes.size() < kMadSize ? bytes.size() : kMadSize;
    reject(
        Status::kInvalidField, at,
        "MAD is " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(kMadSize));
  }
  const Reader r(bytes);
  SdnMad m;
  MadHeader& h = m.hdr;
  r.expect<std::uint8_t>(kOffBaseVersion, kBaseVersion, Status::kBadVersion, "BaseVersion");
  r.expect<std::uint8_t>(kOffMgmtClass, kMgmtClass, Status::kInvalidField, "MgmtClass");
  r.expect<std::uint8_t>(kOffClassVersion, kClassVersion, Status::kBadVersion, "ClassVersion");
  const auto method = r.at<std::uint8_t>(kOffMethod);
  if (!known_method(method)) {
    reject(Status::kUnsupportedMethod, kOffMethod,
           "method " + hex(method) + " unsupported (Get 0x01, Set 0x02, GetResp 0x81)");
  }
  h.method = static_cast<Method>(method);
  const bool response = h.method == Method::kGetResp;
  const auto status = r.at<std::uint16_t>(kOffStatus);
  if (!response && status != 0) {
    reject(Status::kInvalidField, kOffStatus, "Status " + hex(status) + " in a request");
  }
  if (!known_status(status)) {
    reject(Status::kInvalidField, kOffStatus, "Status " + hex(status) + " unknown");
  }
  h.status = static_cast<Status>(status);
  r.expect<std::uint16_t>(kOffClassSpecific, 0, Status::kInvalidField, "ClassSpecific");
  h.tid = r.at<std::uint64_t>(kOffTid);
  const auto attr = r.at<std::uint16_t>(kOffAttrId);
  h.attr_id = static_cast<AttributeId>(attr);
  const std::size_t want = expected_payload(h.method, h.attr_id);
  if (want == kNoPayload) {
    reject(Status::kUnsupportedAttribute, kOffAttrId,
           "attribute " + hex(attr) + " with method " + hex(method) + " not part of the class");
  }
  r.expect<std::uint16_t>(kOffReserved, 0, Status::kInvalidField, "Reserved");
  h.attr_mod = r.at<std::uint32_t>(kOffAttrMod);
  if (h.attr_id != AttributeId::kFlowStats && h.attr_mod != 0) {
    reject(Status::kInvalidField, kOffAttrMod,
           "AttributeModifier " + hex(h.attr_mod) + " must be zero for this attribute");
  }
  m.key = r.at<std::uint64_t>(kOffKey);

  switch (h.attr_id) {
    case AttributeId::kFlowMod:
      m.payload = read_flow_mod(r, h.tid, response);
      break;
    case AttributeId::kFlowStats:
      if (response) {
        m.payload = read_stats(r, h.attr_mod);
      } else {
        r.expect_zero(kOffBody, kMadSize, Status::kInvalidField, "FlowStats Get data");
        m.payload = FlowStatsRequest{};
      }
      break;
    case AttributeId::kTableInfo:
      if (response) {
        m.payload = read_table_info(r);
      } else {
        r.expect_zero(kOffBody, kMadSize, Status::kInvalidField, "TableInfo Get data");
        m.payload = TableInfo{};
      }
      break;
    case AttributeId::kBarrier: {
      Barrier b;
      if (response) {
        b.generation = r.at<std::uint64_t>(kOffBarrierGeneration);
        r.expect_zero(kOffBarrierEnd, kMadSize, Status::kInvalidField, "reserved");
      } else {
        r.expect_zero(kOffBody, kMadSize, Status::kInvalidField, "Barrier Get data");
      }
      m.payload = b;
      break;
    }
  }
  return m;
}

}  // namespace

MadBytes encode(const SdnMad& m) {
  const MadHeader& h = m.hdr;
  if (h.base_version != kBaseVersion || h.mgmt_class != kMgmtClass ||
      h.class_version != kClassVersion) {
    unrepresentable("header must carry BaseVersion 1, MgmtClass 0x09, ClassVersion 1");
  }
  const auto method = static_cast<std::uint8_t>(h.method);
  if (!known_method(method)) unrepresentable("method " + hex(method));
  const bool response = h.method == Method::kGetResp;
  const auto status = static_cast<std::uint16_t>(h.status);
  if (!known_status(status)) unrepresentable("status " + hex(status));
  if (!response && status != 0) unrepresentable("a request carries Status 0");
  if (h.class_specific != 0) unrepresentable("ClassSpecific must be zero");
  const std::size_t want = expected_payload(h.method, h.attr_id);
  if (want == kNoPayload) {
    unrepresentable("attribute " + hex(static_cast<std::uint16_t>(h.attr_id)) + " with method " +
                    hex(method));
  }
  if (m.payload.index() != want) {
    unrepresentable("payload type does not match attribute " +
                    hex(static_cast<std::uint16_t>(h.attr_id)) + " / method " + hex(method));
  }
  if (h.attr_id != AttributeId::kFlowStats && h.attr_mod != 0) {
    unrepresentable("AttributeModifier is only used by FlowStats");
  }

  MadBytes b{};
  b[kOffBaseVersion] = h.base_version;
  b[kOffMgmtClass] = h.mgmt_class;
  b[kOffClassVersion] = h.class_version;
  b[kOffMethod] = method;
  put<std::uint16_t>(b, kOffStatus, status);
  put<std::uint64_t>(b, kOffTid, h.tid);
  put<std::uint16_t>(b, kOffAttrId, static_cast<std::uint16_t>(h.attr_id));
  put<std::uint32_t>(b, kOffAttrMod, h.attr_mod);
  put<std::uint64_t>(b, kOffKey, m.key);

  // Requests of the read-only attributes carry no data beyond the key.
  if (const auto* fm = std::get_if<FlowMod>(&m.payload)) {
    put_flow_mod(b, *fm, h.tid, response);
  } else if (const auto* st = std::get_if<FlowStatsReply>(&m.payload)) {
    put_stats(b, *st, h.attr_mod);
  } else if (const auto* ti = std::get_if<TableInfo>(&m.payload); ti && response) {
    put_table_info(b, *ti);
  } else if (const auto* ba = std::get_if<Barrier>(&m.payload); ba && response) {
    put<std::uint64_t>(b, kOffBarrierGeneration, ba->generation);
  }
  return b;
}

DecodeResult decode(std::span<const std::uint8_t> bytes) {
  try {
    return read_mad(bytes);
  } catch (Reject& r) {
    return std::move(r.error);
  }
}

SdnMad make_response(const SdnMad& request, Status status, Payload payload) {
  SdnMad r;
  r.hdr = request.hdr;
  r.hdr.method = Method::kGetResp;
  r.hdr.status = status;
  r.key = request.key;
  r.payload = std::move(payload);
  return r;
}

}  // namespace ibsdn::mad
