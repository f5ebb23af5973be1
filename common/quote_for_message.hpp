// Untrusted text quoted for a message: the one helper every error message, log line and JSON
// answer uses to show text that came from outside (a file's line, a notice's field, a header's
// value), whatever bytes it holds. Header only: routing/ and sim_backend/ use it without linking
// anything.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ibsdn {

/// How many characters of the text a quotation shows.
inline constexpr std::size_t kMaxQuotedChars = 64;

/// `text` between `quote`s as printable ASCII: control and non-ASCII bytes, '\' and the quote
/// character itself become \xNN, and text beyond `max_chars` is cut with "..." inside the quotes.
/// The result is always valid UTF-8, so it can go into a JSON response or a log line whatever the
/// input was. `quote` is '"' only where the file format itself writes the text so (ibsim netlists'
/// node ids).
inline std::string quote_for_message(std::string_view text, std::size_t max_chars = kMaxQuotedChars,
                                     char quote = '\'') {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, quote);
  std::size_t shown = 0;
  for (const char c : text) {
    if (shown == max_chars) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F || c == '\\' || c == quote) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
    ++shown;
  }
  out += quote;
  return out;
}

}  // namespace ibsdn
