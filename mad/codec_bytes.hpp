// Internal to the SDN MAD codec (mad_codec.cpp and the attribute codecs): big-endian access to the
// 256 MAD bytes, the Reader that validates while it reads, and the two ways a codec step fails:
// reject() ends a decode with a DecodeError, unrepresentable() ends an encode with
// std::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "mad/mad_codec.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad::wire {

constexpr std::size_t pad8(std::size_t n) {
  return (n + 7) / 8 * 8;
}

template <typename T>
void put(MadBytes& b, std::size_t off, T v) {
  static_assert(std::is_unsigned_v<T>);
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (sizeof(T) - 1 - i)));
  }
}

/// The low `n` bytes of `v` at `off` (fields 1, 2 or 4 bytes wide, chosen at run time).
inline void put_n(MadBytes& b, std::size_t off, std::size_t n, std::uint32_t v) {
  for (std::size_t i = 0; i < n; ++i) {
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
  }
}

// Callers have checked off + sizeof(T) <= bytes.size(): decode() first insists on 256 bytes and
// every variable-length region is bounded by a length checked against its enclosing region.
template <typename T>
T get(std::span<const std::uint8_t> b, std::size_t off) {
  static_assert(std::is_unsigned_v<T>);
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>((v << 8) | b[off + i]);
  return v;
}

inline std::uint32_t get_n(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | b[off + i];
  return v;
}

/// "0x2a": values in decode errors.
std::string hex(std::uint64_t v);

/// Thrown inside decode() and caught at its boundary: validation is a long chain of checks, each
/// of which ends the parse, and unwinding keeps each check one line.
struct Reject {
  DecodeError error;
};

/// Ends the decode: `what` at MAD byte `off`, answered with `s`.
[[noreturn]] void reject(Status s, std::size_t off, std::string what);

/// Ends the encode: `what` cannot be put on the wire.
[[noreturn]] void unrepresentable(const std::string& what);

/// Reads a MAD that decode() has checked to be 256 bytes; every check that fails rejects at the
/// byte it looked at.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> b) : b_(b) {}

  template <typename T>
  [[nodiscard]] T at(std::size_t off) const {
    return get<T>(b_, off);
  }
  [[nodiscard]] std::uint32_t at_n(std::size_t off, std::size_t n) const {
    return get_n(b_, off, n);
  }

  template <typename T>
  void expect(std::size_t off, T want, Status s, const char* field) const {
    const T got = at<T>(off);
    if (got != want)
      reject(s, off, std::string(field) + " is " + hex(got) + ", expected " + hex(want));
  }

  /// Bytes [from, to) are padding or reserved: they must be zero. Most of a MAD is such bytes, so
  /// the common all-zero case is checked a word at a time (3x faster decode than byte by byte).
  void expect_zero(std::size_t from, std::size_t to, Status s, const char* what) const {
    std::uint64_t any = 0;
    std::size_t i = from;
    for (; i + 8 <= to; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, b_.data() + i, sizeof w);
      any |= w;
    }
    for (; i < to; ++i) any |= b_[i];
    if (any == 0) return;
    for (i = from; b_[i] == 0; ++i) {
    }
    reject(s, i, std::string(what) + " byte is " + hex(b_[i]) + ", must be zero");
  }

 private:
  std::span<const std::uint8_t> b_;
};

}  // namespace ibsdn::mad::wire
