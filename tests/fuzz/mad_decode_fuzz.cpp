// libFuzzer target: the SDN MAD decoder on arbitrary bytes, with a round-trip oracle. Whatever
// decodes must encode (encode only throws for models the wire cannot carry, and decode only
// produces carriable ones) and decode again to the same model; any difference, exception, crash
// or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <variant>

#include "mad/mad_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsdn::mad;
  const DecodeResult first = decode(std::span<const std::uint8_t>(data, size));
  const auto* m = std::get_if<SdnMad>(&first);
  if (m == nullptr) {
    const auto& e = std::get<DecodeError>(first);
    if (e.offset > kMadSize || e.reason.empty()) {
      std::fprintf(stderr, "bad DecodeError: offset %zu, reason '%s'\n", e.offset,
                   e.reason.c_str());
      std::abort();
    }
    return 0;
  }
  const MadBytes again = encode(*m);
  const DecodeResult second = decode(again);
  const auto* m2 = std::get_if<SdnMad>(&second);
  if (m2 == nullptr) {
    std::fprintf(stderr, "re-encoded MAD does not decode: %s\n",
                 std::get<DecodeError>(second).reason.c_str());
    std::abort();
  }
  if (!(*m2 == *m)) {
    std::fprintf(stderr, "round trip changed the decoded MAD\n");
    std::abort();
  }
  return 0;
}
