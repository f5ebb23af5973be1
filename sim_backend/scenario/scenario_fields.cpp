#include "sim_backend/scenario/scenario_fields.hpp"

#include <charconv>
#include <system_error>

#include "common/quote_for_message.hpp"
#include "routing/algorithm.hpp"

namespace ibsdn {

std::string join(std::span<const std::string_view> names, std::string_view sep) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : std::string(sep)) + std::string(n);
  return out;
}

std::string join(const std::vector<std::string>& names, std::string_view sep) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : std::string(sep)) + n;
  return out;
}

std::string number_text(double v) {
  std::array<char, 32> buf{};
  const auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return ec == std::errc() ? std::string(buf.data(), ptr) : std::to_string(v);
}

void FieldReader::single(const YAML::Node& n, const std::string& key, std::string_view why) const {
  if (n.IsSequence()) r_.fail(n, key + ": takes one value; " + std::string(why));
}

void FieldReader::missing(const YAML::Node& map, std::string_view what,
                          std::string_view key) const {
  r_.fail(map, std::string(what) + ": missing key '" + std::string(key) + "'");
}

void FieldReader::each_field(
    const YAML::Node& map, const std::string& what, std::span<const std::string_view> known,
    const std::function<void(const std::string&, const YAML::Node&)>& on_key) const {
  if (map.IsSequence()) r_.fail(map, what + ": takes one map; sweep inside it");
  r_.for_each_key(map, what, known, on_key);
}

ReadOne<std::uint8_t> FieldReader::boolean() const {
  return [this](const YAML::Node& n, const std::string& key) {
    const bool b = r_.boolean(n, key);
    return std::pair<std::uint8_t, std::string>{b ? 1 : 0, b ? "true" : "false"};
  };
}

ReadOne<std::string> FieldReader::routing() const {
  return [this](const YAML::Node& n, const std::string& key) {
    std::string v = r_.string(n, key);
    std::vector<std::string> known = algorithm_names();
    known.emplace_back(kAdaptiveRouting);  // model flow only: the document checks it
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      r_.fail(n, key + ": unknown routing algorithm " + quote_for_message(v) +
                     " (known: " + join(known, ", ") + ")");
    }
    return std::pair<std::string, std::string>{v, v};
  };
}

}  // namespace ibsdn
