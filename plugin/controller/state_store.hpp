// The controller's memory across restarts: the active jobs and the flow entries it intends to
// have on each switch for them, in an embedded SQLite database (STATE_DIR/ibsdn-state.sqlite3).
//
// OpenSM may be restarted or crash at any moment; on the next start the controller reloads the
// jobs, re-resolves LIDs and audits the switches against intended_entries(). So every change is
// one transaction (WAL journal, synchronous=FULL): after a crash a job is either fully present
// with all its entries or absent. Entries are keyed by switch GUID because LIDs may change across
// restarts. Not thread-safe: the controller serialises calls.
//
// Schema (version 1, PRAGMA user_version):
//   jobs(job_id INTEGER PRIMARY KEY, user TEXT, uid INTEGER NULL, request TEXT,
//        algorithm TEXT, phase TEXT NULL, started_unix_ms INTEGER)
//   flow_entries(job_id -> jobs ON DELETE CASCADE, seq INTEGER, switch_guid INTEGER,
//                entry TEXT /* flowtable JSON form, no counters */, PRIMARY KEY(job_id, seq))
// GUIDs are stored as the signed 64-bit integer with the same bits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "flowtable/flow_entry.hpp"
#include "flowtable/types.hpp"

namespace ibsdn {

/// Any failure of the store. what() names the operation, the SQL step and SQLite's message.
class StateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct IntendedEntry {
  Guid switch_guid;
  FlowEntry entry;  // cookie == the job id; counters are not stored
};

struct StoredJob {
  JobId id;
  std::string user;
  std::optional<std::uint32_t> uid;
  std::string request;  // the job_start line as received, to rebuild the job after a restart
  std::string algorithm;
  std::string phase;  // the active phase; empty for none
  std::int64_t started_unix_ms = 0;
  std::vector<IntendedEntry> entries;
};

class StateStore {
 public:
  static constexpr int kSchemaVersion = 1;
  static constexpr const char* kFileName = "ibsdn-state.sqlite3";

  /// Opens (or creates) the store in `dir`. Creates `dir` with mode 0700 when missing (its parent
  /// must exist); refuses a `dir` that is not a directory or is writable by group or others, a
  /// database that fails SQLite's quick_check, and a schema newer than this build. Migrates an
  /// older schema. Throws StateError.
  static StateStore open(const std::string& dir);

  StateStore(StateStore&&) noexcept;
  StateStore& operator=(StateStore&&) noexcept;
  ~StateStore();

  /// Stores the job and its entries, replacing any previous version of the same job id, in one
  /// transaction. Throws std::invalid_argument for a job id outside 1..2^63-1 or an entry whose
  /// cookie is not the job id; StateError when SQLite fails (nothing is changed then).
  void put_job(const StoredJob& job);
  /// Removes the job and its entries; false when it was not stored.
  bool delete_job(JobId id);
  /// All jobs with their entries (in put_job order), by job id.
  [[nodiscard]] std::vector<StoredJob> load_jobs() const;
  [[nodiscard]] std::optional<StoredJob> find_job(JobId id) const;
  /// The entries all stored jobs intend for one switch, by job id then put_job order.
  [[nodiscard]] std::vector<FlowEntry> intended_entries(Guid switch_guid) const;
  /// The switches that have intended entries, ascending.
  [[nodiscard]] std::vector<Guid> switches() const;
  /// The database file.
  [[nodiscard]] const std::string& path() const;

 private:
  struct Impl;
  explicit StateStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsdn
