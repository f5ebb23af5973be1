// Extended generalized fat-trees, XGFT(h; m1..mh; w1..wh) (thesis 2.1.1).
//
// Labels. A host is (x_h, ..., x_1) with x_i < m_i; its host index is the mixed-radix number with
// x_1 least significant, so hosts on one leaf are consecutive. A level-l switch is
// (x_h..x_{l+1}; y_l..y_1) with y_i < w_i. Its "x index" is x_{l+1}..x_h read with x_{l+1} least
// significant, its "y index" is y_1..y_l with y_1 least significant, and its switch index at that
// level is x_index * (w_1*...*w_l) + y_index.
//
// Ports. The generator gives a level-l switch down ports 1..m_l (port x_l + 1 leads to the child
// whose x_l digit is x_l) followed by up ports m_l+1 .. m_l+w_{l+1} (port m_l + 1 + y leads to the
// parent whose y_{l+1} digit is y). A host has one port (w_1 must be 1). A fabric recognised from
// a netlist may be cabled in any order, so routing goes through the layout's port maps.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "routing/fabric.hpp"

namespace ibsdn {

struct XgftParams {
  int h = 0;
  std::vector<int> m;  // m[0] = m_1 ... m[h-1] = m_h
  std::vector<int> w;  // w[0] = w_1 ... w[h-1] = w_h

  /// Parses "3;8,8,16;1,8,8" (the XGFT(...) wrapper is optional). Throws std::invalid_argument
  /// naming the offending part.
  static XgftParams parse(std::string_view text);
  /// Throws std::invalid_argument when the parameters do not describe a buildable XGFT.
  void validate() const;
  [[nodiscard]] std::string to_string() const;  // "XGFT(3;8,8,16;1,8,8)"
  [[nodiscard]] std::uint64_t num_hosts() const;
  [[nodiscard]] std::uint64_t num_switches(int level) const;
  /// w_{i+1} == m_i for every level i >= 1 (thesis: full bisection bandwidth).
  [[nodiscard]] bool full_bisection() const;
};

struct XgftLayout {
  XgftParams params;
  std::vector<NodeIdx> hosts;                  // host index -> HCA node
  std::vector<std::vector<NodeIdx>> switches;  // switches[l-1][switch index] -> node, l = 1..h
  std::vector<std::uint32_t> host_of_node;     // node -> host index, or kNotHost
  // Port maps, indexed by node: up_port[n][y] leads to the parent whose up digit is y,
  // down_port[n][x] to the child whose digit is x (empty for hosts / top-level switches).
  std::vector<std::vector<PortNum>> up_port;
  std::vector<std::vector<PortNum>> down_port;
  static constexpr std::uint32_t kNotHost = 0xFFFFFFFFu;

  // Products used by the label arithmetic, precomputed by make().
  std::vector<std::uint64_t> m_prefix;  // m_prefix[l] = m_1*...*m_l, m_prefix[0] = 1
  std::vector<std::uint64_t> w_prefix;  // w_prefix[l] = w_1*...*w_l, w_prefix[0] = 1

  static XgftLayout make(const XgftParams& p);

  /// Digit x_l (1-based level) of a host index.
  [[nodiscard]] int host_digit(std::uint32_t host, int l) const;
  /// Level of the nearest common ancestors of two distinct hosts (1..h); 0 if equal.
  [[nodiscard]] int nca_level(std::uint32_t a, std::uint32_t b) const;
  /// The level-l switch (l >= 1) reached from `host` by the up digits y_2..y_l packed as y index
  /// (y_2 least significant, since w_1 = 1).
  [[nodiscard]] NodeIdx ancestor(std::uint32_t host, int l, std::uint64_t y_index) const;
  /// Number of distinct up*/down* shortest paths between hosts whose NCA is at level k.
  [[nodiscard]] std::uint64_t paths_at_level(int k) const { return w_prefix[k]; }
};

/// Fills host_of_node, up_port and down_port from hosts / switches and the fabric's cabling.
/// Throws std::invalid_argument if the cabling does not match the labels.
void index_xgft_ports(const Fabric& f, XgftLayout& x);

/// If `f` is cabled as an XGFT(h; m; w) with w1 = 1, in any port order, attaches the layout (host
/// and switch labels recovered from the cabling, port maps indexed) and returns true. Otherwise
/// leaves `f` unchanged, stores the reason in `*why` (when not null) and returns false.
/// Computes levels first when they are missing.
bool recognize_xgft(Fabric& f, std::string* why);

/// Builds the fabric of an XGFT: hosts n0001.., switches l<level>s<index>, down ports first.
/// `gpus_per_node` is stored on every HCA. Link capacity `gbps` on every cable.
Fabric generate_xgft(const XgftParams& p, int gpus_per_node = 1, double gbps = 100.0);

/// The path (directed links, host to host) that goes up from host `s` through the up digits
/// packed in `y_index` (see XgftLayout::ancestor) to their NCA level and down to host `d`.
void xgft_path(const Fabric& f, const XgftLayout& x, std::uint32_t s, std::uint32_t d,
               std::uint64_t y_index, std::vector<LinkId>& out);

/// Recovers y index of the up digits a host-to-host path took (inverse of xgft_path);
/// throws std::invalid_argument if the path is not a shortest up*/down* path on this XGFT.
std::uint64_t xgft_path_y_index(const Fabric& f, const XgftLayout& x, std::span<const LinkId> path);

}  // namespace ibsdn
