#include "routing/patterns/pattern_spec.hpp"

#include <charconv>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "routing/named_registry.hpp"

namespace ibsdn {
namespace {

// The options a pattern accepts; pattern_syntax.def combines them per pattern.
enum Option : unsigned {
  kBytes = 1u << 0,
  kShift = 1u << 1,     // k
  kDims3 = 1u << 2,     // dims with 3 extents
  kDims4 = 1u << 3,     // dims with 4 extents
  kPartners = 1u << 4,  // min, max
  kRange = 1u << 5,
  kFile = 1u << 6,
};

struct Entry {
  std::string_view name;
  unsigned options;
  std::string_view summary;
};

constexpr Entry kPatterns[] = {
#define IBSDN_PATTERN_SYNTAX(name, options, summary) {name, options, summary},
#include "routing/patterns/pattern_syntax.def"
#undef IBSDN_PATTERN_SYNTAX
};

// Option names as written in a spec, with the flag that admits each.
struct OptionName {
  std::string_view name;
  unsigned flags;
};
constexpr OptionName kOptionNames[] = {
    {"k", kShift},     {"dims", kDims3 | kDims4}, {"min", kPartners}, {"max", kPartners},
    {"range", kRange}, {"file", kFile},           {"bytes", kBytes},
};

const Entry& find_entry(std::string_view name) {
  return find_named(kPatterns, name, "pattern");
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

class SpecError {
 public:
  explicit SpecError(std::string_view pattern) : pattern_(pattern) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("pattern '" + pattern_ + "': " + what);
  }
  [[noreturn]] void bad_value(std::string_view option, std::string_view value,
                              const std::string& why) const {
    fail("option " + std::string(option) + ": '" + std::string(value) + "' " + why);
  }

 private:
  std::string pattern_;
};

template <typename T>
T parse_integer(std::string_view option, std::string_view value, const SpecError& err) {
  if constexpr (std::is_unsigned_v<T>) {
    if (!value.empty() && value.front() == '-') err.bad_value(option, value, "is negative");
  }
  T v{};
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ptr != value.data() + value.size() || ec == std::errc::invalid_argument) {
    err.bad_value(option, value, "is not an integer");
  }
  if (ec == std::errc::result_out_of_range) err.bad_value(option, value, "is out of range");
  return v;
}

std::uint64_t parse_bytes(std::string_view value, const SpecError& err) {
  std::string why;
  const std::optional<std::uint64_t> n = parse_byte_count(value, &why);
  if (!n) err.bad_value("bytes", value, why);
  return *n;
}

std::vector<std::uint32_t> parse_dims(std::string_view value, const SpecError& err) {
  std::string why;
  std::optional<std::vector<std::uint32_t>> dims = parse_extents(value, &why);
  if (!dims) err.fail("option dims: " + why);
  return std::move(*dims);
}

}  // namespace

