#include "routing/lft.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

namespace ibsdn {

DumpError::DumpError(std::string_view source, std::size_t line, std::string_view what)
    : std::invalid_argument(std::string(source) + ":" + std::to_string(line) + ": " +
                            std::string(what)),
      line_(line) {}

namespace {

std::string hex_guid(std::uint64_t g) {
  std::array<char, 24> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%016llx", static_cast<unsigned long long>(g));
  return buf.data();
}

std::string hex_lid(Lid l) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%04x", unsigned{l.value()});
  return buf.data();
}

std::string port_text(PortNum p) {
  return std::to_string(unsigned{p.value()});
}

/// A printable, bounded rendering of untrusted text for error messages.
std::string excerpt(std::string_view s) {
  constexpr std::size_t kMax = 60;
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    out += (u < 0x20 || u == 0x7f) ? '?' : s[i];
  }
  if (s.size() > kMax) out += "...";
  return out;
}

/// Splits text into lines (without '\n' or a trailing '\r'), numbering them from 1.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  [[nodiscard]] std::size_t number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 0;
};

/// Reads one line left to right; every read checks the end of the line.
struct Cursor {
  std::string_view s;
  std::size_t pos = 0;

  [[nodiscard]] bool done() const { return pos >= s.size(); }
  [[nodiscard]] std::string_view rest() const { return s.substr(std::min(pos, s.size())); }
  void skip_blanks() {
    while (!done() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
  }
  bool eat(std::string_view word) {
    if (rest().substr(0, word.size()) != word) return false;
    pos += word.size();
    return true;
  }
  /// An unsigned number in `base` that fits `max`; at least one digit.
  bool number(int base, std::uint64_t max, std::uint64_t& out) {
    const char* first = s.data() + pos;
    const char* last = s.data() + s.size();
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(first, last, v, base);
    if (ec != std::errc{} || ptr == first || v > max) return false;
    pos += static_cast<std::size_t>(ptr - first);
    out = v;
    return true;
  }
};

/// Node GUID -> node, for matching dumps to the fabric.
std::unordered_map<std::uint64_t, NodeIdx> nodes_by_guid(const Fabric& f) {
  std::unordered_map<std::uint64_t, NodeIdx> out;
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    const Guid g = f.nodes()[i].guid;
    if (g.value() != 0) out.emplace(g.value(), NodeIdx(i));
  }
  return out;
}

// ---- opensm-subnet.lst ----------------------------------------------------------------------

struct Endpoint {
  std::string_view type;  // SW, CA, Rt, ** (without -SM)
  std::uint64_t ports = 0;
  std::uint64_t node_guid = 0;
  bool has_node_guid = false;
  std::string_view desc;
  std::uint64_t lid = 0;
  std::uint64_t port = 0;
};

class SubnetListParser {
 public:
  SubnetListParser(const Fabric& f, std::string_view name, LidMap& lids)
      : f_(f), name_(name), lids_(lids), by_guid_(nodes_by_guid(f)) {}

  void parse(std::string_view text) {
    Lines lines(text);
    std::string_view line;
    while (lines.next(line)) {
      line_ = lines.number();
      Cursor c{line};
      c.skip_blanks();
      if (c.done()) continue;
      const Endpoint a = endpoint(c);
      const Endpoint b = endpoint(c);
      // The rest (PHY=4x LOG=ACT SPD=2.5) describes the link state, which routing ignores.
      const auto [na, pa] = record(a);
      const auto [nb, pb] = record(b);
      const Port& port = f_.port(na, pa);
      if (port.peer != nb || port.peer_port != pb) {
        std::string has = "uncabled";
        if (port.connected()) {
          has = "cabled to " + f_.node(port.peer).name + "[" + port_text(port.peer_port) + "]";
        }
        fail("cable " + f_.node(na).name + "[" + port_text(pa) + "] - " + f_.node(nb).name + "[" +
             port_text(pb) + "] is not in the fabric (there " + f_.node(na).name + "[" +
             port_text(pa) + "] is " + has + ")");
      }
    }
  }

 private:
  [[noreturn]] void fail(std::string_view what) const { throw DumpError(name_, line_, what); }

