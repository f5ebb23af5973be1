#include "routing/xgft.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "routing/fat_tree.hpp"
#include "routing/param_text.hpp"

namespace ibsdn {
namespace {

std::vector<int> parse_list(std::string_view part, std::string_view what) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= part.size()) {
    const std::size_t comma = part.find(',', pos);
    const std::string_view tok =
        part.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    int v = 0;
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (tok.empty() || ec != std::errc() || ptr != tok.data() + tok.size()) {
      throw std::invalid_argument("XGFT " + std::string(what) + ": '" + std::string(tok) +
                                  "' is not an integer");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

int digits(std::uint64_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

std::string numbered(const std::string& prefix, std::uint64_t one_based, int width) {
  std::string digits_str = std::to_string(one_based);
  if (static_cast<int>(digits_str.size()) < width) {
    digits_str.insert(0, static_cast<std::size_t>(width) - digits_str.size(), '0');
  }
  return prefix + digits_str;
}

}  // namespace

XgftParams XgftParams::parse(std::string_view text) {
  std::string s = trim_blanks(text);
  if (s.rfind("XGFT(", 0) == 0 || s.rfind("xgft(", 0) == 0) {
    if (s.back() != ')') throw std::invalid_argument("XGFT: missing ')' in '" + s + "'");
    s = s.substr(5, s.size() - 6);
  }
  std::string_view v(s);
  const auto a = v.find(';');
  const auto b = a == std::string_view::npos ? a : v.find(';', a + 1);
  if (a == std::string_view::npos || b == std::string_view::npos ||
      v.find(';', b + 1) != std::string_view::npos) {
    throw std::invalid_argument("XGFT: expected 'h;m1,..,mh;w1,..,wh', got '" + s + "'");
  }
  XgftParams p;
  const auto hs = parse_list(v.substr(0, a), "height");
  if (hs.size() != 1) throw std::invalid_argument("XGFT: height must be one integer");
  p.h = hs[0];
  p.m = parse_list(v.substr(a + 1, b - a - 1), "m list");
  p.w = parse_list(v.substr(b + 1), "w list");
  p.validate();
  return p;
}

void XgftParams::validate() const {
  if (h < 1 || h > 8)
    throw std::invalid_argument("XGFT: height must be 1..8, got " + std::to_string(h));
  if (m.size() != static_cast<std::size_t>(h) || w.size() != static_cast<std::size_t>(h)) {
    throw std::invalid_argument("XGFT: height " + std::to_string(h) + " needs " +
                                std::to_string(h) + " m values and " + std::to_string(h) +
                                " w values, got " + std::to_string(m.size()) + " and " +
                                std::to_string(w.size()));
  }
  for (int i = 0; i < h; ++i) {
    if (m[i] < 1 || w[i] < 1) {
      throw std::invalid_argument("XGFT: m" + std::to_string(i + 1) + " and w" +
                                  std::to_string(i + 1) + " must be >= 1");
    }
  }
  if (w[0] != 1) throw std::invalid_argument("XGFT: w1 must be 1 (hosts have one port)");
  for (int l = 1; l <= h; ++l) {
    const int ports = m[l - 1] + (l < h ? w[l] : 0);
    if (ports > 254) {
      throw std::invalid_argument("XGFT: level-" + std::to_string(l) + " switches would need " +
                                  std::to_string(ports) + " ports (max 254)");
    }
  }
  if (num_hosts() > 1'000'000) throw std::invalid_argument("XGFT: more than 1,000,000 hosts");
  std::uint64_t total = 0;
  for (int l = 1; l <= h; ++l) total += num_switches(l);
  if (total > 1'000'000) throw std::invalid_argument("XGFT: more than 1,000,000 switches");
}

std::string XgftParams::to_string() const {
  std::string s = "XGFT(" + std::to_string(h) + ";";
  for (int i = 0; i < h; ++i) s += (i ? "," : "") + std::to_string(m[i]);
  s += ";";
  for (int i = 0; i < h; ++i) s += (i ? "," : "") + std::to_string(w[i]);
  return s + ")";
}

std::uint64_t XgftParams::num_hosts() const {
  std::uint64_t n = 1;
  for (int v : m) n *= static_cast<std::uint64_t>(v);
  return n;
}

std::uint64_t XgftParams::num_switches(int level) const {
  std::uint64_t n = 1;
  for (int j = level; j < h; ++j) n *= static_cast<std::uint64_t>(m[j]);
  for (int j = 0; j < level; ++j) n *= static_cast<std::uint64_t>(w[j]);
  return n;
}

bool XgftParams::full_bisection() const {
  for (int i = 1; i < h; ++i) {
    if (w[i] != m[i - 1]) return false;
  }
  return true;
}

XgftLayout XgftLayout::make(const XgftParams& p) {
  XgftLayout x;
  x.params = p;
  x.m_prefix.assign(p.h + 1, 1);
  x.w_prefix.assign(p.h + 1, 1);
  for (int l = 1; l <= p.h; ++l) {
    x.m_prefix[l] = x.m_prefix[l - 1] * static_cast<std::uint64_t>(p.m[l - 1]);
    x.w_prefix[l] = x.w_prefix[l - 1] * static_cast<std::uint64_t>(p.w[l - 1]);
  }
  x.switches.resize(p.h);
  return x;
}

int XgftLayout::host_digit(std::uint32_t host, int l) const {
  return static_cast<int>((host / m_prefix[l - 1]) % static_cast<std::uint64_t>(params.m[l - 1]));
}

int XgftLayout::nca_level(std::uint32_t a, std::uint32_t b) const {
  for (int k = 0; k <= params.h; ++k) {
    if (a / m_prefix[k] == b / m_prefix[k]) return k;
  }
  return params.h;  // unreachable for valid host indexes
}

NodeIdx XgftLayout::ancestor(std::uint32_t host, int l, std::uint64_t y_index) const {
  const std::uint64_t x_index = host / m_prefix[l];
  return switches[l - 1][x_index * w_prefix[l] + (y_index % w_prefix[l])];
}

Fabric generate_xgft(const XgftParams& p, int gpus_per_node, double gbps) {
  p.validate();
  if (gpus_per_node < 0 || gpus_per_node > 64) {
    throw std::invalid_argument("gpus per node must be 0..64, got " +
                                std::to_string(gpus_per_node));
  }
  XgftLayout x = XgftLayout::make(p);
  Fabric f;
  f.kind_label = p.to_string();
  const std::uint64_t n = p.num_hosts();
  const int hw = std::max(4, digits(n));
  x.hosts.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::string name = numbered("n", i + 1, hw);
    const NodeIdx id =
        f.add_node(NodeKind::kHca, name, 1, Guid(0x0002c90300000000ULL + (i + 1) * kHcaGuidStride));
    Node& nd = f.node(id);
    nd.description = name + " HCA-1";
    nd.gpus = static_cast<std::uint16_t>(gpus_per_node);
    x.hosts.push_back(id);
  }
  std::uint64_t guid_seq = 1;
  for (int l = 1; l <= p.h; ++l) {
    const std::uint64_t count = p.num_switches(l);
    const int sw = std::max(3, digits(count));
    const int ports = p.m[l - 1] + (l < p.h ? p.w[l] : 0);
    x.switches[l - 1].reserve(count);
    for (std::uint64_t s = 0; s < count; ++s) {
      const std::string name = numbered("l" + std::to_string(l) + "s", s + 1, sw);
      const NodeIdx id = f.add_node(NodeKind::kSwitch, name, static_cast<std::size_t>(ports),
                                    Guid(0x0002c90200000000ULL + guid_seq++));
      f.node(id).description = name;
      x.switches[l - 1].push_back(id);
    }
  }
  // Cable every level-(l-1) node to its w_l parents.
  for (int l = 1; l <= p.h; ++l) {
    const std::uint64_t below = l == 1 ? n : p.num_switches(l - 1);
    for (std::uint64_t c = 0; c < below; ++c) {
      const std::uint64_t child_x = l == 1 ? c : c / x.w_prefix[l - 1];
      const std::uint64_t child_y = l == 1 ? 0 : c % x.w_prefix[l - 1];
      const NodeIdx child = l == 1 ? x.hosts[c] : x.switches[l - 2][c];
      for (int y = 0; y < p.w[l - 1]; ++y) {
        const std::uint64_t parent_x = child_x / static_cast<std::uint64_t>(p.m[l - 1]);
        const std::uint64_t parent_y = child_y + static_cast<std::uint64_t>(y) * x.w_prefix[l - 1];
        const NodeIdx parent = x.switches[l - 1][parent_x * x.w_prefix[l] + parent_y];
        const int down_port =
            static_cast<int>(child_x % static_cast<std::uint64_t>(p.m[l - 1])) + 1;
        const int up_port = l == 1 ? 1 : p.m[l - 2] + 1 + y;
        f.connect(child, PortNum(static_cast<std::uint8_t>(up_port)), parent,
                  PortNum(static_cast<std::uint8_t>(down_port)), gbps);
      }
    }
  }
  f.compute_levels();
  index_xgft_ports(f, x);
  f.set_xgft(std::move(x));
  FatTreeLayout tree;
  if (!build_fat_tree_layout(f, tree, nullptr)) throw std::logic_error("an XGFT is a fat-tree");
  f.set_fat_tree(std::move(tree));
  return f;
}

void index_xgft_ports(const Fabric& f, XgftLayout& x) {
  const XgftParams& p = x.params;
  x.host_of_node.assign(f.num_nodes(), XgftLayout::kNotHost);
  for (std::uint32_t i = 0; i < x.hosts.size(); ++i) x.host_of_node[x.hosts[i].value()] = i;
  x.up_port.assign(f.num_nodes(), {});
  x.down_port.assign(f.num_nodes(), {});
  // For every level-(l-1) node and every up digit y, find the port cabled to that parent.
  for (int l = 1; l <= p.h; ++l) {
    const std::uint64_t below = l == 1 ? x.hosts.size() : x.switches[l - 2].size();
    for (std::uint64_t c = 0; c < below; ++c) {
      const std::uint64_t child_x = l == 1 ? c : c / x.w_prefix[l - 1];
      const std::uint64_t child_y = l == 1 ? 0 : c % x.w_prefix[l - 1];
      const NodeIdx child = l == 1 ? x.hosts[c] : x.switches[l - 2][c];
      const std::uint64_t parent_x = child_x / static_cast<std::uint64_t>(p.m[l - 1]);
      const auto digit = static_cast<std::size_t>(child_x % static_cast<std::uint64_t>(p.m[l - 1]));
      auto& ups = x.up_port[child.value()];
      ups.assign(static_cast<std::size_t>(p.w[l - 1]), PortNum{});
      for (int y = 0; y < p.w[l - 1]; ++y) {
        const NodeIdx parent = x.switches[l - 1][parent_x * x.w_prefix[l] + child_y +
                                                 static_cast<std::uint64_t>(y) * x.w_prefix[l - 1]];
        auto& downs = x.down_port[parent.value()];
        if (downs.empty()) downs.assign(static_cast<std::size_t>(p.m[l - 1]), PortNum{});
        for (const Port& port : f.node(child).ports) {
          if (port.peer == parent) {
            ups[static_cast<std::size_t>(y)] = port.num;
            downs[digit] = port.peer_port;
            break;
          }
        }
        if (ups[static_cast<std::size_t>(y)].value() == 0) {
          throw std::invalid_argument("XGFT: " + f.node(child).name +
                                      " is not cabled to its parent " + f.node(parent).name);
        }
      }
    }
  }
}

void xgft_path(const Fabric& f, const XgftLayout& x, std::uint32_t s, std::uint32_t d,
               std::uint64_t y_index, std::vector<LinkId>& out) {
  const int k = x.nca_level(s, d);
  if (k == 0) throw std::invalid_argument("xgft_path: source and destination are the same host");
  NodeIdx cur = x.hosts[s];
  for (int l = 1; l <= k; ++l) {
    const auto y = static_cast<std::size_t>((y_index / x.w_prefix[l - 1]) %
                                            static_cast<std::uint64_t>(x.params.w[l - 1]));
    const Port& p = f.port(cur, x.up_port[cur.value()][y]);
    out.push_back(p.out);
    cur = p.peer;
  }
  for (int l = k; l >= 1; --l) {
    const auto digit = static_cast<std::size_t>(x.host_digit(d, l));
    const Port& p = f.port(cur, x.down_port[cur.value()][digit]);
    out.push_back(p.out);
    cur = p.peer;
  }
}

std::uint64_t xgft_path_y_index(const Fabric& f, const XgftLayout& x,
                                std::span<const LinkId> path) {
  if (path.size() < 2 || path.size() % 2 != 0) {
    throw std::invalid_argument("path of " + std::to_string(path.size()) +
                                " links cannot be a host-to-host up*/down* path");
  }
  const Link& first = f.link(path.front());
  const Link& last = f.link(path.back());
  const auto s = x.host_of_node.at(first.from.value());
  const auto d = x.host_of_node.at(last.to.value());
  if (s == XgftLayout::kNotHost || d == XgftLayout::kNotHost) {
    throw std::invalid_argument("path does not start and end at hosts");
  }
  const int k = x.nca_level(s, d);
  if (path.size() != static_cast<std::size_t>(2 * k)) {
    throw std::invalid_argument("path has " + std::to_string(path.size()) +
                                " links; the shortest " +
                                "up*/down* path between these hosts has " + std::to_string(2 * k));
  }
  std::uint64_t y_index = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Link& ln = f.link(path[i]);
    if (i > 0 && f.link(path[i - 1]).to != ln.from) {
      throw std::invalid_argument("path is not contiguous at hop " + std::to_string(i));
    }
    const int lf = f.level(ln.from);
    const int lt = f.level(ln.to);
    const bool up = i < static_cast<std::size_t>(k);
    if ((up && lt != lf + 1) || (!up && lt != lf - 1)) {
      throw std::invalid_argument("hop " + std::to_string(i) + " goes the wrong way for up*/down*");
    }
    if (up) {
      const auto& ups = x.up_port[ln.from.value()];
      const auto it = std::find(ups.begin(), ups.end(), ln.from_port);
      if (it == ups.end())
        throw std::invalid_argument("hop " + std::to_string(i) + " is not an up port");
      y_index += static_cast<std::uint64_t>(it - ups.begin()) * x.w_prefix[lf];
    }
  }
  std::vector<LinkId> again;
  xgft_path(f, x, s, d, y_index, again);
  if (!std::equal(again.begin(), again.end(), path.begin(), path.end())) {
    throw std::invalid_argument("path does not follow the XGFT's down ports to its destination");
  }
  return y_index;
}

}  // namespace ibsdn
