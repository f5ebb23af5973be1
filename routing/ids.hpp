// Indexes into a Fabric's node and directed-link arrays.
#pragma once

#include <cstdint>
#include <limits>

#include "flowtable/strong_id.hpp"

namespace ibsdn {

/// An index that may be "none" (the default); value() is meaningful only when valid().
template <typename Tag>
class Index {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  constexpr Index() = default;
  constexpr explicit Index(std::uint32_t v) : value_(v) {}
  constexpr explicit Index(std::size_t v) : value_(static_cast<std::uint32_t>(v)) {}
  constexpr explicit Index(int v) : value_(static_cast<std::uint32_t>(v)) {}
  [[nodiscard]] constexpr std::uint32_t value() const { return value_; }
  [[nodiscard]] constexpr bool valid() const { return value_ != kNone; }
  constexpr auto operator<=>(const Index&) const = default;

 private:
  std::uint32_t value_ = kNone;
};

struct NodeIdxTag;
struct LinkIdTag;
/// A node (switch or HCA) of a Fabric.
using NodeIdx = Index<NodeIdxTag>;
/// A directed link of a Fabric: one direction of one cable.
using LinkId = Index<LinkIdTag>;

}  // namespace ibsdn

template <typename Tag>
struct std::hash<ibsdn::Index<Tag>> {
  std::size_t operator()(const ibsdn::Index<Tag>& id) const noexcept { return id.value(); }
};
