// request_to_json(): a typed Request to the canonical JSON that parse_request() reads back.
#include <type_traits>

#include "flowtable/guid_text.hpp"
#include "plugin/notice/request.hpp"
#include "plugin/notice/version.hpp"

namespace ibsdn {
namespace {

using nlohmann::json;

void put_traffic(json& j, const Traffic& t) {
  if (const auto* spec = std::get_if<PatternSpec>(&t)) {
    j["pattern"] = spec->to_string();
  } else {
    const TrafficMatrix& matrix = std::get<TrafficMatrix>(t);
    json m = json::array();
    for (const RankFlow& f : matrix.flows) m.push_back({f.src, f.dst, f.bytes});
    j["matrix"] = std::move(m);
    // The skipped pairs are not re-sent, their counts are: the state store keeps this form.
    if (const SkippedPairs& s = matrix.skipped; s.any()) {
      j["matrix_skipped"] = {{"self_pairs", s.self_pairs},
                             {"intra_rank_bytes", s.intra_rank_bytes},
                             {"zero_pairs", s.zero_pairs}};
    }
  }
}

json pairs_json(const std::vector<RankPair>& pairs) {
  json a = json::array();
  for (const RankPair& p : pairs) a.push_back({p.src, p.dst});
  return a;
}

json base(std::string_view op) {
  return {{"v", kNoticeProtocolVersion}, {"op", op}};
}

}  // namespace

json request_to_json(const Request& request) {
  json j = base(op_name(request));
  std::visit(
      [&j](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, JobStartRequest>) {
          j["job"] = r.job.value();
          j["user"] = r.user;
          if (r.uid) j["uid"] = *r.uid;
          j["nodes"] = r.nodes;
          put_traffic(j, r.traffic);
          if (r.ranks_per_node) j["ranks_per_node"] = *r.ranks_per_node;
          if (r.mapping != Mapping::kBlock) j["mapping"] = to_string(r.mapping);
          if (!r.elephants.empty()) j["elephants"] = pairs_json(r.elephants);
          if (!r.phases.empty()) {
            json phases = json::array();
            for (const PhaseDecl& d : r.phases) {
              json p = {{"name", d.name}};
              put_traffic(p, d.traffic);
              phases.push_back(std::move(p));
            }
            j["phases"] = std::move(phases);
          }
          if (r.algorithm) j["algorithm"] = *r.algorithm;
          if (r.backend) j["backend"] = std::string(to_string(*r.backend));
          if (r.path_bits) j["path_bits"] = true;
        } else if constexpr (std::is_same_v<T, JobEndRequest>) {
          j["job"] = r.job.value();
        } else if constexpr (std::is_same_v<T, PhaseRequest>) {
          j["job"] = r.job.value();
          j["action"] = r.action == PhaseAction::kBegin ? "begin" : "end";
          j["name"] = r.name;
          if (r.traffic) put_traffic(j, *r.traffic);
        } else if constexpr (std::is_same_v<T, JobsQuery>) {
          if (r.job) j["job"] = r.job->value();
        } else if constexpr (std::is_same_v<T, HintRequest>) {
          j["job"] = r.job.value();
          j["elephants"] = pairs_json(r.elephants);
        } else if constexpr (std::is_same_v<T, FlowsQuery>) {
          if (r.switch_ref) {
            if (const auto* lid = std::get_if<Lid>(&*r.switch_ref)) {
              j["switch"] = lid->value();
            } else if (const auto* guid = std::get_if<Guid>(&*r.switch_ref)) {
              j["switch"] = guid_text(*guid);
            } else {
              j["switch"] = std::get<std::string>(*r.switch_ref);
            }
          }
          if (r.job) j["job"] = r.job->value();
          if (r.from_switch) j["from_switch"] = true;
        } else if constexpr (std::is_same_v<T, LinksQuery>) {
          if (r.top) j["top"] = *r.top;
        } else if constexpr (std::is_same_v<T, RouteQuery>) {
          j["src"] = r.src;
          j["dst"] = r.dst;
          if (r.job) j["job"] = r.job->value();
        } else if constexpr (std::is_same_v<T, AuditQuery>) {
          if (r.repair) j["repair"] = true;
        } else if constexpr (std::is_same_v<T, QuarantineReleaseRequest>) {
          j["job"] = r.job.value();
          if (r.delete_entries) j["delete_entries"] = true;
        }
      },
      request);
  return j;
}

}  // namespace ibsdn
