#include "plugin/controller/controller_view.hpp"

#include <algorithm>
#include <span>
#include <type_traits>
#include <variant>

#include "plugin/controller/job_flows.hpp"
#include "plugin/controller/job_text.hpp"
#include "routing/flow_compiler.hpp"

namespace ibsdn::plugin {
namespace {

using nlohmann::json;

struct SelectedSwitch {
  NodeIdx node;
  Guid guid;
  Lid lid;
  std::string name;
};

std::vector<SelectedSwitch> switches_of(const FabricSnapshot& fs) {
  std::vector<SelectedSwitch> out;
  const Fabric& f = fs.subnet.fabric;
  for (const NodeIdx n : f.switches()) {
    const Lid lid = fs.subnet.lids.lid(n, PortNum(0));
    if (lid.value() == 0) continue;
    out.push_back(SelectedSwitch{n, f.node(n).guid, lid, f.node(n).name});
  }
  std::sort(out.begin(), out.end(),
            [](const SelectedSwitch& a, const SelectedSwitch& b) { return a.name < b.name; });
  return out;
}

const FabricSnapshot& fabric_of(const ControllerView& v) {
  if (!v.fabric) {
    throw NoticeFailure(ErrorCode::kBusy,
                        "the controller has no fabric yet (waiting for OpenSM's first SUBNET UP); "
                        "retry");
  }
  return *v.fabric;
}

json jobs_answer(const ControllerView& v, const JobsQuery& q) {
  std::vector<JobSummary> list;
  if (q.job) {
    const auto it = v.jobs.find(*q.job);
    if (it == v.jobs.end()) {
      throw NoticeFailure(ErrorCode::kUnknownJob, job_text(*q.job) + " is not active", "/job");
    }
    list.push_back(it->second->summary);
    return jobs_response(list);
  }
  list.reserve(v.jobs.size());
  for (const auto& [id, j] : v.jobs) list.push_back(j->summary);
  return jobs_response(list);
}

json flows_answer(const ControllerView& v, const FlowsQuery& q) {
  const FabricSnapshot& fs = fabric_of(v);
  if (q.job && !v.jobs.contains(*q.job)) {
    throw NoticeFailure(ErrorCode::kUnknownJob, job_text(*q.job) + " is not active", "/job");
  }
  std::vector<SelectedSwitch> selected = switches_of(fs);
  if (q.switch_ref) {
    std::erase_if(selected, [&](const SelectedSwitch& s) {
      return !switch_matches(fs.subnet.fabric, s.node, s.lid, *q.switch_ref);
    });
    if (selected.empty()) {
      throw NoticeFailure(ErrorCode::kInvalid,
                          "no switch with that LID, GUID or name in the fabric", "/switch");
    }
    selected.resize(1);
  }
  std::vector<SwitchFlows> out;
  for (const SelectedSwitch& sw : selected) {
    SwitchFlows sf{sw.guid, sw.lid, sw.name, {}};
    for (const auto& [id, j] : v.jobs) {
      if (q.job && id != *q.job) continue;
      if (const auto it = j->entries.find(sw.guid); it != j->entries.end()) {
        sf.entries.insert(sf.entries.end(), it->second.begin(), it->second.end());
        sf.in_lft.insert(sf.in_lft.end(), it->second.size(), j->lft_switches.contains(sw.guid));
      }
    }
    if (!sf.entries.empty() || q.switch_ref) out.push_back(std::move(sf));
  }
  json r = flows_response(out, false);
  r["warnings"] = json::array();
  return r;
}

json links_answer(const ControllerView& v, const LinksQuery& q) {
  const Fabric& f = fabric_of(v).subnet.fabric;
  std::vector<LinkRow> rows;
  if (v.load) {
    for (std::uint32_t i = 0; i < f.num_links(); ++i) {
      const LinkId l(i);
      const std::int32_t n = v.load->flows(l);
      if (n <= 0) continue;
      const Link& link = f.link(l);
      rows.push_back(LinkRow{f.node(link.from).name, link.from_port, f.node(link.to).name,
                             link.to_port, n, v.load->weight(l)});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const LinkRow& a, const LinkRow& b) {
    return a.flows != b.flows ? a.flows > b.flows : a.weight > b.weight;
  });
  if (q.top && rows.size() > *q.top) rows.resize(*q.top);
  json r = links_response(rows);
  r["swml_flows"] = v.swml_flows;
  return r;
}

// Whether the job whose entries carry `cookie` holds them in the LFT of switch `sw`.
bool held_in_lft(const ControllerView& v, Guid sw, std::uint64_t cookie) {
  for (const auto& [id, j] : v.jobs) {
    const auto it = j->entries.find(sw);
    if (it == j->entries.end() || !j->lft_switches.contains(sw)) continue;
    for (const FlowEntry& e : it->second) {
      if (e.cookie == cookie) return true;
    }
  }
  return false;
}

json route_answer(const ControllerView& v, const RouteQuery& q) {
  const FabricSnapshot& fs = fabric_of(v);
  const Fabric& f = fs.subnet.fabric;
  const auto host = [&](const std::string& name, const char* at) {
    try {
      return resolve_hosts(fs.subnet, v.hosts.get(), std::span(&name, 1)).front();
    } catch (const NoticeFailure& e) {
      throw NoticeFailure(e.code(), e.what(), at);
    }
  };
  const NodeIdx src = host(q.src, "/src");
  const NodeIdx dst = host(q.dst, "/dst");
  // A job's packets carry its LID offset (LMC): the hosts' LIDs as it addresses them.
  std::uint32_t offset = 0;
  if (q.job) {
    const auto it = v.jobs.find(*q.job);
    if (it == v.jobs.end()) {
      throw NoticeFailure(ErrorCode::kUnknownJob, job_text(*q.job) + " is not active", "/job");
    }
    offset = it->second->summary.lid_offset;
  }
  std::optional<LidMap> shifted;
  if (offset > 0) {
    try {
      shifted.emplace(lids_at_offset(fs.subnet, static_cast<std::uint8_t>(offset), {src, dst}));
    } catch (const std::invalid_argument& e) {
      throw NoticeFailure(ErrorCode::kUnroutable, e.what(), "/job");
    }
  }
  const LidMap& lids = shifted ? *shifted : fs.lfts.lids;
  const auto tables = std::make_shared<const FlowTables>(build_flow_tables(view_tables(v)));
  TraceOptions to;
  to.override_port = flow_table_override(tables);
  to.lids = &lids;
  const Trace t = trace(f, fs.lfts, src, dst, to);
  if (!t.ok()) {
    throw NoticeFailure(ErrorCode::kUnroutable, q.src + " -> " + q.dst + ": " + t.error);
  }
  const PacketHeader h{lids.lid(src), lids.lid(dst)};
  std::vector<RouteHop> hops;
  for (const LinkId l : t.path) {
    const Link& link = f.link(l);
    RouteHop hop{f.node(link.from).name, f.node(link.from).guid, link.from_port, false, 0};
    if (const FlowEntry* e = winning_entry(*tables, link.from, h)) {
      hop.by_flow_entry = true;
      hop.cookie = e->cookie;
      hop.in_lft = held_in_lft(v, hop.guid, e->cookie);
    }
    hops.push_back(std::move(hop));
  }
  json r = route_response(q.src, q.dst, hops);
  r["to"] = f.node(dst).name;
  r["dlid"] = h.dlid.value();
  r["lid_offset"] = offset;
  return r;
}

}  // namespace

bool switch_matches(const Fabric& f, NodeIdx node, Lid lid, const SwitchRef& ref) {
  return std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, Lid>) return lid == r;
        if constexpr (std::is_same_v<T, Guid>) return f.node(node).guid == r;
        if constexpr (std::is_same_v<T, std::string>) {
          return f.node(node).name == r || f.node(node).description == r;
        }
      },
      ref);
}

