#include "plugin/controller/state_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
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
    // The quarantine keeps unreadable rows as they were: ANY columns take every value unchanged.
    R"sql(
    CREATE TABLE quarantine (
      qid                 INTEGER PRIMARY KEY,
      job_id              INTEGER NOT NULL,
      reason              TEXT    NOT NULL,
      bad_table           TEXT    NOT NULL,
      bad_row             TEXT    NOT NULL,
      bad_column          TEXT    NOT NULL,
      quarantined_unix_ms INTEGER NOT NULL,
      has_job_row         INTEGER NOT NULL CHECK (has_job_row IN (0, 1)),
      user ANY, uid ANY, request ANY, algorithm ANY, phase ANY, started_unix_ms ANY
    ) STRICT;
    CREATE INDEX quarantine_by_job ON quarantine(job_id);
    CREATE TABLE quarantine_entries (
      qid    INTEGER NOT NULL REFERENCES quarantine(qid) ON DELETE CASCADE,
      job_id INTEGER NOT NULL,
      seq ANY, switch_guid ANY, entry ANY
    ) STRICT;
    CREATE INDEX quarantine_entries_by_qid ON quarantine_entries(qid);
    )sql",
};
static_assert(std::size(kMigrations) == StateStore::kSchemaVersion);

// The tables a database of schema version v (index) must have.
const std::array<std::vector<std::string>, StateStore::kSchemaVersion + 1> kTables = {{
    {},
    {"jobs", "flow_entries"},
    {"jobs", "flow_entries", "quarantine", "quarantine_entries"},
}};

// What the start of every SQLite 3 database file reads.
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::size_t kSqliteHeaderSize = 100;

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

std::int64_t guid_column(Guid g) {
  return static_cast<std::int64_t>(g.value());
}
Guid guid_from_column(std::int64_t v) {
  return Guid(static_cast<std::uint64_t>(v));
}

std::int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string utc_text(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  char text[32] = "?";
  if (::gmtime_r(&t, &tm) != nullptr) std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
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

  [[nodiscard]] int type(int col) const { return sqlite3_column_type(s_.get(), col); }
  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(s_.get(), col); }
  [[nodiscard]] bool is_null(int col) const { return type(col) == SQLITE_NULL; }
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

std::string file_size_text(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "size unknown";
  return std::to_string(st.st_size) + " bytes";
}

// The store at `path` exists but cannot be used. The message says what is wrong and what the
// operator can do; the controller must not start against it (it would remove the running jobs'
// entries from the switches as stale).
[[noreturn]] void refuse_store(const std::string& dir, const std::string& path,
                               const std::string& what) {
  throw StateError("state store " + path + " (" + file_size_text(path) + ") " + what +
                   ". Nothing was changed. Restore the file from a backup, or, to start with "
                   "an empty store (the controller then forgets the running jobs), move it away "
                   "and remove " +
                   dir + "/" + StateStore::kMarkerFileName +
                   "; see docs/operations.md, \"State directory and switch key\"");
}

// The created: line of the marker, for messages; "at an unknown time" when unreadable.
std::string marker_created(const std::string& marker) {
  std::string text(512, '\0');
  const int fd = ::open(marker.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "at an unknown time";
  const ssize_t n = ::read(fd, text.data(), text.size());
  ::close(fd);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  const std::string key = "created: ";
  const auto at = text.find(key);
  if (at == std::string::npos) return "at an unknown time";
  const auto end = text.find('\n', at);
  return text.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
}

std::uint32_t big_endian(const unsigned char* p, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

// What SQLite would not say, or would paper over: it takes a 0-byte file for a new empty
// database, and reads a truncated one as zero-filled pages until a query trips over them.
void check_database_file(const std::string& dir, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw StateError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  std::array<unsigned char, kSqliteHeaderSize> header{};
  const int stat_rc = ::fstat(fd, &st);
  const ssize_t got = stat_rc == 0 ? ::pread(fd, header.data(), header.size(), 0) : -1;
  const int err = errno;
  ::close(fd);
  if (got < 0) throw StateError(path + ": cannot read: " + std::strerror(err));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) refuse_store(dir, path, "is empty: the database lost its contents");
  const auto have = static_cast<std::size_t>(got);
  const std::size_t compared = std::min(have, kSqliteMagic.size());
  if (std::memcmp(header.data(), kSqliteMagic.data(), compared) != 0) {
    refuse_store(dir, path,
                 "is not a SQLite database (it does not start with \"SQLite format 3\")");
  }
  if (have < kSqliteHeaderSize) {
    refuse_store(dir, path, "is truncated: shorter than the 100-byte SQLite header");
  }
  std::uint32_t page_size = big_endian(&header[16], 2);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    refuse_store(
        dir, path,
        "is not a SQLite database (page size " + std::to_string(page_size) + " in its header)");
  }
  // The page count in the header is valid when its "version-valid-for" equals the change
  // counter. A -wal file with frames may legitimately hold pages beyond the file's end: then
  // SQLite's quick_check has to find a truncation.
  const std::uint32_t change_counter = big_endian(&header[24], 4);
  const std::uint32_t pages = big_endian(&header[28], 4);
  const std::uint32_t valid_for = big_endian(&header[92], 4);
  struct stat wal {};
  const bool wal_has_frames = ::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0;
  const std::uint64_t want = std::uint64_t{pages} * page_size;
  if (!wal_has_frames && valid_for == change_counter && pages > 0 && size < want) {
    refuse_store(dir, path,
                 "is truncated: its header counts " + std::to_string(pages) + " pages of " +
                     std::to_string(page_size) + " bytes (" + std::to_string(want) + " bytes)");
  }
}