  Endpoint endpoint(Cursor& c) {
    Endpoint e;
    c.skip_blanks();
    if (!c.eat("{")) fail("expected '{' opening a port, found '" + excerpt(c.rest()) + "'");
    c.skip_blanks();
    const std::size_t type_end = std::min(c.s.find(' ', c.pos), c.s.size());
    e.type = c.s.substr(c.pos, type_end - c.pos);
    c.pos = type_end;
    if (e.type.ends_with("-SM")) e.type.remove_suffix(3);
    if (e.type.empty()) fail("missing node type before the port's fields");
    // Key:hex fields up to the description in braces.
    for (;;) {
      c.skip_blanks();
      if (c.done()) fail("line ends inside a port record");
      if (c.s[c.pos] == '{') break;
      const std::size_t colon = c.s.find(':', c.pos);
      const std::size_t space = std::min(c.s.find(' ', c.pos), c.s.size());
      if (colon == std::string_view::npos || colon > space) {
        fail("expected KEY:VALUE, found '" + excerpt(c.s.substr(c.pos, space - c.pos)) + "'");
      }
      const std::string_view key = c.s.substr(c.pos, colon - c.pos);
      c.pos = colon + 1;
      std::uint64_t v = 0;
      if (!c.number(16, ~std::uint64_t{0}, v)) {
        fail("field " + std::string(key) + " is not a hexadecimal number");
      }
      if (key == "Ports") e.ports = v;
      if (key == "NodeGUID") {
        e.node_guid = v;
        e.has_node_guid = true;
      }
    }
    ++c.pos;
    // Descriptions are free text: the record's own "} LID:" ends them.
    const std::size_t close = c.s.find("} LID:", c.pos);
    if (close == std::string_view::npos) fail("missing '} LID:' after the node description");
    e.desc = c.s.substr(c.pos, close - c.pos);
    c.pos = close + 6;
    if (!c.number(16, 0xFFFF, e.lid)) fail("LID is not a 16-bit hexadecimal number");
    c.skip_blanks();
    if (!c.eat("PN:") || !c.number(16, 0xFF, e.port)) fail("missing or malformed 'PN:' field");
    c.skip_blanks();
    if (!c.eat("}")) fail("expected '}' closing the port record of '" + excerpt(e.desc) + "'");
    if (!e.has_node_guid) fail("port record of '" + excerpt(e.desc) + "' has no NodeGUID");
    return e;
  }

  std::pair<NodeIdx, PortNum> record(const Endpoint& e) {
    const auto it = by_guid_.find(e.node_guid);
    if (it == by_guid_.end()) {
      fail("node GUID " + hex_guid(e.node_guid) + " ('" + excerpt(e.desc) +
           "') is not a node of the fabric");
    }
    const NodeIdx n = it->second;
    const Node& node = f_.node(n);
    const bool is_sw = e.type == "SW";
    if (!is_sw && e.type != "CA") {
      fail("node type '" + excerpt(e.type) + "' of " + node.name + " is not supported (SW or CA)");
    }
    if (is_sw != node.is_switch()) {
      fail("node GUID " + hex_guid(e.node_guid) + " is listed as " + std::string(e.type) +
           " but is " + (node.is_switch() ? "switch " : "HCA ") + node.name + " in the fabric");
    }
    if (e.ports != node.ports.size()) {
      fail(node.name + " has " + std::to_string(e.ports) + " ports here but " +
           std::to_string(node.ports.size()) + " in the fabric");
    }
    if (e.port == 0 || e.port > node.ports.size()) {
      fail("port " + std::to_string(e.port) + " of " + node.name + " does not exist");
    }
    if (e.lid != 0) {
      try {
        lids_.assign(n, PortNum(static_cast<std::uint8_t>(is_sw ? 0 : e.port)),
                     Lid(static_cast<std::uint16_t>(e.lid)));
      } catch (const std::invalid_argument& err) {
        fail(err.what());
      }
    }
    return {n, PortNum(static_cast<std::uint8_t>(e.port))};
  }

  const Fabric& f_;
  std::string_view name_;
  LidMap& lids_;
  std::unordered_map<std::uint64_t, NodeIdx> by_guid_;
  std::size_t line_ = 0;
};

// ---- opensm-lfts.dump -----------------------------------------------------------------------

class LftDumpParser {
 public:
  LftDumpParser(const Fabric& f, std::string_view name, LftSet& out)
      : f_(f), name_(name), out_(out), by_guid_(nodes_by_guid(f)) {}

