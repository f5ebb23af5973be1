// A scenario's runs: the cartesian product of its sweeps (zipped sweeps count as one), one concrete
// ScenarioRun each.
#include <cinttypes>
#include <cstdio>
#include <stdexcept>

#include "sim_backend/scenario/scenario.hpp"
#include "sim_backend/scenario/scenario_draft.hpp"

namespace ibsdn {
namespace {

// The choice of every axis for run `index`: its group's position.
std::vector<std::size_t> choices(const Scenario::Draft& d, std::size_t index) {
  const std::vector<std::size_t> at = group_positions(d, index);
  std::vector<std::size_t> c(d.axes.size());
  for (std::size_t a = 0; a < d.axes.size(); ++a) c[a] = at[d.axes[a].group];
  return c;
}

std::string label_of(const Scenario::Draft& d, std::span<const std::size_t> c) {
  std::string out;
  for (std::size_t a = 0; a < d.axes.size(); ++a) {
    out += (out.empty() ? "" : " ") + d.axes[a].key + "=" + d.axes[a].values[c[a]];
  }
  return out;
}

// Where a check that only a combination can fail reports it, naming the run when there are
// several.
class RunError {
 public:
  RunError(const Scenario::Draft& d, const ScenarioRun& run) : d_(d), run_(run) {}
  [[noreturn]] void fail(Where at, const std::string& what) const {
    std::string text = what;
    if (d_.run_count > 1) {
      text += " (run " + std::to_string(run_.index + 1) + " of " + std::to_string(d_.run_count) +
              ": " + run_.label + ")";
    }
    throw ConfigError(d_.source, at.line, at.column, text);
  }

