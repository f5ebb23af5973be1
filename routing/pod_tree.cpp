#include "routing/pod_tree.hpp"

#include <stdexcept>
#include <vector>

#include "routing/fat_tree.hpp"
#include "routing/param_text.hpp"

namespace ibsdn {

namespace {

constexpr long kMaxPorts = 254;
constexpr long kMaxHosts = 1'000'000;

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

PortNum port(long p) {
  return PortNum(static_cast<std::uint8_t>(p));
}

}  // namespace

PodTreeParams PodTreeParams::parse(std::string_view text) {
  const auto v =
      parse_param_values(text, "pod-tree", {"pods", "leaves", "hosts", "aggregates", "tops"});
  PodTreeParams p;
  p.pods = v[0];
  p.leaves = v[1];
  p.hosts = v[2];
  p.aggregates = v[3];
  p.tops = v[4];
  p.validate();
  return p;
}

void PodTreeParams::validate() const {
  const auto at_least = [](int value, int min, const char* name) {
    require(value >= min, std::string("pod-tree: ") + name + " must be >= " + std::to_string(min) +
                              ", got " + std::to_string(value));
  };
  at_least(pods, 1, "pods");
  at_least(leaves, 1, "leaves");
  at_least(hosts, 1, "hosts");
  at_least(aggregates, 1, "aggregates");
  at_least(tops, 0, "tops");
  at_least(leaf_cables, 1, "leaf_cables");
  at_least(top_cables, 1, "top_cables");
  require(host_gbps > 0 && leaf_gbps > 0 && top_gbps > 0, "pod-tree: link rates must be > 0");
  const auto ports = [](const char* what, long count) {
    require(count <= kMaxPorts, std::string("pod-tree: ") + what + " would need " +
                                    std::to_string(count) + " ports (max " +
                                    std::to_string(kMaxPorts) + ")");
  };
  ports("leaves", long{hosts} + long{aggregates} * leaf_cables);
  ports("aggregates", long{leaves} * leaf_cables + long{tops} * top_cables);
  ports("tops", long{pods} * aggregates * top_cables);
  require(long{pods} * leaves * hosts <= kMaxHosts, "pod-tree: more than 1,000,000 hosts");
}

std::string PodTreeParams::to_string() const {
  return "pod-tree(" + std::to_string(pods) + "," + std::to_string(leaves) + "," +
         std::to_string(hosts) + "," + std::to_string(aggregates) + "," + std::to_string(tops) +
         ")";
}

Fabric generate_pod_tree(const PodTreeParams& s, int gpus_per_node) {
  s.validate();
  require(gpus_per_node >= 0 && gpus_per_node <= 64,
          "gpus per node must be 0..64, got " + std::to_string(gpus_per_node));
  Fabric f;
  std::vector<std::vector<NodeIdx>> leaf(static_cast<std::size_t>(s.pods));
  std::vector<std::vector<NodeIdx>> agg(static_cast<std::size_t>(s.pods));
  std::vector<NodeIdx> tops;
  std::uint64_t host_no = 0;
  std::uint64_t switch_no = 0;
  const auto add_switch = [&](std::string name, long ports) {
    const NodeIdx n = f.add_node(NodeKind::kSwitch, name, static_cast<std::size_t>(ports),
                                 Guid(0x0002c90200000000ULL + ++switch_no));
    f.node(n).description = std::move(name);
    return n;
  };
  for (int p = 0; p < s.pods; ++p) {
    const std::string pod = "p" + std::to_string(p + 1);
    for (int l = 0; l < s.leaves; ++l) {
      const NodeIdx n = add_switch(pod + "l" + std::to_string(l + 1),
                                   long{s.hosts} + long{s.aggregates} * s.leaf_cables);
      leaf[static_cast<std::size_t>(p)].push_back(n);
      for (int h = 0; h < s.hosts; ++h) {
        const std::string name = "n" + std::to_string(++host_no);
        const NodeIdx hca = f.add_node(NodeKind::kHca, name, 1,
                                       Guid(0x0002c90300000000ULL + host_no * kHcaGuidStride));
        f.node(hca).description = name + " HCA-1";
        f.node(hca).gpus = static_cast<std::uint16_t>(gpus_per_node);
        f.connect(hca, PortNum(1), n, port(h + 1), s.host_gbps);
      }
    }
    for (int a = 0; a < s.aggregates; ++a) {
      agg[static_cast<std::size_t>(p)].push_back(
          add_switch(pod + "a" + std::to_string(a + 1),
                     long{s.leaves} * s.leaf_cables + long{s.tops} * s.top_cables));
    }
  }
  for (int t = 0; t < s.tops; ++t) {
    tops.push_back(
        add_switch("t" + std::to_string(t + 1), long{s.pods} * s.aggregates * s.top_cables));
  }
  for (std::size_t p = 0; p < leaf.size(); ++p) {
    for (std::size_t l = 0; l < leaf[p].size(); ++l) {
      for (std::size_t a = 0; a < agg[p].size(); ++a) {
        for (long c = 0; c < s.leaf_cables; ++c) {
          const auto li = static_cast<long>(l);
          const auto ai = static_cast<long>(a);
          f.connect(leaf[p][l], port(s.hosts + ai * s.leaf_cables + c + 1), agg[p][a],
                    port(li * s.leaf_cables + c + 1), s.leaf_gbps);
        }
      }
    }
    for (std::size_t a = 0; a < agg[p].size(); ++a) {
      for (std::size_t t = 0; t < tops.size(); ++t) {
        for (long c = 0; c < s.top_cables; ++c) {
          const auto ti = static_cast<long>(t);
          const auto slot = static_cast<long>(p * agg[p].size() + a);
          f.connect(agg[p][a], port(long{s.leaves} * s.leaf_cables + ti * s.top_cables + c + 1),
                    tops[t], port(slot * s.top_cables + c + 1), s.top_gbps);
        }
      }
    }
  }
  std::string why;
  const std::string label = fat_tree_label(f, &why);
  if (label.empty()) throw std::logic_error("pod-tree: not recognised as a fat-tree: " + why);
  f.kind_label = f.xgft() != nullptr ? label : s.to_string();  // one aggregate per pod: an XGFT
  return f;
}

}  // namespace ibsdn
