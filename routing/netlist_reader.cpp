#include "routing/netlist.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/quote_for_message.hpp"
#include "flowtable/guid_text.hpp"
#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/netlist_ibsim.hpp"

namespace ibsdn {

namespace {

using netlist_detail::is_control;
using netlist_detail::kIbsimFirstCaGuid;
using netlist_detail::kIbsimFirstSwitchGuid;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A node id in messages as the netlist writes it, in double quotes.
std::string quoted(std::string_view s) {
  return quote_for_message(s, kMaxQuotedChars, '"');
}

const char* kind_word(const Node& n) {
  return n.is_switch() ? "switch" : "HCA";
}

/// Reads one line left to right; never looks past its end.
struct Cursor {
  std::string_view s;
  std::size_t pos = 0;

  [[nodiscard]] bool done() const { return pos >= s.size(); }
  [[nodiscard]] bool at(char c) const { return !done() && s[pos] == c; }
  [[nodiscard]] std::string_view rest() const { return s.substr(std::min(pos, s.size())); }
  void skip_blanks() {
    while (!done() && is_blank(s[pos])) ++pos;
  }
  bool eat(char c) {
    if (!at(c)) return false;
    ++pos;
    return true;
  }
  bool eat(std::string_view word) {
    if (rest().substr(0, word.size()) != word) return false;
    pos += word.size();
    return true;
  }
  /// A keyword: letters, digits, '_' and '-'.
  std::string_view word() {
    const std::size_t b = pos;
    while (!done() && (is_alpha(s[pos]) || is_digit(s[pos]) || s[pos] == '_' || s[pos] == '-')) {
      ++pos;
    }
    return s.substr(b, pos - b);
  }
  /// Up to the next blank or quote; at least one character unless done().
  std::string_view token() {
    const std::size_t b = pos;
    while (!done() && !is_blank(s[pos]) && s[pos] != '"') ++pos;
    if (pos == b && !done()) ++pos;
    return s.substr(b, pos - b);
  }
  /// Decimal, or hexadecimal with a 0x prefix. False (position unchanged) if absent or too big.
  bool number(std::uint64_t& out) {
    const std::string_view r = rest();
    int base = 10;
    std::size_t skip = 0;
    if (r.size() > 2 && r[0] == '0' && (r[1] == 'x' || r[1] == 'X') && is_hex(r[2])) {
      base = 16;
      skip = 2;
    }
    const char* first = r.data() + skip;
    const char* last = r.data() + r.size();
    const auto [ptr, ec] = std::from_chars(first, last, out, base);
    if (ec != std::errc() || ptr == first) return false;
    pos += static_cast<std::size_t>(ptr - r.data());
    return true;
  }
  /// Bare hexadecimal digits (a GUID inside parentheses).
  bool hex_number(std::uint64_t& out) {
    const std::string_view r = rest();
    const auto [ptr, ec] = std::from_chars(r.data(), r.data() + r.size(), out, 16);
    if (ec != std::errc() || ptr == r.data()) return false;
    pos += static_cast<std::size_t>(ptr - r.data());
    return true;
  }
};

/// Lane rate of an ibnetdiscover speed annotation such as "4xEDR" (nominal Gb/s per lane).
std::optional<double> link_gbps(std::string_view tok) {
  std::size_t i = 0;
  std::uint64_t lanes = 0;
  while (i < tok.size() && is_digit(tok[i]) && lanes < 100) {
    lanes = lanes * 10 + static_cast<std::uint64_t>(tok[i++] - '0');
  }
  if (i == 0 || lanes == 0 || lanes > 32 || i >= tok.size() || tok[i] != 'x') return std::nullopt;
  static constexpr std::array<std::pair<std::string_view, double>, 9> kRates{{{"SDR", 2.5},
                                                                              {"DDR", 5.0},
                                                                              {"QDR", 10.0},
                                                                              {"FDR10", 10.0},
                                                                              {"FDR", 14.0},
                                                                              {"EDR", 25.0},
                                                                              {"HDR", 50.0},
                                                                              {"NDR", 100.0},
                                                                              {"XDR", 200.0}}};
  const std::string_view rate = tok.substr(i + 1);
  for (const auto& [name, gbps] : kRates) {
    if (rate == name) return static_cast<double>(lanes) * gbps;
  }
  return std::nullopt;
}

class NetlistParser {
 public:
  NetlistParser(std::string_view text, std::string_view source, double unannotated_gbps)
      : text_(text), source_(source), unannotated_gbps_(unannotated_gbps) {}