 private:
  const Scenario::Draft& d_;
  const ScenarioRun& run_;
};

template <std::size_t N>
std::array<int, N> parameters(const std::array<Field<int>, N>& fields,
                              std::span<const std::size_t> c) {
  std::array<int, N> v{};
  for (std::size_t i = 0; i < N; ++i) v[i] = fields[i].value(c);
  return v;
}

void build_topology(const Scenario::Draft& d, std::span<const std::size_t> c, const RunError& err,
                    ScenarioTopology& t) {
  t.kind = d.topology_kind;
  try {
    switch (d.topology_kind) {
      case TopologyKind::kXgft:
        t.xgft = d.xgft.value(c);
        t.fabric_hosts = t.xgft.num_hosts();
        break;
      case TopologyKind::kDragonfly: {
        const auto [p, a, h, g] = parameters(d.dragonfly, c);
        t.dragonfly = DragonflyParams{p, a, h, g};
        t.dragonfly.validate();
        t.fabric_hosts = t.dragonfly.num_hosts();
        break;
      }
      case TopologyKind::kMegafly: {
        const auto [nodes, leaves, spines, global, groups] = parameters(d.megafly, c);
        t.megafly = MegaflyParams{nodes, leaves, spines, global, groups};
        t.megafly.validate();
        t.fabric_hosts = t.megafly.num_hosts();
        break;
      }
      case TopologyKind::kNetlist:
        t.netlist = d.netlist.value(c);
        t.fabric_hosts = d.netlist_hosts.at(t.netlist.path);
        break;
    }
  } catch (const std::invalid_argument& e) {
    err.fail(d.topology_at, std::string("topology: ") + e.what());
  }
  if (t.fabric_hosts == 0) err.fail(d.topology_at, "topology: the fabric has no hosts");
  if (!d.hosts.given()) {
    t.hosts = static_cast<std::uint32_t>(t.fabric_hosts);
    return;
  }
  t.hosts = d.hosts.value(c);
  if (t.hosts > t.fabric_hosts) {
    err.fail(d.hosts.where(c), "topology.hosts: " + std::to_string(t.hosts) + " exceeds the " +
                                   std::to_string(t.fabric_hosts) + " hosts of " + t.label());
  }
}

ScenarioWorkload build_workload(const Scenario::Draft& d, std::span<const std::size_t> c,
                                const RunError& err, std::uint32_t hosts,
                                std::uint32_t ranks_per_node) {
  switch (d.workload_kind) {
    case WorkloadKind::kTrace: {
      TraceWorkload w;
      w.file = d.trace_file.value(c);
      w.cpus_per_node = d.trace_cpus_per_node.value(c);
      if (d.trace_first.given()) w.first = d.trace_first.value(c);
      w.system_nodes = hosts;
      if (d.trace_system_nodes.given()) {
        w.system_nodes = d.trace_system_nodes.value(c);
        if (w.system_nodes > hosts) {
          err.fail(d.trace_system_nodes.where(c),
                   "workload.trace.system_nodes: " + std::to_string(w.system_nodes) +
                       " exceeds the " + std::to_string(hosts) + " hosts the topology gives");
        }
      }
      return w;
    }
    case WorkloadKind::kSynthetic: {
      SyntheticWorkload w;
      w.preset = d.synthetic_preset.value(c);
      w.jobs = d.synthetic_jobs.value(c);
      if (d.synthetic_utilisation.given()) w.utilisation = d.synthetic_utilisation.value(c);
      return w;
    }
    case WorkloadKind::kJobs:
      break;
  }
  const ScenarioJob& largest = d.jobs->at(d.largest_job);
  if (largest.nodes > hosts) {
    err.fail(d.largest_job_at, "workload.jobs[" + std::to_string(d.largest_job) +
                                   "].nodes: " + std::to_string(largest.nodes) + " exceeds the " +
                                   std::to_string(hosts) + " hosts the topology gives");
  }
  if (d.most_ranks_job) {
    const std::uint32_t ranks = d.jobs->at(*d.most_ranks_job).ranks;
    const std::uint64_t nodes = (std::uint64_t{ranks} + ranks_per_node - 1) / ranks_per_node;
    if (nodes > hosts) {
      err.fail(d.most_ranks_at, "workload.jobs[" + std::to_string(*d.most_ranks_job) +
                                    "].ranks: " + std::to_string(ranks) + " ranks at " +
                                    std::to_string(ranks_per_node) + " per node need " +
                                    std::to_string(nodes) + " nodes; the topology gives " +
                                    std::to_string(hosts));
    }
  }
  return ExplicitJobs{d.jobs};
}

}  // namespace

ScenarioRun build_run(const Scenario::Draft& d, std::size_t index) {
  if (index >= d.run_count) {
    throw std::out_of_range("scenario run " + std::to_string(index) + " of " +
                            std::to_string(d.run_count));
  }
  const std::vector<std::size_t> c = choices(d, index);
  ScenarioRun run;
  run.index = index;
  run.label = label_of(d, c);
  const RunError err(d, run);
  run.name = d.name;
  run.seed = d.seed.value(c);
  build_topology(d, c, err, run.topology);
  run.link_bandwidth_gbps = d.link_bandwidth_gbps.value(c);
  run.gpus_per_node = d.gpus_per_node.value(c);
  run.ranks_per_node = d.ranks_per_node.given() ? d.ranks_per_node.value(c) : run.gpus_per_node;
  run.placement = d.placement.value(c);
  run.allocation = d.allocation.value(c);
  run.routing = d.routing.value(c);
  run.table_capacity = d.table_capacity.value(c);
  run.flow_level = d.flow_level.value(c);
  run.load_guard = d.load_guard.value(c) != 0;
  run.install_backend = d.install_backend.value(c);
  if (run.install_backend == InstallBackend::kLft &&
      (d.topology_kind == TopologyKind::kDragonfly || d.topology_kind == TopologyKind::kMegafly)) {
    err.fail(
        d.install_backend.where(c),
        "install_backend: lft needs a fat-tree (LFT entries are written only where every "
        "route stays a shortest up*/down* path), and " +
            std::string(d.topology_kind == TopologyKind::kDragonfly ? "a dragonfly" : "a megafly") +
            " is not one");
  }
  run.model = d.model.value(c);
  if (d.pattern.given()) run.pattern = d.pattern.value(c);
  if (d.application.given()) run.application = d.application.value(c);
  if (run.model == SimulationModel::kFlow) {
    TimingSettings& t = run.timing;
    t.nic = d.nic.value(c);
    t.gpu_link = d.gpu_link.value(c);
    t.link_latency = d.link_latency.value(c);
    t.bandwidth_multiple = d.bandwidth_multiple.value(c);
    t.baseline = d.baseline.value(c);
    t.alone = d.alone.value(c) != 0;
    t.sample_interval = d.sample_interval.value(c);
    t.elephant_bytes = d.elephant_bytes.value(c);
    t.adaptive.dragonfly.rule = d.adaptive_rule.value(c);
    t.adaptive.dragonfly.bias = d.adaptive_bias.value(c);
    t.adaptive.dragonfly.seed = run.seed;
    t.adaptive.fat_tree.split_slack = d.split_slack.value(c);
    build_qos(d, c, t);
    if (t.background && t.background->nodes > run.topology.hosts) {
      err.fail(d.background_nodes.where(c),
               "timing.background.nodes: " + std::to_string(t.background->nodes) + " exceeds the " +
                   std::to_string(run.topology.hosts) + " hosts the topology gives");
    }
  }
  run.workload = build_workload(d, c, err, run.topology.hosts, run.ranks_per_node);
  return run;
}

std::vector<std::size_t> group_positions(const Scenario::Draft& d, std::size_t index) {
  std::vector<std::size_t> at(d.group_sizes.size());
  for (std::size_t g = d.group_sizes.size(); g-- > 0;) {
    at[g] = index % d.group_sizes[g];
    index /= d.group_sizes[g];
  }
  return at;
}

std::size_t run_index(const Scenario::Draft& d, std::span<const std::size_t> positions) {
  std::size_t index = 0;
  for (std::size_t g = 0; g < d.group_sizes.size(); ++g) {
    index = index * d.group_sizes[g] + positions[g];
  }
  return index;
}

Scenario::Scenario(std::shared_ptr<const Draft> draft) : draft_(std::move(draft)) {}

const std::string& Scenario::name() const {
  return draft_->name;
}

const std::string& Scenario::source() const {
  return draft_->source;
}

const std::vector<SweepAxis>& Scenario::axes() const {
  return draft_->axes;
}

std::size_t Scenario::run_count() const {
  return draft_->run_count;
}

std::uint64_t Scenario::hash() const {
  return draft_->hash;
}

std::string Scenario::hash_text() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, draft_->hash);
  return buf;
}

const std::string& Scenario::canonical_json() const {
  return draft_->canonical_json;
}

std::optional<std::size_t> Scenario::reference_run(std::size_t index) const {
  if (draft_->reference.empty()) return std::nullopt;
  std::vector<std::size_t> at = group_positions(*draft_, index);
  for (const auto& [group, position] : draft_->reference) at[group] = position;
  return run_index(*draft_, at);
}

const std::string& Scenario::reference_label() const {
  return draft_->reference_label;
}

ScenarioRun Scenario::run(std::size_t index) const {
  return build_run(*draft_, index);
}

std::vector<ScenarioRun> expand(const Scenario& s) {
  std::vector<ScenarioRun> runs;
  runs.reserve(s.run_count());
  for (std::size_t i = 0; i < s.run_count(); ++i) runs.push_back(s.run(i));
  return runs;
}

}  // namespace ibsdn
