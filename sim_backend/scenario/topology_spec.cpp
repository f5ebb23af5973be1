#include "sim_backend/scenario/topology_spec.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/netlist.hpp"
#include "routing/pod_tree.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/io/text_file.hpp"

namespace ibsdn {

namespace {

Fabric build_intact(const TopologySpec& spec) {
  const int sources = !spec.xgft.empty() + !spec.dragonfly.empty() + !spec.megafly.empty() +
                      !spec.pod_tree.empty() + !spec.netlist_in.empty();
  if (sources != 1) {
    throw std::invalid_argument(
        "give exactly one topology: --xgft, --dragonfly, --megafly, --pod-tree or --netlist-in");
  }
  if (!spec.xgft.empty())
    return generate_xgft(XgftParams::parse(spec.xgft), spec.gpus_per_node, spec.gbps);
  if (!spec.dragonfly.empty())
    return generate_dragonfly(DragonflyParams::parse(spec.dragonfly), spec.gpus_per_node,
                              spec.gbps);
  if (!spec.megafly.empty())
    return generate_megafly(MegaflyParams::parse(spec.megafly), spec.gpus_per_node, spec.gbps);
  if (!spec.pod_tree.empty()) {
    PodTreeParams p = PodTreeParams::parse(spec.pod_tree);
    p.host_gbps = p.leaf_gbps = p.top_gbps = spec.gbps;
    return generate_pod_tree(p, spec.gpus_per_node);
  }
  if (!spec.netlist_in.empty()) {
    const std::string text = read_text_file(spec.netlist_in, "netlist");
    Fabric f = parse_netlist(text, spec.netlist_in, spec.gbps);
    for (NodeIdx h : f.hcas()) f.node(h).gpus = static_cast<std::uint16_t>(spec.gpus_per_node);
    return f;
  }
  throw std::invalid_argument("this topology source is not available yet");
}

// round(percent of the switch-to-switch cables), drawn without replacement.
Fabric fail_cables(const Fabric& f, double percent, std::uint64_t seed) {
  std::vector<CableEnd> cables;
  for (const Link& l : f.links()) {
    if (l.from < l.to && f.node(l.from).is_switch() && f.node(l.to).is_switch())
      cables.push_back(CableEnd{l.from, l.from_port});
  }
  std::mt19937_64 rng(seed);
  std::shuffle(cables.begin(), cables.end(), rng);
  const auto count =
      static_cast<std::size_t>(std::llround(percent / 100.0 * static_cast<double>(cables.size())));
  cables.resize(std::min(count, cables.size()));
  Fabric out = without_cables(f, cables);
  const std::string was = out.kind_label;
  const std::string label = fat_tree_label(out);
  out.kind_label = label.empty() ? was : label + " (" + was + ")";
  return out;
}

}  // namespace

Fabric build_topology(const TopologySpec& spec) {
  if (!(spec.fail_cables_percent >= 0.0 && spec.fail_cables_percent <= 100.0)) {
    throw std::invalid_argument("--fail-cables: a percentage from 0 to 100");
  }
  Fabric f = build_intact(spec);
  if (spec.fail_cables_percent == 0.0) return f;
  return fail_cables(f, spec.fail_cables_percent, spec.fail_seed);
}

}  // namespace ibsdn
