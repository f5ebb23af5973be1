#include "sim_backend/apps/app_spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "sim_backend/apps/app_registry.hpp"

namespace ibsdn {
namespace {

using app_registry::kBytes;
using app_registry::kCompute;
using app_registry::kDims;
using app_registry::kGap;
using app_registry::kGpu;
using app_registry::kIter;
using app_registry::kRounds;

constexpr unsigned kEveryApp = kBytes | kIter | kCompute | kGpu;

// The app-level option names, with the flag that admits each, in the order to_string() and
// app_options() list them.
struct OptionName {
  std::string_view name;
  unsigned flag;
};
constexpr OptionName kAppOptions[] = {
    {"dims", kDims}, {"bytes", kBytes}, {"iter", kIter},     {"compute", kCompute},
    {"gpu", kGpu},   {"gap", kGap},     {"rounds", kRounds},
};

// What an app name resolves to: a registered app, or a pattern that is not one.
struct Resolved {
  const app_registry::Entry* entry = nullptr;  // nullptr: a pattern source
  unsigned options = 0;
};

Resolved resolve(std::string_view name) {
  if (const app_registry::Entry* e = app_registry::find(name)) return {e, e->options | kEveryApp};
  for (const std::string& p : pattern_names()) {
    if (p == name) return {nullptr, kIter | kCompute | kGpu};
  }
  std::string known;
  for (const std::string& n : app_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown app '" + std::string(name) + "' (known: " + known + ")");
}

class AppError {
 public:
  explicit AppError(std::string_view app) : app_(app) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("app '" + app_ + "': " + what);
  }
  [[noreturn]] void bad_value(std::string_view option, std::string_view value,
                              const std::string& why) const {
    fail("option " + std::string(option) + ": '" + std::string(value) + "' " + why);
  }

 private:
  std::string app_;
};

std::uint32_t parse_count(std::string_view option, std::string_view value, const AppError& err) {
  if (!value.empty() && value.front() == '-') err.bad_value(option, value, "is negative");
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec == std::errc::result_out_of_range) err.bad_value(option, value, "is out of range");
  if (ec != std::errc() || ptr != value.data() + value.size()) {
    err.bad_value(option, value, "is not an integer");
  }
  return v;
}

// A plain decimal number: no sign, no inf / nan, no hexadecimal (from_chars' general format).
std::optional<double> parse_plain_number(std::string_view text) {
  if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// `number` x 10^shift, rounded once: the unit goes into the decimal exponent before conversion,
// so "16.8ms" is exactly the double nearest 0.0168 (16.8 * 1e-3 in doubles is not always).
// `number` is digits with at most one '.', optionally followed by e or E and a signed integer.
std::optional<double> parse_scaled(std::string_view number, int shift) {
  const std::size_t e = number.find_first_of("eE");
  const std::string_view mantissa = number.substr(0, e);
  const bool digits =
      std::any_of(mantissa.begin(), mantissa.end(), [](char c) { return c >= '0' && c <= '9'; });
  const bool only_digits_and_point =
      std::all_of(mantissa.begin(), mantissa.end(),
                  [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
      std::count(mantissa.begin(), mantissa.end(), '.') <= 1;
  if (!digits || !only_digits_and_point) return std::nullopt;
  long exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view exp = number.substr(e + 1);
    if (!exp.empty() && exp.front() == '+') exp.remove_prefix(1);
    if (exp.empty() || exp.front() == '+') return std::nullopt;
    const auto [ptr, ec] = std::from_chars(exp.data(), exp.data() + exp.size(), exponent);
    if (ec != std::errc() || ptr != exp.data() + exp.size()) return std::nullopt;
    if (exponent < -100'000 || exponent > 100'000) return std::nullopt;
  }
  const std::string scaled = std::string(mantissa) + "e" + std::to_string(exponent + shift);
  return parse_plain_number(scaled);
}

double parse_speedup(std::string_view value, const AppError& err) {
  if (!value.empty() && value.front() == '-') err.bad_value("gpu", value, "is negative");
  const std::optional<double> v = parse_plain_number(value);
  if (!v) err.bad_value("gpu", value, "is not a number");
  return *v;
}

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string number_text(double v) {
  // Shortest round-trip form: to_string(parse(x)) must give x back.
  char buf[32];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::to_string(v);
}

}  // namespace

std::optional<double> parse_duration(std::string_view text, std::string* why) {
  const auto failed = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  if (text == "0") return 0.0;
  if (!text.empty() && text.front() == '-') return failed("is negative");
  struct Unit {
    std::string_view suffix;
    int exponent;
  };
  // Longest suffixes first: "ms" also ends in "s".
  constexpr Unit kUnits[] = {{"ms", -3}, {"us", -6}, {"ns", -9}, {"s", 0}};
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      const std::optional<double> v =
          parse_scaled(text.substr(0, text.size() - u.suffix.size()), u.exponent);
      if (!v) return failed("is not a number");
      return *v;
    }
  }
  if (parse_plain_number(text)) return failed("needs a unit (s, ms, us, ns)");
  return failed("is not a number");
}

