// ibsdn-sim paths: replay jobs through the controller on a fabric and print the path each of their
// host-pair flows takes, in the form osmsdn-route-check --paths prints for a real fabric.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "plugin/controller/config.hpp"
#include "plugin/notice/limits.hpp"
#include "routing/algorithm.hpp"
#include "routing/default_tables.hpp"
#include "sim_backend/cli/commands.hpp"
#include "sim_backend/io/input_error.hpp"
#include "sim_backend/io/text_file.hpp"
#include "sim_backend/replay/replay_paths.hpp"

namespace ibsdn {
namespace {

struct PathsOptions {
  TopologySpec topo;
  std::string subnet_lst;
  std::vector<std::string> jobs;
  std::string routing;  // empty: the controller's default for the fabric
  std::uint32_t table_capacity = 4096;
  std::string install_backend = "auto";
  std::uint32_t ranks_per_node = 0;  // 0: the nodes' GPUs
  std::string mapping = "block";
  bool json = false;
};

/// The fabric as the plugin sees it, with the LIDs OpenSM gave it (its subnet list), else
/// sequential ones; and its default LFTs as the plugin's engine "sdn" writes them.
struct Replayable {
  Subnet subnet;
  DefaultTables tables;
};

Replayable build_subnet(const PathsOptions& o) {
  Replayable r;
  try {
    // In the order the plugin builds OpenSM's subnet in, and recognised again as it does: the
    // default LFTs (min-hop's balancing) and ties between equal paths depend on the order.
    r.subnet.fabric = in_subnet_order(build_topology(o.topo));
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  Fabric& f = r.subnet.fabric;
  if (o.subnet_lst.empty()) {
    r.subnet.lids = sequential_lids(f);
  } else {
    try {
      r.subnet.lids = lids_from_opensm_subnet_list(f, read_text_file(o.subnet_lst, "--subnet-lst"),
                                                   o.subnet_lst);
    } catch (const std::invalid_argument& e) {
      throw InputError(e.what());
    }
  }
  // As the plugin's subnet carries them.
  for (std::size_t i = 0; i < f.num_nodes(); ++i) {
    const NodeIdx idx(static_cast<std::uint32_t>(i));
    Node& n = f.node(idx);
    n.lid = r.subnet.lids.lid(idx);
    if (n.lid.value() == 0) {
      throw InputError("--subnet-lst " + o.subnet_lst + ": no LID for " +
                       (n.is_switch() ? "switch " : "HCA ") + n.name +
                       " (a subnet list of another fabric?)");
    }
  }
  try {
    r.tables = default_tables(f, r.subnet.lids);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("the fabric has no default routes: ") + e.what());
  }
  return r;
}

void run(const PathsOptions& o) {
  std::vector<PathsJobSpec> specs;
  specs.reserve(o.jobs.size());
  for (const std::string& text : o.jobs) specs.push_back(parse_paths_job(text));
  const Replayable r = build_subnet(o);
  const Fabric& f = r.subnet.fabric;

  ReplayConfig config;
  // Without --routing, the controller's choice for a job that names no algorithm.
  config.routing = o.routing.empty() ? AlgorithmChoice{}.for_fabric(f) : o.routing;
  config.table_capacity = o.table_capacity;
  config.install_backend = *parse_install_backend(o.install_backend);  // CLI11 checked the name
  if (config.install_backend == InstallBackend::kLft && config.routing != "dmodk") {
    // The controller writes LFT entries only where every route stays a shortest up*/down* path.
    Fabric recognised = without_cables(f, {});
    recognize_topology(recognised);
    if (recognised.fat_tree() == nullptr) {
      throw InputError("--install-backend lft: the fabric is not a fat-tree (" + f.kind_label +
                       "); the controller writes LFT entries on fat-trees only");
    }
  }
  if (o.ranks_per_node != 0) config.ranks_per_node = o.ranks_per_node;
  config.mapping = parse_mapping(o.mapping);
  if (config.routing != "dmodk" && config.routing != kAutoAlgorithm &&
      !is_algorithm(config.routing)) {
    throw InputError("--routing '" + config.routing + "': no such algorithm (ibsdn-sim list)");
  }
  const std::vector<PathsJob> jobs = make_paths_jobs(r.subnet, specs, config);
  const std::vector<JobPathsResult> results = replay_paths(r.subnet, r.tables.lfts, jobs, config);

  const std::string lids =
      o.subnet_lst.empty() ? std::string("sequential") : "from " + o.subnet_lst;
  if (o.json) {
    nlohmann::json j = {
        {"topology", f.kind_label},
        {"compute_nodes", f.hcas().size()},
        {"switches", f.switches().size()},
        {"lids", lids},
        {"default_routes", r.tables.algorithm},
        {"routing", config.routing},
        {"table_capacity", config.table_capacity},
        {"install_backend", o.install_backend},
        {"mapping", o.mapping},
        {"jobs", nlohmann::json::array()},
    };
    j["ranks_per_node"] = config.ranks_per_node ? nlohmann::json(*config.ranks_per_node)
                                                : nlohmann::json("gpus per node");
    for (const JobPathsResult& res : results) {
      j["jobs"].push_back({{"job", res.job.job.id},
                           {"nodes", res.job.hosts},
                           {"pattern", res.job.pattern},
                           {"algorithm", res.job.algorithm},
                           {"status", res.replayed.status},
                           {"entries", res.replayed.entries},
                           {"flows", res.flows}});
    }
    std::cout << j.dump(2) << '\n';
    return;
  }
  const std::vector<std::string> header = {
      "ibsdn-sim paths: " + f.kind_label + ", " + std::to_string(f.hcas().size()) +
          " compute nodes, " + std::to_string(f.switches().size()) + " switches; LIDs " + lids +
          "; default routes " + r.tables.algorithm + "; table capacity " +
          std::to_string(config.table_capacity) + "; install backend " + o.install_backend,
      "jobs start in the order given; each job's flows as traced once all have started:",
      "SRC DST SWITCH:OUT_PORT ..., sorted by SRC, then DST"};
  std::cout << format_paths_text(results, header);
}

}  // namespace

void add_paths_command(CLI::App& app) {
  auto o = std::make_shared<PathsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "paths",
      "replay jobs through the controller and print the path of each of their flows through the "
      "LFTs (as the controller wrote them) and flow tables (the form osmsdn-route-check --paths "
      "prints for a real fabric)");
  add_topology_options(*cmd, o->topo);
  cmd->add_option("--subnet-lst", o->subnet_lst,
                  "OpenSM's opensm-subnet.lst (-D 0x43 --dump_files_dir): number the ports with "
                  "the LIDs OpenSM assigned (default: sequential LIDs, HCAs first)");
  cmd->add_option("--job", o->jobs,
                  "a job, in start order (repeat): 'nodes=HOSTLIST;pattern=SPEC"
                  "[;algorithm=NAME][;id=N]'; nodes by name or as a Slurm host list; id defaults "
                  "to the job's position and seeds random patterns as job_start's id does")
      ->required();
  cmd->add_option("--routing", o->routing,
                  "algorithm of the jobs without algorithm= (default: the controller's for the "
                  "fabric: auto on a fat-tree, sdn-volume or sdn-optimal by each job's traffic, "
                  "df-global-adaptive on a dragonfly, minhop otherwise); dmodk: no controller, "
                  "the LFTs alone");
  cmd->add_option("--table-capacity", o->table_capacity, "flow entries per switch")
      ->default_val(4096)
      ->check(CLI::Range(std::uint32_t{1}, static_cast<std::uint32_t>(kMaxTableCapacity)));
  cmd->add_option("--install-backend", o->install_backend,
                  "where the controller installs the jobs' routes: flow_table (per-flow entries "
                  "in the switches' flow tables), lft (destination entries in their LFTs; "
                  "fat-trees only), auto (flow tables: every replayed switch runs an agent)")
      ->default_val("auto")
      ->check(CLI::IsMember({"auto", "flow_table", "lft"}));
  cmd->add_option("--ranks-per-node", o->ranks_per_node, "ranks per node (0 = GPUs per node)")
      ->default_val(0)
      ->check(CLI::Range(std::uint32_t{0}, kMaxRanksPerNode));
  cmd->add_option("--mapping", o->mapping, "rank mapping: block | cyclic")
      ->default_val("block")
      ->check(CLI::IsMember({"block", "cyclic"}));
  cmd->add_flag("--json", o->json, "print the jobs and their paths as JSON");
  cmd->callback([o]() { run(*o); });
}

}  // namespace ibsdn
