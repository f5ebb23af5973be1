#include "plugin/notice/response.hpp"

#include "flowtable/flow_text.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/notice/version.hpp"

namespace ibsdn {

using nlohmann::json;

json ok_response() {
  return {{"v", kNoticeProtocolVersion}, {"ok", true}};
}

json error_response(ErrorCode code, std::string_view message, std::string_view at) {
  json e = {{"code", to_string(code)}, {"message", message}};
  if (!at.empty()) e["at"] = at;
  return {{"v", kNoticeProtocolVersion}, {"ok", false}, {"error", std::move(e)}};
}

json error_response(const RequestError& e) {
  return error_response(e.code, e.message, e.at);
}

namespace {

json matrix_json(const MatrixCounts& m) {
  return {{"pairs", m.pairs},
          {"self_pairs", m.skipped.self_pairs},
          {"intra_rank_bytes", m.skipped.intra_rank_bytes},
          {"zero_pairs", m.skipped.zero_pairs}};
}

}  // namespace

json ready_response(const JobReady& r) {
  json j = ok_response();
  j["job"] = r.job.value();
  j["algorithm"] = r.algorithm;
  if (!r.algorithm_reason.empty()) j["algorithm_reason"] = r.algorithm_reason;
  if (!r.guard_measure.empty()) j["guard_measure"] = r.guard_measure;
  j["flows"] = r.flows;
  j["flows_on_default"] = r.flows_on_default;
  j["entries"] = r.entries;
  j["max_link_load"] = r.max_link_load;
  j["bound"] = r.bound;
  j["max_link_ms"] = r.max_link_ms;
  j["bound_ms"] = r.bound_ms;
  j["degraded"] = r.degraded;
  j["warnings"] = r.warnings;
  j["timings_ms"] = {{"route", r.route_ms}, {"compile", r.compile_ms}, {"install", r.install_ms}};
  if (r.matrix) j["matrix"] = matrix_json(*r.matrix);
  j["lid_offset"] = r.lid_offset;
  if (!r.backend.empty()) {
    j["backend"] = r.backend;
    j["backends"] = {
        {"flow_table", {{"switches", r.table_switches}, {"entries", r.table_entries}}},
        {"lft",
         {{"switches", r.lft_switches}, {"entries", r.lft_entries}, {"blocks", r.lft_blocks}}}};
  }
  return j;
}

json pong_response(std::string_view server_version, std::string_view sm_state) {
  json j = ok_response();
  j["pong"] = true;
  j["version"] = server_version;
  j["protocol"] = kNoticeProtocolVersion;
  if (!sm_state.empty()) j["sm_state"] = sm_state;
  return j;
}

json jobs_response(std::span<const JobSummary> jobs) {
  json list = json::array();
  for (const JobSummary& s : jobs) {
    json job = {{"job", s.job.value()},     {"user", s.user},
                {"nodes", s.nodes},         {"pattern", s.pattern},
                {"algorithm", s.algorithm}, {"phase", s.phase},
                {"entries", s.entries},     {"started_unix_ms", s.started_unix_ms},
                {"degraded", s.degraded}};
    if (s.matrix) job["matrix"] = matrix_json(*s.matrix);
    if (!s.algorithm_reason.empty()) job["algorithm_reason"] = s.algorithm_reason;
    job["lid_offset"] = s.lid_offset;
    if (!s.backend.empty()) {
      job["backend"] = s.backend;
      job["lft_entries"] = s.lft_entries;
    }
    list.push_back(std::move(job));
  }
  json j = ok_response();
  j["jobs"] = std::move(list);
  return j;
}

json flows_response(std::span<const SwitchFlows> switches, bool from_switch) {
  json list = json::array();
  for (const SwitchFlows& s : switches) {
    json entries = json::array();
    for (std::size_t i = 0; i < s.entries.size(); ++i) {
      const FlowEntry& e = s.entries[i];
      json f = flow_to_json(e);
      f["text"] = format_flow(e);
      f["backend"] = i < s.in_lft.size() && s.in_lft[i] ? "lft" : "flow_table";
      entries.push_back(std::move(f));
    }
    list.push_back({{"guid", guid_text(s.guid)},
                    {"lid", s.lid.value()},
                    {"name", s.name},
                    {"entries", std::move(entries)}});
  }
  json j = ok_response();
  j["source"] = from_switch ? "switch" : "controller";
  j["switches"] = std::move(list);
  return j;
}

json links_response(std::span<const LinkRow> links) {
  json list = json::array();
  for (const LinkRow& l : links) {
    list.push_back({{"from", l.from},
                    {"from_port", l.from_port.value()},
                    {"to", l.to},
                    {"to_port", l.to_port.value()},
                    {"flows", l.flows},
                    {"weight", l.weight}});
  }
  json j = ok_response();
  j["links"] = std::move(list);
  return j;
}

json route_response(std::string_view src, std::string_view dst, std::span<const RouteHop> hops) {
  json list = json::array();
  for (const RouteHop& h : hops) {
    json hop = {{"node", h.node},
                {"guid", guid_text(h.guid)},
                {"out_port", h.out_port.value()},
                {"by", h.by_flow_entry ? "flow" : "lft"}};
    if (h.by_flow_entry) {
      hop["cookie"] = h.cookie;
      hop["backend"] = h.in_lft ? "lft" : "flow_table";
    }
    list.push_back(std::move(hop));
  }
  json j = ok_response();
  j["src"] = src;
  j["dst"] = dst;
  j["hops"] = std::move(list);
  return j;
}

json audit_response(std::size_t switches_checked, std::span<const AuditFinding> findings) {
  json list = json::array();
  for (const AuditFinding& f : findings) {
    list.push_back({{"switch", guid_text(f.switch_guid)},
                    {"name", f.switch_name},
                    {"kind", f.kind},
                    {"detail", f.detail}});
  }
  json j = ok_response();
  j["switches_checked"] = switches_checked;
  j["consistent"] = findings.empty();
  j["findings"] = std::move(list);
  return j;
}

json stats_response(std::span<const std::pair<std::string, std::uint64_t>> counters) {
  json c = json::object();
  for (const auto& [name, value] : counters) c[name] = value;
  json j = ok_response();
  j["stats"] = std::move(c);
  return j;
}

namespace {

json count_or_null(const std::optional<std::uint64_t>& n) {
  return n ? json(*n) : json(nullptr);
}

}  // namespace

json quarantine_response(std::span<const QuarantineRow> jobs) {
  json list = json::array();
  for (const QuarantineRow& q : jobs) {
    list.push_back({{"job", q.job.value()},
                    {"reason", q.reason},
                    {"quarantined_unix_ms", q.quarantined_unix_ms},
                    {"entries_stored", q.entries_stored},
                    {"entries_on_switches", count_or_null(q.entries_on_switches)},
                    {"switches", count_or_null(q.switches)}});
  }
  json j = ok_response();
  j["quarantine"] = std::move(list);
  return j;
}

json quarantine_release_response(const QuarantineRelease& r) {
  json j = ok_response();
  j["job"] = r.job.value();
  j["entries_deleted"] = r.entries_deleted;
  j["entries_removed"] = r.entries_removed;
  j["switches_removed"] = r.switches_removed;
  j["entries_on_switches"] = count_or_null(r.entries_on_switches);
  j["switches"] = count_or_null(r.switches);
  j["warnings"] = r.warnings;
  return j;
}

std::string to_line(const json& response) {
  std::string line = response.dump(-1, ' ', true, json::error_handler_t::replace);
  line += '\n';
  return line;
}

}  // namespace ibsdn
