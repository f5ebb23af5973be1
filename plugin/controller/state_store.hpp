// The controller's memory across restarts: the active jobs and the flow entries it intends to
// have on each switch for them, in an embedded SQLite database (STATE_DIR/ibsdn-state.sqlite3).
//
// OpenSM may be restarted or crash at any moment; on the next start the controller reloads the
// jobs, re-resolves LIDs and audits the switches against intended_entries(). So every change is
// one transaction (WAL journal, synchronous=FULL): after a crash a job is either fully present
// with all its entries or absent. Entries are keyed by switch GUID because LIDs may change across
// restarts. Not thread-safe: the controller serialises calls.
//
// The store never loses a job silently (docs/operations.md, "State directory and switch key"):
// - a job whose rows cannot be read back is quarantined, not dropped: load() moves its rows
//   verbatim into the quarantine tables, where they stay until an operator releases them, and the
//   other jobs load;
// - a database that existed and is now missing, empty, truncated, not SQLite or without the
//   schema is an error the operator resolves: open() never replaces it with an empty store. A
//   marker file (ibsdn-state.created) written when the store is created tells "never existed"
//   from "deleted";
// - a second controller on the same directory is kept out by an flock() on ibsdn-state.lock.
// The database, its -wal and -shm files, the marker and the lock file are 0600, the directory
// 0700 (policy for existing ones in state_dir.hpp).
//
// Schema (version 4, PRAGMA user_version; version 1 had the first two tables, version 2 no
// backend columns, version 3 no lid_offset):
//   jobs(job_id INTEGER PRIMARY KEY, user TEXT, uid INTEGER NULL, request TEXT,
//        algorithm TEXT, phase TEXT NULL, started_unix_ms INTEGER, lid_offset INTEGER 0..127)
//   flow_entries(job_id -> jobs ON DELETE CASCADE, seq INTEGER, switch_guid INTEGER,
//                entry TEXT /* flowtable JSON form, no counters */,
//                backend TEXT 'flow_table' | 'lft', PRIMARY KEY(job_id, seq))
//   quarantine(qid INTEGER PRIMARY KEY, job_id, reason, bad_table, bad_row, bad_column,
//              quarantined_unix_ms, has_job_row, then the jobs columns as they were (ANY))
//   quarantine_entries(qid -> quarantine ON DELETE CASCADE, then the flow_entries columns as
//                      they were (ANY), backend last)
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
#include "plugin/controller/state_dir.hpp"
#include "plugin/controller/state_error.hpp"

namespace ibsdn {

struct IntendedEntry {
  Guid switch_guid;
  FlowEntry entry;  // cookie == the job id; counters are not stored
  /// Written into the switch's LFT (a destination entry) rather than its flow table.
  bool in_lft = false;
};

struct StoredJob {
  JobId id;
  std::string user;
  std::optional<std::uint32_t> uid;
  std::string request;  // the job_start line as received, to rebuild the job after a restart
  std::string algorithm;
  std::string phase;  // the active phase; empty for none
  std::int64_t started_unix_ms = 0;
  /// The job's LID offset (path bits, LMC > 0): 0..127.
  std::uint8_t lid_offset = 0;
  std::vector<IntendedEntry> entries;
};

/// A job whose rows the store could not read back, kept aside with those rows for an operator.
/// Its flow entries stay on the switches: the controller leaves its cookie (the job id) alone.
struct QuarantinedJob {
  JobId id;
  /// What is wrong and where, e.g. "flow_entries row (job_id 48, seq 3), column entry: unreadable
  /// flow entry: ...".
  std::string reason;
  /// Where, for programs: the table of the first unreadable row ("jobs", "flow_entries"; "jobs"
  /// when the controller quarantined the job), its key ("job_id 48, seq 3") and the column
  /// (empty when the controller quarantined it).
  std::string table;
  std::string row;
  std::string column;
  std::int64_t quarantined_unix_ms = 0;
  /// False when only flow entries were found: their jobs row was missing.
  bool has_job_row = true;
  /// The flow_entries rows kept with it.
  std::size_t entry_rows = 0;
};

/// What load() found.
struct LoadedJobs {
  std::vector<StoredJob> jobs;                     // the readable jobs, by job id
  std::vector<QuarantinedJob> quarantined_now;     // moved aside by this load
  std::vector<QuarantinedJob> quarantined_before;  // moved aside earlier and not released yet
};

class StateStore {
 public:
  static constexpr int kSchemaVersion = 4;
  static constexpr const char* kFileName = "ibsdn-state.sqlite3";
  static constexpr const char* kMarkerFileName = "ibsdn-state.created";
  static constexpr const char* kLockFileName = "ibsdn-state.lock";