  void parse(std::string_view text) {
    Lines lines(text);
    std::string_view line;
    std::size_t blocks = 0;
    while (lines.next(line)) {
      line_ = lines.number();
      Cursor c{line};
      c.skip_blanks();
      if (c.done()) continue;
      if (c.eat("Unicast lids [")) {
        header(c);
        ++blocks;
      } else if (c.rest().starts_with("0x")) {
        entry(c);
      } else if (std::uint64_t n = 0; c.number(10, 0xFFFF, n) && c.eat(" lids dumped")) {
        if (!sw_.valid()) fail("'lids dumped' line outside a switch block");
        if (n != max_lid_) {
          fail("block of " + f_.node(sw_).name + " ends with " + std::to_string(n) +
               " but its header (line " + std::to_string(header_line_) + ") says lids [0-" +
               std::to_string(max_lid_) + "]");
        }
        sw_ = NodeIdx{};
      } else {
        fail("unrecognised line '" + excerpt(line) + "'");
      }
    }
    line_ = lines.number() + 1;
    if (sw_.valid()) {
      fail("end of file inside the block of " + f_.node(sw_).name + " begun at line " +
           std::to_string(header_line_) + " (no 'lids dumped' line: truncated dump?)");
    }
    if (blocks == 0 && !f_.switches().empty()) fail("no switch tables in the dump");
  }

 private:
  [[noreturn]] void fail(std::string_view what) const { throw DumpError(name_, line_, what); }

  // Unicast lids [0-24] of switch Lid 2 guid 0x0002c90200000001 ('l1s001'):
  void header(Cursor& c) {
    if (sw_.valid()) {
      fail("new block before the 'lids dumped' line of " + f_.node(sw_).name + " (line " +
           std::to_string(header_line_) + ")");
    }
    std::uint64_t lid = 0;
    std::uint64_t guid = 0;
    if (!c.eat("0-") || !c.number(10, kMaxUnicastLid.value(), max_lid_) ||
        !c.eat("] of switch Lid ") || !c.number(10, kMaxUnicastLid.value(), lid) ||
        !c.eat(" guid 0x") || !c.number(16, ~std::uint64_t{0}, guid) || !c.eat(" (")) {
      fail(
          "malformed block header, expected \"Unicast lids [0-MAX] of switch Lid L guid 0xGUID "
          "('desc'):\"");
    }
    const auto it = by_guid_.find(guid);
    if (it == by_guid_.end())
      fail("switch GUID " + hex_guid(guid) + " is not a node of the fabric");
    const NodeIdx n = it->second;
    if (!f_.node(n).is_switch()) {
      fail("GUID " + hex_guid(guid) + " is HCA " + f_.node(n).name + ", not a switch");
    }
    if (out_.has_table(n)) fail("second table for switch " + f_.node(n).name);
    const Lid listed = out_.lids.lid(n);
    if (listed.value() == 0 && lid != 0) {
      try {
        out_.lids.assign(n, kSwitchPort0, Lid(static_cast<std::uint16_t>(lid)));
      } catch (const std::invalid_argument& err) {
        fail(err.what());
      }
    } else if (listed.value() != lid) {
      fail("switch " + f_.node(n).name + " has LID " + std::to_string(lid) + " here but LID " +
           std::to_string(listed.value()) + " in the subnet list");
    }
    sw_ = n;
    header_line_ = line_;
    (void)out_.table(n);
    seen_.assign(max_lid_ + 1, false);
  }

  // 0x0001 001 # Channel Adapter portguid 0x0002c90300000002: 'n0001 HCA-1'
  void entry(Cursor& c) {
    if (!sw_.valid()) fail("table entry outside a switch block");
    c.pos += 2;
    std::uint64_t lid = 0;
    std::uint64_t port = 0;
    if (!c.number(16, 0xFFFF, lid)) fail("malformed LID, expected 0xHHHH");
    c.skip_blanks();
    if (!c.number(10, 0xFF, port)) fail("malformed output port after LID " + std::to_string(lid));
    c.skip_blanks();
    if (!c.done() && !c.eat("#"))
      fail("unexpected text after the port: '" + excerpt(c.rest()) + "'");
    if (lid > max_lid_) {
      fail("LID " + std::to_string(lid) + " is beyond the block's range [0-" +
           std::to_string(max_lid_) + "]");
    }
    if (seen_[lid]) fail("second entry for LID " + std::to_string(lid));
    seen_[lid] = true;
    const auto p = PortNum(static_cast<std::uint8_t>(port));
    if (p != kLftUnset && port > f_.node(sw_).ports.size()) {
      fail("port " + std::to_string(port) + " for LID " + std::to_string(lid) + ", but " +
           f_.node(sw_).name + " has " + std::to_string(f_.node(sw_).ports.size()) + " ports");
    }
    out_.table(sw_).set(Lid(static_cast<std::uint16_t>(lid)), p);
  }

