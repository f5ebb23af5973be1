#include "common/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "common/quote_for_message.hpp"

namespace ibsdn {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::size_t one_based(int zero_based) {
  return zero_based >= 0 ? static_cast<std::size_t>(zero_based) + 1 : 0;
}

// Where each document of a stream starts and where its first node is, from the parser's events.
// YAML::LoadAll would count the documents, but in yaml-cpp 0.7 (Debian 12) it loops forever,
// allocating, on some malformed input such as a lone ',' (yaml-cpp issue 1040, fixed upstream
// after 0.8 by pull request 1319): the parser reports a document without consuming the token it
// cannot place. Asking for two documents at most, and noticing one that starts where the previous
// one did, bounds the work.
class DocumentStarts final : public YAML::EventHandler {
 public:
  struct Start {
    YAML::Mark document;
    YAML::Mark first_node = YAML::Mark::null_mark();
  };
  std::vector<Start> starts;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(Start{mark}); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (!starts.empty() && starts.back().first_node.is_null()) starts.back().first_node = mark;
  }
};

}  // namespace

std::size_t line_of(const YAML::Node& n) {
  return one_based(n.Mark().line);
}

std::size_t column_of(const YAML::Node& n) {
  return one_based(n.Mark().column);
}

void add_dotted_keys(std::vector<std::string>& out, std::string_view map,
                     std::span<const std::string_view> keys) {
  for (std::string_view k : keys) out.push_back(std::string(map) + "." + std::string(k));
}

YAML::Node load_single_document(std::string_view text, std::string_view source) {
  const std::string input(text);
  try {
    std::istringstream in(input);
    YAML::Parser parser(in);
    DocumentStarts events;
    if (!parser.HandleNextDocument(events)) return YAML::Node();
    if (parser.HandleNextDocument(events)) {
      const DocumentStarts::Start& second = events.starts.at(1);
      if (second.document.pos <= events.starts[0].document.pos) {
        throw ConfigError(source, one_based(second.document.line),
                          one_based(second.document.column),
                          "YAML syntax: text the parser cannot place (a stray ',' or similar)");
      }
      const YAML::Mark at = second.first_node.is_null() ? second.document : second.first_node;
      throw ConfigError(source, one_based(at.line), one_based(at.column),
                        "only one YAML document is allowed");
    }
    return YAML::Load(input);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source, one_based(e.mark.line), one_based(e.mark.column),
                      "YAML syntax: " + e.msg);
  }
}

void YamlReader::fail(const YAML::Node& at, const std::string& what) const {
  throw ConfigError(source_, line_of(at), column_of(at), what);
}

void YamlReader::fail_at(std::size_t line, std::size_t column, const std::string& what) const {
  throw ConfigError(source_, line, column, what);
}

void YamlReader::require_value(const YAML::Node& n, std::string_view key) const {
  if (n.IsNull()) fail(n, std::string(key) + ": no value (" + std::string(no_value_hint_) + ")");
}

std::string YamlReader::string(const YAML::Node& n, std::string_view key) const {
  require_value(n, key);
  if (!n.IsScalar()) fail(n, std::string(key) + ": expected a single value, not a list or map");
  return n.Scalar();
}

std::uint64_t YamlReader::integer(const YAML::Node& n, std::string_view key, std::uint64_t min,
                                  std::uint64_t max) const {
  const std::string text = string(n, key);
  // A quoted number is a string in YAML: refuse it rather than guess what was meant.
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (n.Tag() != "?") {
    fail(n, std::string(key) + ": expected a decimal integer, got the quoted string " +
                quote_for_message(text) + " (remove the quotes)");
  }
  if (!digits_only || ec == std::errc::invalid_argument || ptr != text.data() + text.size()) {
    fail(n, std::string(key) + ": expected a decimal integer, got " + quote_for_message(text));
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    fail(n, std::string(key) + ": " + text + " is out of range " + std::to_string(min) + ".." +
                std::to_string(max));
  }
  return v;
}

double YamlReader::number(const YAML::Node& n, std::string_view key) const {
  const std::string text = string(n, key);
  if (n.Tag() != "?") {
    fail(n, std::string(key) + ": expected a number, got the quoted string " +
                quote_for_message(text) + " (remove the quotes)");
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // from_chars also reads "inf" and "nan": a setting is a finite measure.
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
    fail(n,
         std::string(key) + ": expected a finite decimal number, got " + quote_for_message(text));
  }
  return v;
}

bool YamlReader::boolean(const YAML::Node& n, std::string_view key) const {
  const std::string text = string(n, key);
  if (n.Tag() == "?" && (text == "true" || text == "false")) return text == "true";
  fail(n, std::string(key) + ": expected true or false, got " +
              (n.Tag() == "?" ? quote_for_message(text)
                              : "the quoted string " + quote_for_message(text)));
}

std::string YamlReader::absolute_path(const YAML::Node& n, std::string_view key) const {
  std::string p = string(n, key);
  if (p.empty() || p.front() != '/') {
    fail(n, std::string(key) + ": " + quote_for_message(p) + " is not an absolute path");
  }
  if (p.find('\0') != std::string::npos) fail(n, std::string(key) + ": contains a NUL byte");
  return p;
}

void YamlReader::for_each_key(
    const YAML::Node& map, std::string_view what, std::span<const std::string_view> known,
    const std::function<void(const std::string&, const YAML::Node&)>& on_key) const {
  if (!map.IsMap()) fail(map, std::string(what) + ": expected a map of key: value");
  std::set<std::string> seen;
  for (const auto& kv : map) {
    const YAML::Node& k = kv.first;
    if (!k.IsScalar()) fail(k, std::string(what) + ": keys must be plain names");
    const std::string& name = k.Scalar();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      fail(k, unknown_key_message(what, name, known));
    }
    if (!seen.insert(name).second) fail(k, std::string(what) + ": duplicate key '" + name + "'");
    // A key without a value is reported at the key: the null's own mark is the next line.
    if (kv.second.IsNull()) {
      const std::string full = what == kTopLevel ? name : std::string(what) + "." + name;
      fail(k, full + ": no value (" + std::string(no_value_hint_) + ")");
    }
    on_key(name, kv.second);
  }
}

std::string YamlReader::unknown_key_message(std::string_view what, const std::string& name,
                                            std::span<const std::string_view> known) {
  std::string msg = std::string(what) + ": unknown key " + quote_for_message(name);
  for (std::string_view k : known) {
    if (edit_distance(name, k) <= 2) return msg + " (did you mean '" + std::string(k) + "'?)";
  }
  msg += " (known:";
  for (std::string_view k : known) msg += " " + std::string(k);
  return msg + ")";
}

}  // namespace ibsdn
