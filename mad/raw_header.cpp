#include "mad/raw_header.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace ibsdn::mad {
namespace {

std::uint64_t be(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | b[at + i];
  return v;
}

std::string hex(unsigned v, int width) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", width, v);
  return buf;
}

constexpr std::size_t kStatusOffset = 4;
constexpr std::size_t kKeyOffset = kHeaderSize;  // the key is the first 8 data bytes
constexpr std::size_t kKeySize = 8;

}  // namespace

std::optional<RawHeader> peek_header(std::span<const std::uint8_t> mad) {
  if (mad.size() < kHeaderSize) return std::nullopt;
  RawHeader h;
  h.base_version = mad[0];
  h.mgmt_class = mad[1];
  h.class_version = mad[2];
  h.method = mad[3];
  h.status = static_cast<std::uint16_t>(be(mad, 4, 2));
  h.tid = be(mad, 8, 8);
  h.attr_id = static_cast<std::uint16_t>(be(mad, 16, 2));
  h.attr_mod = static_cast<std::uint32_t>(be(mad, 20, 4));
  return h;
}

std::optional<MadBytes> make_error_reply(std::span<const std::uint8_t> request, Status status) {
  const auto h = peek_header(request);
  if (!h || h->response()) return std::nullopt;
  MadBytes out{};
  std::copy_n(request.begin(), kHeaderSize, out.begin());
  out[3] = static_cast<std::uint8_t>(Method::kGetResp);
  const auto s = static_cast<std::uint16_t>(status);
  out[kStatusOffset] = static_cast<std::uint8_t>(s >> 8);
  out[kStatusOffset + 1] = static_cast<std::uint8_t>(s & 0xFF);
  if (request.size() >= kKeyOffset + kKeySize) {
    std::copy_n(request.begin() + kKeyOffset, kKeySize, out.begin() + kKeyOffset);
  }
  return out;
}

std::string method_name(std::uint8_t method) {
  switch (method) {
    case static_cast<std::uint8_t>(Method::kGet):
      return "Get";
    case static_cast<std::uint8_t>(Method::kSet):
      return "Set";
    case static_cast<std::uint8_t>(Method::kGetResp):
      return "GetResp";
  }
  return "method(" + hex(method, 2) + ")";
}

std::string attribute_name(std::uint16_t attr_id) {
  switch (static_cast<AttributeId>(attr_id)) {
    case AttributeId::kFlowMod:
      return "FlowMod";
    case AttributeId::kFlowStats:
      return "FlowStats";
    case AttributeId::kTableInfo:
      return "TableInfo";
    case AttributeId::kBarrier:
      return "Barrier";
  }
  return "attr(" + hex(attr_id, 4) + ")";
}

}  // namespace ibsdn::mad
