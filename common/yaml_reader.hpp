// Strict reading of the project's YAML files (the controller's configuration, the simulator's
// scenarios): every problem is a ConfigError naming the file, line and column, so that a mistake
// never silently falls back to a default.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/config_error.hpp"

namespace ibsdn {

/// A node's 1-based line and column (yaml-cpp's marks are 0-based), 0 when it has no mark.
std::size_t line_of(const YAML::Node& n);
std::size_t column_of(const YAML::Node& n);

/// The one YAML document of `text`, a null node when there is none. A syntax error, or a second
/// document, is a ConfigError at its position.
YAML::Node load_single_document(std::string_view text, std::string_view source);

/// Appends "MAP.KEY" for every key: how a file's nested keys are listed for its documentation.
void add_dotted_keys(std::vector<std::string>& out, std::string_view map,
                     std::span<const std::string_view> keys);

/// Reads one document node by node; every error carries the node's position.
class YamlReader {
 public:
  /// The name of the outermost map in messages ("top level: unknown key ...").
  static constexpr std::string_view kTopLevel = "top level";

  /// `no_value_hint` follows "KEY: no value" when a key is written without a value.
  explicit YamlReader(std::string_view source,
                      std::string_view no_value_hint = "leave the key out to use the default")
      : source_(source), no_value_hint_(no_value_hint) {}

  [[nodiscard]] std::string_view source() const { return source_; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const;
  [[noreturn]] void fail_at(std::size_t line, std::size_t column, const std::string& what) const;

  void require_value(const YAML::Node& n, std::string_view key) const;
  /// A scalar's text; a list or a map is an error.
  [[nodiscard]] std::string string(const YAML::Node& n, std::string_view key) const;
  /// A plain (unquoted) decimal integer in [min, max].
  [[nodiscard]] std::uint64_t integer(const YAML::Node& n, std::string_view key, std::uint64_t min,
                                      std::uint64_t max) const;
  /// A plain (unquoted) finite decimal number ("100", "12.5", "1e3").
  [[nodiscard]] double number(const YAML::Node& n, std::string_view key) const;
  /// A plain (unquoted) `true` or `false`.
  [[nodiscard]] bool boolean(const YAML::Node& n, std::string_view key) const;
  [[nodiscard]] std::string absolute_path(const YAML::Node& n, std::string_view key) const;

  /// Calls on_key(name, value node) for every entry of a map, after checking that `map` is a map,
  /// each key is a known plain name, none repeats and each has a value. `what` names the map in
  /// messages: kTopLevel, or its dotted key ("mad", "workload.trace").
  void for_each_key(const YAML::Node& map, std::string_view what,
                    std::span<const std::string_view> known,
                    const std::function<void(const std::string&, const YAML::Node&)>& on_key) const;

  /// "WHAT: unknown key 'NAME' (did you mean 'K'?)", or the known keys listed when none is close.
  static std::string unknown_key_message(std::string_view what, const std::string& name,
                                         std::span<const std::string_view> known);

 private:
  std::string_view source_;
  std::string_view no_value_hint_;
};

}  // namespace ibsdn
