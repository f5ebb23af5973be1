// StateStore: the jobs and their intended flow entries. Writing a job (checked so that load()
// can read it back), removing it, and reading the rows back, every column checked; a job with an
// unreadable row is handed to the quarantine.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "flowtable/flow_text.hpp"
#include "plugin/controller/state_store.hpp"
#include "plugin/controller/state_store_impl.hpp"

namespace ibsdn {
namespace {

using state_store_detail::kMaxStoredJobId;
using state_store_detail::Problem;
using state_store_sql::Run;
using state_store_sql::Statement;

std::int64_t guid_column(Guid g) {
  return static_cast<std::int64_t>(g.value());
}
Guid guid_from_column(std::int64_t v) {
  return Guid(static_cast<std::uint64_t>(v));
}

// The flowtable JSON form without the counters: the store keeps intent, not statistics.
std::string entry_text(const FlowEntry& e) {
  nlohmann::json j = flow_to_json(e);
  j.erase("n_packets");
  return j.dump();
}

FlowEntry entry_from_text(const std::string& text, std::int64_t job, const std::string& path) {
  try {
    return flow_from_json(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    throw StateError(path + ": job " + std::to_string(job) +
                     ": unreadable flow entry: " + e.what());
  }
}

bool is_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();  // the JSON encoder validates UTF-8
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

// Why `request` is not what put_job stores (a JSON object), or "".
std::string request_problem(const std::string& request) {
  try {
    if (!nlohmann::json::parse(request).is_object()) return "not a JSON object";
  } catch (const nlohmann::json::exception& e) {
    return std::string("not JSON: ") + e.what();
  }
  return {};
}

const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER:
      return "an integer";
    case SQLITE_FLOAT:
      return "a real";
    case SQLITE_TEXT:
      return "text";
    case SQLITE_BLOB:
      return "a blob";
    default:
      return "NULL";
  }
}

// A column's value must have `want` type (`nullable`: or be NULL); the text of the problem if not.
std::string type_problem(const Run& r, int col, int want, bool nullable) {
  const int got = r.type(col);
  if (got == want || (nullable && got == SQLITE_NULL)) return {};
  return std::string("expected ") + type_name(want) + (nullable ? " or NULL" : "") + ", found " +
         type_name(got);
}

}  // namespace

void StateStore::Impl::prepare_job_statements() {
  sqlite3* d = db.get();
  delete_job = Statement(d, path, "DELETE FROM jobs WHERE job_id = ?1");
  insert_job =
      Statement(d, path,
                "INSERT INTO jobs (job_id, user, uid, request, algorithm, phase, started_unix_ms, "
                "lid_offset) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  insert_entry = Statement(d, path,
                           "INSERT INTO flow_entries (job_id, seq, switch_guid, entry, backend) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)");
  constexpr const char* kJobColumns =
      "SELECT job_id, user, uid, request, algorithm, phase, started_unix_ms, lid_offset FROM jobs";
  select_jobs = Statement(d, path, std::string(kJobColumns) + " ORDER BY job_id");
  select_job = Statement(d, path, std::string(kJobColumns) + " WHERE job_id = ?1");
  select_entries = Statement(
      d, path,
      "SELECT job_id, seq, switch_guid, entry, backend FROM flow_entries ORDER BY job_id, seq");
  select_job_entries =
      Statement(d, path,
                "SELECT job_id, switch_guid, entry, backend FROM flow_entries WHERE job_id = ?1 "
                "ORDER BY seq");
  select_switch_entries = Statement(
      d, path,
      "SELECT job_id, entry FROM flow_entries WHERE switch_guid = ?1 AND backend = 'flow_table' "
      "ORDER BY job_id, seq");
  select_switches =
      Statement(d, path, "SELECT DISTINCT switch_guid FROM flow_entries ORDER BY switch_guid");
}

void StateStore::Impl::read_job_row(const Run& r, StoredJob& j) const {
  j.id = JobId(static_cast<std::uint64_t>(r.integer(0)));
  j.user = r.text(1);
  if (!r.is_null(2)) j.uid = static_cast<std::uint32_t>(r.integer(2));
  j.request = r.text(3);
  j.algorithm = r.text(4);
  j.phase = r.is_null(5) ? std::string() : r.text(5);
  j.started_unix_ms = r.integer(6);
  j.lid_offset = static_cast<std::uint8_t>(r.integer(7));
}

std::optional<Problem> StateStore::Impl::decode_job_row(const Run& r, StoredJob& j) const {
  const std::string row = "job_id " + std::to_string(r.integer(0));
  struct Column {
    int index;
    const char* name;
    int type;
    bool nullable;
  };
  static constexpr Column kColumns[] = {
      {1, "user", SQLITE_TEXT, false},         {2, "uid", SQLITE_INTEGER, true},
      {3, "request", SQLITE_TEXT, false},      {4, "algorithm", SQLITE_TEXT, false},
      {5, "phase", SQLITE_TEXT, true},         {6, "started_unix_ms", SQLITE_INTEGER, false},
      {7, "lid_offset", SQLITE_INTEGER, false}};
  for (const Column& c : kColumns) {
    if (std::string why = type_problem(r, c.index, c.type, c.nullable); !why.empty()) {
      return Problem{"jobs", row, c.name, why};
    }
    if (c.type == SQLITE_TEXT && !r.is_null(c.index) && !is_utf8(r.text(c.index))) {
      return Problem{"jobs", row, c.name, "not UTF-8 text"};
    }
  }
  if (const std::int64_t uid = r.is_null(2) ? 0 : r.integer(2); uid < 0 || uid > 4294967294) {
    return Problem{"jobs", row, "uid", std::to_string(uid) + " is not a uid"};
  }
  if (const std::int64_t o = r.integer(7); o < 0 || o > 127) {
    return Problem{"jobs", row, "lid_offset", std::to_string(o) + " is not a LID offset (0..127)"};
  }
  read_job_row(r, j);
  if (std::string why = request_problem(j.request); !why.empty()) {
    return Problem{"jobs", row, "request", why};
  }
  return std::nullopt;
}

std::optional<Problem> StateStore::Impl::decode_entry_row(const Run& r, std::int64_t job,
                                                          IntendedEntry& out) {
  const std::string row =
      "job_id " + std::to_string(job) + ", seq " +
      (r.type(1) == SQLITE_INTEGER ? std::to_string(r.integer(1)) : "'" + r.text(1) + "'");
  if (std::string why = type_problem(r, 1, SQLITE_INTEGER, false); !why.empty()) {
    return Problem{"flow_entries", row, "seq", why};
  }
  if (std::string why = type_problem(r, 2, SQLITE_INTEGER, false); !why.empty()) {
    return Problem{"flow_entries", row, "switch_guid", why};
  }
  if (std::string why = type_problem(r, 3, SQLITE_TEXT, false); !why.empty()) {
    return Problem{"flow_entries", row, "entry", why};
  }
  try {
    out.entry = flow_from_json(nlohmann::json::parse(r.text(3)));
  } catch (const std::exception& e) {
    return Problem{"flow_entries", row, "entry", std::string("unreadable flow entry: ") + e.what()};
  }
  if (out.entry.cookie != static_cast<std::uint64_t>(job)) {
    return Problem{"flow_entries", row, "entry",
                   "cookie " + std::to_string(out.entry.cookie) + " is not the job id"};
  }
  out.switch_guid = guid_from_column(r.integer(2));
  // The column's CHECK keeps it to the two names.
  out.in_lft = r.type(4) == SQLITE_TEXT && r.text(4) == "lft";
  return std::nullopt;
}

void StateStore::put_job(const StoredJob& job) {
  if (job.id.value() == 0 || job.id.value() > kMaxStoredJobId) {
    throw std::invalid_argument("put_job: job id " + std::to_string(job.id.value()) +
                                " outside 1..2^63-1");
  }
  const std::string job_name = "put_job: job " + std::to_string(job.id.value());
  for (const IntendedEntry& e : job.entries) {
    if (e.entry.cookie != job.id.value()) {
      throw std::invalid_argument(job_name + " has an entry with cookie " +
                                  std::to_string(e.entry.cookie));
    }
  }
  if (std::string why = request_problem(job.request); !why.empty()) {
    throw std::invalid_argument(job_name + ": request " + why);
  }
  for (const auto& [name, text] : {std::pair<const char*, const std::string&>{"user", job.user},
                                   {"algorithm", job.algorithm},
                                   {"phase", job.phase}}) {
    if (!is_utf8(text)) throw std::invalid_argument(job_name + ": " + name + " is not UTF-8");
  }
  Impl& m = *impl_;
  const auto id = static_cast<std::int64_t>(job.id.value());
  Impl::Transaction tx(m, "put_job");
  {
    Run r(m.job_quarantined, "put_job: is the job quarantined");
    r.bind(1, id);
    if (r.step()) {
      throw StateError(m.path + ": " + job_name + " is quarantined (" + r.text(0) +
                       "): its id stays taken until an operator releases it, see "
                       "docs/operations.md, \"State directory and switch key\"");
    }
  }
  Run(m.delete_job, "put_job: delete the previous version").bind(1, id).exec();
  {
    Run r(m.insert_job, "put_job: insert the job");
    r.bind(1, id).bind(2, job.user).bind(4, job.request).bind(5, job.algorithm);
    r.bind(7, job.started_unix_ms).bind(8, std::int64_t{job.lid_offset});
    if (job.uid) {
      r.bind(3, static_cast<std::int64_t>(*job.uid));
    } else {
      r.bind_null(3);
    }
    if (job.phase.empty()) {
      r.bind_null(6);
    } else {
      r.bind(6, job.phase);
    }
    r.exec();
  }
  for (std::size_t i = 0; i < job.entries.size(); ++i) {
    const IntendedEntry& e = job.entries[i];
    Run(m.insert_entry, "put_job: insert a flow entry")
        .bind(1, id)
        .bind(2, static_cast<std::int64_t>(i))
        .bind(3, guid_column(e.switch_guid))
        .bind(4, entry_text(e.entry))
        .bind(5, std::string(e.in_lft ? "lft" : "flow_table"))
        .exec();
  }
  tx.commit();
}

