#include "common/config_error.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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

std::string read_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, 0, std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path, 0, 0, std::string("read failed: ") + std::strerror(errno));
  return std::move(text).str();
}

}  // namespace ibsdn
