// The plugin's settings, from opensm.conf's `event_plugin_options`.
//
// OpenSM keeps only the first word of a config value, so the options are one word:
// comma-separated key=value pairs, e.g. `event_plugin_options key=0x5eed,mad_timeout_ms=500`.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace ibsdn::plugin {

struct Options {
  /// The SDN MADs' authentication key; the switches' agents must be started with the same one.
  std::uint64_t key = 0;
  /// How long the controller waits for a switch's answer (OpenSM's vendor layer may report a
  /// timeout earlier; under ibsim it never does for an agent that just stays silent).
  std::chrono::milliseconds mad_timeout{1000};
  /// Ask every switch for its TableInfo after each SUBNET UP.
  bool poll_table_info = true;
  /// Ask the switches that did not answer again after this long (an agent may start after the
  /// SM, or restart); 0 = only at SUBNET UP.
  std::chrono::milliseconds retry{10000};

  [[nodiscard]] std::string to_string() const;
};

/// Parses `key=HEX`, `mad_timeout_ms=N` (1..60000), `poll_table_info=0|1`, `retry_ms=N`
/// (0..3600000), separated by commas or whitespace. An empty text gives the defaults. Throws
/// std::invalid_argument naming the offending pair.
Options parse_options(std::string_view text);

}  // namespace ibsdn::plugin
