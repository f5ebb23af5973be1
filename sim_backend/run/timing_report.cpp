#include "sim_backend/run/timing_report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

#include "sim_backend/io/text_file.hpp"
#include "sim_backend/run/static_report.hpp"

namespace ibsdn {
namespace {

void row(std::ostringstream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << fields[i];
  out << '\n';
}

std::string num(double v) {
  return format_number(v);
}
std::string num(std::size_t v) {
  return std::to_string(v);
}
std::string opt(const std::optional<double>& v) {
  return v ? format_number(*v) : std::string();
}

nlohmann::json classes_json(const TimingSettings& t) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t sl = 0; sl < t.classes.size(); ++sl) {
    const ScenarioClass& c = t.classes[sl];
    out.push_back({{"name", c.name},
                   {"sl", sl},
                   {"priority", c.priority},
                   {"cap", c.cap},
                   {"borrow", c.borrow}});
  }
  return out;
}

std::size_t jobs_not_run(const FlowOutcome& o) {
  return static_cast<std::size_t>(
      std::count_if(o.jobs.begin(), o.jobs.end(), [](const FlowJob& j) { return !j.sim; }));
}

}  // namespace

std::string FlowRecord::status() const {
  if (!outcome) return "error: " + error;
  const std::size_t n = jobs_not_run(*outcome);
  if (n == 0) return "ok";
  return "ok, " + std::to_string(n) + (n == 1 ? " job" : " jobs") + " not run";
}

std::optional<double> vs_reference(const FlowOutcome& o, const FlowJob& j,
                                   const FlowOutcome* reference) {
  if (reference == nullptr || !j.sim) return std::nullopt;
  // Runs of one scenario list the same trace's jobs in the same order, so the job at j's place
  // in the reference is nearly always j's (ids are unique within a run): a search per job made
  // a 10,000-job trace cost 10^8 comparisons per table.
  const auto at = static_cast<std::size_t>(&j - o.jobs.data());
  auto it = reference->jobs.begin();
  if (at < reference->jobs.size() && reference->jobs[at].id == j.id) {
    it += static_cast<std::ptrdiff_t>(at);
  } else {
    it = std::find_if(reference->jobs.begin(), reference->jobs.end(),
                      [&](const FlowJob& r) { return r.id == j.id; });
  }
  if (it == reference->jobs.end() || !it->sim) return std::nullopt;
  const double own = o.result.jobs[*j.sim].total_time();
  const double ref = reference->result.jobs[*it->sim].total_time();
  if (own <= 0) return ref <= 0 ? std::optional<double>(1.0) : std::nullopt;
  return ref / own;
}

const FlowOutcome* reference_outcome(const Scenario& s, const std::vector<FlowRecord>& records,
                                     const FlowRecord& rec) {
  const std::optional<std::size_t> index = s.reference_run(rec.run.index);
  if (!index) return nullptr;
  const auto it = std::find_if(records.begin(), records.end(),
                               [&](const FlowRecord& r) { return r.run.index == *index; });
  return it == records.end() || !it->outcome ? nullptr : &*it->outcome;
}

std::vector<ApplicationSummary> summarise_applications(const FlowOutcome& o,
                                                       const FlowOutcome* reference) {
  std::vector<ApplicationSummary> out;
  std::vector<double> speedup_sum;
  std::vector<std::pair<double, std::size_t>> vs_sum;  // sum, jobs
  for (const FlowJob& j : o.jobs) {
    if (!j.sim) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const ApplicationSummary& a) {
      return a.application == j.application && a.ranks == j.ranks;
    });
    if (it == out.end()) {
      ApplicationSummary a;
      a.application = j.application;
      a.ranks = j.ranks;
      out.push_back(std::move(a));
      speedup_sum.push_back(0);
      vs_sum.emplace_back(0, 0);
      it = out.end() - 1;
    }
    const auto k = static_cast<std::size_t>(it - out.begin());
    const double comm = o.result.jobs[*j.sim].comm_time;
    ++it->jobs;
    it->mean_comm_time += comm;
    it->max_comm_time = std::max(it->max_comm_time, comm);
    it->baseline_mean_comm_time += o.reference().jobs[*j.sim].comm_time;
    speedup_sum[k] += *o.speedup(j);
    if (const auto v = vs_reference(o, j, reference)) {
      vs_sum[k].first += *v;
      ++vs_sum[k].second;
    }
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto n = static_cast<double>(out[k].jobs);
    out[k].mean_comm_time /= n;
    out[k].baseline_mean_comm_time /= n;
    out[k].mean_speedup = speedup_sum[k] / n;
    if (vs_sum[k].second > 0) {
      out[k].mean_vs_reference = vs_sum[k].first / static_cast<double>(vs_sum[k].second);
    }
  }
  return out;
}

