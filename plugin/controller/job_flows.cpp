#include "plugin/controller/job_flows.hpp"

#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/quote_for_message.hpp"
#include "routing/patterns/mapping.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn::plugin {

HcaNames::HcaNames(const Fabric& f) {
  for (const NodeIdx n : f.hcas()) {
    const Node& node = f.node(n);
    const std::string_view d = node.description;
    for (std::size_t end = d.find(' ');; end = d.find(' ', end + 1)) {
      by_prefix_.emplace(d.substr(0, end), n);
      if (end == std::string_view::npos) break;
    }
    by_prefix_.emplace(node.name, n);
  }
}

std::optional<NodeIdx> HcaNames::find(std::string_view name) const {
  const auto it = by_prefix_.find(name);
  return it == by_prefix_.end() ? std::nullopt : std::optional<NodeIdx>(it->second);
}

std::vector<NodeIdx> resolve_hosts(const Subnet& f, const HostMap* map,
                                   std::span<const std::string> hosts) {
  return resolve_hosts(f, HcaNames(f.fabric), map, hosts);
}

std::vector<NodeIdx> resolve_hosts(const Subnet& f, const HcaNames& names, const HostMap* map,
                                   std::span<const std::string> hosts) {
  const auto lookup = [&](const std::string& host) -> std::optional<NodeIdx> {
    if (const HostMapEntry* e = map != nullptr ? map->find(host) : nullptr) {
      if (e->guid) {
        const auto n = f.fabric.find_guid(*e->guid);
        if (!n || !f.fabric.node(*n).is_hca()) return std::nullopt;
        return n;
      }
      return names.find(e->description_prefix);
    }
    return names.find(host);
  };
  std::vector<NodeIdx> out;
  out.reserve(hosts.size());
  std::vector<std::string> unknown;
  std::unordered_map<std::uint32_t, std::size_t> seen;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const auto n = lookup(hosts[i]);
    if (!n) {
      unknown.push_back(hosts[i]);
      continue;
    }
    if (const auto [it, fresh] = seen.emplace(n->value(), i); !fresh) {
      throw NoticeFailure(ErrorCode::kInvalid,
                          "hosts " + quote_for_message(hosts[it->second]) + " and " +
                              quote_for_message(hosts[i]) + " are the same HCA (" +
                              f.fabric.node(*n).name + ")",
                          "/nodes/" + std::to_string(i));
    }
    out.push_back(*n);
  }
  if (!unknown.empty()) {
    std::string list;
    for (std::size_t i = 0; i < unknown.size() && i < 10; ++i) {
      list += (i ? ", " : "") + quote_for_message(unknown[i]);
    }
    if (unknown.size() > 10) list += " and " + std::to_string(unknown.size() - 10) + " more";
    throw NoticeFailure(
        ErrorCode::kUnknownHost,
        std::to_string(unknown.size()) + " host(s) with no HCA in the fabric " +
            "(neither a NodeDescription's first word nor a host map entry): " + list,
        "/nodes");
  }
  return out;
}

std::uint64_t rank_flow_bound(const Traffic& traffic, std::uint32_t ranks) {
  const std::uint64_t r = ranks;
  const std::uint64_t all_pairs = r * (r > 0 ? r - 1 : 0);
  const auto* spec = std::get_if<PatternSpec>(&traffic);
  if (spec == nullptr) return std::get<TrafficMatrix>(traffic).flows.size();
  const std::string& n = spec->name;
  // Partners per rank of the sparse patterns (pattern.hpp describes each); anything else, and
  // the dense ones, may reach every ordered pair.
  std::uint64_t partners = 0;
  if (n == "random-perm" || n == "shift") partners = 1;
  if (n == "ring") partners = 2;
  if (n == "2dnn" || n == "random4") partners = 4;
  if (n == "3dnn" || n == "stencil3d") partners = 6;
  if (n == "random8" || n == "stencil4d") partners = 8;
  if (n == "umesh" || n == "spread") partners = 2 * std::uint64_t{spec->max_partners};
  return partners == 0 ? all_pairs : std::min(all_pairs, partners * r);
}

std::optional<MatrixCounts> matrix_counts(const Traffic& traffic) {
  const auto* matrix = std::get_if<TrafficMatrix>(&traffic);
  if (matrix == nullptr) return std::nullopt;
  return MatrixCounts{matrix->flows.size(), matrix->skipped};
}

