// JobController: quarantined jobs for operators (docs/operations.md, "Quarantined jobs"). The
// list of what the state store kept aside, with what the switches still hold of each job, and
// the release of one: its rows leave the quarantine, its id is usable again, and its cookie is no
// longer hands-off. Its entries are deleted from the switches only when the operator says so
// (delete_entries): a job the store could not read may still run, and a release by mistake must
// not take its routes at once. Without it they stay until the next audit with repair removes them
// as unexpected (or a take-over after a restart adopts them, job_takeover.cpp), which the answer
// says.
#include <algorithm>

#include "flowtable/guid_text.hpp"
#include "plugin/controller/job_controller.hpp"
#include "plugin/controller/job_text.hpp"
#include "plugin/controller/switch_sync.hpp"

namespace ibsdn::plugin {
namespace {

using nlohmann::json;

}  // namespace

json JobController::quarantine_list(const QuarantineQuery& /*q*/) {
  const auto held = [&](std::uint64_t cookie, QuarantineRow& row) {
    if (const auto h = quarantined_.held(cookie)) {
      row.entries_on_switches = h->entries;
      row.switches = h->switches;
    }
  };
  std::vector<QuarantineRow> rows;
  std::set<std::uint64_t> listed;
  if (store_ != nullptr) {
    for (const QuarantinedJob& q : store_->quarantined()) {
      QuarantineRow& row = rows.emplace_back();
      row.job = q.id;
      row.reason = q.reason;
      row.quarantined_unix_ms = q.quarantined_unix_ms;
      row.entries_stored = q.entry_rows;
      held(q.id.value(), row);
      listed.insert(q.id.value());
    }
  }
  // A job the controller kept aside although the store could not record it (logged then).
  for (const std::uint64_t cookie : quarantined_.cookies()) {
    if (listed.contains(cookie)) continue;
    QuarantineRow& row = rows.emplace_back();
    row.job = JobId(cookie);
    row.reason =
        "kept aside by the controller; the state store did not record it (opensm's log "
        "says why)";
    held(cookie, row);
  }
  return quarantine_response(rows);
}

json JobController::quarantine_release(const QuarantineReleaseRequest& r, const Caller& caller) {
  const std::uint64_t cookie = r.job.value();
  const bool stored = store_ != nullptr && store_->find_quarantined(r.job).has_value();
  if (!stored && !quarantined_.contains(cookie)) {
    throw NoticeFailure(
        ErrorCode::kUnknownJob,
        job_text(r.job) + " is not quarantined" +
            (jobs_.contains(r.job) ? " (it is an active job; job_end ends it)" : "") +
            "; the quarantine query lists them (ibsdnctl quarantine)",
        "/job");
  }
  QuarantineRelease out;
  out.job = r.job;
  if (const auto h = quarantined_.held(cookie)) {
    out.entries_on_switches = h->entries;
    out.switches = h->switches;
  }
  // The store first: when it fails nothing has changed, and the switches keep the entries.
  if (stored) store_->release_quarantined(r.job);
  quarantined_.release(cookie);
  ++counters_["quarantine_releases"];

  if (r.delete_entries) {
    out.entries_deleted = true;
    // Every switch that may hold some: the store's rows and the audits may not know them all.
    std::vector<SwitchChange> switches;
    for (const Switch& sw : switches_.due(SwitchRegistry::Clock::now())) {
      switches.push_back(SwitchChange{sw.guid, sw.lid, sw.name, {}, {}});
    }
    const SyncResult res = delete_cookie(client_, config_.switch_key, switches, cookie);
    counters_["flow_mods_sent"] += switches.size();
    switches_.note_sync(res);
    for (const auto& [g, n] : res.affected) {
      out.entries_removed += n;
      out.switches_removed += n > 0 ? 1 : 0;
    }
    for (const auto& [g, why] : res.failed) {
      out.warnings.push_back("switch " + guid_text(g) + ": " + why +
                             " (its entries with the cookie go at its next audit with repair)");
    }
  }
  log(LogLevel::kInfo,
      job_text(r.job) + " released from quarantine by uid " + std::to_string(caller.uid) +
          " (pid " + std::to_string(caller.pid) + "); its id may be used again; " +
          (r.delete_entries
               ? std::to_string(out.entries_removed) +
                     " entries with its cookie deleted from the switches" +
                     (out.warnings.empty() ? std::string()
                                           : ", " + std::to_string(out.warnings.size()) +
                                                 " switch(es) did not confirm")
               : std::string("its entries were left on the switches; the next audit "
                             "with repair removes them")));
  return quarantine_release_response(out);
}

}  // namespace ibsdn::plugin
