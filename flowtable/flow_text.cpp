#include "flowtable/flow_text.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace ibsdn {
namespace {

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

template <typename T>
void put_field(std::string& out, const char* name, const std::optional<Masked<T>>& f, T full) {
  if (!f) return;
  out += ", ";
  out += name;
  out += '=';
  out += hex(f->value);
  if (f->mask != full) {
    out += '/';
    out += hex(f->mask);
  }
}

std::uint64_t number(std::string_view tok, std::string_view what, std::uint64_t max) {
  std::uint64_t v = 0;
  int base = 10;
  std::string_view digits = tok;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size()) {
    throw std::invalid_argument(std::string(what) + ": '" + std::string(tok) + "' is not a number");
  }
  if (v > max) {
    throw std::invalid_argument(std::string(what) + ": " + std::string(tok) + " exceeds " +
                                hex(max));
  }
  return v;
}

template <typename T>
Masked<T> masked(std::string_view val, std::string_view what, T full) {
  const auto slash = val.find('/');
  Masked<T> m;
  m.value = static_cast<T>(number(val.substr(0, slash), what, full));
  m.mask = slash == std::string_view::npos
               ? full
               : static_cast<T>(number(val.substr(slash + 1), what, full));
  return m;
}

std::vector<std::string_view> split(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const auto b = s.find_first_not_of(seps, pos);
    if (b == std::string_view::npos) break;
    const auto e = s.find_first_of(seps, b);
    out.push_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    pos = e == std::string_view::npos ? s.size() : e;
  }
  return out;
}

}  // namespace

std::string format_flow(const FlowEntry& e) {
  std::string out = "cookie=";
  out += hex(e.cookie);
  out += ", priority=";
  out += std::to_string(e.priority);
  put_field<std::uint16_t>(out, "slid", e.match.slid, 0xFFFF);
  put_field<std::uint16_t>(out, "dlid", e.match.dlid, 0xFFFF);
  put_field<std::uint8_t>(out, "sl", e.match.sl, kSlMask);
  put_field<std::uint32_t>(out, "dest_qp", e.match.dest_qp, kQpMask);
  out += " actions=";
  if (e.action.set_sl) {
    out += "set_sl:";
    out += std::to_string(e.action.set_sl->value());
    out += ',';
  }
  out += "output:";
  out += std::to_string(e.action.output.value());
  out += ", n_packets=";
  out += std::to_string(e.n_packets);
  return out;
}

FlowEntry parse_flow(std::string_view text) {
  const auto at = text.find("actions=");
  if (at == std::string_view::npos) throw std::invalid_argument("flow: missing 'actions='");
  FlowEntry e;
  bool have_output = false;
  // Match part: key=value tokens.
  for (std::string_view tok : split(text.substr(0, at), ", \t")) {
    const auto eq = tok.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument("flow: '" + std::string(tok) + "' is not key=value");
    const std::string_view key = tok.substr(0, eq);
    const std::string_view val = tok.substr(eq + 1);
    if (key == "cookie") {
      e.cookie = number(val, "cookie", ~std::uint64_t{0});
    } else if (key == "priority") {
      e.priority = static_cast<std::uint16_t>(number(val, "priority", 0xFFFF));
    } else if (key == "dlid") {
      e.match.dlid = masked<std::uint16_t>(val, "dlid", 0xFFFF);
    } else if (key == "slid") {
      e.match.slid = masked<std::uint16_t>(val, "slid", 0xFFFF);
    } else if (key == "sl") {
      e.match.sl = masked<std::uint8_t>(val, "sl", kSlMask);
    } else if (key == "dest_qp") {
      e.match.dest_qp = masked<std::uint32_t>(val, "dest_qp", kQpMask);
    } else {
      throw std::invalid_argument("flow: unknown match field '" + std::string(key) + "'");
    }
  }
  // Actions part: "set_sl:N,output:P" then optional ", n_packets=N".
  std::string_view rest = text.substr(at + 8);
  const auto counters = rest.find("n_packets=");
  std::string_view actions = rest.substr(0, counters);
  if (counters != std::string_view::npos) {
    e.n_packets =
        number(split(rest.substr(counters + 10), ", \t").at(0), "n_packets", ~std::uint64_t{0});
  }
  for (std::string_view act : split(actions, ", \t")) {
    const auto colon = act.find(':');
    const std::string_view key = act.substr(0, colon);
    if (colon == std::string_view::npos)
      throw std::invalid_argument("flow: action '" + std::string(act) + "' needs ':'");
    const std::string_view val = act.substr(colon + 1);
    if (key == "output") {
      e.action.output = PortNum(static_cast<std::uint8_t>(number(val, "output", 254)));
      have_output = true;
    } else if (key == "set_sl") {
      e.action.set_sl = ServiceLevel(static_cast<std::uint8_t>(number(val, "set_sl", kSlMask)));
    } else {
      throw std::invalid_argument("flow: unknown action '" + std::string(key) + "'");
    }
  }
  if (!have_output) throw std::invalid_argument("flow: actions need output:PORT");
  if (std::string why = e.match.validate(); !why.empty())
    throw std::invalid_argument("flow: " + why);
  return e;
}