std::vector<std::filesystem::path> write_flow_files(const Scenario& s,
                                                    const std::vector<FlowRecord>& records,
                                                    const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create '" + dir.string() + "': " + ec.message());
  const std::string banner = csv_banner(s) + "\n";

  std::ostringstream summary, jobs, samples;
  summary << banner
          << "run,label,routing,baseline,topology,allocation,nic,gpu_link,bandwidth_multiple,"
             "jobs_read,jobs_selected,jobs_placed,jobs_not_placed,jobs_not_run,makespan,"
             "baseline_makespan,application,ranks,jobs,mean_comm_time,max_comm_time,"
             "baseline_mean_comm_time,mean_speedup,mean_vs_reference,status,lft_routing,"
             "install_backend\n";
  jobs << banner
       << "run,label,routing,job,application,class,nodes,ranks,start,end,total_time,"
          "compute_time,comm_time,max_comm_time,slowdown,speedup,baseline_comm_time,vs_reference,"
          "status\n";
  samples << banner << "run,routing,interval,start,link,bytes,utilisation\n";
  bool sampled = false;

  nlohmann::json runs = nlohmann::json::array();
  for (const FlowRecord& rec : records) {
    const ScenarioRun& r = rec.run;
    const TimingSettings& t = r.timing;
    const std::string idx = std::to_string(r.index);
    const std::string backend(to_string(r.install_backend));
    const std::vector<std::string> head = {
        idx,
        csv_field(r.label),
        r.routing,
        t.baseline,
        csv_field(rec.outcome ? rec.outcome->topology : r.topology.label()),
        r.allocation,
        t.nic.to_string(),
        num(t.gpu_link),
        num(t.bandwidth_multiple)};
    nlohmann::json jr = {{"run", r.index},
                         {"label", r.label},
                         {"routing", r.routing},
                         {"baseline", t.baseline},
                         {"install_backend", backend},
                         {"allocation", r.allocation},
                         {"timing",
                          {{"nic", t.nic.to_string()},
                           {"gpu_link", t.gpu_link},
                           {"link_latency", t.link_latency},
                           {"bandwidth_multiple", t.bandwidth_multiple},
                           {"alone", t.alone},
                           {"sample_interval", t.sample_interval},
                           {"elephants", t.elephant_bytes},
                           {"qos", t.qos},
                           {"classes", classes_json(t)}}},
                         {"status", rec.status()}};
    if (!rec.outcome) {
      std::vector<std::string> f = head;
      f.resize(head.size() + 15);
      f.push_back(csv_field(rec.status()));
      f.emplace_back();
      f.push_back(backend);
      row(summary, f);
      runs.push_back(std::move(jr));
      continue;
    }
    const FlowOutcome& o = *rec.outcome;
    const FlowOutcome* ref = reference_outcome(s, records, rec);
    const std::vector<std::string> counts = {num(o.counts.read),         num(o.counts.selected),
                                             num(o.counts.placed),       num(o.counts.not_placed),
                                             num(jobs_not_run(o)),       num(o.result.makespan),
                                             num(o.reference().makespan)};
    const std::vector<ApplicationSummary> apps = summarise_applications(o, ref);
    nlohmann::json japps = nlohmann::json::array();
    for (const ApplicationSummary& a : apps) {
      std::vector<std::string> f = head;
      f.insert(f.end(), counts.begin(), counts.end());
      f.insert(
          f.end(),
          {csv_field(a.application), num(std::size_t{a.ranks}), num(a.jobs), num(a.mean_comm_time),
           num(a.max_comm_time), num(a.baseline_mean_comm_time), num(a.mean_speedup),
           opt(a.mean_vs_reference), csv_field(rec.status()), o.lft_routing, backend});
      row(summary, f);
      japps.push_back({{"application", a.application},
                       {"ranks", a.ranks},
                       {"jobs", a.jobs},
                       {"mean_comm_time", a.mean_comm_time},
                       {"max_comm_time", a.max_comm_time},
                       {"baseline_mean_comm_time", a.baseline_mean_comm_time},
                       {"mean_speedup", a.mean_speedup}});
      if (a.mean_vs_reference) japps.back()["mean_vs_reference"] = *a.mean_vs_reference;
    }
    if (apps.empty()) {
      std::vector<std::string> f = head;
      f.insert(f.end(), counts.begin(), counts.end());
      f.resize(f.size() + 8);
      f.push_back(csv_field(rec.status()));
      f.push_back(o.lft_routing);
      f.push_back(backend);
      row(summary, f);
    }
    nlohmann::json jjobs = nlohmann::json::array();
    for (const FlowJob& j : o.jobs) {
      std::vector<std::string> f = {idx,
                                    csv_field(r.label),
                                    r.routing,
                                    num(j.id),
                                    csv_field(j.application),
                                    j.traffic_class,
                                    num(std::size_t{j.nodes}),
                                    num(std::size_t{j.ranks})};
      nlohmann::json jj = {{"job", j.id},
                           {"application", j.application},
                           {"class", j.traffic_class},
                           {"nodes", j.nodes},
                           {"ranks", j.ranks}};
      if (!j.sim) {
        f.resize(f.size() + 10);
        f.push_back(csv_field(j.status));
        jj["status"] = j.status;
      } else {
        const TimedJob& tj = o.result.jobs[*j.sim];
        const double base = o.reference().jobs[*j.sim].comm_time;
        f.insert(f.end(),
                 {num(tj.start), num(tj.end), num(tj.total_time()), num(tj.compute_time),
                  num(tj.comm_time), num(tj.max_comm_time), opt(o.slowdown(j)), opt(o.speedup(j)),
                  num(base), opt(vs_reference(o, j, ref)), csv_field(tj.status)});
        jj.update({{"start", tj.start},
                   {"end", tj.end},
                   {"total_time", tj.total_time()},
                   {"compute_time", tj.compute_time},
                   {"comm_time", tj.comm_time},
                   {"max_comm_time", tj.max_comm_time},
                   {"speedup", *o.speedup(j)},
                   {"baseline_comm_time", base},
                   {"messages", tj.messages},
                   {"network_bytes", tj.network_bytes},
                   {"gpu_link_bytes", tj.gpu_link_bytes},
                   {"status", tj.status}});
        if (j.background) {
          jj["background_skipped"] = tj.skipped;
          jj["background_unfinished"] = tj.unfinished;
        }
        if (const auto sd = o.slowdown(j)) jj["slowdown"] = *sd;
        if (const auto v = vs_reference(o, j, ref)) jj["vs_reference"] = *v;
      }
      row(jobs, f);
      jjobs.push_back(std::move(jj));
    }
    const double interval = o.result.sample_interval;
    if (interval > 0) {
      sampled = true;
      for (const LinkSample& ls : o.result.samples) {
        const std::size_t l = ls.link.value();
        row(samples, {idx, r.routing, num(std::size_t{ls.interval}), num(ls.interval * interval),
                      csv_field(o.link_names.at(l)), num(ls.bytes),
                      num(ls.bytes / (o.link_bandwidth.at(l) * interval))});
      }
    }
    jr["topology"] = o.topology;
    jr["lft_routing"] = o.lft_routing;
    jr["jobs_count"] = {{"read", o.counts.read},
                        {"selected", o.counts.selected},
                        {"placed", o.counts.placed},
                        {"not_placed", o.counts.not_placed},
                        {"not_run", jobs_not_run(o)}};
    jr["makespan"] = o.result.makespan;
    jr["baseline_makespan"] = o.reference().makespan;
    jr["messages"] = o.result.messages;
    jr["applications"] = std::move(japps);
    jr["jobs"] = std::move(jjobs);
    runs.push_back(std::move(jr));
  }

  nlohmann::json doc = {{"tool", "ibsdn-sim run"},
                        {"model", "flow"},
                        {"reference", s.reference_label()},
                        {"scenario", scenario_json(s)},
                        {"runs", std::move(runs)}};
  OutputFiles files(dir);
  files.put("summary.csv", summary.str(), "run summary");
  files.put("jobs.csv", jobs.str(), "per-job results");
  if (sampled) files.put("link_samples.csv", samples.str(), "link samples");
  files.put("results.json", stable_json(std::move(doc)).dump(2) + "\n", "results");
  return files.take();
}