  Fabric run() {
    TextLines lines(text_);
    std::string_view line;
    while (lines.next(line)) {
      line_no_ = lines.number();
      parse_line(line);
    }
    if (f_.num_nodes() == 0)
      fail(std::max<std::size_t>(line_no_, 1), "no Switch, Hca or Ca record");
    cable();
    f_.compute_levels();
    // A fat-tree first (fat_tree_label), then a dragonfly (recognize_dragonfly sets the label).
    f_.kind_label = fat_tree_label(f_);
    if (f_.kind_label.empty() && !recognize_dragonfly(f_, nullptr)) f_.kind_label = "netlist";
    return std::move(f_);
  }

 private:
  // One "[p] "peer"[pp]" line.
  struct Decl {
    NodeIdx node;
    std::uint8_t port = 0;
    std::uint8_t peer_port = 0;
    std::string peer;
    double gbps = 0.0;  // 0: not annotated
    std::uint16_t own_lid = 0;
    std::uint16_t peer_lid = 0;
    std::size_t line = 0;
  };
  struct Cable {
    NodeIdx a;
    std::uint8_t pa = 0;
    NodeIdx b;
    std::uint8_t pb = 0;
    double gbps = 0.0;
    std::size_t line = 0;
  };

  [[noreturn]] void fail(std::size_t line, std::string_view what) const {
    throw NetlistError(source_, line, what);
  }
  [[noreturn]] void fail(std::string_view what) const { fail(line_no_, what); }

  void parse_line(std::string_view line) {
    Cursor c{line};
    c.skip_blanks();
    if (c.done()) {
      in_record_ = false;  // a blank line ends a record
      return;
    }
    if (c.at('#')) return;  // comments may sit inside records too
    if (c.at('[')) return port_line(c);
    if (c.at('@')) fail("port aliases ('@...') are not supported");
    in_record_ = false;
    const std::string_view word = c.word();
    if (word == "Switch") return header(c, NodeKind::kSwitch, word);
    if (word == "Hca" || word == "Ca") return header(c, NodeKind::kHca, word);
    if (word == "switchguid" || word == "caguid" || word == "hcaguids" || word == "sysimgguid" ||
        word == "vendid" || word == "devid" || word == "width" || word == "speed") {
      return assignment(c, word);
    }
    // Group headings of `ibnetdiscover -g`.
    if (word == "Non-Chassis" || word == "Chassis") return;
    if (word == "Rt") fail("router records (Rt) are not supported");
    if (word == "include" || word == "module" || word == "do" || word == "pdebug") {
      fail("ibsim directive '" + std::string(word) + "' is not supported");
    }
    fail("unrecognised line " + quote_for_message(line) +
         " (expected a Switch/Hca/Ca record, a [port] line or a key=value line)");
  }

  void assignment(Cursor& c, std::string_view key) {
    const std::string k(key);
    c.skip_blanks();
    if (!c.eat('=')) fail("expected '=' after '" + k + "'");
    c.skip_blanks();
    std::uint64_t v = 0;
    if (!c.number(v)) fail("'" + k + "=' needs a number (decimal or 0x...)");
    optional_paren_guid(c);  // ibnetdiscover: switchguid=0x...(port guid)
    c.skip_blanks();
    if (!c.done() && !c.at('#'))
      fail("unexpected " + quote_for_message(c.rest()) + " after '" + k + "='");
    if (key == "switchguid" || key == "caguid" || key == "hcaguids") {
      if (v == 0) fail("GUID 0 is not a valid node GUID");
      next_guid_[key == "switchguid" ? 0 : 1] = v;
    }
  }

  void optional_paren_guid(Cursor& c) {
    if (!c.eat('(')) return;
    std::uint64_t g = 0;
    if (!c.hex_number(g) || !c.eat(')')) fail("malformed '(guid)': expected hexadecimal digits");
  }