  const Fabric& f_;
  std::string_view name_;
  LftSet& out_;
  std::unordered_map<std::uint64_t, NodeIdx> by_guid_;
  std::size_t line_ = 0;
  NodeIdx sw_{};  // the switch whose block is open
  std::size_t header_line_ = 0;
  std::uint64_t max_lid_ = 0;
  std::vector<bool> seen_;
};

std::string lid_label(const Fabric& f, const LidMap& lids, Lid lid) {
  std::string s = hex_lid(lid);
  if (const auto o = lids.owner(lid)) s += " (" + f.node(o->node).name + ")";
  return s;
}

}  // namespace

// ---- LidMap, Lft, LftSet --------------------------------------------------------------------

LidMap::LidMap(const Fabric& f) : port_lids_(f.num_nodes()), is_switch_(f.num_nodes()) {
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    port_lids_[i].assign(f.nodes()[i].ports.size() + 1, Lid{});
    is_switch_[i] = f.nodes()[i].is_switch();
  }
}

void LidMap::assign(NodeIdx node, PortNum port, Lid lid) {
  if (node.value() >= port_lids_.size()) throw std::invalid_argument("LID for an unknown node");
  auto& ports = port_lids_[node.value()];
  // InfiniBand gives a switch one LID, on port 0; an HCA one per physical port.
  if (is_switch_[node.value()] ? port.value() != 0
                               : port.value() == 0 || port.value() >= ports.size()) {
    throw std::invalid_argument("LID " + hex_lid(lid) + " for port " + port_text(port) +
                                (is_switch_[node.value()] ? " of a switch (only port 0 has one)"
                                                          : " that the HCA does not have"));
  }
  if (lid.value() == 0 || lid > kMaxUnicastLid) {
    throw std::invalid_argument("LID " + hex_lid(lid) + " is not a unicast LID");
  }
  if (ports[port.value()] == lid) return;
  if (ports[port.value()].value() != 0) {
    throw std::invalid_argument("port " + port_text(port) + " already has LID " +
                                hex_lid(ports[port.value()]) + ", now " + hex_lid(lid));
  }
  if (lid.value() < owners_.size() && owners_[lid.value()].node.valid()) {
    throw std::invalid_argument("LID " + hex_lid(lid) + " is given to two ports");
  }
  ports[port.value()] = lid;
  if (lid.value() >= owners_.size()) owners_.resize(lid.value() + 1u);
  owners_[lid.value()] = LidOwner{node, port};
}

Lid LidMap::lid(NodeIdx node) const {
  const auto& ports = port_lids_.at(node.value());
  for (const Lid l : ports) {
    if (l.value() != 0) return l;
  }
  return Lid{};
}

Lid LidMap::lid(NodeIdx node, PortNum port) const {
  const auto& ports = port_lids_.at(node.value());
  return port.value() < ports.size() ? ports[port.value()] : Lid{};
}

std::optional<LidOwner> LidMap::owner(Lid lid) const {
  if (lid.value() == 0 || lid.value() >= owners_.size() || !owners_[lid.value()].node.valid()) {
    return std::nullopt;
  }
  return owners_[lid.value()];
}

LidMap sequential_lids(const Fabric& f) {
  LidMap m(f);
  std::uint32_t next = 1;
  const auto take = [&next]() {
    if (next > kMaxUnicastLid.value()) throw std::invalid_argument("more ports than unicast LIDs");
    return Lid(static_cast<std::uint16_t>(next++));
  };
  for (const NodeIdx h : f.hcas()) {
    for (const Port& p : f.node(h).ports) {
      if (p.connected()) m.assign(h, p.num, take());
    }
  }
  for (const NodeIdx s : f.switches()) m.assign(s, kSwitchPort0, take());
  return m;
}

