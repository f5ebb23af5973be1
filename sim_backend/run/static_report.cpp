#include "sim_backend/run/static_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "sim_backend/io/text_file.hpp"

namespace ibsdn {
namespace {

template <typename... Fields>
void row(std::ostringstream& out, const Fields&... fields) {
  bool first = true;
  const auto put = [&](const std::string& f) {
    if (!first) out << ',';
    first = false;
    out << f;
  };
  (put(fields), ...);
  out << '\n';
}

std::string num(double v) {
  return format_number(v);
}
std::string num(std::size_t v) {
  return std::to_string(v);
}

std::size_t jobs_with(const ReplayResult& r, std::string_view prefix) {
  std::size_t n = 0;
  for (const ReplayedJob& j : r.jobs) n += j.status.starts_with(prefix) ? 1 : 0;
  return n;
}

nlohmann::json links_json(const LinkStats& s) {
  return {{"links", s.links}, {"min", s.min}, {"q1", s.q1},  {"median", s.median},
          {"mean", s.mean},   {"q3", s.q3},   {"max", s.max}};
}

/// Doubles as format_number prints them, so that the JSON is as stable as the CSV.
nlohmann::json jnum(double v) {
  if (!std::isfinite(v)) return format_number(v);
  return nlohmann::json::parse(format_number(v));
}

}  // namespace

std::string routing_name(const ScenarioRun& r) {
  // dmodk and the flow model's adaptive routing install nothing: the backend does not apply.
  const bool no_controller = r.routing == "dmodk" || r.routing == "adaptive";
  if (no_controller || r.install_backend == InstallBackend::kAuto) return r.routing;
  return r.routing + " (" + std::string(to_string(r.install_backend)) + ")";
}

std::string case_label(const ScenarioRun& r) {
  const std::string routing = "routing=" + r.routing;
  const std::string backend = "install_backend=" + std::string(to_string(r.install_backend));
  std::string out;
  std::size_t i = 0;
  while (i < r.label.size()) {
    const std::size_t j = std::min(r.label.find(' ', i), r.label.size());
    const std::string w = r.label.substr(i, j - i);
    if (!w.empty() && w != routing && w != backend) out += (out.empty() ? "" : " ") + w;
    i = j + 1;
  }
  return out;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";  // also -0
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  std::string s = buf;
  // printf's locale is "C" unless the program changed it; make sure of the decimal point.
  for (char& c : s) {
    if (c == ',') c = '.';
  }
  return s;
}

std::string csv_field(std::string_view v) {
  if (v.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(v);
  std::string out = "\"";
  for (const char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

nlohmann::json stable_json(nlohmann::json j) {
  if (j.is_object() || j.is_array()) {
    for (auto& v : j) v = stable_json(v);
  } else if (j.is_number_float()) {
    return jnum(j.get<double>());
  }
  return j;
}

std::string csv_banner(const Scenario& s) {
  return "# ibsdn-sim run: scenario " + s.name() + " hash " + s.hash_text();
}

std::string RunRecord::status() const {
  if (!outcome) return "error: " + error;
  if (!outcome->above_dmodk.empty()) {
    const std::string where = std::to_string(outcome->above_dmodk.size()) + " of " +
                              std::to_string(outcome->replay.swml.size()) + " steps";
    if (outcome->lft_routing == "dmodk") return "SWML above DmodK at " + where;
    return "ok, SWML above the " + outcome->lft_routing + " LFTs at " + where;
  }
  return "ok";
}

bool RunRecord::ok() const {
  return outcome && (outcome->above_dmodk.empty() || outcome->lft_routing != "dmodk");
}

std::vector<std::filesystem::path> write_run_files(const Scenario& s,
                                                   const std::vector<RunRecord>& records,
                                                   const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create '" + dir.string() + "': " + ec.message());
  const std::string banner = csv_banner(s) + "\n";

  std::ostringstream summary, swml, jobs, links;
  summary << banner;
  row(summary, std::string("run"), std::string("label"), std::string("routing"),
      std::string("topology"), std::string("allocation"), std::string("pattern"),
      std::string("table_capacity"), std::string("jobs_read"), std::string("jobs_selected"),
      std::string("jobs_placed"), std::string("jobs_not_placed"), std::string("jobs_no_traffic"),
      std::string("jobs_degraded"), std::string("jobs_refused"), std::string("max_swml"),
      std::string("dmodk_max_swml"), std::string("avg_pjml"), std::string("dmodk_avg_pjml"),
      std::string("delta_avg_pct"), std::string("max_pjml"), std::string("dmodk_max_pjml"),
      std::string("delta_max_pct"), std::string("mads"), std::string("peak_entries"),
      std::string("status"), std::string("lft_routing"), std::string("install_backend"),
      std::string("lft_blocks"), std::string("peak_lft_entries"));
  swml << banner << "run,routing,time,swml,active_jobs\n";
  jobs << banner << "run,job,start,end,nodes,pattern,flows,entries,pjml,dmodk_pjml,status\n";
  links << banner << "run,routing,links,min,q1,median,mean,q3,max\n";

  nlohmann::json runs = nlohmann::json::array();
  for (const RunRecord& rec : records) {
    const ScenarioRun& r = rec.run;
    const std::string idx = std::to_string(r.index);
    nlohmann::json jr = {{"run", r.index},
                         {"label", r.label},
                         {"routing", r.routing},
                         {"allocation", r.allocation},
                         {"pattern", r.pattern.text},
                         {"table_capacity", r.table_capacity},
                         {"install_backend", to_string(r.install_backend)},
                         {"status", rec.status()}};
    if (!rec.outcome) {
      row(summary, idx, csv_field(r.label), r.routing, csv_field(r.topology.label()), r.allocation,
          csv_field(r.pattern.text), num(r.table_capacity), std::string(), std::string(),
          std::string(), std::string(), std::string(), std::string(), std::string(), std::string(),
          std::string(), std::string(), std::string(), std::string(), std::string(), std::string(),
          std::string(), std::string(), std::string(), csv_field(rec.status()), std::string(),
          std::string(to_string(r.install_backend)), std::string(), std::string());
      runs.push_back(std::move(jr));
      continue;
    }
    const RunOutcome& o = *rec.outcome;
    const ReplayResult& base = o.dmodk ? *o.dmodk : o.replay;
    row(summary, idx, csv_field(r.label), r.routing, csv_field(o.topology), r.allocation,
        csv_field(r.pattern.text), num(r.table_capacity), num(o.counts.read),
        num(o.counts.selected), num(o.counts.placed), num(o.counts.not_placed),
        num(o.counts.no_traffic), num(jobs_with(o.replay, "degraded")),
        num(jobs_with(o.replay, "refused")), num(o.replay.max_swml), num(base.max_swml),
        num(o.avg_pjml), num(o.dmodk_avg_pjml), num(delta_percent(o.dmodk_avg_pjml, o.avg_pjml)),
        num(o.max_pjml), num(o.dmodk_max_pjml), num(delta_percent(o.dmodk_max_pjml, o.max_pjml)),
        num(o.replay.mads), num(o.replay.peak_entries), csv_field(rec.status()), o.lft_routing,
        std::string(to_string(r.install_backend)), num(o.replay.lft_blocks),
        num(o.replay.peak_lft_entries));
    const auto steps = [&](const std::string& routing, const ReplayResult& res) {
      for (const SwmlStep& st : res.swml) {
        row(swml, idx, routing, num(st.time), num(st.swml), num(st.active_jobs));
      }
    };
    steps(r.routing, o.replay);
    if (o.dmodk) steps("dmodk", *o.dmodk);
    for (std::size_t i = 0; i < o.replay.jobs.size(); ++i) {
      const ReplayedJob& j = o.replay.jobs[i];
      row(jobs, idx, num(j.id), num(j.start), num(j.end), num(j.nodes),
          csv_field(o.job_patterns[i]), num(j.flows), num(j.entries), num(j.pjml),
          num(base.jobs[i].pjml), csv_field(j.status));
    }
    const auto link_row = [&](const std::string& routing, const LinkStats& st) {
      row(links, idx, routing, num(st.links), num(st.min), num(st.q1), num(st.median), num(st.mean),
          num(st.q3), num(st.max));
    };
    link_row(r.routing, o.links);
    if (o.dmodk) link_row("dmodk", o.dmodk_links);

    jr["topology"] = o.topology;
    jr["lft_routing"] = o.lft_routing;
    jr["jobs"] = {{"read", o.counts.read},
                  {"selected", o.counts.selected},
                  {"placed", o.counts.placed},
                  {"not_placed", o.counts.not_placed},
                  {"no_traffic", o.counts.no_traffic},
                  {"degraded", jobs_with(o.replay, "degraded")},
                  {"refused", jobs_with(o.replay, "refused")}};
    jr["max_swml"] = o.replay.max_swml;
    jr["dmodk_max_swml"] = base.max_swml;
    jr["pjml"] = {{"avg", o.avg_pjml},
                  {"max", o.max_pjml},
                  {"dmodk_avg", o.dmodk_avg_pjml},
                  {"dmodk_max", o.dmodk_max_pjml},
                  {"delta_avg_pct", delta_percent(o.dmodk_avg_pjml, o.avg_pjml)},
                  {"delta_max_pct", delta_percent(o.dmodk_max_pjml, o.max_pjml)}};
    jr["links"] = links_json(o.links);
    jr["dmodk_links"] = links_json(o.dmodk_links);
    jr["mads"] = o.replay.mads;
    jr["peak_entries"] = o.replay.peak_entries;
    jr["lft_blocks"] = o.replay.lft_blocks;
    jr["peak_lft_entries"] = o.replay.peak_lft_entries;
    nlohmann::json above = nlohmann::json::array();
    for (const SwmlExcess& e : o.above_dmodk) {
      above.push_back(
          {{"time", e.time}, {"swml", e.swml}, {"dmodk", e.dmodk}, {"measure", e.measure}});
    }
    jr["swml_above_dmodk"] = std::move(above);
    runs.push_back(std::move(jr));
  }

  nlohmann::json doc = {
      {"tool", "ibsdn-sim run"}, {"scenario", scenario_json(s)}, {"runs", std::move(runs)}};
  OutputFiles files(dir);
  files.put("summary.csv", summary.str(), "run summary");
  files.put("swml.csv", swml.str(), "SWML steps");
  files.put("jobs.csv", jobs.str(), "per-job results");
  files.put("links.csv", links.str(), "link-load statistics");
  files.put("results.json", stable_json(std::move(doc)).dump(2) + "\n", "results");
  return files.take();
}

nlohmann::json scenario_json(const Scenario& s) {
  return {{"name", s.name()},
          {"source", s.source()},
          {"hash", s.hash_text()},
          {"canonical", nlohmann::json::parse(s.canonical_json())}};
}

void OutputFiles::put(const std::string& name, const std::string& text, std::string_view what) {
  const std::filesystem::path p = dir_ / name;
  write_text_file(p.string(), text, what);
  written_.push_back(p);
}

void print_summary(std::ostream& out, const Scenario& s, const std::vector<RunRecord>& records) {
  out << "scenario " << s.name() << " (hash " << s.hash_text() << "), " << records.size()
      << (records.size() == 1 ? " run\n" : " runs\n");
  int label_width = 5;
  int routing_width = 7;
  for (const RunRecord& rec : records) {
    label_width = std::max(label_width, static_cast<int>(rec.run.label.size()));
    routing_width = std::max(routing_width, static_cast<int>(routing_name(rec.run).size()));
  }
  char line[1024];
  std::snprintf(line, sizeof line, "%-4s %-*s %-*s %7s %9s %9s %9s %9s %9s %9s %8s %8s  %s\n",
                "run", label_width, "label", routing_width, "routing", "jobs", "maxSWML", "DmodK",
                "avgPJML", "DmodK", "maxPJML", "DmodK", "d.avg%", "d.max%", "status");
  out << line;
  for (const RunRecord& rec : records) {
    const ScenarioRun& r = rec.run;
    const std::string label = r.label.empty() ? "-" : r.label;
    const std::string routing = routing_name(r);
    if (!rec.outcome) {
      std::snprintf(line, sizeof line, "%-4zu %-*s %-*s %7s %9s %9s %9s %9s %9s %9s %8s %8s  %s\n",
                    r.index, label_width, label.c_str(), routing_width, routing.c_str(), "-", "-",
                    "-", "-", "-", "-", "-", "-", "-", rec.status().c_str());
      out << line;
      continue;
    }
    const RunOutcome& o = *rec.outcome;
    const double base_swml = o.dmodk ? o.dmodk->max_swml : o.replay.max_swml;
    std::snprintf(line, sizeof line,
                  "%-4zu %-*s %-*s %7zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8.1f %8.1f  %s\n",
                  r.index, label_width, label.c_str(), routing_width, routing.c_str(),
                  o.counts.placed, o.replay.max_swml, base_swml, o.avg_pjml, o.dmodk_avg_pjml,
                  o.max_pjml, o.dmodk_max_pjml, delta_percent(o.dmodk_avg_pjml, o.avg_pjml),
                  delta_percent(o.dmodk_max_pjml, o.max_pjml), rec.status().c_str());
    out << line;
  }
  out << "maxSWML: the largest link load at any time; avgPJML: per-job maximum load averaged over\n"
         "the jobs (1-node jobs count 0), maxPJML its largest; DmodK: the same jobs on the same\n"
         "nodes over the LFTs (DmodK on fat-trees, min-hop elsewhere);\n"
         "d.avg%, d.max%: (DmodK - routing) / routing, seed 002's delta.\n";
}

}  // namespace ibsdn