Db open_database(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    throw StateError(path + ": cannot open: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, 5000);
  // WAL + FULL: a commit survives a process crash and a power loss once put_job returns.
  if (const std::string mode = pragma_value(raw, path, "PRAGMA journal_mode = WAL");
      mode != "wal") {
    throw StateError(path + ": cannot switch to WAL journal (got '" + mode + "')");
  }
  exec_sql(raw, path, "PRAGMA synchronous = FULL", "PRAGMA synchronous = FULL");
  exec_sql(raw, path, "PRAGMA foreign_keys = ON", "PRAGMA foreign_keys = ON");
  if (pragma_value(raw, path, "PRAGMA foreign_keys") != "1") {
    throw StateError(path + ": this SQLite cannot enforce foreign keys");
  }
  return db;
}

void migrate(sqlite3* db, const std::string& path, long from) {
  for (long v = from; v < StateStore::kSchemaVersion; ++v) {
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
}

// The tables of `version` the database lacks, space-separated; empty when none.
std::string missing_tables(sqlite3* db, const std::string& path, long version) {
  const Statement s(db, path, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  std::string missing;
  for (const std::string& table : kTables.at(static_cast<std::size_t>(version))) {
    Run r(s, "schema check");
    r.bind(1, table);
    if (!r.step()) missing += (missing.empty() ? "" : " ") + table;
  }
  return missing;
}

void remove_if_present(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw StateError(path + ": cannot remove: " + std::strerror(errno));
  }
}

// Creates the database under a temporary name and renames it into place once it holds the
// whole schema, so that DIR/ibsdn-state.sqlite3 never exists empty or half made: a file there
// that is empty or lacks the schema was damaged later. The file is created 0600 before SQLite
// sees it; SQLite gives its -wal and -shm files the database's mode. (Changing the umask instead
// would affect every thread of opensm.)
void create_database(const std::string& dir, const std::string& path) {
  const std::string tmp = path + ".creating";
  const std::array<std::string, 4> leftovers = {tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"};
  for (const std::string& f : leftovers) remove_if_present(f);  // a crash during a creation
  try {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw StateError(tmp + ": cannot create: " + std::strerror(errno));
    ::close(fd);
    {
      const Db db = open_database(tmp);
      migrate(db.get(), tmp, 0);
      // The schema must be in the file itself before the rename: the WAL keeps its temporary name.
      const Statement s(db.get(), tmp, "PRAGMA wal_checkpoint(TRUNCATE)");
      Run r(s, "checkpoint of the new database");
      if (!r.step() || r.integer(0) != 0) {
        throw StateError(tmp + ": the checkpoint of the new database did not complete");
      }
    }
    const int sync_fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (sync_fd < 0 || ::fsync(sync_fd) != 0) {
      const int err = errno;
      if (sync_fd >= 0) ::close(sync_fd);
      throw StateError(tmp + ": fsync: " + std::strerror(err));
    }
    ::close(sync_fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      throw StateError(path + ": cannot rename " + tmp + " to it: " + std::strerror(errno));
    }
    state_dir::sync_dir(dir);
  } catch (...) {
    for (const std::string& f : leftovers) ::unlink(f.c_str());
    throw;
  }
}

void write_marker(const std::string& dir, bool created_now) {
  const std::string when = utc_text(now_unix_ms());
  const std::string text =
      std::string("ibsdn state store: while this file exists, a missing database is an error\n") +
      "database: " + StateStore::kFileName + "\n" + "created: " +
      (created_now ? when : "before " + when + " (this marker was added to an existing store)") +
      "\n";
  state_dir::write_atomically(dir, StateStore::kMarkerFileName, text, state_dir::Replace::kYes);
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

// The first unreadable column of a row, when there is one.
struct Problem {
  std::string table;
  std::string row;
  std::string column;
  std::string what;

  [[nodiscard]] std::string reason() const {
    return table + " row (" + row + ")" + (column.empty() ? "" : ", column " + column) + ": " +
           what;
  }
};

// A column's value must have `want` type (`nullable`: or be NULL); the text of the problem if not.
std::string type_problem(const Run& r, int col, int want, bool nullable) {
  const int got = r.type(col);
  if (got == want || (nullable && got == SQLITE_NULL)) return {};
  return std::string("expected ") + type_name(want) + (nullable ? " or NULL" : "") + ", found " +
         type_name(got);
}

}  // namespace

struct StateStore::Impl {
  state_dir::Lock lock;  // declared first: released after the database is closed
  std::string dir;
  std::string path;
  std::vector<std::string> warnings;
  Db db;  // declared before the statements: destroyed after them
  Statement begin, commit, rollback;
  Statement delete_job, insert_job, insert_entry, job_quarantined;
  Statement select_jobs, select_job, select_entries, select_job_entries, select_switch_entries,
      select_switches;
  Statement quarantine_job_row, quarantine_without_job_row, quarantine_entries, delete_job_entries,
      select_quarantined, select_quarantined_job, release;

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

  // Reads a jobs row as load() does: every column checked, the first problem returned.
  std::optional<Problem> decode_job_row(const Run& r, StoredJob& j) const {
    const std::string row = "job_id " + std::to_string(r.integer(0));
    struct Column {
      int index;
      const char* name;
      int type;
      bool nullable;
    };
    static constexpr Column kColumns[] = {
        {1, "user", SQLITE_TEXT, false},    {2, "uid", SQLITE_INTEGER, true},
        {3, "request", SQLITE_TEXT, false}, {4, "algorithm", SQLITE_TEXT, false},
        {5, "phase", SQLITE_TEXT, true},    {6, "started_unix_ms", SQLITE_INTEGER, false}};
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
    read_job_row(r, j);
    if (std::string why = request_problem(j.request); !why.empty()) {
      return Problem{"jobs", row, "request", why};
    }
    return std::nullopt;
  }

  // Reads a flow_entries row (job_id, seq, switch_guid, entry) of job `job`.
  static std::optional<Problem> decode_entry_row(const Run& r, std::int64_t job,
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
      return Problem{"flow_entries", row, "entry",
                     std::string("unreadable flow entry: ") + e.what()};
    }
    if (out.entry.cookie != static_cast<std::uint64_t>(job)) {
      return Problem{"flow_entries", row, "entry",
                     "cookie " + std::to_string(out.entry.cookie) + " is not the job id"};
    }
    out.switch_guid = guid_from_column(r.integer(2));
    return std::nullopt;
  }

  // Moves job `job`'s rows into the quarantine tables; the caller's transaction commits.
  QuarantinedJob move_to_quarantine(std::int64_t job, const Problem& p) {
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

  std::vector<QuarantinedJob> read_quarantined(Run& r) const {
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
};

StateStore::StateStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateStore::StateStore(StateStore&&) noexcept = default;
StateStore& StateStore::operator=(StateStore&&) noexcept = default;
StateStore::~StateStore() = default;

StateStore StateStore::open(const std::string& dir) {
  auto impl = std::make_unique<Impl>();
  std::vector<std::string>& warnings = impl->warnings;
  state_dir::prepare(dir, warnings);
  impl->lock = state_dir::Lock::acquire(dir, kLockFileName, warnings);
  impl->dir = dir;
  impl->path = dir + "/" + kFileName;
  const std::string& path = impl->path;
  const std::string marker = dir + "/" + kMarkerFileName;

  const bool had_marker = state_dir::check_file(marker, warnings);
  const bool had_database = state_dir::check_file(path, warnings);
  const bool had_wal = state_dir::check_file(path + "-wal", warnings);
  state_dir::check_file(path + "-shm", warnings);
  if (!had_database) {
    if (had_marker || had_wal) {
      throw StateError("state store " + path + " is missing, but " +
                       (had_marker
                            ? marker + " says a store was created here " + marker_created(marker)
                            : "its -wal file is still there") +
                       ": the database was deleted or moved. Nothing was changed. Restore the file "
                       "from a backup, or, to start with an empty store (the "
                       "controller then forgets the running jobs), remove " +
                       marker + (had_wal ? " and " + path + "-wal" : "") +
                       "; see docs/operations.md, \"State directory and switch key\"");
    }
    create_database(dir, path);
  } else {
    check_database_file(dir, path);
  }

  impl->db = open_database(path);
  sqlite3* db = impl->db.get();
  if (const std::string check = pragma_value(db, path, "PRAGMA quick_check"); check != "ok") {
    refuse_store(dir, path, "is damaged (SQLite's quick_check: " + check + ")");
  }
  const std::string version_text = pragma_value(db, path, "PRAGMA user_version");
  const long version = std::stol(version_text);
  if (version > kSchemaVersion || version < 0) {
    throw StateError(path + ": schema version " + version_text +
                     " is newer than this ibsdn understands (" + std::to_string(kSchemaVersion) +
                     "): run the ibsdn that wrote it, or restore a backup made by this version");
  }
  if (version == 0) {
    refuse_store(dir, path, "is a SQLite database without the ibsdn schema (user_version 0)");
  }
  if (const std::string missing = missing_tables(db, path, version); !missing.empty()) {
    refuse_store(dir, path,
                 "lacks the table(s) " + missing + " of its schema version " + version_text);
  }
  migrate(db, path, version);

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
  impl->job_quarantined =
      Statement(db, path, "SELECT reason FROM quarantine WHERE job_id = ?1 ORDER BY qid LIMIT 1");
  constexpr const char* kJobColumns =
      "SELECT job_id, user, uid, request, algorithm, phase, started_unix_ms FROM jobs";
  impl->select_jobs = Statement(db, path, std::string(kJobColumns) + " ORDER BY job_id");
  impl->select_job = Statement(db, path, std::string(kJobColumns) + " WHERE job_id = ?1");
  impl->select_entries = Statement(
      db, path, "SELECT job_id, seq, switch_guid, entry FROM flow_entries ORDER BY job_id, seq");
  impl->select_job_entries = Statement(
      db, path,
      "SELECT job_id, switch_guid, entry FROM flow_entries WHERE job_id = ?1 ORDER BY seq");
  impl->select_switch_entries = Statement(
      db, path,
      "SELECT job_id, entry FROM flow_entries WHERE switch_guid = ?1 ORDER BY job_id, seq");
  impl->select_switches =
      Statement(db, path, "SELECT DISTINCT switch_guid FROM flow_entries ORDER BY switch_guid");
  constexpr const char* kQuarantineColumns =
      "INSERT INTO quarantine (job_id, reason, bad_table, bad_row, bad_column, "
      "quarantined_unix_ms, has_job_row, user, uid, request, algorithm, phase, started_unix_ms) ";
  impl->quarantine_job_row =
      Statement(db, path,
                std::string(kQuarantineColumns) +
                    "SELECT job_id, ?2, ?3, ?4, ?5, ?6, 1, user, uid, request, algorithm, phase, "
                    "started_unix_ms FROM jobs WHERE job_id = ?1");
  impl->quarantine_without_job_row =
      Statement(db, path,
                std::string(kQuarantineColumns) +
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, NULL, NULL, NULL, NULL, NULL, NULL)");
  impl->quarantine_entries =
      Statement(db, path,
                "INSERT INTO quarantine_entries (qid, job_id, seq, switch_guid, entry) "
                "SELECT ?2, job_id, seq, switch_guid, entry FROM flow_entries WHERE job_id = ?1");
  impl->delete_job_entries = Statement(db, path, "DELETE FROM flow_entries WHERE job_id = ?1");
  constexpr const char* kQuarantinedColumns =
      "SELECT job_id, reason, bad_table, bad_row, bad_column, quarantined_unix_ms, has_job_row, "
      "(SELECT count(*) FROM quarantine_entries e WHERE e.qid = q.qid) FROM quarantine q";
  impl->select_quarantined =
      Statement(db, path, std::string(kQuarantinedColumns) + " ORDER BY qid");
  impl->select_quarantined_job =
      Statement(db, path, std::string(kQuarantinedColumns) + " WHERE job_id = ?1 ORDER BY qid");
  impl->release = Statement(db, path, "DELETE FROM quarantine WHERE job_id = ?1");

  // SQLite has created the -wal and -shm files by now; they must have the database's mode.
  for (const std::string& f : {path, path + "-wal", path + "-shm"}) state_dir::require_private(f);
  if (!had_marker) write_marker(dir, !had_database);
  if (had_database && !had_marker) {
    warnings.push_back(marker + ": written for the existing store " + path +
                       " (from now on, a missing database is an error)");
  }
  return StateStore(std::move(impl));
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
      job.entries.push_back(
          {guid_from_column(r.integer(1)), entry_from_text(r.text(2), key, m.path)});
    }
  }
  tx.commit();
  return job;
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

const std::vector<std::string>& StateStore::warnings() const {
  return impl_->warnings;
}

}  // namespace ibsdn
