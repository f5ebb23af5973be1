#include "plugin/controller/log_codes.hpp"

#include <cctype>
#include <cstdio>

namespace ibsdn {
namespace {

// "ERR 5D13: " is 10 characters.
constexpr std::size_t kPrefixSize = 10;

bool starts_with_code(std::string_view message) {
  if (message.size() < kPrefixSize || !message.starts_with("ERR ")) return false;
  for (std::size_t i = 4; i < 8; ++i) {
    if (std::isxdigit(static_cast<unsigned char>(message[i])) == 0) return false;
  }
  return message.substr(8, 2) == ": ";
}

}  // namespace

std::string to_string(LogCode code) {
  char text[16];
  std::snprintf(text, sizeof text, "ERR %04X", static_cast<unsigned>(code));
  return text;
}

std::string error_line(LogCode code, std::string_view message) {
  std::string out = to_string(code);
  out += ": ";
  out += message;
  return out;
}

std::string in_context(std::string_view context, std::string_view message) {
  const std::size_t at = starts_with_code(message) ? kPrefixSize : 0;
  std::string out(message.substr(0, at));
  out += context;
  out += message.substr(at);
  return out;
}

}  // namespace ibsdn