  /// Opens the store in `dir`, creating it when it never existed. Creates `dir` with mode 0700
  /// when missing (its parent must exist). Holds DIR/ibsdn-state.lock until destroyed. Migrates
  /// an older schema. Throws StateError, naming the file and what the operator can do, for: a
  /// `dir` that is no directory, belongs to another uid, is writable by group or others, is on a
  /// read-only file system or not writable; a `dir` another StateStore (in any process) holds;
  /// a database that is missing while the marker says it was created, empty (0 bytes),
  /// truncated, not SQLite, damaged (quick_check), without the schema or with a newer one; a
  /// state file that is a symlink, belongs to another uid or is writable by group or others.
  static StateStore open(const std::string& dir);

  StateStore(StateStore&&) noexcept;
  StateStore& operator=(StateStore&&) noexcept;
  ~StateStore();

  /// Stores the job and its entries, replacing any previous version of the same job id, in one
  /// transaction. Throws std::invalid_argument for a job id outside 1..2^63-1, an entry whose
  /// cookie is not the job id, a request that is not a JSON object or a user, algorithm or phase
  /// that is not UTF-8 (what load() could not read back); StateError when the job id is
  /// quarantined (until release_quarantined()) or SQLite fails (nothing is changed then).
  void put_job(const StoredJob& job);
  /// Removes the job and its entries; false when it was not stored.
  bool delete_job(JobId id);

  /// Reads every job back with its entries (in put_job order), by job id. A job with any row that
  /// cannot be read or decoded (the jobs row: a column of the wrong type, text that is not
  /// UTF-8, a request that is not a JSON object; a flow_entries row: a column of the wrong type,
  /// an entry that is not a flow, an entry whose cookie is another job's; flow entries without a
  /// jobs row) is quarantined instead: its rows move verbatim into the quarantine tables, in the
  /// same transaction as the read. Throws StateError only when SQLite fails (nothing moved then).
  [[nodiscard]] LoadedJobs load();
  /// load().jobs: the job controller's call until it handles quarantined jobs itself.
  [[nodiscard]] std::vector<StoredJob> load_jobs();
  [[nodiscard]] std::optional<StoredJob> find_job(JobId id) const;

  /// Moves a stored job into quarantine for a reason of the caller's, e.g. a request the store
  /// read back but the controller cannot parse. False when the job is not stored.
  bool quarantine(JobId id, const std::string& reason);
  /// Every quarantined job, oldest first.
  [[nodiscard]] std::vector<QuarantinedJob> quarantined() const;
  [[nodiscard]] std::optional<QuarantinedJob> find_quarantined(JobId id) const;
  /// Drops a quarantined job's kept rows, an operator's decision; its id is usable again. False
  /// when the job is not quarantined.
  bool release_quarantined(JobId id);

  /// The entries all stored jobs intend for one switch's flow table (not its LFT), by job id then
  /// put_job order.
  [[nodiscard]] std::vector<FlowEntry> intended_entries(Guid switch_guid) const;
  /// The switches that have intended entries, ascending.
  [[nodiscard]] std::vector<Guid> switches() const;
  /// The database file.
  [[nodiscard]] const std::string& path() const;
  /// What open() changed or found worth telling the operator: tightened modes, a marker written
  /// for a store that had none.
  [[nodiscard]] const std::vector<std::string>& warnings() const;

 private:
  struct Impl;
  explicit StateStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsdn
