#include "common/config_error.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

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
  // What was opened, not what the name points to now.
  std::error_code ec;
  const auto kind = std::filesystem::status(path, ec).type();
  if (kind == std::filesystem::file_type::directory) {
    throw ConfigError(path, 0, 0, "is a directory, not a file");
  }
  if (!ec && kind != std::filesystem::file_type::regular) {
    throw ConfigError(path, 0, 0, "is not a regular file (a device, a FIFO or a socket)");
  }
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigFileBytes) {
      throw ConfigError(path, 0, 0, "larger than 64 MiB, not a configuration file");
    }
  }
  if (in.bad()) throw ConfigError(path, 0, 0, std::string("read failed: ") + std::strerror(errno));
  return text;
}

}  // namespace ibsdn