namespace {

/// All-to-all at host level: every ordered pair of distinct nodes carries ranks_per_node^2 rank
/// flows, whatever the mapping (each node holds ranks_per_node ranks).
std::vector<Flow> all_to_all_host_pairs(std::span<const NodeIdx> nodes, std::uint32_t per_node,
                                        std::uint64_t bytes) {
  std::vector<Flow> out;
  out.reserve(nodes.size() * (nodes.size() > 0 ? nodes.size() - 1 : 0));
  const std::uint64_t m = std::uint64_t{per_node} * per_node;
  for (const NodeIdx s : nodes) {
    for (const NodeIdx d : nodes) {
      if (s == d) continue;
      Flow fl;
      fl.src = s;
      fl.dst = d;
      fl.bytes = m * bytes;
      fl.multiplicity = static_cast<std::uint32_t>(std::min<std::uint64_t>(m, UINT32_MAX));
      out.push_back(fl);
    }
  }
  set_weights(out);
  return out;
}

}  // namespace

JobTraffic build_job_traffic(const Fabric& f, std::span<const NodeIdx> nodes,
                             const Traffic& traffic, std::optional<std::uint32_t> ranks_per_node,
                             Mapping mapping, std::span<const RankPair> elephants, JobId job,
                             std::uint64_t max_rank_flows) {
  JobTraffic out;
  try {
    out.ranks_per_node = ranks_per_node ? *ranks_per_node : default_ranks_per_node(f, nodes);
  } catch (const std::invalid_argument& e) {
    throw NoticeFailure(ErrorCode::kInvalid, std::string("ranks_per_node is needed: ") + e.what(),
                        "/ranks_per_node");
  }
  out.ranks = static_cast<std::uint32_t>(nodes.size()) * out.ranks_per_node;
  const std::uint64_t bound = rank_flow_bound(traffic, out.ranks);
  const auto* pattern = std::get_if<PatternSpec>(&traffic);
  bool host_level = false;
  if (bound > max_rank_flows) {
    host_level = pattern != nullptr && pattern->name == "all-to-all";
    if (!host_level) {
      throw NoticeFailure(ErrorCode::kTooLarge,
                          "the job's traffic may have " + std::to_string(bound) +
                              " rank flows on " + std::to_string(out.ranks) + " ranks, over " +
                              "limits.max_rank_flows (" + std::to_string(max_rank_flows) +
                              "); the job runs on the default routes",
                          pattern != nullptr ? "/pattern" : "/matrix");
    }
  }
  std::vector<RankFlow> rank_flows;
  if (host_level) {
    out.rank_flows = bound;
    out.flows = all_to_all_host_pairs(nodes, out.ranks_per_node, pattern->bytes);
  } else if (const auto* spec = pattern) {
    try {
      rank_flows = generate_pattern(*spec, out.ranks, job.value());
    } catch (const std::invalid_argument& e) {
      throw NoticeFailure(ErrorCode::kInvalid,
                          "pattern " + spec->to_string() + " on " + std::to_string(out.ranks) +
                              " ranks: " + e.what(),
                          "/pattern");
    }
  } else {
    rank_flows = std::get<TrafficMatrix>(traffic).flows;
    for (std::size_t i = 0; i < rank_flows.size(); ++i) {
      const RankFlow& rf = rank_flows[i];
      if (rf.src >= out.ranks || rf.dst >= out.ranks) {
        throw NoticeFailure(ErrorCode::kInvalid,
                            "matrix entry " + std::to_string(i) + " (" + std::to_string(rf.src) +
                                " -> " + std::to_string(rf.dst) + ") names a rank beyond the " +
                                "job's " + std::to_string(out.ranks) + " ranks",
                            "/matrix/" + std::to_string(i));
      }
    }
  }
  const std::vector<NodeIdx> rank_to_node =
      map_ranks(nodes, out.ranks_per_node, mapping, out.ranks);
  if (!host_level) {
    out.rank_flows = rank_flows.size();
    out.flows = to_fabric_flows(rank_flows, rank_to_node);
  }
  if (!elephants.empty()) {
    std::set<std::pair<NodeIdx, NodeIdx>> hinted;
    for (std::size_t i = 0; i < elephants.size(); ++i) {
      const RankPair& p = elephants[i];
      if (p.src >= out.ranks || p.dst >= out.ranks) {
        throw NoticeFailure(ErrorCode::kInvalid,
                            "elephant " + std::to_string(p.src) + " -> " + std::to_string(p.dst) +
                                " names a rank beyond the job's " + std::to_string(out.ranks) +
                                " ranks",
                            "/elephants/" + std::to_string(i));
      }
      hinted.emplace(rank_to_node[p.src], rank_to_node[p.dst]);
    }
    for (Flow& fl : out.flows) fl.elephant = hinted.contains({fl.src, fl.dst});
  }
  return out;
}

}  // namespace ibsdn::plugin
