#include "sim_backend/workload/swf.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <stdexcept>
#include <system_error>
#include <unordered_map>

#include "common/quote_for_message.hpp"

namespace ibsdn {
namespace {

// Larger values would lose integer precision in a double (2^53 ~ 9.0e15) once start and end times
// are summed; no trace field comes near (1e15 s is 30 million years).
constexpr double kMaxValue = 1e15;

struct FieldInfo {
  const char* name;
  bool decimal;  // may carry a fraction (time and memory fields)
};

constexpr std::array<FieldInfo, kSwfFields> kFields{{
    {"job number", false},
    {"submit time", true},
    {"wait time", true},
    {"run time", true},
    {"allocated processors", false},
    {"average CPU time", true},
    {"used memory", true},
    {"requested processors", false},
    {"requested time", true},
    {"requested memory", true},
    {"status", false},
    {"user id", false},
    {"group id", false},
    {"executable", false},
    {"queue", false},
    {"partition", false},
    {"preceding job", false},
    {"think time", true},
}};

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
/// Bytes a header value may not hold (a tab may).
bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}
bool is_key_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

/// "-"? digits ("." digits*)? | "-"? "." digits: what a field may look like; `decimal` allows
/// the fraction. Rejects what std::from_chars would also take ("inf", "nan", exponents, "+").
bool number_syntax(std::string_view t, bool decimal) {
  if (!t.empty() && t.front() == '-') t.remove_prefix(1);
  std::size_t digits = 0;
  std::size_t i = 0;
  while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  if (i < t.size() && t[i] == '.' && decimal) {
    ++i;
    while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  }
  return i == t.size() && digits > 0;
}

/// The key of a `; Key: value` comment (after the ';' and blanks), or empty. The colon ends the
/// comment or is followed by a blank: a continued URL ("http://...") is not a key.
std::string_view header_key(std::string_view body) {
  std::size_t i = 0;
  while (i < body.size() && is_key_char(body[i])) ++i;
  if (i == 0 || i == body.size() || body[i] != ':' || is_digit(body[0])) return {};
  if (i + 1 < body.size() && !is_blank(body[i + 1])) return {};
  return body.substr(0, i);
}

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) == (y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
  });
}

class SwfParser {
 public:
  SwfParser(std::string_view source, const SwfLimits& limits) : source_(source), limits_(limits) {}

  [[noreturn]] void fail(std::size_t line, std::string_view what) const {
    throw SwfError(source_, line, what);
  }
  [[noreturn]] void fail_too_long(std::size_t line) const {
    fail(line, "line longer than " + std::to_string(limits_.max_line_length) +
                   " bytes (the limit of a trace line)");
  }

  void line(std::string_view text, std::size_t number) {
    line_ = number;
    if (text.size() > limits_.max_line_length) fail_too_long(number);
    const std::string_view body = trim(text);
    if (body.empty()) return;
    if (body.front() == ';') return comment(text.substr(text.find(';') + 1));
    job(body);
  }

  SwfTrace finish() { return std::move(trace_); }

 private:
  [[noreturn]] void fail(std::string_view what) const { fail(line_, what); }

  void comment(std::string_view after_semicolon) {
    if (!trace_.jobs.empty()) return;  // comments among the jobs are not the header
    for (const char c : after_semicolon) {
      if (is_control(c)) fail("control character in a header comment");
    }
    const std::string_view body = trim(after_semicolon);
    const std::string_view key = header_key(body);
    if (!key.empty()) {
      header_field(key, trim(body.substr(key.size() + 1)));
      continuing_ = true;
      return;
    }
    // An indented comment right after a field continues its value (Note, Information).
    const bool indented = !after_semicolon.empty() && is_blank(after_semicolon.front());
    if (continuing_ && indented && !body.empty()) {
      trace_.header.fields.back().second += "\n" + std::string(body);
    } else {
      continuing_ = false;
    }
  }

