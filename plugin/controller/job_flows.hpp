// From a job notice to fabric flows: Slurm host names to HCAs, then the job's traffic (a pattern
// or a matrix over its ranks) mapped onto those HCAs, with the user's elephant hints.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plugin/controller/host_map.hpp"
#include "plugin/notice/notice.hpp"
#include "routing/flow.hpp"
#include "routing/subnet.hpp"

namespace ibsdn::plugin {

/// A notice the controller cannot serve, with the protocol's error code. The message says what
/// and where; `at` is the JSON pointer of the offending request field when there is one.
class NoticeFailure : public std::runtime_error {
 public:
  NoticeFailure(ErrorCode code, const std::string& message, std::string at = {})
      : std::runtime_error(message), code_(code), at_(std::move(at)) {}
  [[nodiscard]] ErrorCode code() const { return code_; }
  [[nodiscard]] const std::string& at() const { return at_; }

 private:
  ErrorCode code_;
  std::string at_;
};

/// The HCAs of a fabric by the names a host may have: every whole-word prefix of each
/// NodeDescription ("n01", "n01 HCA-1") and each node name. Built in O(HCAs), so that a job of N
/// hosts resolves in O(N); the controller keeps one per fabric. Holds views of the fabric's
/// strings: it must not outlive the fabric.
class HcaNames {
 public:
  explicit HcaNames(const Fabric& f);
  [[nodiscard]] std::optional<NodeIdx> find(std::string_view name) const;

 private:
  std::unordered_map<std::string_view, NodeIdx> by_prefix_;
};

/// The HCA of every host, in order: the host map's entry when there is one (by node GUID or
/// NodeDescription prefix), otherwise the HCA whose NodeDescription's first word (or node name) is
/// the host name ("node01 HCA-1", what HCA drivers report). Throws NoticeFailure(kUnknownHost)
/// listing the hosts the fabric has no HCA for (at most 10 named), and kInvalid when two hosts
/// resolve to the same HCA. `names` must be HcaNames(f.fabric).
std::vector<NodeIdx> resolve_hosts(const Subnet& f, const HcaNames& names, const HostMap* map,
                                   std::span<const std::string> hosts);
/// The same, indexing the fabric's names for this call.
std::vector<NodeIdx> resolve_hosts(const Subnet& f, const HostMap* map,
                                   std::span<const std::string> hosts);

/// An upper bound on the rank-to-rank flows `traffic` has on `ranks` ranks, known without
/// generating them (a matrix: its entries; a pattern: partners per rank times ranks).
std::uint64_t rank_flow_bound(const Traffic& traffic, std::uint32_t ranks);

/// The pairs of `traffic` and those it skipped, for the replies; nullopt for a pattern.
std::optional<MatrixCounts> matrix_counts(const Traffic& traffic);

struct JobTraffic {
  std::uint32_t ranks = 0;
  std::uint32_t ranks_per_node = 0;
  std::uint64_t rank_flows = 0;
  std::vector<Flow> flows;  // fabric flows; elephant marks the hinted node pairs
};

/// The job's flows on `nodes`. Ranks per node: the request's, else the nodes' GPU count.
/// Patterns are generated with the job id as seed, so the same job gives the same flows after a
/// restart. With hints, only the hinted pairs' flows are elephants; without, every flow is.
/// Throws NoticeFailure(kInvalid) naming the field: a matrix or hint rank beyond the job's
/// ranks, a pattern that does not fit the rank count. A pattern whose rank_flow_bound() exceeds
/// `max_rank_flows` is aggregated to host pairs directly when it has a host-level form (every
/// node runs the same number of ranks, so all-to-all's host pairs are all ordered node pairs with
/// ranks_per_node^2 rank flows each); otherwise NoticeFailure(kTooLarge).
JobTraffic build_job_traffic(const Fabric& f, std::span<const NodeIdx> nodes,
                             const Traffic& traffic, std::optional<std::uint32_t> ranks_per_node,
                             Mapping mapping, std::span<const RankPair> elephants, JobId job,
                             std::uint64_t max_rank_flows = ~std::uint64_t{0});

}  // namespace ibsdn::plugin
