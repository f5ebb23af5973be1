// OpenSM's dumps read into LftSets: opensm-subnet.lst (LIDs) and opensm-lfts.dump (tables).
#include "common/quote_for_message.hpp"
#include "routing/lft.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "routing/lft_text.hpp"

namespace ibsdn {

namespace {

using lft_detail::lid_label;
using lft_detail::port_text;

std::string hex_guid(std::uint64_t g) {
  std::array<char, 24> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%016llx", static_cast<unsigned long long>(g));
  return buf.data();
}

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
    TextLines lines(text);
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
    if (!c.eat("{")) fail("expected '{' opening a port, found " + quote_for_message(c.rest()));
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
        fail("expected KEY:VALUE, found " + quote_for_message(c.s.substr(c.pos, space - c.pos)));
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
    if (!c.eat("}")) fail("expected '}' closing the port record of " + quote_for_message(e.desc));
    if (!e.has_node_guid) fail("port record of " + quote_for_message(e.desc) + " has no NodeGUID");
    return e;
  }

  std::pair<NodeIdx, PortNum> record(const Endpoint& e) {
    const auto it = by_guid_.find(e.node_guid);
    if (it == by_guid_.end()) {
      fail("node GUID " + hex_guid(e.node_guid) + " (" + quote_for_message(e.desc) +
           ") is not a node of the fabric");
    }
    const NodeIdx n = it->second;
    const Node& node = f_.node(n);
    const bool is_sw = e.type == "SW";
    if (!is_sw && e.type != "CA") {
      fail("node type " + quote_for_message(e.type) + " of " + node.name +
           " is not supported (SW or CA)");
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
    TextLines lines(text);
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
        fail("unrecognised line " + quote_for_message(line));
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
      fail("unexpected text after the port: " + quote_for_message(c.rest()));
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

}  // namespace

LftSet lfts_from_opensm_dump(const Fabric& f, std::string_view lfts_dump_text,
                             std::string_view subnet_lst_text, std::string_view lfts_name,
                             std::string_view subnet_name) {
  LftSet out(f);
  SubnetListParser(f, subnet_name, out.lids).parse(subnet_lst_text);
  LftDumpParser(f, lfts_name, out).parse(lfts_dump_text);
  return out;
}

LidMap lids_from_opensm_subnet_list(const Fabric& f, std::string_view subnet_lst_text,
                                    std::string_view subnet_name) {
  LidMap lids(f);
  SubnetListParser(f, subnet_name, lids).parse(subnet_lst_text);
  return lids;
}

}  // namespace ibsdn
