#include "plugin/opensm/options.hpp"

#include <stdexcept>

namespace ibsdn::plugin {
namespace {

bool is_separator(char c) {
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

std::string Options::to_string() const {
  return config ? "config=" + *config : "config=" + std::string(kDefaultConfigPath) + " (default)";
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
    if (name == "config") {
      if (!value.starts_with('/')) {
        throw std::invalid_argument("event_plugin_options: '" + std::string(pair) +
                                    "': the configuration file must be an absolute path");
      }
      if (out.config) {
        throw std::invalid_argument("event_plugin_options: config= given twice");
      }
      out.config = std::string(value);
    } else {
      throw std::invalid_argument("event_plugin_options: unknown option '" + std::string(name) +
                                  "' (known: config; the switch key, timeouts and the rest are "
                                  "settings of the YAML configuration file)");
    }
  }
  return out;
}

}  // namespace ibsdn::plugin