  void header_field(std::string_view key, std::string_view value) {
    SwfHeader& h = trace_.header;
    if (key == "MaxNodes") typed_field(h.max_nodes, key, value, 1);
    if (key == "MaxProcs") typed_field(h.max_procs, key, value, 1);
    if (key == "UnixStartTime") typed_field(h.unix_start_time, key, value, 0);
    h.fields.emplace_back(std::string(key), std::string(value));
    key_lines_.push_back(line_);
  }

  void typed_field(std::optional<std::int64_t>& out, std::string_view key, std::string_view value,
                   std::int64_t min) {
    const auto& fields = trace_.header.fields;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].first == key) {
        fail("header " + std::string(key) + " given twice (first at line " +
             std::to_string(key_lines_[i]) + ")");
      }
    }
    if (iequals(value, "UNKNOWN") || value == "-1") return;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (!number_syntax(value, false) || ec != std::errc{} || ptr != value.data() + value.size()) {
      fail("header " + std::string(key) + ": " + quote_for_message(value) +
           " is not an integer (nor UNKNOWN)");
    }
    if (v < min) {
      fail("header " + std::string(key) + ": " + std::to_string(v) + " is below " +
           std::to_string(min));
    }
    out = v;
  }

  void job(std::string_view body) {
    std::array<std::string_view, kSwfFields> tok{};
    const std::size_t count = split_fields(body, tok);
    if (count != kSwfFields) {
      fail("expected " + std::to_string(kSwfFields) + " fields, found " + std::to_string(count));
    }
    if (trace_.jobs.size() >= limits_.max_jobs) {
      fail("more than " + std::to_string(limits_.max_jobs) + " jobs (the limit of a trace)");
    }
    std::array<double, kSwfFields> v{};
    for (std::size_t f = 0; f < kSwfFields; ++f) v[f] = field(tok[f], f);

    SwfJob j;
    j.line = line_;
    if (v[0] < 1) fail("field 1 (job number): " + std::string(tok[0]) + " is not >= 1");
    j.id = JobId(static_cast<std::uint64_t>(v[0]));
    j.submit_s = v[1];
    j.wait_s = v[2];
    j.run_s = v[3];
    j.allocated_procs = static_cast<std::int64_t>(v[4]);
    j.avg_cpu_s = v[5];
    j.used_memory_kb = v[6];
    j.requested_procs = static_cast<std::int64_t>(v[7]);
    j.requested_time_s = v[8];
    j.requested_memory_kb = v[9];
    if (v[10] > static_cast<double>(SwfStatus::kCancelled)) {
      fail("field 11 (status): " + std::string(tok[10]) + " is not a status (-1, 0-5)");
    }
    j.status = static_cast<SwfStatus>(static_cast<int>(v[10]));
    j.user = static_cast<std::int64_t>(v[11]);
    j.group = static_cast<std::int64_t>(v[12]);
    j.executable = static_cast<std::int64_t>(v[13]);
    j.queue = static_cast<std::int64_t>(v[14]);
    j.partition = static_cast<std::int64_t>(v[15]);
    j.preceding_job = static_cast<std::int64_t>(v[16]);
    j.think_time_s = v[17];

    const auto [it, fresh] = first_line_.emplace(j.id.value(), line_);
    if (!fresh) {
      fail("duplicate job number " + std::to_string(j.id.value()) + " (first at line " +
           std::to_string(it->second) + ")");
    }
    if (j.submit_s != kSwfUnknown) {
      if (latest_submit_line_ != 0 && j.submit_s < latest_submit_ - limits_.submit_tolerance_s) {
        fail("submit time " + std::string(tok[1]) + " goes back before line " +
             std::to_string(latest_submit_line_) + "'s " + number_text(latest_submit_) +
             " (jobs are sorted by submit time; tolerance " +
             number_text(limits_.submit_tolerance_s) + " s)");
      }
      if (latest_submit_line_ == 0 || j.submit_s > latest_submit_) {
        latest_submit_ = j.submit_s;
        latest_submit_line_ = line_;
      }
    }
    trace_.jobs.push_back(j);
  }

  /// Field `f` (0-based) as a number: -1 or a value in [0, kMaxValue], integral unless the field
  /// is a decimal one. Integers are exact in a double below kMaxValue.
  double field(std::string_view t, std::size_t f) const {
    const FieldInfo& info = kFields[f];
    const std::string where =
        "field " + std::to_string(f + 1) + " (" + info.name + "): " + quote_for_message(t) + " ";
    if (!number_syntax(t, info.decimal)) {
      const bool fraction = !info.decimal && number_syntax(t, true);
      fail(where + (fraction ? "is not an integer" : "is not a number"));
    }
    double v = 0;
    if (info.decimal) {
      const auto [ptr, ec] =
          std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::fixed);
      if (ec != std::errc{} || ptr != t.data() + t.size()) fail(where + "is out of range");
    } else {
      std::int64_t i = 0;
      const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
      if (ec != std::errc{} || ptr != t.data() + t.size()) fail(where + "is out of range");
      v = static_cast<double>(i);
    }
    if (v < 0 && v != kSwfUnknown) fail(where + "is negative (only -1, unknown, may be)");
    if (v > kMaxValue) fail(where + "is above " + number_text(kMaxValue));
    return v;
  }

  static std::string number_text(double v) {
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed);
    return std::string(buf.data(), r.ptr);
  }

  std::string source_;
  SwfLimits limits_;
  SwfTrace trace_;
  std::size_t line_ = 0;
  bool continuing_ = false;             // the last comment line was a field or its continuation
  std::vector<std::size_t> key_lines_;  // header field -> its line
  std::unordered_map<std::uint64_t, std::size_t> first_line_;  // job number -> line
  double latest_submit_ = 0;
  std::size_t latest_submit_line_ = 0;  // 0: no known submit time yet
};

}  // namespace

