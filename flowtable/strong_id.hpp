// A tiny typed wrapper so that a LID can never be passed where a port number is expected.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace ibsdn {

template <typename Tag, typename Rep>
class StrongId {
 public:
  using rep_type = Rep;
  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep v) : value_(v) {}
  [[nodiscard]] constexpr Rep value() const { return value_; }
  constexpr auto operator<=>(const StrongId&) const = default;

 private:
  Rep value_{};
};

}  // namespace ibsdn

template <typename Tag, typename Rep>
struct std::hash<ibsdn::StrongId<Tag, Rep>> {
  std::size_t operator()(const ibsdn::StrongId<Tag, Rep>& id) const noexcept {
    return std::hash<Rep>{}(id.value());
  }
};
