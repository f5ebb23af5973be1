#include "sim_backend/flowmodel/flow_case.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/quote_for_message.hpp"
#include "sim_backend/io/text_file.hpp"

namespace ibsdn {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '-';
}

class FlowCaseParser {
 public:
  FlowCaseParser(std::string_view source, const FlowCaseLimits& limits)
      : source_(source), limits_(limits) {}

  void line(std::string_view text, std::size_t number) {
    line_ = number;
    if (text.size() > limits_.max_line_length) {
      fail("line longer than " + std::to_string(limits_.max_line_length) + " bytes");
    }
    text = text.substr(0, text.find('#'));
    std::array<std::string_view, 6> tok{};
    const std::size_t count = std::min(split_fields(text, tok), tok.size());
    if (count == 0) return;
    if (tok[0] == "link") return link(tok, count);
    if (tok[0] == "message") return message(tok, count);
    fail("unknown record " + quote_for_message(tok[0]) + " (link or message)");
  }

  FlowCase finish() { return std::move(case_); }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw FlowCaseError(source_, line_, what);
  }

  void arity(const std::array<std::string_view, 6>& tok, std::size_t count, std::size_t want,
             const char* form) const {
    if (count < want) fail(std::string("missing fields: ") + form);
    if (count > want) fail("trailing junk " + quote_for_message(tok[want]) + " after " + form);
  }

  double number(std::string_view t, const char* field) const {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range) {
      fail(std::string(field) + " " + quote_for_message(t) + " is out of range");
    }
    if (ec != std::errc{} || ptr != t.data() + t.size() || !std::isfinite(v)) {
      fail(std::string(field) + " " + quote_for_message(t) + " is not a number");
    }
    return v;
  }

  void link(const std::array<std::string_view, 6>& tok, std::size_t count) {
    arity(tok, count, 4, "link NAME BANDWIDTH LATENCY");
    const std::string_view name = tok[1];
    if (!std::all_of(name.begin(), name.end(), is_name_char)) {
      fail("link name " + quote_for_message(name) + " has a character outside [A-Za-z0-9_.:-]");
    }
    const double bandwidth = number(tok[2], "bandwidth");
    if (!(bandwidth > 0)) fail("bandwidth " + std::string(tok[2]) + " is not above 0");
    const double latency = number(tok[3], "latency");
    if (!(latency >= 0)) fail("latency " + std::string(tok[3]) + " is negative");
    if (case_.links.size() == limits_.max_links) {
      fail("more than " + std::to_string(limits_.max_links) + " links");
    }
    const auto [it, fresh] = names_.try_emplace(std::string(name), Seen{case_.links.size(), line_});
    if (!fresh) {
      fail("link " + quote_for_message(name) + " declared twice (first at line " +
           std::to_string(it->second.line) + ")");
    }
    case_.links.push_back({std::string(name), bandwidth, latency});
  }

  void message(const std::array<std::string_view, 6>& tok, std::size_t count) {
    arity(tok, count, 5, "message ID START SIZE ROUTE");
    FlowMessage m;
    const std::string_view id = tok[1];
    const auto [ptr, ec] = std::from_chars(id.data(), id.data() + id.size(), m.id);
    if (ec == std::errc::result_out_of_range)
      fail("id " + quote_for_message(id) + " is out of range");
    if (ec != std::errc{} || ptr != id.data() + id.size()) {
      fail("id " + quote_for_message(id) + " is not a non-negative integer");
    }
    m.start = number(tok[2], "start");
    if (!(m.start >= 0)) fail("start " + std::string(tok[2]) + " is negative");
    m.size = number(tok[3], "size");
    if (!(m.size > 0)) fail("size " + std::string(tok[3]) + " is not above 0");
    route(tok[4], m.route);
    if (case_.messages.size() == limits_.max_messages) {
      fail("more than " + std::to_string(limits_.max_messages) + " messages");
    }
    const auto [it, fresh] = ids_.try_emplace(m.id, line_);
    if (!fresh) {
      fail("message id " + std::to_string(m.id) + " given twice (first at line " +
           std::to_string(it->second) + ")");
    }
    case_.messages.push_back(std::move(m));
  }

  void route(std::string_view text, std::vector<LinkId>& out) {
    std::size_t b = 0;
    for (;;) {
      const std::size_t e = std::min(text.find(',', b), text.size());
      const std::string_view name = text.substr(b, e - b);
      if (name.empty()) fail("empty link name in route " + quote_for_message(text));
      const auto it = names_.find(std::string(name));
      if (it == names_.end()) {
        fail("unknown link " + quote_for_message(name) +
             " (links are declared before the messages)");
      }
      if (out.size() == limits_.max_route_links) {
        fail("route longer than " + std::to_string(limits_.max_route_links) + " links");
      }
      out.emplace_back(it->second.index);
      if (e == text.size()) break;
      b = e + 1;
    }
    std::vector<LinkId> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end()) {
      fail("link '" + case_.links[twice->value()].name + "' twice in one route");
    }
  }

  struct Seen {
    std::size_t index;
    std::size_t line;
  };

  std::string source_;
  FlowCaseLimits limits_;
  std::size_t line_ = 0;
  FlowCase case_;
  std::unordered_map<std::string, Seen> names_;
  std::unordered_map<std::uint64_t, std::size_t> ids_;
};

}  // namespace

