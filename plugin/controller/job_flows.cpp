#include "plugin/controller/job_flows.hpp"

#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "plugin/notice/names.hpp"
#include "routing/patterns/mapping.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn::plugin {

std::vector<NodeIdx> resolve_hosts(const Subnet& f, const HostMap* map,
                                   std::span<const std::string> hosts) {
  // One pass over the HCAs: every whole-word prefix of each NodeDescription ("n01", "n01 HCA-1")
  // and each node name, so that a job of N hosts resolves in O(N + HCAs), not O(N x HCAs).
  std::unordered_map<std::string_view, NodeIdx> by_prefix;
  for (const NodeIdx n : f.fabric.hcas()) {
    const Node& node = f.fabric.node(n);
    const std::string_view d = node.description;
    for (std::size_t end = d.find(' ');; end = d.find(' ', end + 1)) {
      by_prefix.emplace(d.substr(0, end), n);
      if (end == std::string_view::npos) break;
    }
    by_prefix.emplace(node.name, n);
  }
  const auto lookup = [&](const std::string& host) -> std::optional<NodeIdx> {
    if (const HostMapEntry* e = map != nullptr ? map->find(host) : nullptr) {
      if (e->guid) {
        const auto n = f.fabric.find_guid(*e->guid);
        if (!n || !f.fabric.node(*n).is_hca()) return std::nullopt;
        return n;
      }
      const auto it = by_prefix.find(e->description_prefix);
      return it == by_prefix.end() ? std::nullopt : std::optional<NodeIdx>(it->second);
    }
    const auto it = by_prefix.find(host);
    return it == by_prefix.end() ? std::nullopt : std::optional<NodeIdx>(it->second);
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

JobTraffic build_job_traffic(const Fabric& f, std::span<const NodeIdx> nodes,
                             const Traffic& traffic, std::optional<std::uint32_t> ranks_per_node,
                             Mapping mapping, std::span<const RankPair> elephants, JobId job) {
  JobTraffic out;
  try {
    out.ranks_per_node = ranks_per_node ? *ranks_per_node : default_ranks_per_node(f, nodes);
  } catch (const std::invalid_argument& e) {
    throw NoticeFailure(ErrorCode::kInvalid, std::string("ranks_per_node is needed: ") + e.what(),
                        "/ranks_per_node");
  }
  out.ranks = static_cast<std::uint32_t>(nodes.size()) * out.ranks_per_node;
  std::vector<RankFlow> rank_flows;
  if (const auto* spec = std::get_if<PatternSpec>(&traffic)) {
    try {
      rank_flows = generate_pattern(*spec, out.ranks, job.value());
    } catch (const std::invalid_argument& e) {
      throw NoticeFailure(ErrorCode::kInvalid,
                          "pattern " + spec->to_string() + " on " + std::to_string(out.ranks) +
                              " ranks: " + e.what(),
                          "/pattern");
    }
  } else {
    rank_flows = std::get<std::vector<RankFlow>>(traffic);
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
  out.rank_flows = rank_flows.size();
  const std::vector<NodeIdx> rank_to_node =
      map_ranks(nodes, out.ranks_per_node, mapping, out.ranks);
  out.flows = to_fabric_flows(rank_flows, rank_to_node);
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
