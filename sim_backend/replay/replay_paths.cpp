#include "sim_backend/replay/replay_paths.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

#include "common/names.hpp"
#include "common/quote_for_message.hpp"
#include "plugin/controller/config.hpp"
#include "plugin/controller/job_flows.hpp"
#include "plugin/notice/limits.hpp"
#include "routing/algorithm.hpp"
#include "routing/path_text.hpp"
#include "sim_backend/io/input_error.hpp"
#ifdef IBSDN_HAVE_SLURM_HOSTLIST
#include "common/slurm_hostlist.hpp"
#endif

namespace ibsdn {
namespace {

constexpr std::string_view kJobKeys = "nodes, pattern, algorithm, id";

std::string job_label(std::size_t position, std::uint64_t id) {
  return "--job " + std::to_string(position + 1) + " (job " + std::to_string(id) + ")";
}

std::uint64_t parse_id(std::string_view value) {
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), id);
  if (ec != std::errc{} || ptr != value.data() + value.size() || id == 0 || id > kMaxJobId) {
    throw InputError("id=" + quote_for_message(value) + ": a job id from 1 to " +
                     std::to_string(kMaxJobId));
  }
  return id;
}

}  // namespace

PathsJobSpec parse_paths_job(std::string_view text) {
  PathsJobSpec spec;
  std::set<std::string_view> seen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw InputError("--job " + quote_for_message(text) + ": " + quote_for_message(item) +
                       " is not KEY=VALUE (keys: " + std::string(kJobKeys) + ")");
    }
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (!seen.insert(key).second) {
      throw InputError("--job " + quote_for_message(text) + ": " + std::string(key) +
                       " is given twice");
    }
    if (value.empty()) {
      throw InputError("--job " + quote_for_message(text) + ": " + quote_for_message(key) +
                       " has no value");
    }
    if (key == "nodes") {
      spec.nodes = value;
    } else if (key == "pattern") {
      spec.pattern = value;
    } else if (key == "algorithm") {
      spec.algorithm = value;
    } else if (key == "id") {
      try {
        spec.id = parse_id(value);
      } catch (const InputError& e) {
        throw InputError("--job " + quote_for_message(text) + ": " + e.what());
      }
    } else {
      throw InputError("--job " + quote_for_message(text) + ": unknown key " +
                       quote_for_message(key) + " (keys: " + std::string(kJobKeys) + ")");
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  if (spec.nodes.empty() || spec.pattern.empty()) {
    throw InputError("--job " + quote_for_message(text) + ": needs nodes= and pattern=");
  }
  return spec;
}

std::vector<std::string> expand_job_hosts(std::string_view nodes) {
  std::vector<std::string> hosts;
#ifdef IBSDN_HAVE_SLURM_HOSTLIST
  try {
    hosts = expand_hostlist(nodes, kMaxJobNodes);
  } catch (const HostlistError& e) {
    throw InputError(std::string("nodes=: ") + e.what());
  }
#else
  if (nodes.find('[') != std::string_view::npos) {
    throw InputError("nodes=" + quote_for_message(nodes) +
                     ": this ibsdn-sim was built without libslurm and does not expand host "
                     "ranges; give the names, comma-separated");
  }
  std::unordered_set<std::string_view> seen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = std::min(nodes.find(',', start), nodes.size());
    const std::string_view host = nodes.substr(start, comma - start);
    if (const std::string why = hostname_problem(host); !why.empty()) {
      throw InputError("nodes=: host " + quote_for_message(host) + ": " + why);
    }
    if (!seen.insert(host).second) {
      throw InputError("nodes=: host " + quote_for_message(host) + " appears twice");
    }
    if (seen.size() > kMaxJobNodes) {
      throw InputError("nodes=: more than " + std::to_string(kMaxJobNodes) + " hosts");
    }
    hosts.emplace_back(host);
    if (comma == nodes.size()) break;
    start = comma + 1;
  }
#endif
  return hosts;
}