void print_flow_summary(std::ostream& out, const Scenario& s,
                        const std::vector<FlowRecord>& records) {
  out << "scenario " << s.name() << " (hash " << s.hash_text() << "), " << records.size()
      << (records.size() == 1 ? " run" : " runs") << ", flow model\n";
  const bool compared = !s.reference_label().empty();
  const auto app_text = [](const ApplicationSummary& a) {
    return a.application.substr(0, 40) + " (" + std::to_string(a.ranks) + ")";
  };
  int label_width = 5;
  int routing_width = 7;
  int app_width = 11;
  for (const FlowRecord& rec : records) {
    label_width = std::max(label_width, static_cast<int>(rec.run.label.size()));
    routing_width = std::max(routing_width, static_cast<int>(routing_name(rec.run).size()));
    if (!rec.outcome) continue;
    for (const ApplicationSummary& a : summarise_applications(*rec.outcome)) {
      app_width = std::max(app_width, static_cast<int>(app_text(a).size()));
    }
  }
  char line[1024];
  std::snprintf(line, sizeof line, "%-4s %-*s %-*s %-*s %5s %12s %12s %12s %8s %s %s\n", "run",
                label_width, "label", routing_width, "routing", app_width, "application (ranks)",
                "jobs", "makespan_s", "meanComm_s", "baseline_s", "speedup",
                compared ? "vsRef   " : "", "status");
  out << line;
  for (const FlowRecord& rec : records) {
    const ScenarioRun& r = rec.run;
    const std::string label = r.label.empty() ? "-" : r.label;
    const FlowOutcome* ref = reference_outcome(s, records, rec);
    const std::vector<ApplicationSummary> apps =
        rec.outcome ? summarise_applications(*rec.outcome, ref) : std::vector<ApplicationSummary>{};
    if (apps.empty()) {
      std::snprintf(line, sizeof line, "%-4zu %-*s %-*s %-*s %5s %12s %12s %12s %8s %s %s\n",
                    r.index, label_width, label.c_str(), routing_width, routing_name(r).c_str(),
                    app_width, "-", "-", "-", "-", "-", "-", compared ? "       -" : "",
                    rec.status().c_str());
      out << line;
      continue;
    }
    for (const ApplicationSummary& a : apps) {
      char vs[32] = "";
      if (compared) {
        if (a.mean_vs_reference) {
          std::snprintf(vs, sizeof vs, "%8.3f", *a.mean_vs_reference);
        } else {
          std::snprintf(vs, sizeof vs, "%8s", "-");
        }
      }
      std::snprintf(line, sizeof line,
                    "%-4zu %-*s %-*s %-*s %5zu %12.6g %12.6g %12.6g %8.3f %s %s\n", r.index,
                    label_width, label.c_str(), routing_width, routing_name(r).c_str(), app_width,
                    app_text(a).c_str(), a.jobs, rec.outcome->result.makespan, a.mean_comm_time,
                    a.baseline_mean_comm_time, a.mean_speedup, vs, rec.status().c_str());
      out << line;
    }
  }
  out << "meanComm_s: the jobs' mean communication time (the ranks' mean time not computing);\n"
         "baseline_s: the same under timing.baseline, on the same jobs and nodes;\n"
         "speedup: per job baseline / routing communication time, averaged.\n";
  if (compared) {
    out << "vsRef: per job its total time in the reference run (" << s.reference_label()
        << ", the other swept values this run's) over its total time here, averaged.\n";
  }
}

}  // namespace ibsdn