void Lft::set(Lid dlid, PortNum port) {
  if (dlid > kMaxUnicastLid)
    throw std::invalid_argument("LFT entry for multicast LID " + hex_lid(dlid));
  if (dlid.value() >= ports_.size()) ports_.resize(dlid.value() + 1u, kLftUnset);
  ports_[dlid.value()] = port;
}

Lft& LftSet::table(NodeIdx sw) {
  present_.at(sw.value()) = true;
  return tables_.at(sw.value());
}

// ---- builders -------------------------------------------------------------------------------

LftSet lfts_from_opensm_dump(const Fabric& f, std::string_view lfts_dump_text,
                             std::string_view subnet_lst_text, std::string_view lfts_name,
                             std::string_view subnet_name) {
  LftSet out(f);
  SubnetListParser(f, subnet_name, out.lids).parse(subnet_lst_text);
  LftDumpParser(f, lfts_name, out).parse(lfts_dump_text);
  return out;
}

LftSet lfts_from_destination_routes(const Fabric& f, const LidMap& lids,
                                    const RoutingAlgorithm& alg) {
  if (const std::string why = alg.unsupported_reason(f); !why.empty()) {
    throw std::invalid_argument(std::string(alg.name()) + " cannot route on " + f.kind_label +
                                ": " + why);
  }
  LftSet out(f);
  out.lids = lids;
  for (const NodeIdx s : f.switches()) {
    Lft& t = out.table(s);
    if (const Lid l = lids.lid(s); l.value() != 0) t.set(l, kSwitchPort0);
  }
  // All sources toward a batch of destinations per call: bounded memory on large fabrics, and
  // few calls for algorithms that precompute per call.
  constexpr std::size_t kFlowsPerBatch = std::size_t{1} << 18;
  std::vector<Flow> flows;
  const auto flush = [&]() {
    if (flows.empty()) return;
    const std::vector<Path> paths = alg.route(RouteRequest{f, flows});
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const Lid dlid = lids.lid(flows[i].dst);
      for (const LinkId l : paths[i]) {
        const Link& link = f.link(l);
        if (!f.node(link.from).is_switch()) continue;
        Lft& t = out.table(link.from);
        const PortNum had = t.out(dlid);
        if (had != kLftUnset && had != link.from_port) {
          throw std::invalid_argument(
              std::string(alg.name()) + " is not destination-based: " + f.node(link.from).name +
              " would send " + lid_label(f, lids, dlid) + " to ports " + port_text(had) + " and " +
              port_text(link.from_port) + " (seen on the route from " + f.node(flows[i].src).name +
              ")");
        }
        t.set(dlid, link.from_port);
      }
    }
    flows.clear();
  };
  for (const NodeIdx d : f.hcas()) {
    if (lids.lid(d).value() == 0) continue;
    for (const NodeIdx s : f.hcas()) {
      if (s == d || lids.lid(s).value() == 0) continue;
      Flow fl;
      fl.src = s;
      fl.dst = d;
      flows.push_back(fl);
    }
    if (flows.size() >= kFlowsPerBatch) flush();
  }
  flush();
  complete_lfts(f, out);
  return out;
}

