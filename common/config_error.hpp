// The error of the project's configuration-style files (the controller's configuration, its host
// map, the simulator's scenarios): one "FILE:LINE:COLUMN: what" for all of them, and the reading
// of such a file's text with that error.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ibsdn {

/// A problem in a configuration file, a host map or a scenario. what() reads
/// "FILE:LINE:COLUMN: what", or "FILE:LINE: what" / "FILE: what" when the column / line is not
/// known (0).
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string_view source, std::size_t line, std::size_t column, std::string_view what);
  [[nodiscard]] std::size_t line() const { return line_; }
  [[nodiscard]] std::size_t column() const { return column_; }

 private:
  std::size_t line_;
  std::size_t column_;
};

/// "SOURCE:LINE:COLUMN: what" with a 0 line or column left out: ConfigError's text, also for
/// warnings.
std::string located_message(std::string_view source, std::size_t line, std::size_t column,
                            std::string_view what);

/// The most a configuration file (ibsdn.yaml, a host map, a scenario) may hold.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{64} << 20;

/// The whole text of the regular file at `path`. ConfigError "PATH: cannot read: WHY" when it
/// cannot be opened, "PATH: is a directory, not a file" (or another kind of file: a device, a
/// FIFO), "PATH: larger than 64 MiB, not a configuration file", "PATH: read failed: WHY".
std::string read_config_file(const std::string& path);

}  // namespace ibsdn