std::vector<PathsJob> make_paths_jobs(const Subnet& subnet, std::span<const PathsJobSpec> specs,
                                      const ReplayConfig& config) {
  std::set<std::uint64_t> ids;
  std::vector<PathsJob> jobs;
  jobs.reserve(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const PathsJobSpec& spec = specs[i];
    PathsJob out;
    out.job.id = spec.id != 0 ? spec.id : i + 1;
    const std::string label = job_label(i, out.job.id);
    if (!ids.insert(out.job.id).second) {
      throw InputError(label + ": another job has id " + std::to_string(out.job.id) +
                       " (give id=N to each)");
    }
    // Job i runs from i until every job has started: the later ones are routed on top of it.
    out.job.start = static_cast<double>(i);
    out.job.end = static_cast<double>(specs.size());
    try {
      out.hosts = expand_job_hosts(spec.nodes);
    } catch (const InputError& e) {
      throw InputError(label + ": " + e.what());
    }
    try {
      out.job.nodes = plugin::resolve_hosts(subnet, nullptr, out.hosts);
    } catch (const std::exception& e) {
      throw InputError(label + ": " + e.what());
    }
    PatternSpec pattern;
    try {
      pattern = PatternSpec::parse(spec.pattern);
      pattern.validate();
    } catch (const std::exception& e) {
      throw InputError(label + ": pattern=" + quote_for_message(spec.pattern) + ": " + e.what());
    }
    if (pattern.name == "matrix") {
      // A job notice carries a matrix itself, never a file name; so does a replayed job.
      throw InputError(label + ": pattern=matrix: traffic-matrix files are not replayed here");
    }
    out.pattern = pattern.to_string();
    out.job.traffic = pattern;
    try {
      // The controller's own check of a job's traffic (ranks, pattern fit, size), with the same
      // job id, which seeds random patterns.
      (void)plugin::build_job_traffic(subnet.fabric, out.job.nodes, out.job.traffic,
                                      config.ranks_per_node, config.mapping, {}, JobId(out.job.id),
                                      Limits{}.max_rank_flows);
    } catch (const std::exception& e) {
      throw InputError(label + ": pattern=" + quote_for_message(spec.pattern) + ": " + e.what());
    }
    if (!spec.algorithm.empty()) {
      if (config.routing == "dmodk") {
        throw InputError(label + ": algorithm=" + spec.algorithm +
                         " needs the controller; --routing dmodk has none");
      }
      if (!is_algorithm(spec.algorithm)) {
        throw InputError(label + ": algorithm=" + quote_for_message(spec.algorithm) +
                         ": no such algorithm (ibsdn-sim list)");
      }
      out.job.algorithm = spec.algorithm;
    }
    out.algorithm = spec.algorithm.empty() ? config.routing : spec.algorithm;
    // With auto the controller chooses by the job's flows; it can route every fat-tree.
    if (config.routing != "dmodk" && out.algorithm != kAutoAlgorithm) {
      // The controller would refuse the job (and the fabric carry it on the LFTs): say so now.
      if (const std::string why = make_algorithm(out.algorithm)->unsupported_reason(subnet.fabric);
          !why.empty()) {
        throw InputError(label + ": " + out.algorithm + " cannot route " +
                         subnet.fabric.kind_label + ": " + why);
      }
    }
    jobs.push_back(std::move(out));
  }
  return jobs;
}

std::vector<JobPathsResult> replay_paths(const Subnet& subnet, const LftSet& lfts,
                                         std::span<const PathsJob> jobs,
                                         const ReplayConfig& config) {
  const Fabric& f = subnet.fabric;
  std::vector<ReplayJob> replay_jobs;
  replay_jobs.reserve(jobs.size());
  std::map<std::uint64_t, std::size_t> index;  // job id -> position
  for (const PathsJob& j : jobs) {
    index.emplace(j.job.id, replay_jobs.size());
    replay_jobs.push_back(j.job);
  }
  std::vector<JobPathsResult> out(jobs.size());
  // The first jobs.size() events are the starts (job i at time i; every end comes after): once
  // they are done the fabric holds all jobs, and the ends that follow must not change the paths.
  bool all_started = jobs.empty();
  ReplayConfig cfg = config;
  cfg.progress = [&all_started, n = jobs.size()](std::size_t done, std::size_t) {
    if (done >= n) all_started = true;
  };
  cfg.traced = [&](std::uint64_t id, std::span<const Flow> flows, std::span<const Path> paths) {
    if (all_started) return;
    JobPathsResult& r = out[index.at(id)];
    std::vector<std::size_t> order(flows.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(f.node(flows[a].src).name, f.node(flows[a].dst).name) <
             std::tie(f.node(flows[b].src).name, f.node(flows[b].dst).name);
    });
    r.lines.clear();
    r.flows = nlohmann::json::array();
    for (const std::size_t k : order) {
      r.lines.push_back(path_line(f, flows[k].src, flows[k].dst, paths[k]));
      nlohmann::json hops = nlohmann::json::array();
      for (const SwitchHop& h : switch_hops(f, paths[k])) {
        hops.push_back({{"switch", f.node(h.node).name}, {"port", h.port.value()}});
      }
      r.flows.push_back({{"src", f.node(flows[k].src).name},
                         {"dst", f.node(flows[k].dst).name},
                         {"slid", subnet.lids.lid(flows[k].src).value()},
                         {"dlid", subnet.lids.lid(flows[k].dst).value()},
                         {"hops", std::move(hops)}});
    }
  };
  const ReplayResult result = replay_static(subnet, lfts, replay_jobs, cfg);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    out[i].job = jobs[i];
    out[i].replayed = result.jobs[i];
    if (!out[i].replayed.algorithm.empty()) out[i].job.algorithm = out[i].replayed.algorithm;
    if (out[i].flows.is_null()) out[i].flows = nlohmann::json::array();
  }
  return out;
}

std::string format_paths_text(std::span<const JobPathsResult> results,
                              const std::vector<std::string>& header) {
  std::string out;
  for (const std::string& line : header) out += "# " + line + "\n";
  for (const JobPathsResult& r : results) {
    const ReplayJob& j = r.job.job;
    out += "job " + std::to_string(j.id) + "\n";
    out += "# " + r.job.pattern + " on " + std::to_string(j.nodes.size()) + " nodes, " +
           r.job.algorithm + ": " + std::to_string(r.replayed.flows) + " flows, " +
           std::to_string(r.replayed.entries) + " entries, " + r.replayed.status + "\n";
    for (const std::string& line : r.lines) out += line + "\n";
  }
  return out;
}

}  // namespace ibsdn
