// StateStore: opening the store. The directory and its lock, the marker that tells "never
// existed" from "deleted", the checks of a database file SQLite would take for an empty one,
// the atomic creation of a new database, and the migration to the current schema.
#include "plugin/controller/state_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "plugin/controller/state_store_impl.hpp"
#include "plugin/controller/state_store_schema.hpp"
#include "plugin/controller/state_store_sql.hpp"

namespace ibsdn {
namespace {

using state_store_detail::now_unix_ms;
using state_store_schema::migrate;
using state_store_schema::missing_tables;
using state_store_sql::Db;
using state_store_sql::exec_sql;
using state_store_sql::pragma_value;
using state_store_sql::Run;
using state_store_sql::Statement;

// What the start of every SQLite 3 database file reads.
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::size_t kSqliteHeaderSize = 100;

std::string utc_text(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  char text[32] = "?";
  if (::gmtime_r(&t, &tm) != nullptr) std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
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

}  // namespace

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
  impl->prepare_job_statements();
  impl->prepare_quarantine_statements();

  // SQLite has created the -wal and -shm files by now; they must have the database's mode.
  for (const std::string& f : {path, path + "-wal", path + "-shm"}) state_dir::require_private(f);
  if (!had_marker) write_marker(dir, !had_database);
  if (had_database && !had_marker) {
    warnings.push_back(marker + ": written for the existing store " + path +
                       " (from now on, a missing database is an error)");
  }
  return StateStore(std::move(impl));
}

const std::string& StateStore::path() const {
  return impl_->path;
}

const std::vector<std::string>& StateStore::warnings() const {
  return impl_->warnings;
}

}  // namespace ibsdn
