#include "sim_backend/scenario/scenario_fields.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "common/quote_for_message.hpp"
#include "plugin/controller/config.hpp"
#include "routing/algorithm.hpp"
#include "routing/patterns/traffic_matrix.hpp"
#include "sim_backend/io/content_hash.hpp"

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

void FieldReader::exactly_one(
    const YAML::Node& map, const std::string& what, std::span<const std::string_view> known,
    std::span<const std::string_view> choices,
    const std::function<void(const std::string&, const YAML::Node&)>& on_key) {
  std::vector<std::string> chosen;
  each_field(map, what, known, [&](const std::string& key, const YAML::Node& v) {
    if (std::find(choices.begin(), choices.end(), key) != choices.end()) {
      chosen.push_back(key);
      if (chosen.size() > 1) {
        r_.fail(v, what + ": give exactly one of " + join(choices, ", ") + "; found " +
                       join(chosen, " and "));
      }
      canonical_[what] = key;
    }
    on_key(key, v);
  });
  if (chosen.empty()) r_.fail(map, what + ": give one of " + join(choices, ", "));
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
    known.emplace_back(kAutoAlgorithm);    // the controller's default, job by job
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      r_.fail(n, key + ": unknown routing algorithm " + quote_for_message(v) +
                     " (known: " + join(known, ", ") + ")");
    }
    return std::pair<std::string, std::string>{v, v};
  };
}

ScenarioFile FieldReader::file(const YAML::Node& at, const std::string& key, std::string written,
                               std::string* content) {
  ScenarioFile f;
  f.written = std::move(written);
  if (f.written.empty()) r_.fail(at, key + ": an empty path");
  if (f.written.find('\0') != std::string::npos) r_.fail(at, key + ": contains a NUL byte");
  std::error_code ec;
  std::filesystem::path p(f.written);
  if (p.is_relative()) p = base_dir_ / p;
  const std::filesystem::path abs = std::filesystem::absolute(p, ec);
  f.path = (ec ? p : abs).lexically_normal().string();
  const std::string why = key + ": cannot read " + quote_for_message(f.written, 256) +
                          " (resolved to " + quote_for_message(f.path, 256) + "): ";
  const auto status = std::filesystem::status(f.path, ec);
  if (ec) r_.fail(at, why + ec.message());
  if (!std::filesystem::is_regular_file(status)) r_.fail(at, why + "not a regular file");
  std::string digest;
  try {
    if (content != nullptr) {
      std::ifstream in(f.path, std::ios::binary);
      if (!in) throw std::runtime_error(std::strerror(errno));
      std::ostringstream text;
      text << in.rdbuf();
      if (in.bad()) throw std::runtime_error(std::string("read failed: ") + std::strerror(errno));
      *content = std::move(text).str();
      digest = sha256_hex(*content);
    } else {
      digest = file_sha256_hex(f.path);
    }
  } catch (const std::runtime_error& e) {
    r_.fail(at, why + e.what());
  }
  files_[f.written] = digest;
  return f;
}

ReadOne<ScenarioFile> FieldReader::plain_file() {
  return [this](const YAML::Node& n, const std::string& key) {
    ScenarioFile f = file(n, key, r_.string(n, key), nullptr);
    return std::pair<ScenarioFile, std::string>{f, f.written};
  };
}

ReadOne<ScenarioPattern> FieldReader::pattern() {
  return [this](const YAML::Node& n, const std::string& key) {
    const std::string text = r_.string(n, key);
    ScenarioPattern p;
    if (text == "dynamic") {
      p.dynamic = true;
      p.text = text;
      return std::pair<ScenarioPattern, std::string>{p, p.text};
    }
    try {
      p.spec = PatternSpec::parse(text);
      p.spec.validate();
    } catch (const std::invalid_argument& e) {
      r_.fail(n, key + ": " + e.what() + " (or dynamic)");
    }
    p.text = p.spec.to_string();
    if (p.spec.name == "matrix") {
      // Relative to the scenario's folder like its other files; the text keeps it as written.
      const ScenarioFile f = file(n, key + ": matrix", p.spec.file, nullptr);
      try {
        (void)read_traffic_matrix(f.path, std::nullopt);
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
      p.spec.file = f.path;
    }
    return std::pair<ScenarioPattern, std::string>{p, p.text};
  };
}

ReadOne<ScenarioApplication> FieldReader::application() {
  return [this](const YAML::Node& n, const std::string& key) {
    const std::string text = r_.string(n, key);
    ScenarioApplication a;
    try {
      a.spec = AppSpec::parse(text);
      a.spec.validate();
    } catch (const std::invalid_argument& e) {
      r_.fail(n, key + ": " + e.what());
    }
    a.text = a.spec.to_string();
    if (a.spec.kind() == AppKind::kPattern && a.spec.pattern.name == "matrix") {
      const ScenarioFile f = file(n, key + ": matrix", a.spec.pattern.file, nullptr);
      try {
        (void)read_traffic_matrix(f.path, std::nullopt);
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
      a.spec.pattern.file = f.path;
    }
    return std::pair<ScenarioApplication, std::string>{a, a.text};
  };
}

}  // namespace ibsdn