bool SwfJob::same_fields(const SwfJob& o) const {
  return id == o.id && submit_s == o.submit_s && wait_s == o.wait_s && run_s == o.run_s &&
         allocated_procs == o.allocated_procs && avg_cpu_s == o.avg_cpu_s &&
         used_memory_kb == o.used_memory_kb && requested_procs == o.requested_procs &&
         requested_time_s == o.requested_time_s && requested_memory_kb == o.requested_memory_kb &&
         status == o.status && user == o.user && group == o.group && executable == o.executable &&
         queue == o.queue && partition == o.partition && preceding_job == o.preceding_job &&
         think_time_s == o.think_time_s;
}

const std::string* SwfHeader::find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string SwfHeader::all(std::string_view key) const {
  std::string out;
  for (const auto& [k, v] : fields) {
    if (k == key) out += (out.empty() ? "" : "\n") + v;
  }
  return out;
}

SwfTrace parse_swf(std::string_view text, std::string_view source, const SwfLimits& limits) {
  SwfParser p(source, limits);
  TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) p.line(line, lines.number());
  return p.finish();
}

SwfTrace read_swf(std::istream& in, std::string_view source, const SwfLimits& limits) {
  SwfParser p(source, limits);
  // Room for the longest allowed line, a '\r' before the '\n' and getline's terminating NUL: a
  // line that fills the buffer without reaching its '\n' is too long, and is never read whole.
  std::vector<char> buf(limits.max_line_length + 3);
  const auto room = static_cast<std::streamsize>(buf.size());
  for (std::size_t number = 1;; ++number) {
    in.getline(buf.data(), room);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw std::runtime_error(std::string(source) + ": read error");
    if (in.fail()) {
      if (got == 0 && in.eof()) break;  // end of input
      p.fail_too_long(number);
    }
    // gcount counts the '\n' when getline consumed one; not at the end of an unterminated file.
    std::string_view line(buf.data(), in.eof() ? got : got - 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    p.line(line, number);
    if (in.eof()) break;
  }
  return p.finish();
}

SwfTrace read_swf_file(const std::string& path, const SwfLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot open trace '" + path +
                             "': " + std::generic_category().message(errno));
  }
  return read_swf(in, path, limits);
}

// ---- writing ------------------------------------------------------------------------------