bool StateStore::delete_job(JobId id) {
  if (id.value() == 0 || id.value() > kMaxStoredJobId) return false;
  Impl& m = *impl_;
  Impl::Transaction tx(m, "delete_job");
  Run(m.delete_job, "delete_job").bind(1, static_cast<std::int64_t>(id.value())).exec();
  const bool existed = sqlite3_changes(m.db.get()) > 0;
  tx.commit();
  return existed;
}

LoadedJobs StateStore::load() {
  Impl& m = *impl_;
  LoadedJobs out;
  std::map<std::int64_t, Problem> bad;     // job id -> its first unreadable row
  std::map<std::int64_t, std::size_t> at;  // job id -> index in out.jobs
  Impl::Transaction tx(m, "load");         // one snapshot for the reads and the moves
  {
    Run r(m.select_jobs, "load: read the jobs");
    while (r.step()) {
      const std::int64_t id = r.integer(0);
      StoredJob j;
      if (std::optional<Problem> p = m.decode_job_row(r, j)) {
        bad.emplace(id, std::move(*p));
        continue;
      }
      at.emplace(id, out.jobs.size());
      out.jobs.push_back(std::move(j));
    }
  }
  {
    Run r(m.select_entries, "load: read the flow entries");
    while (r.step()) {
      if (r.type(0) != SQLITE_INTEGER) {
        // Not attributable to any job: the table itself is damaged. Nothing is moved.
        throw StateError(m.path + ": flow_entries has a row whose job_id is " +
                         type_name(r.type(0)) +
                         ", not a job id; restore the file from a backup (docs/operations.md)");
      }
      const std::int64_t job = r.integer(0);
      if (bad.count(job) != 0) continue;
      const auto found = at.find(job);
      if (found == at.end()) {
        bad.emplace(job,
                    Problem{"flow_entries", "job_id " + std::to_string(job) + ", seq " + r.text(1),
                            "job_id", "flow entries of a job without a jobs row"});
        continue;
      }
      IntendedEntry e;
      if (std::optional<Problem> p = Impl::decode_entry_row(r, job, e)) {
        bad.emplace(job, std::move(*p));
        continue;
      }
      out.jobs[found->second].entries.push_back(std::move(e));
    }
  }
  if (!bad.empty()) {
    std::erase_if(out.jobs, [&](const StoredJob& j) {
      return bad.count(static_cast<std::int64_t>(j.id.value())) != 0;
    });
  }
  {
    Run r(m.select_quarantined, "load: read the quarantine");
    out.quarantined_before = m.read_quarantined(r);
  }
  for (const auto& [job, problem] : bad) {
    out.quarantined_now.push_back(m.move_to_quarantine(job, problem));
  }
  tx.commit();
  return out;
}

std::vector<StoredJob> StateStore::load_jobs() {
  return load().jobs;
}

std::optional<StoredJob> StateStore::find_job(JobId id) const {
  if (id.value() == 0 || id.value() > kMaxStoredJobId) return std::nullopt;
  Impl& m = *impl_;
  const auto key = static_cast<std::int64_t>(id.value());
  StoredJob job;
  Impl::Transaction tx(m, "find_job");
  {
    Run r(m.select_job, "find_job: read the job");
    r.bind(1, key);
    if (!r.step()) {
      tx.commit();
      return std::nullopt;
    }
    m.read_job_row(r, job);
  }
  {
    Run r(m.select_job_entries, "find_job: read the flow entries");
    r.bind(1, key);
    while (r.step()) {
      job.entries.push_back({guid_from_column(r.integer(1)),
                             entry_from_text(r.text(2), key, m.path), r.text(3) == "lft"});
    }
  }
  tx.commit();
  return job;
}

std::vector<FlowEntry> StateStore::intended_entries(Guid switch_guid) const {
  Impl& m = *impl_;
  std::vector<FlowEntry> out;
  Run r(m.select_switch_entries, "intended_entries");
  r.bind(1, guid_column(switch_guid));
  while (r.step()) out.push_back(entry_from_text(r.text(1), r.integer(0), m.path));
  return out;
}

std::vector<Guid> StateStore::switches() const {
  std::vector<Guid> out;
  Run r(impl_->select_switches, "switches");
  while (r.step()) out.push_back(guid_from_column(r.integer(0)));
  // ORDER BY sorts the signed column; callers expect unsigned GUID order.
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ibsdn
