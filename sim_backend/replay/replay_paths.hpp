// `ibsdn-sim paths`: jobs replayed through the real controller (replay_static) on a fabric, and
// the path every host-pair flow of each job takes through the LFTs and the switches' flow tables
// once all of them have started, in the text form that osmsdn-route-check --paths prints for the
// same flows traced through a real fabric's tables: the two outputs compare line by line.
//
// The replay numbers the ports as OpenSM did when given its opensm-subnet.lst: the default routes
// (DmodK on a fat-tree) and every flow entry's SLID / DLID depend on the LIDs, and OpenSM's are
// not the sequential ones a generated fabric gets.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "routing/lft.hpp"
#include "routing/subnet.hpp"
#include "sim_backend/replay/static_replay.hpp"

namespace ibsdn {

/// One --job: "nodes=HOSTS;pattern=SPEC[;algorithm=NAME][;id=N]", keys in any order.
struct PathsJobSpec {
  std::uint64_t id = 0;   // 0: the job's position, 1-based
  std::string nodes;      // host names or a Slurm host list, in rank order
  std::string pattern;    // a pattern spec, e.g. "3dnn", "shift:k=3"
  std::string algorithm;  // empty: the replay's routing
  bool operator==(const PathsJobSpec&) const = default;
};

/// Parses one --job value. Throws InputError saying what is wrong: an unknown, repeated or empty
/// key, a missing '=', no nodes or pattern, an id that is not a positive integer.
PathsJobSpec parse_paths_job(std::string_view text);

/// The host names of a --job's nodes: a Slurm host list (expanded by libslurm when ibsdn-sim was
/// built with it) or comma-separated names. Throws InputError for a malformed list or a host
/// named twice.
std::vector<std::string> expand_job_hosts(std::string_view nodes);

/// A job of the replay with what the command line said about it.
struct PathsJob {
  ReplayJob job;
  std::vector<std::string> hosts;  // as given, in rank order
  std::string pattern;             // canonical pattern text
  std::string algorithm;           // the job's own, else the replay's routing; once replayed,
                                   // the controller's choice (auto: by the job's traffic)
};

/// The jobs of `specs` on `subnet`, checked as the controller would check their job_start (hosts
/// it knows, each once; a known pattern with traffic for the rank count; a known algorithm that
/// can route the fabric, whose layout `subnet.fabric` must carry, as default_tables attaches it)
/// and started in the order given: job i at time i, all ending after the last has started. Throws
/// InputError naming the job (by its --job position and id) and what is wrong.
std::vector<PathsJob> make_paths_jobs(const Subnet& subnet, std::span<const PathsJobSpec> specs,
                                      const ReplayConfig& config);

struct JobPathsResult {
  PathsJob job;
  ReplayedJob replayed;            // status, flows, entries
  std::vector<std::string> lines;  // path_line() per flow, sorted by source, then destination
  nlohmann::json flows;            // [{src, dst, slid, dlid, hops: [{switch, port}]}], same order
};

/// Replays `jobs` and keeps every job's flows as traced once all have started (a job the
/// controller re-routed for a later one is taken as re-routed).
std::vector<JobPathsResult> replay_paths(const Subnet& subnet, const LftSet& lfts,
                                         std::span<const PathsJob> jobs,
                                         const ReplayConfig& config);

/// What the command prints: '#' comment lines, then per job a line "job ID", a comment with its
/// traffic, algorithm and result, and its flows' path lines.
std::string format_paths_text(std::span<const JobPathsResult> results,
                              const std::vector<std::string>& header);

}  // namespace ibsdn
