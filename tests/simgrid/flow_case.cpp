#include "tests/simgrid/flow_case.hpp"

#include <charconv>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "common/file_line_error.hpp"
#include "common/quote_for_message.hpp"

namespace ibsdn {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

/// The fields of a line separated by spaces or tabs, up to a '#' (a comment to the line's end).
std::vector<std::string_view> fields_of(std::string_view line) {
  if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
    line = line.substr(0, hash);
  }
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t begin = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > begin) out.push_back(line.substr(begin, i - begin));
  }
  return out;
}

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '-';
}

bool is_name(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

/// A finite decimal number (std::from_chars' general format: "1.25e9", "0.001"), the whole field.
bool parse_real(std::string_view s, double& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

bool parse_unsigned(std::string_view s, std::uint64_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

/// Sizes are whole bytes up to 2^53, where a double (the engines' arithmetic) is still exact.
constexpr double kMaxSize = 9007199254740992.0;

struct Reader {
  Reader(std::string_view src, const FlowCaseLimits& lim) : source(src), limits(lim) {}

  std::string_view source;
  const FlowCaseLimits& limits;
  std::size_t line = 0;
  FlowCase out;
  std::unordered_map<std::string_view, std::size_t> link_index;
  std::unordered_set<std::uint64_t> ids;
  std::vector<std::vector<std::string_view>> routes;  // per message, resolved at the end

  [[noreturn]] void fail(const std::string& what) const { throw FileLineError(source, line, what); }

  void read_link(const std::vector<std::string_view>& f) {
    if (f.size() != 4) fail("a link is 'link NAME BANDWIDTH LATENCY'; got " + count(f));
    if (!is_name(f[1])) fail("link name " + quote_for_message(f[1]) + " is not [A-Za-z0-9_.:-]+");
    if (link_index.count(f[1]) != 0) fail("link '" + std::string(f[1]) + "' declared twice");
    if (out.links.size() >= limits.max_links) {
      fail("more than " + std::to_string(limits.max_links) + " links");
    }
    FlowCaseLink l;
    l.name = std::string(f[1]);
    if (!parse_real(f[2], l.bandwidth) || !(l.bandwidth > 0)) {
      fail("link '" + l.name + "': BANDWIDTH " + quote_for_message(f[2]) +
           " is not a number of bytes/s > 0");
    }
    if (!parse_real(f[3], l.latency) || l.latency < 0) {
      fail("link '" + l.name + "': LATENCY " + quote_for_message(f[3]) +
           " is not a number of seconds >= 0");
    }
    link_index.emplace(f[1], out.links.size());
    out.links.push_back(std::move(l));
  }

  void read_message(const std::vector<std::string_view>& f) {
    if (f.size() != 5) fail("a message is 'message ID START SIZE ROUTE'; got " + count(f));
    if (out.messages.size() >= limits.max_messages) {
      fail("more than " + std::to_string(limits.max_messages) + " messages");
    }
    FlowCaseMessage m;
    m.line = line;
    if (!parse_unsigned(f[1], m.id)) {
      fail("message ID " + quote_for_message(f[1]) + " is not a non-negative integer");
    }
    if (!ids.insert(m.id).second) fail("message ID " + std::to_string(m.id) + " given twice");
    const std::string which = "message " + std::to_string(m.id);
    if (!parse_real(f[2], m.start) || m.start < 0) {
      fail(which + ": START " + quote_for_message(f[2]) + " is not a number of seconds >= 0");
    }
    double size = 0;
    if (!parse_real(f[3], size) || !(size > 0) || size > kMaxSize || std::floor(size) != size) {
      fail(which + ": SIZE " + quote_for_message(f[3]) +
           " is not a whole number of bytes in 1..2^53");
    }
    m.size = static_cast<std::uint64_t>(size);
    std::vector<std::string_view> hops;
    std::string_view rest = f[4];
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view name = rest.substr(0, comma);
      if (name.empty())
        fail(which + ": ROUTE " + quote_for_message(f[4]) + " has an empty link name");
      if (hops.size() >= limits.max_route_links) {
        fail(which + ": ROUTE has more than " + std::to_string(limits.max_route_links) + " links");
      }
      hops.push_back(name);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    routes.push_back(std::move(hops));
    out.messages.push_back(std::move(m));
  }

  /// Links may be declared after the messages that use them: routes are resolved once all are
  /// known.
  void resolve_routes() {
    for (std::size_t i = 0; i < out.messages.size(); ++i) {
      FlowCaseMessage& m = out.messages[i];
      line = m.line;
      std::unordered_set<std::size_t> seen;
      for (const std::string_view name : routes[i]) {
        const auto it = link_index.find(name);
        if (it == link_index.end()) {
          fail("message " + std::to_string(m.id) + ": ROUTE names link " + quote_for_message(name) +
               ", which is not declared");
        }
        if (!seen.insert(it->second).second) {
          fail("message " + std::to_string(m.id) + ": ROUTE crosses link '" + std::string(name) +
               "' twice");
        }
        m.route.push_back(it->second);
      }
    }
  }

  static std::string count(const std::vector<std::string_view>& f) {
    return std::to_string(f.size()) + " fields";
  }
};

}  // namespace

FlowCase parse_flow_case(std::string_view text, std::string_view source,
                         const FlowCaseLimits& limits) {
  Reader r(source, limits);
  TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    r.line = lines.number();
    if (line.size() > limits.max_line_length) {
      r.fail("line longer than " + std::to_string(limits.max_line_length) + " bytes");
    }
    const std::vector<std::string_view> f = fields_of(line);
    if (f.empty()) continue;
    if (f[0] == "link") {
      r.read_link(f);
    } else if (f[0] == "message") {
      r.read_message(f);
    } else {
      r.fail("unknown record " + quote_for_message(f[0]) + " (expected 'link' or 'message')");
    }
  }
  r.resolve_routes();
  return std::move(r.out);
}

}  // namespace ibsdn