  std::string quoted_string(Cursor& c, std::string_view what) {
    if (!c.eat('"')) fail("expected the quoted " + std::string(what));
    const std::string_view r = c.rest();
    const std::size_t close = r.find('"');
    if (close == std::string_view::npos) fail("unterminated quoted " + std::string(what));
    c.pos += close + 1;
    return std::string(r.substr(0, close));
  }

  void header(Cursor& c, NodeKind kind, std::string_view keyword) {
    if (f_.num_nodes() >= kMaxNetlistNodes) {
      fail("more than " + std::to_string(kMaxNetlistNodes) + " nodes");
    }
    c.skip_blanks();
    std::uint64_t ports = 0;
    if (!c.number(ports)) fail("expected the port count after '" + std::string(keyword) + "'");
    if (ports < 1 || ports > 254) {
      fail("port count " + std::to_string(ports) + " out of range (1..254)");
    }
    if (total_ports_ + ports > kMaxNetlistPorts) {
      fail("more than " + std::to_string(kMaxNetlistPorts) + " ports in total");
    }
    c.skip_blanks();
    const std::string id = quoted_string(c, "node id");
    if (id.empty()) fail("empty node id");
    std::string name;
    bool blank = false;
    for (char ch : id) {
      if (is_blank(ch)) {
        if (!blank) name += '_';
        blank = true;
        continue;
      }
      if (is_control(ch)) fail("node id " + quoted(id) + " contains a control character");
      name += ch;
      blank = false;
    }
    if (const auto it = raw_ids_.find(id); it != raw_ids_.end()) {
      fail("duplicate node id " + quoted(id) + " (first at line " +
           std::to_string(header_line_[it->second.value()]) + ")");
    }
    if (const auto other = f_.find(name)) {
      fail("node id " + quoted(id) + " becomes the name " + quoted(name) + ", already used by " +
           quoted(raw_id_[other->value()]));
    }

    std::string desc;
    std::uint16_t lid = 0;
    c.skip_blanks();
    if (!c.done()) {
      if (!c.eat('#')) fail("unexpected " + quote_for_message(c.rest()) + " after the node id");
      header_comment(c, desc, lid);
    }

    const int k = kind == NodeKind::kSwitch ? 0 : 1;
    const std::uint64_t guid = next_guid_[k];
    // ibsim reserves one GUID per switch and one per CA plus one per CA port.
    next_guid_[k] += kind == NodeKind::kSwitch ? 1 : ports + 1;
    if (const auto it = guid_owner_.find(guid); it != guid_owner_.end()) {
      fail("GUID " + guid_text(Guid(guid)) + " of " + quoted(id) + " is already used by " +
           quoted(raw_id_[it->second.value()]) + " (line " +
           std::to_string(header_line_[it->second.value()]) + ")");
    }

    NodeIdx idx;
    try {
      idx = f_.add_node(kind, std::move(name), static_cast<std::size_t>(ports), Guid(guid));
    } catch (const std::invalid_argument& e) {
      fail(e.what());  // unreachable after the checks above; kept as a boundary
    }
    Node& node = f_.node(idx);
    // ibsim's NodeDescription defaults to the node id.
    node.description = desc.empty() ? id : desc;
    node.lid = Lid(lid);
    guid_owner_.emplace(guid, idx);
    raw_ids_.emplace(id, idx);
    raw_id_.push_back(id);
    header_line_.push_back(line_no_);
    port_base_.push_back(total_ports_);
    total_ports_ += static_cast<std::size_t>(ports);
    declared_at_.resize(total_ports_, 0);
    current_ = idx;
    in_record_ = true;
  }

  // `# "description" base port 0 lid 5 lmc 0`, or ibsim's unquoted `# description lid 5`.
  void header_comment(Cursor& c, std::string& desc, std::uint16_t& lid) {
    c.skip_blanks();
    if (c.at('"')) {
      desc = quoted_string(c, "node description");
    } else {
      const std::string_view r = c.rest();
      std::size_t cut = r.size();
      for (std::string_view marker : {"enhanced port", "base port", "lid ", "lmc "}) {
        if (r.substr(0, marker.size()) == marker) cut = 0;
        const std::size_t at = r.find(" " + std::string(marker));
        if (at != std::string_view::npos) cut = std::min(cut, at);
      }
      std::string_view d = r.substr(0, cut);
      while (!d.empty() && is_blank(d.back())) d.remove_suffix(1);
      desc = std::string(d);
      c.pos += cut;
    }
    while (true) {
      c.skip_blanks();
      if (c.done()) break;
      if (c.token() == "lid") {
        c.skip_blanks();
        std::uint64_t v = 0;
        if (c.number(v) && v <= 0xFFFF && lid == 0) lid = static_cast<std::uint16_t>(v);
      }
    }
  }

