// `topology:` of a scenario (docs/simulation.md, "Topology"): exactly one fabric — an XGFT, a
// dragonfly or a megafly from its generator's parameters (each sweepable), or a netlist file —
// and the hosts the workload may use; and what a run's topology becomes (topology_spec(), the
// label).
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "routing/netlist.hpp"
#include "sim_backend/scenario/scenario_fields.hpp"

namespace ibsdn {
namespace {

constexpr std::array<std::string_view, 4> kFabricKeys = {"xgft", "dragonfly", "megafly", "netlist"};
constexpr int kMaxTopologyParameter = 100'000;  // the generators check the real limits

class TopologySection : FieldSection {
 public:
  explicit TopologySection(FieldReader& f) : FieldSection(f) {}

  void read(const YAML::Node& map) {
    f_.exactly_one(map, "topology", kTopologyKeys, kFabricKeys,
                   [&](const std::string& key, const YAML::Node& v) {
                     const std::string full = "topology." + key;
                     if (key == "hosts") {
                       f_.read(v, full, d_.hosts, f_.integer<std::uint32_t>(1, kMaxHosts));
                       return;
                     }
                     d_.topology_at = where_of(v);
                     if (key == "xgft") {
                       d_.topology_kind = TopologyKind::kXgft;
                       f_.read(v, full, d_.xgft, xgft());
                     } else if (key == "dragonfly") {
                       d_.topology_kind = TopologyKind::kDragonfly;
                       parameters(v, full, kDragonflyKeys, d_.dragonfly);
                     } else if (key == "megafly") {
                       d_.topology_kind = TopologyKind::kMegafly;
                       parameters(v, full, kMegaflyKeys, d_.megafly);
                     } else {
                       d_.topology_kind = TopologyKind::kNetlist;
                       f_.read(v, full, d_.netlist, netlist());
                     }
                   });
  }

 private:
  // The integer parameters of a dragonfly or megafly map, every one required and sweepable; the
  // generator checks them together for every run (build_run).
  template <std::size_t N>
  void parameters(const YAML::Node& map, const std::string& what,
                  const std::array<std::string_view, N>& keys, std::array<Field<int>, N>& fields) {
    f_.each_field(map, what, keys, [&](const std::string& key, const YAML::Node& v) {
      const auto i =
          static_cast<std::size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
      f_.read(v, what + "." + key, fields[i], f_.integer<int>(1, kMaxTopologyParameter));
    });
    for (std::size_t i = 0; i < N; ++i) {
      if (!fields[i].given()) f_.missing(map, what, keys[i]);
    }
  }

  ReadOne<XgftParams> xgft() const {
    return [this](const YAML::Node& n, const std::string& key) {
      const std::string v = r_.string(n, key);
      try {
        XgftParams p = XgftParams::parse(v);
        // The canonical text without the XGFT(...) wrapper, as written in scenarios.
        std::string text = p.to_string();
        return std::pair<XgftParams, std::string>{std::move(p), text.substr(5, text.size() - 6)};
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
    };
  }

  ReadOne<ScenarioFile> netlist() {
    return [this](const YAML::Node& n, const std::string& key) {
      std::string text;
      ScenarioFile f = f_.file(n, key, r_.string(n, key), &text);
      try {
        const Fabric fabric = parse_netlist(text, f.path);
        d_.netlist_hosts[f.path] = fabric.hcas().size();
      } catch (const std::invalid_argument& e) {
        r_.fail(n, key + ": " + e.what());
      }
      return std::pair<ScenarioFile, std::string>{f, f.written};
    };
  }
};

}  // namespace

void read_topology(FieldReader& f, const YAML::Node& map) {
  TopologySection(f).read(map);
}

TopologySpec topology_spec(const ScenarioRun& run) {
  TopologySpec spec;
  switch (run.topology.kind) {
    case TopologyKind::kXgft:
      spec.xgft = run.topology.xgft.to_string();
      break;
    case TopologyKind::kDragonfly:
      spec.dragonfly = run.topology.dragonfly.to_string();
      break;
    case TopologyKind::kMegafly:
      spec.megafly = run.topology.megafly.to_string();
      break;
    case TopologyKind::kNetlist:
      spec.netlist_in = run.topology.netlist.path;
      break;
  }
  spec.gpus_per_node = static_cast<int>(run.gpus_per_node);
  // The flow model's bandwidth multiple scales the network links only (timing_runner.cpp keeps
  // the GPU links at gpu_link x link_bandwidth).
  spec.gbps = run.link_bandwidth_gbps * run.timing.bandwidth_multiple;
  return spec;
}

std::string ScenarioTopology::label() const {
  switch (kind) {
    case TopologyKind::kXgft:
      return xgft.to_string();
    case TopologyKind::kDragonfly:
      return dragonfly.to_string();
    case TopologyKind::kMegafly:
      return megafly.to_string();
    case TopologyKind::kNetlist:
      return netlist.written;
  }
  return "?";
}

}  // namespace ibsdn
