#include "common/config_error.hpp"

namespace ibsdn {

std::string located_message(std::string_view source, std::size_t line, std::size_t column,
                            std::string_view what) {
  std::string out(source);
  if (line > 0) out += ":" + std::to_string(line);
  if (line > 0 && column > 0) out += ":" + std::to_string(column);
  out += ": ";
  out += what;
  return out;
}

ConfigError::ConfigError(std::string_view source, std::size_t line, std::size_t column,
                         std::string_view what)
    : std::runtime_error(located_message(source, line, column, what)),
      line_(line),
      column_(column) {}

}  // namespace ibsdn