std::string duration_to_string(double seconds) {
  if (seconds == 0) return "0";
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  // The first unit giving a count of at least 1 that reads back exactly, in 15 significant
  // digits when they suffice (0.0168 is "16.8ms", not "16.799999999999997ms").
  constexpr Unit kUnits[] = {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  for (const Unit& u : kUnits) {
    const double count = seconds / u.seconds;
    if (count < 1) continue;
    for (const int digits : {15, 17}) {
      char buf[40];
      const auto [ptr, ec] =
          std::to_chars(buf, buf + sizeof buf, count, std::chars_format::general, digits);
      if (ec != std::errc()) continue;
      std::string text = std::string(buf, ptr) + std::string(u.suffix);
      if (parse_duration(text, nullptr) == seconds) return text;
    }
  }
  return number_text(seconds) + "s";
}

AppKind AppSpec::kind() const {
  const app_registry::Entry* e = app_registry::find(name);
  return e != nullptr ? e->kind : AppKind::kPattern;
}

AppSpec app_defaults(std::string_view name) {
  const Resolved r = resolve(name);
  AppSpec spec;
  spec.name = std::string(name);
  if (r.entry != nullptr) {
    spec.bytes = r.entry->bytes;
    spec.compute_s = r.entry->compute_s;
    spec.gpu_speedup = r.entry->gpu_speedup;
  } else {
    spec.pattern.name = spec.name;
  }
  return spec;
}

AppSpec AppSpec::parse(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  if (name.empty()) throw std::invalid_argument("app: missing name in '" + std::string(text) + "'");
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
    throw std::invalid_argument("app '" + std::string(name) + "': '" + std::string(text) +
                                "' contains white space");
  }
  AppSpec spec = app_defaults(name);
  const Resolved r = resolve(name);
  const AppError err(name);
  std::string pattern_text(name);
  if (colon != std::string_view::npos) {
    std::vector<std::string_view> seen;
    std::string_view rest = text.substr(colon + 1);
    std::size_t pattern_option_count = 0;
    for (;;) {
      const std::size_t comma = rest.find(',');
      const std::string_view token = rest.substr(0, comma);
      if (token.empty()) err.fail("empty option in '" + std::string(text) + "'");
      const std::size_t eq = token.find('=');
      const std::string_view key = token.substr(0, eq);
      const std::string_view value =
          eq == std::string_view::npos ? std::string_view() : token.substr(eq + 1);
      const OptionName* app_option = nullptr;
      for (const OptionName& o : kAppOptions) {
        if (o.name == key && (o.flag & r.options) != 0) app_option = &o;
      }
      std::vector<std::string> pattern_accepts;
      if (r.entry == nullptr) pattern_accepts = pattern_options(name);
      const bool pattern_option =
          app_option == nullptr &&
          std::find(pattern_accepts.begin(), pattern_accepts.end(), key) != pattern_accepts.end();
      if (app_option == nullptr && !pattern_option) {
        err.fail("unknown option '" + std::string(key) + "' (accepted: " + list(app_options(name)) +
                 ")");
      }
      if (eq == std::string_view::npos || value.empty()) {
        err.fail("option " + std::string(key) + " needs a value (" + std::string(key) + "=...)");
      }
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
        err.fail("option " + std::string(key) + " given twice");
      }
      seen.push_back(key);
      if (pattern_option) {
        pattern_text += (pattern_option_count++ == 0 ? ":" : ",") + std::string(token);
      } else if (key == "dims") {
        std::string why;
        std::optional<std::vector<std::uint32_t>> dims = parse_extents(value, &why);
        if (!dims) err.fail("option dims: " + why);
        spec.dims = std::move(*dims);
      } else if (key == "bytes") {
        std::string why;
        const std::optional<std::uint64_t> n = parse_byte_count(value, &why);
        if (!n) err.bad_value(key, value, why);
        spec.bytes = *n;
      } else if (key == "iter") {
        spec.iterations = parse_count(key, value, err);
      } else if (key == "rounds") {
        spec.rounds = parse_count(key, value, err);
      } else if (key == "gpu") {
        spec.gpu_speedup = parse_speedup(value, err);
      } else {
        std::string why;
        const std::optional<double> t = parse_duration(value, &why);
        if (!t) err.bad_value(key, value, why);
        (key == "compute" ? spec.compute_s : spec.gap_s) = *t;
      }
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  // The pattern's own options go through the pattern parser: its messages name the pattern.
  if (r.entry == nullptr) spec.pattern = PatternSpec::parse(pattern_text);
  spec.validate();
  return spec;
}

void AppSpec::validate() const {
  const Resolved r = resolve(name);
  const AppError err(name);
  const AppSpec defaults = app_defaults(name);
  const auto reject_unless = [&](unsigned flag, bool is_default, std::string_view option) {
    if ((r.options & flag) == 0 && !is_default) {
      err.fail("does not take option " + std::string(option));
    }
  };
  // A pattern source keeps its size in its pattern (whose own validate() checks it).
  reject_unless(r.entry != nullptr ? unsigned{kBytes} : 0u, bytes == defaults.bytes, "bytes");
  reject_unless(kDims, dims.empty(), "dims");
  reject_unless(kGap, gap_s == defaults.gap_s, "gap");
  reject_unless(kRounds, rounds == defaults.rounds, "rounds");
  if (r.entry != nullptr && !(pattern == defaults.pattern)) {
    err.fail("takes no pattern (it is an app of its own)");
  }

  const auto in_range = [&](std::string_view option, double v, double lo, double hi,
                            const std::string& shown) {
    if (!(v >= lo && v <= hi)) {
      err.fail("option " + std::string(option) + ": " + shown + " is out of range " +
               number_text(lo) + ".." + number_text(hi));
    }
  };
  if (bytes == 0) err.fail("option bytes: must be at least 1");
  if (bytes > kMaxAppMessageBytes) {
    err.fail("option bytes: " + std::to_string(bytes) + " exceeds the limit of " +
             std::to_string(kMaxAppMessageBytes) + " (1 TiB) per message");
  }
  if (iterations < 1 || iterations > kMaxAppIterations) {
    err.fail("option iter: " + std::to_string(iterations) + " is out of range 1.." +
             std::to_string(kMaxAppIterations));
  }
  in_range("compute", compute_s, 0, kMaxAppComputeSeconds, number_text(compute_s) + " s");
  in_range("gap", gap_s, 0, kMaxAppComputeSeconds, number_text(gap_s) + " s");
  if (!(gpu_speedup > 0)) err.fail("option gpu: must be above 0");
  in_range("gpu", gpu_speedup, 0, kMaxGpuSpeedup, number_text(gpu_speedup));
  if (rounds < 1 || rounds > kMaxAppRounds) {
    err.fail("option rounds: " + std::to_string(rounds) + " is out of range 1.." +
             std::to_string(kMaxAppRounds));
  }
  if (!dims.empty()) {
    if (dims.size() != r.entry->dims) {
      err.fail("option dims: '" + dims_to_string(dims) + "' has " + std::to_string(dims.size()) +
               " extents, expected " + std::to_string(r.entry->dims));
    }
    for (const std::uint32_t e : dims) {
      if (e == 0) err.fail("option dims: '" + dims_to_string(dims) + "' has an extent of 0");
    }
  }
  if (r.entry == nullptr) {
    if (pattern.name != name) {
      err.fail("its pattern is named '" + pattern.name + "', not '" + name + "'");
    }
    pattern.validate();
  }
}

std::string AppSpec::to_string() const {
  const AppSpec defaults = app_defaults(name);
  std::string out = kind() == AppKind::kPattern ? pattern.to_string() : name;
  std::vector<std::string> opts;
  if (!dims.empty()) opts.push_back("dims=" + dims_to_string(dims));
  if (bytes != defaults.bytes) opts.push_back("bytes=" + std::to_string(bytes));
  if (iterations != defaults.iterations) opts.push_back("iter=" + std::to_string(iterations));
  if (compute_s != defaults.compute_s) opts.push_back("compute=" + duration_to_string(compute_s));
  if (gpu_speedup != defaults.gpu_speedup) opts.push_back("gpu=" + number_text(gpu_speedup));
  if (gap_s != defaults.gap_s) opts.push_back("gap=" + duration_to_string(gap_s));
  if (rounds != defaults.rounds) opts.push_back("rounds=" + std::to_string(rounds));
  const bool has_colon = out.find(':') != std::string::npos;
  for (std::size_t i = 0; i < opts.size(); ++i) out += (i == 0 && !has_colon ? ":" : ",") + opts[i];
  return out;
}

std::vector<std::string> app_names() {
  std::vector<std::string> out;
  for (const app_registry::Entry& e : app_registry::entries()) out.emplace_back(e.name);
  for (const std::string& p : pattern_names()) {
    if (app_registry::find(p) == nullptr) out.push_back(p);
  }
  return out;
}

std::string summary_of_app(std::string_view name) {
  const Resolved r = resolve(name);
  if (r.entry != nullptr) return std::string(r.entry->summary);
  return "the pattern's flows, one phase: " + std::string(pattern_summary(name));
}

std::vector<std::string> app_options(std::string_view name) {
  const Resolved r = resolve(name);
  std::vector<std::string> out;
  if (r.entry == nullptr) out = pattern_options(name);
  for (const OptionName& o : kAppOptions) {
    if ((o.flag & r.options) != 0) out.emplace_back(o.name);
  }
  return out;
}

}  // namespace ibsdn