  void port_line(Cursor& c) {
    if (!in_record_) fail("port line outside a Switch/Hca record");
    const Node& node = f_.node(current_);
    c.eat('[');
    std::uint64_t port = 0;
    if (!c.number(port) || !c.eat(']')) fail("expected '[port]' at the start of a port line");
    if (port < 1 || port > node.ports.size()) {
      fail("port " + std::to_string(port) + " out of range for " + kind_word(node) + " " +
           quoted(raw_id_[current_.value()]) + " with " + std::to_string(node.ports.size()) +
           " ports");
    }
    optional_paren_guid(c);
    if (c.eat("[ext ")) {  // chassis external port number, informational
      std::uint64_t ext = 0;
      if (!c.number(ext) || !c.eat(']')) fail("malformed '[ext N]'");
    }
    c.skip_blanks();
    Decl d;
    d.node = current_;
    d.port = static_cast<std::uint8_t>(port);
    d.line = line_no_;
    d.peer = quoted_string(c, "peer node id");
    c.skip_blanks();
    std::uint64_t peer_port = 1;  // ibsim's default when "[pp]" is missing
    if (c.eat('[')) {
      if (!c.number(peer_port) || !c.eat(']')) fail("expected '[peer port]' after the peer id");
      if (peer_port < 1 || peer_port > 254) {
        fail("peer port " + std::to_string(peer_port) + " out of range (1..254)");
      }
    }
    d.peer_port = static_cast<std::uint8_t>(peer_port);
    optional_paren_guid(c);
    while (true) {  // ibsim link options "w=4 s=2", then an optional comment
      c.skip_blanks();
      if (c.done()) break;
      if (c.eat('#')) {
        port_comment(c, d);
        break;
      }
      const std::string_view option = c.rest();
      const std::string_view key = c.word();
      std::uint64_t v = 0;
      if (key.empty() || !c.eat('=') || !c.number(v)) {
        fail("unexpected " + quote_for_message(option) + " after the peer port");
      }
    }
    const std::size_t slot = port_base_[current_.value()] + port - 1;
    if (declared_at_[slot] != 0) {
      fail("port " + std::to_string(port) + " of " + quoted(raw_id_[current_.value()]) +
           " is declared twice (first at line " + std::to_string(declared_at_[slot]) + ")");
    }
    declared_at_[slot] = line_no_;
    decls_.push_back(std::move(d));
  }

  // `# lid 4 lmc 0 "peer desc" lid 1 4xQDR`: a LID before the quoted peer description is this
  // port's, the one after it the peer's. Comments are free text, so nothing here is an error.
  static void port_comment(Cursor& c, Decl& d) {
    bool after_desc = false;
    while (true) {
      c.skip_blanks();
      if (c.done()) break;
      if (c.at('"')) {
        const std::size_t close = c.s.find('"', c.pos + 1);
        if (close == std::string_view::npos) break;
        c.pos = close + 1;
        after_desc = true;
        continue;
      }
      const std::string_view tok = c.token();
      if (tok == "lid") {
        c.skip_blanks();
        std::uint64_t v = 0;
        if (c.number(v) && v <= 0xFFFF) {
          std::uint16_t& lid = after_desc ? d.peer_lid : d.own_lid;
          if (lid == 0) lid = static_cast<std::uint16_t>(v);
        }
      } else if (const auto g = link_gbps(tok)) {
        d.gbps = *g;
      }
    }
  }

  std::string end_name(NodeIdx n, std::uint8_t p) const {
    return quoted(raw_id_[n.value()]) + "[" + std::to_string(p) + "]";
  }

