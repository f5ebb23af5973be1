#include "cli/response_format.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>

#include "cli/text_table.hpp"
#include "flowtable/flow_text.hpp"
#include "flowtable/guid_text.hpp"

namespace ibsdn::cli {
namespace {

using nlohmann::json;

// Typed access to one object of the response; every error names the value's JSON pointer.
class Fields {
 public:
  Fields(const json& j, std::string at) : j_(j), at_(std::move(at)) {
    if (!j_.is_object()) fail("", "an object");
  }

  [[nodiscard]] const json& need(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) throw MalformedResponse("at " + at_ + "/" + key + ": missing");
    return *it;
  }
  [[nodiscard]] bool has(const char* key) const { return j_.contains(key); }

  [[nodiscard]] std::string str(const char* key) const {
    const json& v = need(key);
    if (!v.is_string()) fail(key, "a string");
    return v.get<std::string>();
  }
  [[nodiscard]] std::uint64_t uint(const char* key) const {
    const json& v = need(key);
    if (!v.is_number_unsigned()) fail(key, "a non-negative integer");
    return v.get<std::uint64_t>();
  }
  [[nodiscard]] std::int64_t sint(const char* key) const {
    const json& v = need(key);
    if (!v.is_number_integer()) fail(key, "an integer");
    return v.get<std::int64_t>();
  }
  [[nodiscard]] double number(const char* key) const {
    const json& v = need(key);
    if (!v.is_number()) fail(key, "a number");
    return v.get<double>();
  }
  [[nodiscard]] bool boolean(const char* key) const {
    const json& v = need(key);
    if (!v.is_boolean()) fail(key, "true or false");
    return v.get<bool>();
  }
  [[nodiscard]] std::vector<Fields> objects(const char* key) const {
    const json& v = need(key);
    if (!v.is_array()) fail(key, "an array");
    std::vector<Fields> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.emplace_back(v[i], at_ + "/" + key + "/" + std::to_string(i));
    }
    return out;
  }
  [[nodiscard]] std::vector<std::string> strings(const char* key) const {
    const json& v = need(key);
    if (!v.is_array()) fail(key, "an array");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        throw MalformedResponse("at " + at_ + "/" + key + "/" + std::to_string(i) +
                                ": expected a string");
      }
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  [[nodiscard]] const json& raw() const { return j_; }
  [[nodiscard]] const std::string& at() const { return at_; }

 private:
  [[noreturn]] void fail(const char* key, const char* what) const {
    const std::string where = *key ? at_ + "/" + key : (at_.empty() ? "/" : at_);
    throw MalformedResponse("at " + where + ": expected " + what);
  }

  const json& j_;
  std::string at_;
};

