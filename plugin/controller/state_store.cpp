#include "plugin/controller/state_store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "flowtable/flow_text.hpp"

namespace ibsdn {
namespace {

constexpr std::uint64_t kMaxStoredJobId =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

// Schema steps: kMigrations[i] takes a database from user_version i to i + 1. A new schema
// version appends one step; existing steps never change (deployed stores already ran them).
constexpr const char* kMigrations[] = {
    R"sql(
    CREATE TABLE jobs (
      job_id          INTEGER PRIMARY KEY CHECK (job_id > 0),
      user            TEXT    NOT NULL,
      uid             INTEGER CHECK (uid IS NULL OR uid BETWEEN 0 AND 4294967294),
      request         TEXT    NOT NULL,
      algorithm       TEXT    NOT NULL,
      phase           TEXT,
      started_unix_ms INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE flow_entries (
      job_id      INTEGER NOT NULL REFERENCES jobs(job_id) ON DELETE CASCADE,
      seq         INTEGER NOT NULL,
      switch_guid INTEGER NOT NULL,
      entry       TEXT    NOT NULL,
      PRIMARY KEY (job_id, seq)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX flow_entries_by_switch ON flow_entries(switch_guid, job_id, seq);
    )sql",
};
static_assert(std::size(kMigrations) == StateStore::kSchemaVersion);

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

std::int64_t guid_column(Guid g) {
  return static_cast<std::int64_t>(g.value());
}
Guid guid_from_column(std::int64_t v) {
  return Guid(static_cast<std::uint64_t>(v));
}

// A prepared statement kept for the store's lifetime. Use one through a Run, which resets it.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, const std::string& path, const std::string& sql)
      : db_(db), path_(path), sql_(sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
        SQLITE_OK) {
      throw StateError(path + ": prepare \"" + sql + "\": " + sqlite3_errmsg(db));
    }
    stmt_.reset(s);
  }
  [[nodiscard]] sqlite3_stmt* get() const { return stmt_.get(); }
  [[nodiscard]] sqlite3* db() const { return db_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& sql() const { return sql_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> stmt_;
};

class Run {
 public:
  Run(const Statement& s, std::string operation) : s_(s), op_(std::move(operation)) {}
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() {
    sqlite3_reset(s_.get());
    sqlite3_clear_bindings(s_.get());
  }

  Run& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(s_.get(), i, v)); }
  Run& bind(int i, std::string_view v) {
    if (v.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      fail(SQLITE_TOOBIG);
    }
    return check(
        sqlite3_bind_text(s_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Run& bind_null(int i) { return check(sqlite3_bind_null(s_.get(), i)); }

  /// True while a row is available.
  bool step() {
    const int rc = sqlite3_step(s_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(rc);
  }
  void exec() {
    while (step()) {
    }
  }

  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(s_.get(), col); }
  [[nodiscard]] bool is_null(int col) const {
    return sqlite3_column_type(s_.get(), col) == SQLITE_NULL;
  }
  [[nodiscard]] std::string text(int col) const {
    const auto* p = sqlite3_column_text(s_.get(), col);
    const int n = sqlite3_column_bytes(s_.get(), col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
             : std::string();
  }

 private:
  Run& check(int rc) {
    if (rc != SQLITE_OK) fail(rc);
    return *this;
  }
  [[noreturn]] void fail(int rc) const {
    const char* msg = sqlite3_errmsg(s_.db());
    throw StateError(s_.path() + ": " + op_ + ": \"" + s_.sql() +
                     "\": " + (msg && sqlite3_errcode(s_.db()) == rc ? msg : sqlite3_errstr(rc)));
  }

  const Statement& s_;
  std::string op_;
};

void exec_sql(sqlite3* db, const std::string& path, std::string_view operation, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw StateError(path + ": " + std::string(operation) + ": " + msg);
  }
}

// The single value a PRAGMA returns.
std::string pragma_value(sqlite3* db, const std::string& path, const char* sql) {
  const Statement s(db, path, sql);
  Run r(s, sql);
  if (!r.step()) throw StateError(path + ": " + sql + ": no result");
  return r.text(0);
}

void prepare_dir(const std::string& dir) {
  if (dir.empty()) throw StateError("state store: the state directory is empty");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      throw StateError("state directory " + dir + ": " + std::strerror(errno));
    }
    if (::mkdir(dir.c_str(), 0700) != 0) {
      throw StateError("state directory " + dir + ": cannot create: " + std::strerror(errno));
    }
    return;
  }
  if (!S_ISDIR(st.st_mode)) throw StateError("state directory " + dir + ": not a directory");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    throw StateError("state directory " + dir + ": writable by group or others (mode " + mode +
                     "); chmod 0700 it");
  }
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

}  // namespace

struct StateStore::Impl {
  std::string path;
  std::unique_ptr<sqlite3, DbCloser> db;  // declared first: destroyed after the statements
  Statement begin, commit, rollback;
  Statement delete_job, insert_job, insert_entry;
  Statement select_jobs, select_job, select_entries, select_job_entries, select_switch_entries,
      select_switches;