  // Resolves peers and turns the declarations (from one or both ends) into cables.
  void cable() {
    std::vector<Cable> cables;
    std::vector<std::uint32_t> cable_at(total_ports_, 0);  // cable index + 1
    const auto slot = [this](NodeIdx n, std::uint8_t p) { return port_base_[n.value()] + p - 1u; };
    for (const Decl& d : decls_) {
      const auto it = raw_ids_.find(d.peer);
      if (it == raw_ids_.end()) fail(d.line, "unknown peer node " + quoted(d.peer));
      const NodeIdx b = it->second;
      const Node& nb = f_.node(b);
      if (d.peer_port > nb.ports.size()) {
        fail(d.line, "peer port " + std::to_string(d.peer_port) + " out of range for " +
                         kind_word(nb) + " " + quoted(d.peer) + " with " +
                         std::to_string(nb.ports.size()) + " ports");
      }
      if (b == d.node) fail(d.line, end_name(d.node, d.port) + " is cabled to its own node");
      if (d.own_lid != 0 && f_.node(d.node).is_hca() && f_.node(d.node).lid.value() == 0) {
        f_.node(d.node).lid = Lid(d.own_lid);
      }
      const std::uint32_t here = cable_at[slot(d.node, d.port)];
      if (here != 0) {
        Cable& cb = cables[here - 1];
        const bool from_a = cb.a == d.node && cb.pa == d.port;
        const NodeIdx other = from_a ? cb.b : cb.a;
        const std::uint8_t other_port = from_a ? cb.pb : cb.pa;
        if (other != b || other_port != d.peer_port) {
          fail(d.line, end_name(d.node, d.port) + " is declared cabled to " +
                           end_name(b, d.peer_port) + ", but line " + std::to_string(cb.line) +
                           " cables it to " + end_name(other, other_port));
        }
        if (cb.gbps == 0.0) cb.gbps = d.gbps;
        continue;
      }
      const std::uint32_t there = cable_at[slot(b, d.peer_port)];
      if (there != 0) {
        const Cable& cb = cables[there - 1];
        const bool from_a = cb.a == b && cb.pa == d.peer_port;
        fail(d.line, end_name(d.node, d.port) + " is declared cabled to " +
                         end_name(b, d.peer_port) + ", which line " + std::to_string(cb.line) +
                         " cables to " + end_name(from_a ? cb.b : cb.a, from_a ? cb.pb : cb.pa));
      }
      cables.push_back(Cable{d.node, d.port, b, d.peer_port, d.gbps, d.line});
      cable_at[slot(d.node, d.port)] = static_cast<std::uint32_t>(cables.size());
      cable_at[slot(b, d.peer_port)] = static_cast<std::uint32_t>(cables.size());
    }
    for (const Decl& d : decls_) {
      Node& peer = f_.node(raw_ids_.at(d.peer));
      if (d.peer_lid != 0 && peer.lid.value() == 0) peer.lid = Lid(d.peer_lid);
    }
    for (const Cable& cb : cables) {
      try {
        f_.connect(cb.a, PortNum(cb.pa), cb.b, PortNum(cb.pb),
                   cb.gbps > 0.0 ? cb.gbps : unannotated_gbps_);
      } catch (const std::exception& e) {
        fail(cb.line, e.what());  // unreachable after the checks above; kept as a boundary
      }
    }
  }

  std::string_view text_;
  std::string_view source_;
  double unannotated_gbps_;
  std::size_t line_no_ = 0;
  Fabric f_;
  bool in_record_ = false;
  NodeIdx current_;
  std::array<std::uint64_t, 2> next_guid_{kIbsimFirstSwitchGuid, kIbsimFirstCaGuid};
  std::unordered_map<std::string, NodeIdx> raw_ids_;  // quoted id as written -> node
  std::unordered_map<std::uint64_t, NodeIdx> guid_owner_;
  std::vector<std::string> raw_id_;       // node -> quoted id as written
  std::vector<std::size_t> header_line_;  // node -> line of its header
  std::vector<std::size_t> port_base_;    // node -> first slot in declared_at_
  std::vector<std::size_t> declared_at_;  // (node, port) slot -> line of its own declaration
  std::size_t total_ports_ = 0;
  std::vector<Decl> decls_;
};

}  // namespace

Fabric parse_netlist(std::string_view text, std::string_view source_name, double unannotated_gbps) {
  if (!(unannotated_gbps > 0.0)) throw std::invalid_argument("netlist: link rate must be > 0");
  return NetlistParser(text, source_name, unannotated_gbps).run();
}

}  // namespace ibsdn