namespace {

std::string value_text(double v) {
  if (std::isnan(v) || std::isinf(v) || (v < 0 && v != kSwfUnknown) || v > kMaxValue) {
    throw std::invalid_argument("SWF cannot hold the value " + std::to_string(v));
  }
  std::array<char, 64> buf{};
  // Shortest round-trip form in fixed notation: integral values print without a fraction.
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed);
  return std::string(buf.data(), r.ptr);
}

std::string value_text(std::int64_t v) {
  if (v < 0 && v != kSwfUnknown) {
    throw std::invalid_argument("SWF cannot hold the value " + std::to_string(v));
  }
  return std::to_string(v);
}

std::array<std::string, kSwfFields> job_fields(const SwfJob& j) {
  if (j.id.value() < 1 || static_cast<double>(j.id.value()) > kMaxValue) {
    throw std::invalid_argument("SWF cannot hold job number " + std::to_string(j.id.value()));
  }
  return {std::to_string(j.id.value()),
          value_text(j.submit_s),
          value_text(j.wait_s),
          value_text(j.run_s),
          value_text(j.allocated_procs),
          value_text(j.avg_cpu_s),
          value_text(j.used_memory_kb),
          value_text(j.requested_procs),
          value_text(j.requested_time_s),
          value_text(j.requested_memory_kb),
          std::to_string(static_cast<int>(j.status)),
          value_text(j.user),
          value_text(j.group),
          value_text(j.executable),
          value_text(j.queue),
          value_text(j.partition),
          value_text(j.preceding_job),
          value_text(j.think_time_s)};
}

void check_header_text(std::string_view key, std::string_view value) {
  if (header_key(std::string(key) + ":") != key) {
    throw std::invalid_argument("SWF header key " + quote_for_message(key) + " is not a word");
  }
  for (const char c : value) {
    if (c != '\n' && is_control(c)) {
      throw std::invalid_argument("SWF header " + std::string(key) + " has a control character");
    }
  }
  for (std::size_t nl = value.find('\n'); nl != std::string_view::npos;
       nl = value.find('\n', nl + 1)) {
    if (!header_key(value.substr(nl + 1)).empty()) {
      throw std::invalid_argument("SWF header " + std::string(key) +
                                  " has a continuation line that reads as a key");
    }
  }
  if (trim(value) != value || value.find("\n\n") != std::string_view::npos ||
      value.find(" \n") != std::string_view::npos || value.find("\n ") != std::string_view::npos ||
      value.find("\t\n") != std::string_view::npos ||
      value.find("\n\t") != std::string_view::npos) {
    throw std::invalid_argument("SWF header " + std::string(key) +
                                " has blanks or empty lines at a line's start or end");
  }
}

}  // namespace

std::string format_swf(const SwfTrace& trace) {
  std::string out;
  for (const auto& [key, value] : trace.header.fields) {
    check_header_text(key, value);
    const std::string lead = "; " + key + ": ";
    std::size_t pos = 0;
    bool first = true;
    do {
      const std::size_t nl = value.find('\n', pos);
      const std::size_t end = nl == std::string::npos ? value.size() : nl;
      if (first) {
        out += end > pos ? lead : lead.substr(0, lead.size() - 1);  // no trailing blank
      } else {
        out += ";" + std::string(lead.size() - 1, ' ');
      }
      out.append(value, pos, end - pos);
      out += '\n';
      first = false;
      pos = end + 1;
    } while (pos <= value.size());
  }
  if (!trace.header.fields.empty()) out += ";\n";

  std::vector<std::array<std::string, kSwfFields>> rows;
  rows.reserve(trace.jobs.size());
  std::array<std::size_t, kSwfFields> width{};
  for (const SwfJob& j : trace.jobs) {
    rows.push_back(job_fields(j));
    for (std::size_t f = 0; f < kSwfFields; ++f) {
      width[f] = std::max(width[f], rows.back()[f].size());
    }
  }
  for (const auto& row : rows) {
    for (std::size_t f = 0; f < kSwfFields; ++f) {
      // One leading blank before every column, the job number's too, as in the archive's files.
      out.append(1 + width[f] - row[f].size(), ' ');
      out += row[f];
    }
    out += '\n';
  }
  return out;
}

}  // namespace ibsdn
