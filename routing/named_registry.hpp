// The lookup shared by the registries chosen by name (routing algorithms, patterns, the
// simulator's node-allocation policies): a constexpr array of entries with a `name` member.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

/// The entry called `name`; otherwise std::invalid_argument "unknown <what> '<name>' (known: a,
/// b, ...)".
template <typename Entry, std::size_t N>
const Entry& find_named(const Entry (&entries)[N], std::string_view name, std::string_view what) {
  for (const Entry& e : entries) {
    if (e.name == name) return e;
  }
  std::string known;
  for (const Entry& e : entries) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) +
                              "' (known: " + known + ")");
}

/// The entries' names in registry order.
template <typename Entry, std::size_t N>
std::vector<std::string> names_of(const Entry (&entries)[N]) {
  std::vector<std::string> out;
  for (const Entry& e : entries) out.emplace_back(e.name);
  return out;
}

}  // namespace ibsdn
