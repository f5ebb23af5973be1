#include "mad/codec_bytes.hpp"

#include <stdexcept>
#include <utility>

namespace ibsdn::mad::wire {

std::string hex(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 0xF]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

void reject(Status s, std::size_t off, std::string what) {
  what += " (byte " + std::to_string(off) + ")";
  throw Reject{DecodeError{s, std::move(what), off}};
}

void unrepresentable(const std::string& what) {
  throw std::invalid_argument("SDN MAD encode: " + what);
}

}  // namespace ibsdn::mad::wire
