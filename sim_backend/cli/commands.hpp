// Subcommands of ibsdn-sim; each lives in its own cmd_<name>.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include "sim_backend/scenario/topology_spec.hpp"
#include "sim_backend/workload/job_builder.hpp"

namespace ibsdn {

/// Adds --xgft / --dragonfly / --megafly / --pod-tree / --netlist-in / --gpus-per-node / --gbps to
/// `cmd`.
void add_topology_options(CLI::App& cmd, TopologySpec& spec);

/// Adds --pattern / --seed / --nodes / --node-selection / --first-node / --ranks-per-node /
/// --mapping to `cmd`.
void add_job_options(CLI::App& cmd, JobSpec& job);

void add_topo_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_route_command(CLI::App& app);
void add_lft_quality_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_paths_command(CLI::App& app);
void add_flows_command(CLI::App& app);

}  // namespace ibsdn