LftSet lfts_per_destination(const Fabric& f, const LidMap& lids, const RoutingAlgorithm& alg,
                            const Deadline& deadline) {
  if (const std::string why = alg.unsupported_reason(f); !why.empty()) {
    throw std::invalid_argument(std::string(alg.name()) + " cannot route on " + f.kind_label +
                                ": " + why);
  }
  LftSet out(f);
  out.lids = lids;
  std::vector<Lft*> table_of(f.num_nodes(), nullptr);
  for (const NodeIdx s : f.switches()) {
    Lft& t = out.table(s);
    table_of[s.value()] = &t;
    if (const Lid l = lids.lid(s); l.value() != 0) t.set(l, kSwitchPort0);
  }
  // The sources. An HCA with a LID and a single cable, to a switch, enters the fabric there: the
  // routes from all the HCAs of a switch merge at it, so one walk per such switch serves them
  // (and keeps the work per destination within the switches, not the hosts). Any other HCA
  // with a LID leaves as the column says.
  std::vector<std::uint32_t> entering(f.num_nodes(), 0);
  std::vector<NodeIdx> entry_of(f.num_nodes());
  std::vector<NodeIdx> other_sources;
  for (const NodeIdx h : f.hcas()) {
    if (lids.lid(h).value() == 0) continue;
    const Port* only = nullptr;
    std::size_t cables = 0;
    for (const Port& p : f.node(h).ports) {
      if (p.connected() && ++cables == 1) only = &p;
    }
    if (cables == 1 && f.node(only->peer).is_switch()) {
      ++entering[only->peer.value()];
      entry_of[h.value()] = only->peer;
    } else {
      other_sources.push_back(h);
    }
  }
  std::vector<NodeIdx> entry_switches;
  for (const NodeIdx s : f.switches()) {
    if (entering[s.value()] > 0) entry_switches.push_back(s);
  }

  // mark[n] == 2 * stamp: on the current walk; 2 * stamp + 1: leads to the destination.
  std::vector<std::uint64_t> mark(f.num_nodes(), 0);
  std::uint64_t stamp = 0;
  std::vector<NodeIdx> walk;
  const auto fail = [&](const DestinationColumn& c, NodeIdx from, const std::string& what) {
    throw std::invalid_argument(std::string(alg.name()) + ": the route from " + f.node(from).name +
                                " to " + lid_label(f, lids, lids.lid(c.dst)) + " " + what);
  };
  // Follows the column from switch `at` (reached from `from`) to the destination or to a switch
  // already known to lead there, writing the entries it crosses.
  const auto walk_from = [&](const DestinationColumn& c, Lid dlid, NodeIdx from, NodeIdx at) {
    walk.clear();
    NodeIdx n = at;
    while (mark[n.value()] != 2 * stamp + 1) {
      if (mark[n.value()] == 2 * stamp) fail(c, from, "comes back to " + f.node(n).name);
      mark[n.value()] = 2 * stamp;
      walk.push_back(n);
      const PortNum p = c.out[n.value()];
      const Node& node = f.node(n);
      if (p.value() == 0) fail(c, from, "stops at " + node.name + ", which has no port toward it");
      if (p.value() > node.ports.size() || !node.ports[p.value() - 1u].connected()) {
        fail(c, from, "leaves " + node.name + " through port " + port_text(p) + ", not cabled");
      }
      const Port& port = node.ports[p.value() - 1u];
      table_of[n.value()]->set(dlid, p);
      if (port.peer == c.dst) break;
      if (!f.node(port.peer).is_switch()) {
        fail(c, from, "ends at " + f.node(port.peer).name + " (from " + node.name + ")");
      }
      n = port.peer;
    }
    for (const NodeIdx w : walk) mark[w.value()] = 2 * stamp + 1;
  };
  const bool by_destination =
      alg.route_by_destination(f, deadline, [&](const DestinationColumn& c) {
        const Lid dlid = lids.lid(c.dst);
        if (dlid.value() == 0) return;
        if (c.out.size() != f.num_nodes()) {
          throw std::invalid_argument(std::string(alg.name()) + ": a column of " +
                                      std::to_string(c.out.size()) + " entries for " +
                                      std::to_string(f.num_nodes()) + " nodes");
        }
        ++stamp;
        for (const NodeIdx e : entry_switches) {
          if (entering[e.value()] > (entry_of[c.dst.value()] == e ? 1u : 0u))
            walk_from(c, dlid, e, e);
        }
        for (const NodeIdx s : other_sources) {
          if (s == c.dst) continue;
          const PortNum p = c.out[s.value()];
          const Node& node = f.node(s);
          if (p.value() == 0 || p.value() > node.ports.size() ||
              !node.ports[p.value() - 1u].connected()) {
            fail(c, s, "has no cabled first hop (port " + port_text(p) + ")");
          }
          const Port& port = node.ports[p.value() - 1u];
          if (port.peer == c.dst) continue;
          if (!f.node(port.peer).is_switch()) fail(c, s, "ends at " + f.node(port.peer).name);
          walk_from(c, dlid, s, port.peer);
        }
      });
  if (!by_destination) {
    throw std::invalid_argument(std::string(alg.name()) +
                                " is not destination-based: it routes pairs, not destinations");
  }
  complete_lfts(f, out, deadline);
  return out;
}

