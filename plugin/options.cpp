#include "plugin/options.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace ibsdn::plugin {
namespace {

bool is_separator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

template <typename T>
T parse_number(std::string_view pair, std::string_view value, int base) {
  if (base == 16 && (value.starts_with("0x") || value.starts_with("0X"))) value.remove_prefix(2);
  T out{};
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out, base);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size()) {
    throw std::invalid_argument("event_plugin_options: '" + std::string(pair) + "': not a valid " +
                                (base == 16 ? "hex" : "decimal") + " number");
  }
  return out;
}

}  // namespace

std::string Options::to_string() const {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "key=0x%llx,mad_timeout_ms=%lld,poll_table_info=%d,retry_ms=%lld",
                static_cast<unsigned long long>(key), static_cast<long long>(mad_timeout.count()),
                poll_table_info ? 1 : 0, static_cast<long long>(retry.count()));
  return buf;
}

Options parse_options(std::string_view text) {
  Options out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && is_separator(text[pos])) ++pos;
    std::size_t end = pos;
    while (end < text.size() && !is_separator(text[end])) ++end;
    if (end == pos) break;
    const std::string_view pair = text.substr(pos, end - pos);
    pos = end;
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument("event_plugin_options: '" + std::string(pair) +
                                  "' is not key=value");
    }
    const std::string_view name = pair.substr(0, eq);
    const std::string_view value = pair.substr(eq + 1);
    if (name == "key") {
      out.key = parse_number<std::uint64_t>(pair, value, 16);
    } else if (name == "mad_timeout_ms") {
      const auto ms = parse_number<std::uint32_t>(pair, value, 10);
      if (ms < 1 || ms > 60000) {
        throw std::invalid_argument("event_plugin_options: '" + std::string(pair) +
                                    "': the timeout must be 1..60000 ms");
      }
      out.mad_timeout = std::chrono::milliseconds(ms);
    } else if (name == "retry_ms") {
      const auto ms = parse_number<std::uint32_t>(pair, value, 10);
      if (ms > 3600000) {
        throw std::invalid_argument("event_plugin_options: '" + std::string(pair) +
                                    "': the retry interval must be 0..3600000 ms");
      }
      out.retry = std::chrono::milliseconds(ms);
    } else if (name == "poll_table_info") {
      if (value != "0" && value != "1") {
        throw std::invalid_argument("event_plugin_options: '" + std::string(pair) +
                                    "': expected 0 or 1");
      }
      out.poll_table_info = value == "1";
    } else {
      throw std::invalid_argument("event_plugin_options: unknown option '" + std::string(name) +
                                  "' (known: key, mad_timeout_ms, poll_table_info, retry_ms)");
    }
  }
  return out;
}

}  // namespace ibsdn::plugin
