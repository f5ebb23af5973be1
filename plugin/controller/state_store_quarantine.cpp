// StateStore: the quarantine. A job whose rows cannot be read back (load()) or that the
// controller cannot use (quarantine()) moves, rows verbatim, into the quarantine tables until an
// operator releases it; its id stays taken until then.
#include <sqlite3.h>

#include <utility>

#include "plugin/controller/state_store.hpp"
#include "plugin/controller/state_store_impl.hpp"

namespace ibsdn {

using state_store_detail::kMaxStoredJobId;
using state_store_detail::now_unix_ms;
using state_store_detail::Problem;
using state_store_sql::Run;
using state_store_sql::Statement;

void StateStore::Impl::prepare_quarantine_statements() {
  sqlite3* d = db.get();
  job_quarantined =
      Statement(d, path, "SELECT reason FROM quarantine WHERE job_id = ?1 ORDER BY qid LIMIT 1");
  constexpr const char* kQuarantineColumns =
      "INSERT INTO quarantine (job_id, reason, bad_table, bad_row, bad_column, "
      "quarantined_unix_ms, has_job_row, user, uid, request, algorithm, phase, started_unix_ms, "
      "lid_offset) ";
  quarantine_job_row =
      Statement(d, path,
                std::string(kQuarantineColumns) +
                    "SELECT job_id, ?2, ?3, ?4, ?5, ?6, 1, user, uid, request, algorithm, phase, "
                    "started_unix_ms, lid_offset FROM jobs WHERE job_id = ?1");
  quarantine_without_job_row =
      Statement(d, path,
                std::string(kQuarantineColumns) +
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
  quarantine_entries =
      Statement(d, path,
                "INSERT INTO quarantine_entries (qid, job_id, seq, switch_guid, entry, backend) "
                "SELECT ?2, job_id, seq, switch_guid, entry, backend FROM flow_entries "
                "WHERE job_id = ?1");
  delete_job_entries = Statement(d, path, "DELETE FROM flow_entries WHERE job_id = ?1");
  constexpr const char* kQuarantinedColumns =
      "SELECT job_id, reason, bad_table, bad_row, bad_column, quarantined_unix_ms, has_job_row, "
      "(SELECT count(*) FROM quarantine_entries e WHERE e.qid = q.qid) FROM quarantine q";
  select_quarantined = Statement(d, path, std::string(kQuarantinedColumns) + " ORDER BY qid");
  select_quarantined_job =
      Statement(d, path, std::string(kQuarantinedColumns) + " WHERE job_id = ?1 ORDER BY qid");
  release = Statement(d, path, "DELETE FROM quarantine WHERE job_id = ?1");
}

QuarantinedJob StateStore::Impl::move_to_quarantine(std::int64_t job, const Problem& p) {
  QuarantinedJob q;
  q.id = JobId(static_cast<std::uint64_t>(job));
  q.reason = p.reason();
  q.table = p.table;
  q.row = p.row;
  q.column = p.column;
  q.quarantined_unix_ms = now_unix_ms();
  const auto bind_common = [&](Run& r) {
    r.bind(1, job).bind(2, q.reason).bind(3, q.table).bind(4, q.row).bind(5, q.column);
    r.bind(6, q.quarantined_unix_ms);
  };
  {
    Run r(quarantine_job_row, "quarantine: keep the jobs row");
    bind_common(r);
    r.exec();
  }
  if (sqlite3_changes(db.get()) == 0) {
    q.has_job_row = false;
    Run r(quarantine_without_job_row, "quarantine: record flow entries without a jobs row");
    bind_common(r);
    r.exec();
  }
  const std::int64_t qid = sqlite3_last_insert_rowid(db.get());
  Run(quarantine_entries, "quarantine: keep the flow entries").bind(1, job).bind(2, qid).exec();
  q.entry_rows = static_cast<std::size_t>(sqlite3_changes(db.get()));
  Run(delete_job_entries, "quarantine: remove the flow entries").bind(1, job).exec();
  Run(delete_job, "quarantine: remove the jobs row").bind(1, job).exec();
  return q;
}

std::vector<QuarantinedJob> StateStore::Impl::read_quarantined(Run& r) const {
  std::vector<QuarantinedJob> out;
  while (r.step()) {
    QuarantinedJob& q = out.emplace_back();
    q.id = JobId(static_cast<std::uint64_t>(r.integer(0)));
    q.reason = r.text(1);
    q.table = r.text(2);
    q.row = r.text(3);
    q.column = r.text(4);
    q.quarantined_unix_ms = r.integer(5);
    q.has_job_row = r.integer(6) != 0;
    q.entry_rows = static_cast<std::size_t>(r.integer(7));
  }
  return out;
}

bool StateStore::quarantine(JobId id, const std::string& reason) {
  if (id.value() == 0 || id.value() > kMaxStoredJobId) return false;
  Impl& m = *impl_;
  const auto key = static_cast<std::int64_t>(id.value());
  Impl::Transaction tx(m, "quarantine");
  {
    Run r(m.select_job, "quarantine: read the job");
    r.bind(1, key);
    if (!r.step()) {
      tx.commit();
      return false;
    }
  }
  m.move_to_quarantine(key, Problem{"jobs", "job_id " + std::to_string(key), "",
                                    "the controller cannot use it: " + reason});
  tx.commit();
  return true;
}

std::vector<QuarantinedJob> StateStore::quarantined() const {
  Run r(impl_->select_quarantined, "quarantined");
  return impl_->read_quarantined(r);
}

std::optional<QuarantinedJob> StateStore::find_quarantined(JobId id) const {
  if (id.value() == 0 || id.value() > kMaxStoredJobId) return std::nullopt;
  Run r(impl_->select_quarantined_job, "find_quarantined");
  r.bind(1, static_cast<std::int64_t>(id.value()));
  std::vector<QuarantinedJob> found = impl_->read_quarantined(r);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

bool StateStore::release_quarantined(JobId id) {
  if (id.value() == 0 || id.value() > kMaxStoredJobId) return false;
  Impl& m = *impl_;
  Impl::Transaction tx(m, "release_quarantined");
  Run(m.release, "release_quarantined").bind(1, static_cast<std::int64_t>(id.value())).exec();
  const bool existed = sqlite3_changes(m.db.get()) > 0;
  tx.commit();
  return existed;
}

}  // namespace ibsdn