void complete_lfts(const Fabric& f, LftSet& lfts, const Deadline& deadline) {
  // What a breadth-first search from each LID's node (not through HCAs) gives, but one search
  // serves all the LIDs whose nodes are cabled to the same switches (the HCAs of a leaf): their
  // distances are 1 + the distances to those switches. Only the switches adjacent to the node
  // differ among them, and they are looked at per LID. One search per LID cost O(LIDs x links):
  // 1 s on a 6750-host tree, the sdn engine's whole budget.
  const std::vector<NodeIdx>& sws = f.switches();
  const std::size_t ns = sws.size();
  constexpr std::uint32_t kNoSwitch = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> index(f.num_nodes(), kNoSwitch);
  for (std::size_t k = 0; k < ns; ++k) index[sws[k].value()] = static_cast<std::uint32_t>(k);
  // The switch graph, each switch's ports to other switches in port order.
  std::vector<std::size_t> adj_begin(ns + 1, 0);
  std::vector<std::pair<PortNum, std::uint32_t>> adj;
  for (std::size_t k = 0; k < ns; ++k) {
    adj_begin[k] = adj.size();
    for (const Port& p : f.node(sws[k]).ports) {
      if (p.connected() && index[p.peer.value()] != kNoSwitch) {
        adj.emplace_back(p.num, index[p.peer.value()]);
      }
    }
  }
  adj_begin[ns] = adj.size();

  // LIDs grouped by where their searches start: {0, the switch} for a switch's LID, {1, the
  // switches cabled to the node} for an HCA's (one LID per port, all searched from the node).
  std::map<std::vector<std::uint32_t>, std::vector<Lid>> groups;
  std::vector<std::uint32_t> key;
  for (std::uint32_t raw = 1; raw <= lfts.lids.max_lid().value(); ++raw) {
    const Lid lid(static_cast<std::uint16_t>(raw));
    const auto owner = lfts.lids.owner(lid);
    if (!owner) continue;
    key.clear();
    if (f.node(owner->node).is_switch()) {
      key = {0, index[owner->node.value()]};
    } else {
      key.push_back(1);
      for (const Port& p : f.node(owner->node).ports) {
        if (p.connected() && index[p.peer.value()] != kNoSwitch) {
          key.push_back(index[p.peer.value()]);
        }
      }
      if (key.size() == 1) continue;  // no switch reaches it
      std::sort(key.begin() + 1, key.end());
      key.erase(std::unique(key.begin() + 1, key.end()), key.end());
    }
    groups[key].push_back(lid);
  }

  std::vector<int> dist(ns);
  std::vector<std::uint32_t> queue;
  // Per switch, its ports one hop closer: closer[begin[k] .. end[k]), in port order.
  std::vector<std::size_t> begin(ns);
  std::vector<std::size_t> end(ns);
  std::vector<PortNum> closer;
  std::vector<PortNum> to_node;    // a switch next to an HCA: its ports to that HCA
  std::vector<Lft*> table_of(ns);  // the tables of the switches this group's LIDs reach
  std::uint64_t step = 0;
  for (const auto& [origin, group_lids] : groups) {
    const int origin_dist = static_cast<int>(origin.front());
    std::fill(dist.begin(), dist.end(), -1);
    queue.assign(origin.begin() + 1, origin.end());
    for (const std::uint32_t k : queue) dist[k] = origin_dist;
    closer.clear();
    // When a switch leaves the queue, every switch one hop closer has its distance: its closer
    // ports are known in the same pass.
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::uint32_t at = queue[q];
      begin[at] = closer.size();
      for (std::size_t a = adj_begin[at]; a < adj_begin[at + 1]; ++a) {
        const std::uint32_t peer = adj[a].second;
        if (dist[peer] < 0) {
          dist[peer] = dist[at] + 1;
          queue.push_back(peer);
        } else if (dist[peer] == dist[at] - 1) {
          closer.push_back(adj[a].first);
        }
      }
      end[at] = closer.size();
    }

    for (std::size_t k = 0; k < ns; ++k) {
      table_of[k] = dist[k] > 0 ? &lfts.table(sws[k]) : nullptr;
      if (table_of[k] != nullptr) table_of[k]->reserve(lfts.lids.max_lid());
    }
    for (const Lid lid : group_lids) {
      deadline.check_every(step++, "completing the LFTs");
      const NodeIdx node = lfts.lids.owner(lid)->node;
      for (std::size_t k = 0; k < ns; ++k) {
        if (table_of[k] == nullptr) continue;
        Lft& t = *table_of[k];
        if (t.out(lid) != kLftUnset) continue;
        if (origin_dist == 1 && dist[k] == 1) {
          // An HCA forwards nothing: only the LID's node itself is a next hop here.
          to_node.clear();
          for (const Port& p : f.node(sws[k]).ports) {
            if (p.peer == node) to_node.push_back(p.num);
          }
          t.set(lid, to_node[lid.value() % to_node.size()]);
        } else if (const std::size_t n = end[k] - begin[k]; n > 0) {
          t.set(lid, closer[begin[k] + lid.value() % n]);
        }
      }
    }
  }
}