bool is_view_query(const Request& request) {
  if (const auto* f = std::get_if<FlowsQuery>(&request)) return !f->from_switch;
  return std::holds_alternative<PingQuery>(request) || std::holds_alternative<JobsQuery>(request) ||
         std::holds_alternative<LinksQuery>(request) ||
         std::holds_alternative<RouteQuery>(request) || std::holds_alternative<StatsQuery>(request);
}

std::map<NodeIdx, std::vector<FlowEntry>> view_tables(const ControllerView& view) {
  std::map<NodeIdx, std::vector<FlowEntry>> out;
  if (!view.fabric) return out;
  for (const auto& [id, j] : view.jobs) {
    for (const auto& [g, entries] : j->entries) {
      const auto n = view.fabric->subnet.fabric.find_guid(g);
      if (!n) continue;
      auto& t = out[*n];
      t.insert(t.end(), entries.begin(), entries.end());
    }
  }
  return out;
}

std::optional<json> answer_from_view(const ControllerView& view, const Request& request) {
  if (!is_view_query(request)) return std::nullopt;
  try {
    return std::visit(
        [&](const auto& r) -> json {
          using T = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<T, PingQuery>)
            return pong_response(view.version, view.sm_state);
          if constexpr (std::is_same_v<T, JobsQuery>) return jobs_answer(view, r);
          if constexpr (std::is_same_v<T, FlowsQuery>) return flows_answer(view, r);
          if constexpr (std::is_same_v<T, LinksQuery>) return links_answer(view, r);
          if constexpr (std::is_same_v<T, RouteQuery>) return route_answer(view, r);
          if constexpr (std::is_same_v<T, StatsQuery>) return stats_response(view.counters);
          return error_response(ErrorCode::kInternal, "not a query");
        },
        request);
  } catch (const NoticeFailure& f) {
    return error_response(f.code(), f.what(), f.at());
  } catch (const std::exception& e) {
    return error_response(ErrorCode::kInternal, std::string("internal error: ") + e.what());
  }
}

}  // namespace ibsdn::plugin
