// libFuzzer target: parse_request on arbitrary bytes, with a round-trip oracle. An accepted line
// must serialise (request_to_json) and parse back to the same request; a rejected one must give a
// request-level error code, a printable message and a response line that serialises. Anything
// else, an exception, a crash or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "plugin/notice/notice.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const ibsdn::ParsedRequest p = ibsdn::parse_request(line);
  if (p.ok()) {
    const ibsdn::ParsedRequest again =
        ibsdn::parse_request(ibsdn::request_to_json(p.request()).dump());
    if (!again.ok() || !(again.request() == p.request())) std::abort();
    return 0;
  }
  const ibsdn::RequestError& e = p.error();
  if (e.message.empty() || e.code == ibsdn::ErrorCode::kInternal) std::abort();
  for (const char c : e.message) {
    if (c < 0x20 || c >= 0x7F) std::abort();
  }
  (void)ibsdn::to_line(ibsdn::error_response(e));
  return 0;
}