PatternSpec PatternSpec::parse(std::string_view text) {
  const std::string s = trim(text);
  const std::size_t colon = s.find(':');
  PatternSpec spec;
  spec.name = trim(std::string_view(s).substr(0, colon));
  if (spec.name.empty()) throw std::invalid_argument("pattern: missing name in '" + s + "'");
  const Entry& entry = find_entry(spec.name);
  const SpecError err(spec.name);
  if (colon != std::string::npos) {
    std::vector<std::string> seen;
    std::string_view rest = std::string_view(s).substr(colon + 1);
    for (;;) {
      const std::size_t comma = rest.find(',');
      const std::string token = trim(rest.substr(0, comma));
      if (token.empty()) err.fail("empty option in '" + s + "'");
      const std::size_t eq = token.find('=');
      const std::string key = trim(std::string_view(token).substr(0, eq));
      const std::string value =
          eq == std::string::npos ? std::string() : trim(std::string_view(token).substr(eq + 1));
      const OptionName* known = nullptr;
      for (const OptionName& o : kOptionNames) {
        if (o.name == key) known = &o;
      }
      if (!known || (known->flags & entry.options) == 0) {
        std::string accepted;
        for (const std::string& o : pattern_options(spec.name)) {
          accepted += (accepted.empty() ? "" : ", ") + o;
        }
        err.fail("unknown option '" + key +
                 "' (accepted: " + (accepted.empty() ? "none" : accepted) + ")");
      }
      if (eq == std::string::npos || value.empty()) {
        err.fail("option " + key + " needs a value (" + key + "=...)");
      }
      for (const std::string& k : seen) {
        if (k == key) err.fail("option " + key + " given twice");
      }
      seen.push_back(key);
      if (key == "k") {
        spec.k = parse_integer<std::int64_t>(key, value, err);
      } else if (key == "dims") {
        spec.dims = parse_dims(value, err);
      } else if (key == "min") {
        spec.min_partners = parse_integer<std::uint32_t>(key, value, err);
      } else if (key == "max") {
        spec.max_partners = parse_integer<std::uint32_t>(key, value, err);
      } else if (key == "range") {
        spec.range = parse_integer<std::uint32_t>(key, value, err);
      } else if (key == "file") {
        spec.file = value;
      } else {
        spec.bytes = parse_bytes(value, err);
      }
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  spec.validate();
  return spec;
}

void PatternSpec::validate() const {
  const Entry& entry = find_entry(name);
  const SpecError err(name);
  const PatternSpec defaults;
  const auto accepts = [&](unsigned flags) { return (entry.options & flags) != 0; };
  const auto reject_unless = [&](unsigned flags, bool is_default, std::string_view option) {
    if (!accepts(flags) && !is_default) err.fail("does not take option " + std::string(option));
  };
  reject_unless(kBytes, bytes == defaults.bytes, "bytes");
  reject_unless(kShift, k == defaults.k, "k");
  reject_unless(kDims3 | kDims4, dims.empty(), "dims");
  reject_unless(kPartners, min_partners == defaults.min_partners, "min");
  reject_unless(kPartners, max_partners == defaults.max_partners, "max");
  reject_unless(kRange, range == defaults.range, "range");
  reject_unless(kFile, file.empty(), "file");

  if (bytes == 0) err.fail("option bytes: must be at least 1");
  if (accepts(kShift) && k == 0)
    err.fail("option k: must not be 0 (every rank would send to itself)");
  if (!dims.empty()) {
    const std::size_t want = accepts(kDims4) ? 4 : 3;
    if (dims.size() != want) {
      err.fail("option dims: '" + dims_to_string(dims) + "' has " + std::to_string(dims.size()) +
               " extents, expected " + std::to_string(want));
    }
    for (const std::uint32_t e : dims) {
      if (e == 0) err.fail("option dims: '" + dims_to_string(dims) + "' has an extent of 0");
    }
  }
  if (min_partners > max_partners) {
    err.fail("option min (" + std::to_string(min_partners) + ") exceeds option max (" +
             std::to_string(max_partners) + ")");
  }
  if (range == 0) err.fail("option range: must be at least 1");
  if (accepts(kFile) && file.empty()) err.fail("needs option file=PATH");
  if (file.find(',') != std::string::npos) err.fail("option file: the path cannot contain ','");
}

std::string PatternSpec::to_string() const {
  const PatternSpec defaults;
  std::vector<std::string> opts;
  if (k != defaults.k) opts.push_back("k=" + std::to_string(k));
  if (!dims.empty()) opts.push_back("dims=" + dims_to_string(dims));
  if (min_partners != defaults.min_partners) opts.push_back("min=" + std::to_string(min_partners));
  if (max_partners != defaults.max_partners) opts.push_back("max=" + std::to_string(max_partners));
  if (range != defaults.range) opts.push_back("range=" + std::to_string(range));
  if (!file.empty()) opts.push_back("file=" + file);
  if (bytes != defaults.bytes) opts.push_back("bytes=" + std::to_string(bytes));
  std::string out = name;
  for (std::size_t i = 0; i < opts.size(); ++i) out += (i == 0 ? ":" : ",") + opts[i];
  return out;
}

std::vector<std::string> pattern_names() {
  return names_of(kPatterns);
}

std::string_view pattern_summary(std::string_view name) {
  return find_entry(name).summary;
}

std::vector<std::string> pattern_options(std::string_view name) {
  const Entry& entry = find_entry(name);
  std::vector<std::string> out;
  for (const OptionName& o : kOptionNames) {
    if ((o.flags & entry.options) != 0) out.emplace_back(o.name);
  }
  return out;
}

std::optional<std::uint64_t> parse_byte_count(std::string_view value, std::string* why) {
  const auto failed = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  unsigned shift = 0;
  std::string_view digits = value;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
    if (shift != 0) digits.remove_suffix(1);
  }
  if (!digits.empty() && digits.front() == '-') return failed("is negative");
  std::uint64_t n = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ptr != digits.data() + digits.size() || ec == std::errc::invalid_argument) {
    return failed("is not an integer");
  }
  if (ec == std::errc::result_out_of_range ||
      n > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
    return failed("is out of range");
  }
  return n << shift;
}

std::optional<std::vector<std::uint32_t>> parse_extents(std::string_view value, std::string* why) {
  std::vector<std::uint32_t> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t x = value.find('x', pos);
    const std::string_view tok =
        value.substr(pos, x == std::string_view::npos ? std::string_view::npos : x - pos);
    const std::string what = "in dims '" + std::string(value) + "'";
    if (tok.empty() || tok.front() == '-') {
      if (why != nullptr) *why = "bad extent " + what;
      return std::nullopt;
    }
    std::uint32_t e = 0;
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), e);
    if (ec != std::errc() || ptr != tok.data() + tok.size()) {
      if (why != nullptr) *why = "'" + std::string(tok) + "' is not an extent " + what;
      return std::nullopt;
    }
    out.push_back(e);
    if (x == std::string_view::npos) break;
    pos = x + 1;
  }
  return out;
}

std::string dims_to_string(std::span<const std::uint32_t> extents) {
  std::string s;
  for (const std::uint32_t e : extents) s += (s.empty() ? "" : "x") + std::to_string(e);
  return s;
}

}  // namespace ibsdn
