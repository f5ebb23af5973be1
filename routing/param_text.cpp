#include "routing/param_text.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace ibsdn {

std::string trim_blanks(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<int> parse_param_values(std::string_view text, std::string_view wrapper,
                                    const std::vector<std::string_view>& names) {
  std::string s = trim_blanks(text);
  const std::string what(wrapper);
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  if (lower.rfind(what + "(", 0) == 0) {
    if (s.back() != ')') throw std::invalid_argument(what + ": missing ')' in '" + s + "'");
    s = s.substr(what.size() + 1, s.size() - what.size() - 2);
  }
  std::vector<int> out;
  std::string_view v(s);
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = v.find(',', pos);
    const std::string tok = trim_blanks(
        v.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (out.size() == names.size()) {
      throw std::invalid_argument(what + ": expected " + std::to_string(names.size()) +
                                  " values, got more in '" + s + "'");
    }
    int value = 0;
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), value);
    if (tok.empty() || ec != std::errc() || ptr != tok.data() + tok.size()) {
      throw std::invalid_argument(what + ": " + std::string(names[out.size()]) + " '" + tok +
                                  "' is not an integer");
    }
    out.push_back(value);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (out.size() != names.size()) {
    std::string expected;
    for (std::string_view n : names) expected += (expected.empty() ? "" : ",") + std::string(n);
    throw std::invalid_argument(what + ": expected '" + expected + "', got '" + s + "'");
  }
  return out;
}

}  // namespace ibsdn