// Up to three decimals, trailing zeros dropped: 2, 2.5, 0.125, 1234.568.
std::string decimal(double x) {
  if (!std::isfinite(x)) return x != x ? "nan" : (x > 0 ? "inf" : "-inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// UTC, so that two operators in different time zones read the same line.
std::string utc_time(std::int64_t unix_ms) {
  const auto secs = static_cast<std::time_t>(unix_ms / 1000 - (unix_ms % 1000 < 0 ? 1 : 0));
  std::tm tm{};
  if (::gmtime_r(&secs, &tm) == nullptr) return std::to_string(unix_ms);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// "0x0002c90300000003" -> "S-0002c90300000003", the switch label ibnetdiscover prints.
std::string switch_label(const std::string& guid) {
  if (const std::optional<Guid> g = parse_guid(guid)) return "S-" + guid_text(*g).substr(2);
  return "S-" + guid;
}

std::string entry_text(const Fields& entry) {
  // The structured form is authoritative: format it with flowtable's own printer. A controller
  // newer than this client may add fields the parser does not know; its "text" still reads.
  try {
    return format_flow(flow_from_json(entry.raw()));
  } catch (const std::invalid_argument& e) {
    if (entry.has("text")) return entry.str("text");
    throw MalformedResponse("at " + entry.at() + ": " + e.what());
  }
}

// The "matrix" object of a ready or jobs response, as ibsdn-sim words it; empty when the response
// has none or the matrix skipped no pair.
std::string skipped_pairs_text(const Fields& r) {
  if (!r.has("matrix")) return {};
  const Fields m(r.need("matrix"), r.at() + "/matrix");
  const SkippedPairs skipped{m.uint("self_pairs"), m.uint("intra_rank_bytes"),
                             m.uint("zero_pairs")};
  if (!skipped.any()) return {};
  return matrix_summary(m.uint("pairs"), skipped);
}

// Why a job has its algorithm (the responses' "algorithm_reason"), in words; a reason this client
// does not know reads as it is.
std::string algorithm_reason_text(const std::string& reason) {
  if (reason == "request") return "named by the job's notice";
  if (reason == "configuration") return "the configuration's algorithms";
  if (reason == "volumes") return "default for flows whose byte volumes differ";
  if (reason == "unit") return "default for flows of equal (or no) byte volumes";
  if (reason == "volumes_timeout")
    return "default for differing byte volumes; sdn-volume ran out of time";
  if (reason == "fallback") return "the notice's algorithm cannot route this fabric";
  return reason;
}

// The algorithm, with its reason in brackets when the response gives one.
std::string algorithm_text(const Fields& r, bool words) {
  if (!r.has("algorithm_reason")) return r.str("algorithm");
  const std::string reason = r.str("algorithm_reason");
  return r.str("algorithm") + " (" + (words ? algorithm_reason_text(reason) : reason) + ")";
}

}  // namespace

std::string format_pong(const json& response) {
  const Fields r(response, "");
  if (!r.boolean("pong")) throw MalformedResponse("at /pong: expected true");
  std::string sm;
  if (response.contains("sm_state")) sm = ", SM " + r.str("sm_state");
  return "pong: ibsdn " + r.str("version") + ", notice protocol " +
         std::to_string(r.sint("protocol")) + sm + "\n";
}

std::string format_ready(const json& response) {
  const Fields r(response, "");
  const Fields timings(r.need("timings_ms"), "/timings_ms");
  std::string out = "job " + std::to_string(r.uint("job")) + " ready\n";
  TextTable t({Align::kLeft, Align::kLeft});
  t.add_row({"algorithm:", algorithm_text(r, true)});
  t.add_row({"flows:", std::to_string(r.uint("flows")) + ", " +
                           std::to_string(r.uint("flows_on_default")) +
                           " on the default (LFT) route"});
  if (const std::string skipped = skipped_pairs_text(r); !skipped.empty()) {
    t.add_row({"matrix:", skipped});
  }
  t.add_row({"entries:", std::to_string(r.uint("entries"))});
  if (r.has("backends")) {
    const Fields b(r.need("backends"), "/backends");
    const Fields table(b.need("flow_table"), "/backends/flow_table");
    const Fields lft(b.need("lft"), "/backends/lft");
    t.add_row({"backend:", r.str("backend") + ": " +
                               plural(table.uint("entries"), "flow entry", "flow entries") +
                               " on " + plural(table.uint("switches"), "switch", "switches") +
                               ", " + plural(lft.uint("entries"), "LFT entry", "LFT entries") +
                               " on " + plural(lft.uint("switches"), "switch", "switches") + " (" +
                               plural(lft.uint("blocks"), "block", "blocks") +
                               (r.has("dry_run") ? " to write)" : " written)")});
  }
  if (r.has("lid_offset") && r.uint("lid_offset") > 0) {
    t.add_row({"LID offset:", std::to_string(r.uint("lid_offset")) +
                                  " (LMC: the job's own LIDs on shared nodes; its tasks send with "
                                  "these path bits)"});
  }
  if (r.has("dry_run")) {
    // What the job would buy: its busiest link as planned, on the LFT alone, and the bound.
    const Fields d(r.need("dry_run"), "/dry_run");
    const Fields planned(d.need("planned"), "/dry_run/planned");
    const Fields alone(d.need("lft_only"), "/dry_run/lft_only");
    t.add_row({"dry run:",
               "nothing written; max link load " + decimal(planned.number("max_link_load")) +
                   " as planned, " + decimal(alone.number("max_link_load")) +
                   " on the LFT alone (max link time " + decimal(planned.number("max_link_ms")) +
                   " ms against " + decimal(alone.number("max_link_ms")) + " ms)"});
  }
  t.add_row({"max link load:", decimal(r.number("max_link_load")) + " (lower bound L_D " +
                                   decimal(r.number("bound")) + ")"});
  t.add_row({"max link time:", decimal(r.number("max_link_ms")) +
                                   " ms for its bytes (lower bound " +
                                   decimal(r.number("bound_ms")) + " ms)"});
  if (r.has("guard_measure")) {
    t.add_row(
        {"load guard:", "compares " + r.str("guard_measure") + " against the default routes"});
  }
  t.add_row({"degraded:", r.boolean("degraded") ? "yes" : "no"});
  for (const std::string& w : r.strings("warnings")) t.add_row({"warning:", w});
  t.add_row({"time:", "route " + decimal(timings.number("route")) + " ms, compile " +
                          decimal(timings.number("compile")) + " ms, install " +
                          decimal(timings.number("install")) + " ms"});
  return out + t.render();
}

std::string format_jobs(const json& response) {
  const Fields r(response, "");
  TextTable t({Align::kRight, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft,
               Align::kRight, Align::kLeft, Align::kLeft},
              "");
  t.add_row(
      {"JOB", "USER", "NODES", "PATTERN", "ALGORITHM", "PHASE", "ENTRIES", "STARTED", "DEGRADED"});
  // Skipped matrix pairs would widen every row for a few jobs: a line each under the table.
  std::string notes;
  for (const Fields& j : r.objects("jobs")) {
    const std::string phase = j.str("phase");
    t.add_row({std::to_string(j.uint("job")), j.str("user"), std::to_string(j.uint("nodes")),
               j.str("pattern"), algorithm_text(j, false), phase.empty() ? "-" : phase,
               std::to_string(j.uint("entries")), utc_time(j.sint("started_unix_ms")),
               j.boolean("degraded") ? "yes" : "no"});
    if (const std::string skipped = skipped_pairs_text(j); !skipped.empty()) {
      notes += "job " + std::to_string(j.uint("job")) + " matrix: " + skipped + "\n";
    }
    if (j.has("lid_offset") && j.uint("lid_offset") > 0) {
      notes += "job " + std::to_string(j.uint("job")) + ": LID offset " +
               std::to_string(j.uint("lid_offset")) + " (its own LIDs on shared nodes, LMC)\n";
    }
  }
  return t.render() + notes;
}

std::string format_flows(const json& response) {
  const Fields r(response, "");
  const std::vector<Fields> switches = r.objects("switches");
  std::string body;
  std::uint64_t total = 0;
  for (const Fields& s : switches) {
    const std::vector<Fields> entries = s.objects("entries");
    total += entries.size();
    const std::string guid = s.str("guid");
    body += "switch " + switch_label(guid) + " (" + s.str("name") + ") guid=" + guid +
            " lid=" + std::to_string(s.uint("lid")) + ": " +
            plural(entries.size(), "entry", "entries") + "\n";
    std::size_t in_lft = 0;
    for (const Fields& e : entries) in_lft += e.has("backend") && e.str("backend") == "lft";
    if (in_lft > 0) body.insert(body.size() - 1, " (" + std::to_string(in_lft) + " in its LFT)");
    for (const Fields& e : entries) body += " " + entry_text(e) + "\n";
  }
  return "source=" + r.str("source") + ": " + plural(switches.size(), "switch", "switches") + ", " +
         plural(total, "entry", "entries") + "\n" + body;
}

std::string format_links(const json& response) {
  const Fields r(response, "");
  TextTable t({Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft, Align::kRight,
               Align::kRight, Align::kRight});
  t.add_row({"FROM", "PORT", "->", "TO", "PORT", "FLOWS", "WEIGHT"});
  // Kept in the controller's order: it ranks the links (most loaded first) and applies --top.
  for (const Fields& l : r.objects("links")) {
    t.add_row({l.str("from"), std::to_string(l.uint("from_port")), "->", l.str("to"),
               std::to_string(l.uint("to_port")), std::to_string(l.sint("flows")),
               decimal(l.number("weight"))});
  }
  return t.render();
}

std::string format_route(const json& response) {
  const Fields r(response, "");
  const std::vector<Fields> hops = r.objects("hops");
  std::string out =
      r.str("src") + " -> " + r.str("dst") + ": " + plural(hops.size(), "hop", "hops");
  if (r.has("lid_offset") && r.uint("lid_offset") > 0) {
    out += " (DLID " + std::to_string(r.uint("dlid")) + ", LID offset " +
           std::to_string(r.uint("lid_offset")) + ")";
  }
  out += "\n";
  TextTable t({Align::kRight, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft}, "  ");
  std::size_t n = 0;
  for (const Fields& h : hops) {
    const std::string by = h.str("by");
    std::string how;
    if (by == "flow" && h.has("backend") && h.str("backend") == "lft") {
      how = "lft-entry (cookie=" + hex(h.uint("cookie")) + ")";
    } else if (by == "flow") {
      how = "flow-entry (cookie=" + hex(h.uint("cookie")) + ")";
    } else if (by == "lft") {
      how = "lft";
    } else {
      throw MalformedResponse("at " + h.at() + "/by: expected \"flow\" or \"lft\"");
    }
    t.add_row({std::to_string(++n), h.str("node"), "guid=" + h.str("guid"),
               "out_port=" + std::to_string(h.uint("out_port")), how});
  }
  return out + t.render();
}

bool audit_found_differences(const json& response) {
  const Fields r(response, "");
  return !r.boolean("consistent") || !r.objects("findings").empty();
}

std::string format_audit(const json& response) {
  const Fields r(response, "");
  const std::vector<Fields> findings = r.objects("findings");
  const std::uint64_t checked = r.uint("switches_checked");
  std::string out = "audit: " + plural(checked, "switch", "switches") + " checked, ";
  const json& repaired = response.contains("repaired") ? response["repaired"] : json();
  const json& blocks =
      response.contains("lft_blocks_repaired") ? response["lft_blocks_repaired"] : json();
  std::vector<std::string> parts;
  if (repaired.is_number_unsigned() && repaired.get<std::uint64_t>() > 0) {
    parts.push_back(plural(repaired.get<std::uint64_t>(), "FlowMod", "FlowMods"));
  }
  if (blocks.is_number_unsigned() && blocks.get<std::uint64_t>() > 0) {
    parts.push_back(plural(blocks.get<std::uint64_t>(), "LFT block", "LFT blocks"));
  }
  const std::string repairs =
      parts.empty() ? std::string()
                    : "repaired with " + parts.front() +
                          (parts.size() > 1 ? " and " + parts.back() : std::string()) + "\n";
  if (findings.empty() && r.boolean("consistent")) return out + "consistent\n";
  out += plural(findings.size(), "finding", "findings") + "\n" + repairs;
  TextTable t({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft});
  t.add_row({"SWITCH", "NAME", "KIND", "DETAIL"});
  for (const Fields& f : findings) {
    t.add_row({f.str("switch"), f.str("name"), f.str("kind"), f.str("detail")});
  }
  return out + t.render();
}

std::string format_job_end(const json& response) {
  const Fields r(response, "");
  std::string out = "job " + std::to_string(r.uint("job")) +
                    " ended: " + plural(r.uint("entries_removed"), "entry", "entries") +
                    " removed\n";
  if (const json* w = response.contains("warnings") ? &response["warnings"] : nullptr;
      w != nullptr && w->is_array()) {
    for (const json& line : *w) {
      if (line.is_string()) out += "warning: " + line.get<std::string>() + "\n";
    }
  }
  return out;
}

namespace {

// "12 on 3 switches", or "unknown" before any audit read a switch.
std::string on_switches(const Fields& r) {
  const json& entries = r.need("entries_on_switches");
  const json& switches = r.need("switches");
  if (entries.is_null() && switches.is_null()) return "unknown";
  return std::to_string(r.uint("entries_on_switches")) + " on " +
         plural(r.uint("switches"), "switch", "switches");
}

}  // namespace

std::string format_quarantine(const json& response) {
  const Fields r(response, "");
  TextTable t({Align::kRight, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft}, "");
  t.add_row({"JOB", "QUARANTINED", "STORED", "ON SWITCHES", "REASON"});
  for (const Fields& q : r.objects("quarantine")) {
    t.add_row({std::to_string(q.uint("job")), utc_time(q.sint("quarantined_unix_ms")),
               std::to_string(q.uint("entries_stored")), on_switches(q), q.str("reason")});
  }
  return t.render();
}

std::string format_quarantine_release(const json& response) {
  const Fields r(response, "");
  const std::uint64_t job = r.uint("job");
  std::string out = "job " + std::to_string(job) +
                    " released from quarantine: the controller no longer keeps it, and its id may "
                    "be used again\n";
  if (r.boolean("entries_deleted")) {
    out += "entries: " + std::to_string(r.uint("entries_removed")) + " with cookie " + hex(job) +
           " deleted from " + plural(r.uint("switches_removed"), "switch", "switches") + "\n";
  } else {
    const std::string held = on_switches(r);
    out += "entries: NOT deleted (" +
           (held == "unknown" ? std::string("how many the switches hold is unknown")
                              : held + " at their last audit") +
           "); they are no longer the controller's: the next audit with repair removes them "
           "(the periodic check, a SUBNET UP, or 'ibsdnctl audit --repair'), or, should opensm "
           "restart first, it adopts them as job " +
           std::to_string(job) + " (then 'ibsdnctl job end --job " + std::to_string(job) +
           "' removes them); if job " + std::to_string(job) +
           " still runs, its traffic then takes the LFT routes\n";
  }
  for (const std::string& w : r.strings("warnings")) out += "warning: " + w + "\n";
  return out;
}

std::string format_stats(const json& response) {
  const Fields r(response, "");
  const json& stats = r.need("stats");
  if (!stats.is_object()) throw MalformedResponse("at /stats: expected an object");
  TextTable t({Align::kLeft, Align::kRight});
  for (const auto& [name, value] : stats.items()) {
    if (!value.is_number()) {
      throw MalformedResponse("at /stats/" + name + ": expected a number");
    }
    t.add_row({name, value.is_number_integer() ? value.dump() : decimal(value.get<double>())});
  }
  return t.render();
}

std::string format_response(const Request& request, const json& response) {
  return std::visit(
      [&response](const auto& q) -> std::string {
        using T = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<T, JobStartRequest> || std::is_same_v<T, HintRequest>) {
          return format_ready(response);
        } else if constexpr (std::is_same_v<T, PhaseRequest>) {
          return q.action == PhaseAction::kBegin ? format_ready(response) : std::string();
        } else if constexpr (std::is_same_v<T, JobEndRequest>) {
          return format_job_end(response);
        } else if constexpr (std::is_same_v<T, JobsQuery>) {
          return format_jobs(response);
        } else if constexpr (std::is_same_v<T, FlowsQuery>) {
          return format_flows(response);
        } else if constexpr (std::is_same_v<T, LinksQuery>) {
          return format_links(response);
        } else if constexpr (std::is_same_v<T, RouteQuery>) {
          return format_route(response);
        } else if constexpr (std::is_same_v<T, AuditQuery>) {
          return format_audit(response);
        } else if constexpr (std::is_same_v<T, StatsQuery>) {
          return format_stats(response);
        } else if constexpr (std::is_same_v<T, QuarantineQuery>) {
          return format_quarantine(response);
        } else if constexpr (std::is_same_v<T, QuarantineReleaseRequest>) {
          return format_quarantine_release(response);
        } else {
          static_assert(std::is_same_v<T, PingQuery>);
          return format_pong(response);
        }
      },
      request);
}

}  // namespace ibsdn::cli