// ---- tracer ---------------------------------------------------------------------------------

std::string_view to_string(TraceStatus s) {
  switch (s) {
    case TraceStatus::kDelivered:
      return "delivered";
    case TraceStatus::kNoLid:
      return "no LID";
    case TraceStatus::kNoTable:
      return "no LFT";
    case TraceStatus::kUnset:
      return "unset entry";
    case TraceStatus::kNoSuchPort:
      return "no such port";
    case TraceStatus::kUncabled:
      return "port not cabled";
    case TraceStatus::kLoop:
      return "loop";
    case TraceStatus::kTooManyHops:
      return "too many hops";
    case TraceStatus::kWrongDestination:
      return "wrong destination";
  }
  return "?";
}

Trace trace(const Fabric& f, const LftSet& lfts, NodeIdx src, NodeIdx dst,
            const TraceOptions& opts) {
  if (!f.node(src).is_hca() || !f.node(dst).is_hca() || src == dst) {
    throw std::invalid_argument("trace: endpoints must be two distinct HCAs");
  }
  Trace t;
  const auto stop = [&t](TraceStatus s, std::string why) {
    t.status = s;
    t.error = std::move(why);
    return t;
  };
  const PacketHeader header{lfts.lids.lid(src), lfts.lids.lid(dst)};
  if (header.slid.value() == 0) return stop(TraceStatus::kNoLid, f.node(src).name + " has no LID");
  if (header.dlid.value() == 0) return stop(TraceStatus::kNoLid, f.node(dst).name + " has no LID");
  // Built only for error messages: all-pairs checks trace millions of routes.
  const auto to = [&]() { return "LID " + lid_label(f, lfts.lids, header.dlid); };

  const LidOwner from = *lfts.lids.owner(header.slid);
  const Port& first = f.port(src, from.port);
  if (!first.connected()) {
    return stop(TraceStatus::kUncabled,
                f.node(src).name + " port " + port_text(from.port) + " (its LID's) is not cabled");
  }
  t.path.push_back(first.out);
  NodeIdx at = first.peer;
  std::size_t switch_hops = 0;
  while (f.node(at).is_switch()) {
    const std::string& name = f.node(at).name;
    for (std::size_t i = 1; i < t.path.size(); ++i) {
      if (f.link(t.path[i]).from == at) {
        return stop(TraceStatus::kLoop, "loop: " + to() + " comes back to " + name + " after " +
                                            std::to_string(t.path.size() - i) + " hops");
      }
    }
    if (++switch_hops > opts.max_hops) {
      return stop(TraceStatus::kTooManyHops,
                  to() + " crosses more than " + std::to_string(opts.max_hops) + " switches");
    }
    if (!lfts.has_table(at)) return stop(TraceStatus::kNoTable, name + " has no LFT");
    std::optional<PortNum> chosen;
    if (opts.override_port) chosen = opts.override_port(at, header);
    const PortNum out = chosen.value_or(lfts.table(at).out(header.dlid));
    const auto where = [&]() { return name + (chosen ? " (override)" : "") + " sends " + to(); };
    if (out == kLftUnset) return stop(TraceStatus::kUnset, name + " has no entry for " + to());
    if (out == kSwitchPort0) {
      return stop(TraceStatus::kWrongDestination, where() + " to its own port 0");
    }
    if (out.value() > f.node(at).ports.size()) {
      return stop(TraceStatus::kNoSuchPort, where() + " to port " + port_text(out) +
                                                ", but it has " +
                                                std::to_string(f.node(at).ports.size()));
    }
    const Port& p = f.port(at, out);
    if (!p.connected()) {
      return stop(TraceStatus::kUncabled, where() + " to port " + port_text(out) + ", not cabled");
    }
    t.path.push_back(p.out);
    at = p.peer;
  }
  if (at != dst) {
    return stop(TraceStatus::kWrongDestination,
                to() + " is delivered to " + f.node(at).name + ", not " + f.node(dst).name);
  }
  return t;
}

}  // namespace ibsdn
