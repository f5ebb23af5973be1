// The plugin's settings in opensm.conf's `event_plugin_options`: where its configuration file
// is. Everything else (socket, state directory, switch key, timeouts, algorithms) lives in that
// YAML file (plugin/controller/config.hpp), so that one file describes the controller.
//
// OpenSM keeps only the first word of a config value, so the options are one word of
// comma-separated key=value pairs, e.g. `event_plugin_options config=/etc/opensm/ibsdn.yaml`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ibsdn::plugin {

/// Read when `config=` is not given; a missing default file means built-in defaults.
inline constexpr const char* kDefaultConfigPath = "/etc/opensm/ibsdn.yaml";

struct Options {
  /// The configuration file; nullopt: kDefaultConfigPath if it exists, else the defaults.
  std::optional<std::string> config;

  [[nodiscard]] std::string to_string() const;
};

/// Parses `config=PATH` (an absolute path), separated from other pairs by commas or whitespace.
/// An empty text gives the defaults. Throws std::invalid_argument naming the offending pair.
Options parse_options(std::string_view text);

}  // namespace ibsdn::plugin