  // Rolls back unless commit() ran: a failed put_job leaves the previous version in place.
  class Transaction {
   public:
    Transaction(Impl& impl, std::string op) : impl_(impl), op_(std::move(op)) {
      Run(impl_.begin, op_).exec();
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction() {
      if (!done_) {
        try {
          Run(impl_.rollback, op_).exec();
        } catch (const StateError&) {
          // SQLite already rolled back (e.g. after SQLITE_FULL); nothing left to undo.
        }
      }
    }
    void commit() {
      Run(impl_.commit, op_).exec();
      done_ = true;
    }

   private:
    Impl& impl_;
    std::string op_;
    bool done_ = false;
  };

  void read_job_row(const Run& r, StoredJob& j) const {
    j.id = JobId(static_cast<std::uint64_t>(r.integer(0)));
    j.user = r.text(1);
    if (!r.is_null(2)) j.uid = static_cast<std::uint32_t>(r.integer(2));
    j.request = r.text(3);
    j.algorithm = r.text(4);
    j.phase = r.is_null(5) ? std::string() : r.text(5);
    j.started_unix_ms = r.integer(6);
  }
};

StateStore::StateStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateStore::StateStore(StateStore&&) noexcept = default;
StateStore& StateStore::operator=(StateStore&&) noexcept = default;
StateStore::~StateStore() = default;

StateStore StateStore::open(const std::string& dir) {
  prepare_dir(dir);
  auto impl = std::make_unique<Impl>();
  impl->path = dir + "/" + kFileName;
  const std::string& path = impl->path;
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, nullptr);
  impl->db.reset(raw);
  if (rc != SQLITE_OK) {
    throw StateError(path + ": cannot open: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3* db = impl->db.get();
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, 5000);

  // WAL + FULL: a commit survives a process crash and a power loss once put_job returns.
  if (const std::string mode = pragma_value(db, path, "PRAGMA journal_mode = WAL"); mode != "wal") {
    throw StateError(path + ": cannot switch to WAL journal (got '" + mode + "')");
  }
  exec_sql(db, path, "PRAGMA synchronous = FULL", "PRAGMA synchronous = FULL");
  exec_sql(db, path, "PRAGMA foreign_keys = ON", "PRAGMA foreign_keys = ON");
  if (pragma_value(db, path, "PRAGMA foreign_keys") != "1") {
    throw StateError(path + ": this SQLite cannot enforce foreign keys");
  }
  if (const std::string check = pragma_value(db, path, "PRAGMA quick_check"); check != "ok") {
    throw StateError(path + ": damaged (quick_check: " + check +
                     "); move it away to start with an empty state");
  }

  const long version = std::stol(pragma_value(db, path, "PRAGMA user_version"));
  if (version > kSchemaVersion || version < 0) {
    throw StateError(path + ": schema version " + std::to_string(version) +
                     " is newer than this ibsdn understands (" + std::to_string(kSchemaVersion) +
                     ")");
  }
  for (long v = version; v < kSchemaVersion; ++v) {
    exec_sql(db, path, "BEGIN IMMEDIATE (migration)", "BEGIN IMMEDIATE");
    try {
      exec_sql(db, path, "migration to schema " + std::to_string(v + 1),
               kMigrations[static_cast<std::size_t>(v)]);
      const std::string set = "PRAGMA user_version = " + std::to_string(v + 1);
      exec_sql(db, path, set, set.c_str());
      exec_sql(db, path, "COMMIT (migration)", "COMMIT");
    } catch (const StateError&) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  impl->begin = Statement(db, path, "BEGIN IMMEDIATE");
  impl->commit = Statement(db, path, "COMMIT");
  impl->rollback = Statement(db, path, "ROLLBACK");
  impl->delete_job = Statement(db, path, "DELETE FROM jobs WHERE job_id = ?1");
  impl->insert_job =
      Statement(db, path,
                "INSERT INTO jobs (job_id, user, uid, request, algorithm, phase, started_unix_ms) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  impl->insert_entry = Statement(
      db, path,
      "INSERT INTO flow_entries (job_id, seq, switch_guid, entry) VALUES (?1, ?2, ?3, ?4)");
  constexpr const char* kJobColumns =
      "SELECT job_id, user, uid, request, algorithm, phase, started_unix_ms FROM jobs";
  impl->select_jobs = Statement(db, path, std::string(kJobColumns) + " ORDER BY job_id");
  impl->select_job = Statement(db, path, std::string(kJobColumns) + " WHERE job_id = ?1");
  impl->select_entries = Statement(
      db, path, "SELECT job_id, switch_guid, entry FROM flow_entries ORDER BY job_id, seq");
  impl->select_job_entries = Statement(
      db, path,
      "SELECT job_id, switch_guid, entry FROM flow_entries WHERE job_id = ?1 ORDER BY seq");
  impl->select_switch_entries = Statement(
      db, path,
      "SELECT job_id, entry FROM flow_entries WHERE switch_guid = ?1 ORDER BY job_id, seq");
  impl->select_switches =
      Statement(db, path, "SELECT DISTINCT switch_guid FROM flow_entries ORDER BY switch_guid");
  return StateStore(std::move(impl));
}

void StateStore::put_job(const StoredJob& job) {
  if (job.id.value() == 0 || job.id.value() > kMaxStoredJobId) {
    throw std::invalid_argument("put_job: job id " + std::to_string(job.id.value()) +
                                " outside 1..2^63-1");
  }
  for (const IntendedEntry& e : job.entries) {
    if (e.entry.cookie != job.id.value()) {
      throw std::invalid_argument("put_job: job " + std::to_string(job.id.value()) +
                                  " has an entry with cookie " + std::to_string(e.entry.cookie));
    }
  }
  Impl& m = *impl_;
  const auto id = static_cast<std::int64_t>(job.id.value());
  Impl::Transaction tx(m, "put_job");
  Run(m.delete_job, "put_job: delete the previous version").bind(1, id).exec();
  {
    Run r(m.insert_job, "put_job: insert the job");
    r.bind(1, id).bind(2, job.user).bind(4, job.request).bind(5, job.algorithm);
    r.bind(7, job.started_unix_ms);
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

std::vector<StoredJob> StateStore::load_jobs() const {
  Impl& m = *impl_;
  std::vector<StoredJob> jobs;
  Impl::Transaction tx(m, "load_jobs");  // one snapshot for both queries
  {
    Run r(m.select_jobs, "load_jobs: read the jobs");
    while (r.step()) m.read_job_row(r, jobs.emplace_back());
  }
  {
    Run r(m.select_entries, "load_jobs: read the flow entries");
    std::size_t j = 0;
    while (r.step()) {
      const std::int64_t job = r.integer(0);
      while (j < jobs.size() && static_cast<std::int64_t>(jobs[j].id.value()) < job) ++j;
      if (j == jobs.size() || static_cast<std::int64_t>(jobs[j].id.value()) != job) {
        throw StateError(m.path + ": flow entry of missing job " + std::to_string(job));
      }
      jobs[j].entries.push_back(
          {guid_from_column(r.integer(1)), entry_from_text(r.text(2), job, m.path)});
    }
  }
  tx.commit();
  return jobs;
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
      job.entries.push_back(
          {guid_from_column(r.integer(1)), entry_from_text(r.text(2), key, m.path)});
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

const std::string& StateStore::path() const {
  return impl_->path;
}

}  // namespace ibsdn
