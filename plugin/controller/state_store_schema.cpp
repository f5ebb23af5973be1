#include "plugin/controller/state_store_schema.hpp"

#include <array>
#include <vector>

#include "plugin/controller/state_error.hpp"
#include "plugin/controller/state_store.hpp"
#include "plugin/controller/state_store_sql.hpp"

namespace ibsdn::state_store_schema {
namespace {

using state_store_sql::exec_sql;
using state_store_sql::Run;
using state_store_sql::Statement;

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
    // Version 3: where each entry lives on its switch, the flow table or the LFT (the LFT
    // backend, install_backend). Rows written before stay flow-table entries.
    R"sql(
    ALTER TABLE flow_entries ADD COLUMN backend TEXT NOT NULL DEFAULT 'flow_table'
      CHECK (backend IN ('flow_table', 'lft'));
    ALTER TABLE quarantine_entries ADD COLUMN backend ANY;
    )sql",
    // Version 4: the job's LID offset (its path bits with LMC > 0: its own destination LIDs on
    // shared nodes). Jobs written before are on offset 0, the base LIDs.
    R"sql(
    ALTER TABLE jobs ADD COLUMN lid_offset INTEGER NOT NULL DEFAULT 0
      CHECK (lid_offset BETWEEN 0 AND 127);
    ALTER TABLE quarantine ADD COLUMN lid_offset ANY;
    )sql",
};
static_assert(std::size(kMigrations) == StateStore::kSchemaVersion);

// The tables a database of schema version v (index) must have.
const std::array<std::vector<std::string>, StateStore::kSchemaVersion + 1> kTables = {{
    {},
    {"jobs", "flow_entries"},
    {"jobs", "flow_entries", "quarantine", "quarantine_entries"},
    {"jobs", "flow_entries", "quarantine", "quarantine_entries"},
    {"jobs", "flow_entries", "quarantine", "quarantine_entries"},
}};

}  // namespace

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

}  // namespace ibsdn::state_store_schema