namespace {

template <typename T>
void json_field(nlohmann::json& m, const char* name, const std::optional<Masked<T>>& f) {
  if (f) m[name] = {{"value", f->value}, {"mask", f->mask}};
}

template <typename T>
std::optional<Masked<T>> field_from_json(const nlohmann::json& m, const char* name, T full) {
  if (!m.contains(name)) return std::nullopt;
  const auto& f = m.at(name);
  if (!f.is_object() || !f.contains("value") || !f.at("value").is_number_unsigned()) {
    throw std::invalid_argument(std::string("match.") + name +
                                ": needs {\"value\": N, \"mask\": M}");
  }
  const auto v = f.at("value").get<std::uint64_t>();
  const auto mk = f.contains("mask") ? f.at("mask").get<std::uint64_t>() : full;
  if (v > full || mk > full)
    throw std::invalid_argument(std::string("match.") + name + ": out of range");
  return Masked<T>{static_cast<T>(v), static_cast<T>(mk)};
}

}  // namespace

nlohmann::json flow_to_json(const FlowEntry& e) {
  nlohmann::json m = nlohmann::json::object();
  json_field(m, "dlid", e.match.dlid);
  json_field(m, "slid", e.match.slid);
  json_field(m, "sl", e.match.sl);
  json_field(m, "dest_qp", e.match.dest_qp);
  nlohmann::json a = {{"output", e.action.output.value()}};
  if (e.action.set_sl) a["set_sl"] = e.action.set_sl->value();
  return {{"cookie", e.cookie},
          {"priority", e.priority},
          {"match", m},
          {"actions", a},
          {"n_packets", e.n_packets}};
}

FlowEntry flow_from_json(const nlohmann::json& j) {
  try {
    FlowEntry e;
    e.cookie = j.value("cookie", std::uint64_t{0});
    const auto prio = j.value("priority", std::uint64_t{0});
    if (prio > 0xFFFF) throw std::invalid_argument("priority: above 65535");
    e.priority = static_cast<std::uint16_t>(prio);
    const auto& m = j.at("match");
    e.match.dlid = field_from_json<std::uint16_t>(m, "dlid", 0xFFFF);
    e.match.slid = field_from_json<std::uint16_t>(m, "slid", 0xFFFF);
    e.match.sl = field_from_json<std::uint8_t>(m, "sl", kSlMask);
    e.match.dest_qp = field_from_json<std::uint32_t>(m, "dest_qp", kQpMask);
    const auto& a = j.at("actions");
    const auto out = a.at("output").get<std::uint64_t>();
    if (out == 0 || out > 254) throw std::invalid_argument("actions.output: not a port 1..254");
    e.action.output = PortNum(static_cast<std::uint8_t>(out));
    if (a.contains("set_sl")) {
      const auto sl = a.at("set_sl").get<std::uint64_t>();
      if (sl > kSlMask) throw std::invalid_argument("actions.set_sl: above 15");
      e.action.set_sl = ServiceLevel(static_cast<std::uint8_t>(sl));
    }
    e.n_packets = j.value("n_packets", std::uint64_t{0});
    if (std::string why = e.match.validate(); !why.empty()) throw std::invalid_argument(why);
    return e;
  } catch (const nlohmann::json::exception& ex) {
    throw std::invalid_argument(std::string("flow JSON: ") + ex.what());
  }
}

}  // namespace ibsdn