FlowCase parse_flow_case(std::string_view text, std::string_view source,
                         const FlowCaseLimits& limits) {
  FlowCaseParser parser(source, limits);
  TextLines lines(text);
  std::string_view line;
  while (lines.next(line)) parser.line(line, lines.number());
  return parser.finish();
}

FlowCase read_flow_case_file(const std::string& path, const FlowCaseLimits& limits) {
  return parse_flow_case(read_text_file(path, "flow case"), path, limits);
}

std::string format_flow_case(const FlowCase& c) {
  std::vector<std::string> names(c.links.size());
  std::set<std::string> seen;
  for (std::size_t l = 0; l < c.links.size(); ++l) {
    names[l] = c.links[l].name.empty() ? "l" + std::to_string(l) : c.links[l].name;
    const bool ok = std::all_of(names[l].begin(), names[l].end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '.' ||
             ch == ':' || ch == '-';
    });
    if (!ok || !seen.insert(names[l]).second) {
      throw std::invalid_argument("flow case: link name '" + names[l] +
                                  "' is repeated or has characters outside [A-Za-z0-9_.:-]");
    }
  }
  std::string out;
  std::array<char, 128> buf{};
  for (std::size_t l = 0; l < c.links.size(); ++l) {
    const int n = std::snprintf(buf.data(), buf.size(), " %.17g %.17g\n", c.links[l].bandwidth,
                                c.links[l].latency);
    out += "link " + names[l];
    out.append(buf.data(), static_cast<std::size_t>(n));
  }
  for (const FlowMessage& m : c.messages) {
    const int n = std::snprintf(buf.data(), buf.size(), "message %llu %.17g %.17g ",
                                static_cast<unsigned long long>(m.id), m.start, m.size);
    out.append(buf.data(), static_cast<std::size_t>(n));
    for (std::size_t h = 0; h < m.route.size(); ++h) {
      if (h != 0) out += ',';
      out += names.at(m.route[h].value());
    }
    out += '\n';
  }
  return out;
}

std::string format_completions(const std::vector<FlowMessage>& messages,
                               const std::vector<double>& completion) {
  std::vector<std::size_t> order(messages.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return messages[a].id < messages[b].id; });
  std::string out;
  std::array<char, 64> buf{};
  for (const std::size_t i : order) {
    const int n = std::snprintf(buf.data(), buf.size(), "%llu %.17g\n",
                                static_cast<unsigned long long>(messages[i].id), completion.at(i));
    out.append(buf.data(), static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace ibsdn
