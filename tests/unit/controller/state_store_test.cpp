#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "plugin/controller/state_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn {
namespace {

using test::TempDir;

FlowEntry entry(std::uint64_t job, std::uint16_t priority, std::uint16_t slid, std::uint16_t dlid,
                std::uint8_t port) {
  FlowEntry e;
  e.cookie = job;
  e.priority = priority;
  e.match = FlowMatch::exact_pair(Lid(slid), Lid(dlid));
  e.action.output = PortNum(port);
  return e;
}

StoredJob sample_job(std::uint64_t id) {
  StoredJob j;
  j.id = JobId(id);
  j.user = "alice";
  j.uid = 1001;
  j.request = R"({"v":1,"op":"job_start","job":)" + std::to_string(id) + "}";
  j.algorithm = "sdn-optimal";
  j.phase = "halo";
  j.started_unix_ms = 1'700'000'000'123;
  j.entries.push_back({Guid(0x10), entry(id, 100, 1, 2, 3)});
  j.entries.push_back({Guid(0x8000000000000001ULL), entry(id, 100, 2, 1, 4)});
  FlowEntry masked = entry(id, 50, 0, 0, 9);
  masked.match.slid.reset();
  masked.match.dlid = Masked<std::uint16_t>{0x40, 0xFFF0};
  masked.action.set_sl = ServiceLevel(2);
  masked.n_packets = 77;  // not intent: not stored
  j.entries.push_back({Guid(0x10), masked});
  return j;
}

void expect_same(const StoredJob& got, const StoredJob& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.user, want.user);
  EXPECT_EQ(got.uid, want.uid);
  EXPECT_EQ(got.request, want.request);
  EXPECT_EQ(got.algorithm, want.algorithm);
  EXPECT_EQ(got.phase, want.phase);
  EXPECT_EQ(got.started_unix_ms, want.started_unix_ms);
  EXPECT_EQ(got.lid_offset, want.lid_offset);
  ASSERT_EQ(got.entries.size(), want.entries.size());
  for (std::size_t i = 0; i < got.entries.size(); ++i) {
    EXPECT_EQ(got.entries[i].switch_guid, want.entries[i].switch_guid) << i;
    EXPECT_TRUE(got.entries[i].entry.same_rule(want.entries[i].entry)) << i;
    EXPECT_EQ(got.entries[i].entry.n_packets, 0u);
  }
}

std::string pragma(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

// Runs SQL on the database with a connection of its own (foreign keys off, as in the sqlite3
// shell an operator would use); fails the test when SQLite does.
void run_sql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::string db_of(const std::string& dir) {
  return dir + "/" + StateStore::kFileName;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(StateStore, Open_CreatesA0700DirectoryAnd0600FilesAndAWalDatabaseAtTheCurrentSchema) {
  TempDir t;
  const std::string dir = t.path() + "/state";
  StateStore s = StateStore::open(dir);
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(s.path(), dir + "/ibsdn-state.sqlite3");
  EXPECT_EQ(pragma(s.path(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(pragma(s.path(), "PRAGMA user_version"), std::to_string(StateStore::kSchemaVersion));
  EXPECT_TRUE(s.load_jobs().empty());
  s.put_job(sample_job(1));
  // While the store is open SQLite has its -wal and -shm files: they must be as private.
  for (const std::string name :
       {"ibsdn-state.sqlite3", "ibsdn-state.sqlite3-wal", "ibsdn-state.sqlite3-shm",
        "ibsdn-state.created", "ibsdn-state.lock"}) {
    EXPECT_EQ(mode_of(dir + "/" + name), 0600u) << name;
  }
  EXPECT_TRUE(s.warnings().empty());
  std::ifstream marker(dir + "/" + StateStore::kMarkerFileName);
  const std::string text((std::istreambuf_iterator<char>(marker)),
                         std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "database: ibsdn-state.sqlite3\n")) << text;
  EXPECT_TRUE(contains(text, "created: 20")) << text;
  // Nothing of the creation is left behind.
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    EXPECT_FALSE(contains(f.path().filename().string(), "creating")) << f.path();
  }
}

TEST(StateStore, Open_CreatesTheFiles0600EvenUnderAPermissiveUmask) {
  TempDir t;
  const mode_t old = ::umask(0);
  {
    StateStore s = StateStore::open(t.path() + "/state");
    s.put_job(sample_job(1));
    for (const std::string suffix : {"", "-wal", "-shm"}) {
      EXPECT_EQ(mode_of(s.path() + suffix), 0600u) << suffix;
    }
  }
  ::umask(old);
  EXPECT_EQ(mode_of(t.path() + "/state"), 0700u);
}

TEST(StateStore, RoundTrip_JobsAndEntriesSurviveReopening) {
  TempDir t;
  StoredJob a = sample_job(7);
  StoredJob b = sample_job(9223372036854775807ULL);  // the largest job id
  b.uid.reset();
  b.phase.clear();
  b.entries.resize(1);
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(b);
    s.put_job(a);
  }
  StateStore s = StateStore::open(t.path());
  const std::vector<StoredJob> jobs = s.load_jobs();
  ASSERT_EQ(jobs.size(), 2u);
  expect_same(jobs[0], a);
  expect_same(jobs[1], b);
  const auto found = s.find_job(JobId(7));
  ASSERT_TRUE(found.has_value());
  expect_same(*found, a);
  EXPECT_FALSE(s.find_job(JobId(8)).has_value());

  const std::vector<FlowEntry> on_0x10 = s.intended_entries(Guid(0x10));
  ASSERT_EQ(on_0x10.size(), 3u);  // job 7's two (in order), then the max id's one
  EXPECT_TRUE(on_0x10[0].same_rule(a.entries[0].entry));
  EXPECT_TRUE(on_0x10[1].same_rule(a.entries[2].entry));
  EXPECT_TRUE(on_0x10[2].same_rule(b.entries[0].entry));
  EXPECT_EQ(s.intended_entries(Guid(0x8000000000000001ULL)).size(), 1u);
  EXPECT_TRUE(s.intended_entries(Guid(0x11)).empty());
  EXPECT_EQ(s.switches(), (std::vector<Guid>{Guid(0x10), Guid(0x8000000000000001ULL)}));
}

TEST(StateStore, PutJob_ReplacesThePreviousVersionWhole) {
  TempDir t;
  StateStore s = StateStore::open(t.path());
  s.put_job(sample_job(5));
  StoredJob v2 = sample_job(5);
  v2.phase = "reduce";
  v2.entries = {{Guid(0x20), entry(5, 7, 4, 5, 6)}};
  s.put_job(v2);
  const auto jobs = s.load_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  expect_same(jobs[0], v2);
  EXPECT_TRUE(s.intended_entries(Guid(0x10)).empty());
  EXPECT_EQ(s.switches(), (std::vector<Guid>{Guid(0x20)}));
}

TEST(StateStore, PutJob_FailingHalfwayLeavesThePreviousVersion) {
  TempDir t;
  StateStore s = StateStore::open(t.path());
  const StoredJob v1 = sample_job(5);
  s.put_job(v1);
  StoredJob bad = sample_job(5);
  bad.uid = 4294967295u;  // (uid_t)-1: the schema's CHECK fails after the old row was deleted
  try {
    s.put_job(bad);
    FAIL() << "accepted uid -1";
  } catch (const StateError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("put_job: insert the job"), std::string::npos) << what;
    EXPECT_NE(what.find("CHECK constraint failed"), std::string::npos) << what;
  }
  const auto jobs = s.load_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  expect_same(jobs[0], v1);
  s.put_job(sample_job(6));  // the store is usable afterwards
  EXPECT_EQ(s.load_jobs().size(), 2u);
}

TEST(StateStore, PutJob_RejectsEntriesOfAnotherJobAndInvalidIds) {
  TempDir t;
  StateStore s = StateStore::open(t.path());
  StoredJob j = sample_job(5);
  j.entries[1].entry.cookie = 6;
  EXPECT_THROW(s.put_job(j), std::invalid_argument);
  EXPECT_THROW(s.put_job(sample_job(0)), std::invalid_argument);
  EXPECT_THROW(s.put_job(sample_job(9223372036854775808ULL)), std::invalid_argument);
  EXPECT_TRUE(s.load_jobs().empty());
}

TEST(StateStore, DeleteJob_RemovesItsEntries) {
  TempDir t;
  StateStore s = StateStore::open(t.path());
  s.put_job(sample_job(1));
  s.put_job(sample_job(2));
  EXPECT_TRUE(s.delete_job(JobId(1)));
  EXPECT_FALSE(s.delete_job(JobId(1)));
  EXPECT_FALSE(s.delete_job(JobId(0)));
  const auto jobs = s.load_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, JobId(2));
  for (const FlowEntry& e : s.intended_entries(Guid(0x10))) EXPECT_EQ(e.cookie, 2u);
  EXPECT_EQ(s.intended_entries(Guid(0x10)).size(), 2u);
}

std::string open_error(const std::string& dir) {
  try {
    (void)StateStore::open(dir);
  } catch (const StateError& e) {
    return e.what();
  }
  return "(opened)";
}

TEST(StateStore, Open_ExplainsWhatIsWrongWithTheDirectory) {
  TempDir t;
  EXPECT_NE(open_error(t.path() + "/missing/state").find("cannot create: No such file"),
            std::string::npos);
  const std::string file = t.path() + "/file";
  std::ofstream(file) << "x";
  EXPECT_NE(open_error(file).find("not a directory"), std::string::npos);
  const std::string open_dir = t.path() + "/open";
  ASSERT_EQ(::mkdir(open_dir.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  EXPECT_NE(open_error(open_dir).find("writable by group or others (mode 0777)"), std::string::npos)
      << open_error(open_dir);
  EXPECT_NE(open_error("").find("empty"), std::string::npos);
}

TEST(StateStore, Open_RefusesANewerSchemaNamingBothVersions) {
  TempDir t;
  { (void)StateStore::open(t.path()); }
  run_sql(db_of(t.path()), "PRAGMA user_version = 99");
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, db_of(t.path()))) << what;
  EXPECT_TRUE(contains(what, "schema version 99 is newer than this ibsdn understands (" +
                                 std::to_string(StateStore::kSchemaVersion) + ")"))
      << what;
  EXPECT_EQ(pragma(db_of(t.path()), "PRAGMA user_version"), "99");  // left as it was
}

// What every refusal of an existing store must say besides what is wrong.
void expect_operator_advice(const std::string& what, const std::string& dir) {
  EXPECT_TRUE(contains(what, db_of(dir))) << what;
  EXPECT_TRUE(contains(what, "Nothing was changed")) << what;
  EXPECT_TRUE(contains(what, "Restore the file from a backup")) << what;
  EXPECT_TRUE(contains(what, "to start with an empty store")) << what;
  EXPECT_TRUE(contains(what, "docs/operations.md")) << what;
}

TEST(StateStore, Open_RefusesAFileThatIsNotSqlite) {
  TempDir t;
  { (void)StateStore::open(t.path()); }
  std::ofstream(db_of(t.path())) << std::string(4096, 'z');
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "(4096 bytes) is not a SQLite database")) << what;
  expect_operator_advice(what, t.path());
}

TEST(StateStore, Open_RefusesAForeignFileEvenWithoutTheMarker) {
  TempDir t;
  std::ofstream(db_of(t.path())) << std::string(4096, 'z');
  EXPECT_TRUE(contains(open_error(t.path()), "is not a SQLite database"));
}

TEST(StateStore, Open_RefusesAnEmptyDatabaseFileInsteadOfStartingEmpty) {
  TempDir t;
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(sample_job(46));
  }
  ASSERT_EQ(::truncate(db_of(t.path()).c_str(), 0), 0);
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "(0 bytes) is empty")) << what;
  expect_operator_advice(what, t.path());
  EXPECT_EQ(std::filesystem::file_size(db_of(t.path())), 0u);  // not initialised by SQLite
}

TEST(StateStore, Open_RefusesAZeroByteFileEvenWithoutTheMarker) {
  TempDir t;
  std::ofstream(db_of(t.path())).flush();
  EXPECT_TRUE(contains(open_error(t.path()), "(0 bytes) is empty"));
}

TEST(StateStore, Open_RefusesATruncatedDatabase) {
  TempDir t;
  {
    StateStore s = StateStore::open(t.path());
    for (std::uint64_t id = 1; id <= 40; ++id) s.put_job(sample_job(id));
  }
  const auto size = std::filesystem::file_size(db_of(t.path()));
  ASSERT_GT(size, 8192u);
  ASSERT_EQ(::truncate(db_of(t.path()).c_str(), static_cast<off_t>(size / 2)), 0);
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "is truncated: its header counts")) << what;
  expect_operator_advice(what, t.path());
}

TEST(StateStore, Open_RefusesAFileShorterThanTheSqliteHeader) {
  TempDir t;
  { (void)StateStore::open(t.path()); }
  ASSERT_EQ(::truncate(db_of(t.path()).c_str(), 50), 0);
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "(50 bytes) is truncated: shorter than the 100-byte SQLite header"))
      << what;
}

TEST(StateStore, Open_RefusesASqliteDatabaseWithoutTheSchema) {
  TempDir t;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_of(t.path()).c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE notes (x TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "without the ibsdn schema (user_version 0)")) << what;
  expect_operator_advice(what, t.path());
}

TEST(StateStore, Open_RefusesADatabaseThatLacksATableOfItsVersion) {
  TempDir t;
  { (void)StateStore::open(t.path()); }
  run_sql(db_of(t.path()), "DROP TABLE quarantine_entries");
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "lacks the table(s) quarantine_entries of its schema version " +
                                 std::to_string(StateStore::kSchemaVersion)))
      << what;
}

TEST(StateStore, Open_RefusesAMissingDatabaseWhenTheMarkerSaysAStoreWasCreated) {
  TempDir t;
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(sample_job(46));
  }
  ASSERT_TRUE(std::filesystem::remove(db_of(t.path())));
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, db_of(t.path()) + " is missing")) << what;
  EXPECT_TRUE(contains(what, "ibsdn-state.created says a store was created here 20")) << what;
  EXPECT_TRUE(contains(what, "Restore the file from a backup")) << what;
  EXPECT_TRUE(contains(what, "remove " + t.path() + "/ibsdn-state.created")) << what;
  EXPECT_FALSE(std::filesystem::exists(db_of(t.path())));  // no empty store in its place

  // The operator's way to start empty: remove the marker.
  std::filesystem::remove(t.path() + "/" + StateStore::kMarkerFileName);
  StateStore s = StateStore::open(t.path());
  EXPECT_TRUE(s.load().jobs.empty());
}

TEST(StateStore, Open_WritesTheMarkerForAStoreThatHadNone) {
  TempDir t;
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(sample_job(46));
  }
  std::filesystem::remove(t.path() + "/" + StateStore::kMarkerFileName);  // a store of version 1
  {
    StateStore s = StateStore::open(t.path());
    ASSERT_EQ(s.warnings().size(), 1u);
    EXPECT_TRUE(contains(s.warnings()[0], "ibsdn-state.created: written for the existing store"));
    EXPECT_EQ(s.load().jobs.size(), 1u);
  }
  EXPECT_EQ(mode_of(t.path() + "/" + StateStore::kMarkerFileName), 0600u);
  std::filesystem::remove(db_of(t.path()));
  EXPECT_TRUE(contains(open_error(t.path()), "is missing"));
}

TEST(StateStore, Open_MigratesASchemaVersion1StoreKeepingItsJobs) {
  TempDir t;
  const StoredJob job = sample_job(46);
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(job);
  }
  // Back to what version 1 wrote: no quarantine tables, no backend or lid_offset column,
  // user_version 1, no marker.
  run_sql(db_of(t.path()),
          "DROP TABLE quarantine_entries; DROP TABLE quarantine; "
          "ALTER TABLE flow_entries DROP COLUMN backend; ALTER TABLE jobs DROP COLUMN lid_offset; "
          "PRAGMA user_version = 1");
  std::filesystem::remove(t.path() + "/" + StateStore::kMarkerFileName);
  StateStore s = StateStore::open(t.path());
  EXPECT_EQ(pragma(s.path(), "PRAGMA user_version"), std::to_string(StateStore::kSchemaVersion));
  const LoadedJobs loaded = s.load();
  ASSERT_EQ(loaded.jobs.size(), 1u);
  expect_same(loaded.jobs[0], job);
  EXPECT_TRUE(s.quarantined().empty());
}

/// Version 2 stores had no backend column: their entries were all flow-table entries, and stay
/// so; a version-3 store keeps which entries live in an LFT, through put_job, load and find_job,
/// and leaves them out of a switch's flow-table intent.
TEST(StateStore, Open_MigratesASchemaVersion2StoreAndKeepsEachEntrysBackend) {
  TempDir t;
  const StoredJob job = sample_job(46);
  ASSERT_GE(job.entries.size(), 2u);
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(job);
  }
  run_sql(db_of(t.path()),
          "ALTER TABLE quarantine_entries DROP COLUMN backend; "
          "ALTER TABLE flow_entries DROP COLUMN backend; ALTER TABLE jobs DROP COLUMN lid_offset; "
          "ALTER TABLE quarantine DROP COLUMN lid_offset; PRAGMA user_version = 2");
  StateStore s = StateStore::open(t.path());
  EXPECT_EQ(pragma(s.path(), "PRAGMA user_version"), std::to_string(StateStore::kSchemaVersion));
  const LoadedJobs loaded = s.load();
  ASSERT_EQ(loaded.jobs.size(), 1u);
  for (const IntendedEntry& e : loaded.jobs[0].entries) EXPECT_FALSE(e.in_lft);

  StoredJob mixed = job;
  mixed.entries[0].in_lft = true;
  s.put_job(mixed);
  const auto back = s.find_job(job.id);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->entries.size(), mixed.entries.size());
  for (std::size_t i = 0; i < mixed.entries.size(); ++i) {
    EXPECT_EQ(back->entries[i].in_lft, mixed.entries[i].in_lft) << i;
  }
  const LoadedJobs again = s.load();
  ASSERT_EQ(again.jobs.size(), 1u);
  EXPECT_TRUE(again.jobs[0].entries[0].in_lft);
  EXPECT_FALSE(again.jobs[0].entries[1].in_lft);
  // The LFT entry is not part of its switch's flow-table intent.
  const Guid sw = mixed.entries[0].switch_guid;
  std::size_t in_table = 0;
  for (std::size_t i = 1; i < mixed.entries.size(); ++i)
    in_table += mixed.entries[i].switch_guid == sw;
  EXPECT_EQ(s.intended_entries(sw).size(), in_table);
}

/// Version 3 stores had no lid_offset: their jobs were on the base LIDs (offset 0). A job's
/// offset (its path bits under LMC) then survives put_job, load and find_job.
TEST(StateStore, Open_MigratesASchemaVersion3StoreAndKeepsEachJobsLidOffset) {
  TempDir t;
  const StoredJob job = sample_job(46);
  {
    StateStore s = StateStore::open(t.path());
    s.put_job(job);
  }
  run_sql(db_of(t.path()),
          "ALTER TABLE jobs DROP COLUMN lid_offset; ALTER TABLE quarantine DROP COLUMN lid_offset; "
          "PRAGMA user_version = 3");
  StateStore s = StateStore::open(t.path());
  EXPECT_EQ(pragma(s.path(), "PRAGMA user_version"), "4");
  LoadedJobs loaded = s.load();
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].lid_offset, 0);
  StoredJob shifted = job;
  shifted.lid_offset = 3;
  s.put_job(shifted);
  const auto back = s.find_job(job.id);
  ASSERT_TRUE(back.has_value());
  expect_same(*back, shifted);
  loaded = s.load();
  ASSERT_EQ(loaded.jobs.size(), 1u);
  expect_same(loaded.jobs[0], shifted);
}

// ---- quarantine ----

// Opens the store in `dir`, stores the healthy job 46 and job 48, closes it and lets `damage`
// change job 48's rows as an operator's sqlite3 shell (or a bad disk) could.
void store_46_and_48(const std::string& dir) {
  StateStore s = StateStore::open(dir);
  s.put_job(sample_job(46));
  s.put_job(sample_job(48));
}

struct Damage {
  const char* name;
  const char* sql;    // applied to the store holding jobs 46 and 48
  const char* table;  // where load() must say the problem is
  const char* row;
  const char* column;
  const char* says;
  bool has_job_row;
  std::size_t entry_rows;
};

class StateStoreQuarantines : public ::testing::TestWithParam<Damage> {};

TEST_P(StateStoreQuarantines, TheDamagedJobAndReloadsTheOthers) {
  const Damage& d = GetParam();
  TempDir t;
  store_46_and_48(t.path());
  run_sql(db_of(t.path()), d.sql);

  {
    StateStore s = StateStore::open(t.path());
    const LoadedJobs loaded = s.load();
    ASSERT_EQ(loaded.jobs.size(), 1u);
    expect_same(loaded.jobs[0], sample_job(46));
    ASSERT_EQ(loaded.quarantined_now.size(), 1u);
    EXPECT_TRUE(loaded.quarantined_before.empty());
    const QuarantinedJob& q = loaded.quarantined_now[0];
    EXPECT_EQ(q.id, JobId(48));
    EXPECT_EQ(q.table, d.table);
    EXPECT_EQ(q.row, d.row);
    EXPECT_EQ(q.column, d.column);
    EXPECT_TRUE(contains(q.reason, std::string(d.table) + " row (" + d.row + "), column " +
                                       d.column + ": " + d.says))
        << q.reason;
    EXPECT_EQ(q.has_job_row, d.has_job_row);
    EXPECT_EQ(q.entry_rows, d.entry_rows);
    EXPECT_GT(q.quarantined_unix_ms, 1'700'000'000'000);
    // Out of the intent: the controller neither installs nor removes job 48's entries.
    for (const FlowEntry& e : s.intended_entries(Guid(0x10))) EXPECT_EQ(e.cookie, 46u);
    EXPECT_FALSE(s.find_job(JobId(48)).has_value());
  }
  // The rows are kept, verbatim, for the operator: the damaged value itself included.
  EXPECT_EQ(pragma(db_of(t.path()), "SELECT count(*) FROM quarantine_entries WHERE job_id = 48"),
            std::to_string(d.entry_rows));
  EXPECT_EQ(pragma(db_of(t.path()), "SELECT count(*) FROM flow_entries WHERE job_id = 48"), "0");

  // A restart reloads job 46 and still reports 48 as quarantined.
  StateStore s = StateStore::open(t.path());
  const LoadedJobs again = s.load();
  ASSERT_EQ(again.jobs.size(), 1u);
  EXPECT_TRUE(again.quarantined_now.empty());
  ASSERT_EQ(again.quarantined_before.size(), 1u);
  EXPECT_EQ(again.quarantined_before[0].id, JobId(48));
  EXPECT_EQ(again.quarantined_before[0].reason, s.quarantined().at(0).reason);
}

INSTANTIATE_TEST_SUITE_P(
    BadRows, StateStoreQuarantines,
    ::testing::Values(
        Damage{"UnreadableFlowEntry",
               "UPDATE flow_entries SET entry = 'garbage' WHERE job_id = 48 AND seq = 1",
               "flow_entries", "job_id 48, seq 1", "entry", "unreadable flow entry", true, 3},
        Damage{"FlowEntryOfAnotherJobsCookie",
               "UPDATE flow_entries SET entry = replace(entry, '\"cookie\":48', "
               "'\"cookie\":46') WHERE job_id = 48 AND seq = 2",
               "flow_entries", "job_id 48, seq 2", "entry", "cookie 46 is not the job id", true, 3},
        Damage{"FlowEntryThatIsNotAFlow",
               "UPDATE flow_entries SET entry = '{\"priority\":1}' WHERE job_id = 48 AND seq = 0",
               "flow_entries", "job_id 48, seq 0", "entry", "unreadable flow entry", true, 3},
        Damage{"RequestThatIsNotJson", "UPDATE jobs SET request = '{\"v\":1,' WHERE job_id = 48",
               "jobs", "job_id 48", "request", "not JSON", true, 3},
        Damage{"RequestThatIsNotAnObject", "UPDATE jobs SET request = '[1]' WHERE job_id = 48",
               "jobs", "job_id 48", "request", "not a JSON object", true, 3},
        Damage{"UserThatIsNotUtf8",
               "UPDATE jobs SET user = CAST(x'ff61' AS TEXT) WHERE job_id = 48", "jobs",
               "job_id 48", "user", "not UTF-8 text", true, 3},
        Damage{"PhaseThatIsNotUtf8",
               "UPDATE jobs SET phase = CAST(x'c328' AS TEXT) WHERE job_id = 48", "jobs",
               "job_id 48", "phase", "not UTF-8 text", true, 3},
        Damage{"JobRowMissing", "PRAGMA foreign_keys = OFF; DELETE FROM jobs WHERE job_id = 48",
               "flow_entries", "job_id 48, seq 0", "job_id",
               "flow entries of a job without a jobs row", false, 3}),
    [](const ::testing::TestParamInfo<Damage>& p) { return std::string(p.param.name); });

// STRICT tables make SQLite refuse a value of the wrong type; a tool that rewrote the schema (or
// a bad disk) can still leave one. Such a row is quarantined like any other unreadable one.
TEST(StateStore, Load_QuarantinesAValueOfTheWrongTypeLeftByASchemaWithoutStrict) {
  TempDir t;
  store_46_and_48(t.path());
  run_sql(db_of(t.path()),
          "PRAGMA writable_schema = ON;"
          "UPDATE sqlite_schema SET sql = replace(sql, ') STRICT, WITHOUT ROWID', ') WITHOUT "
          "ROWID') WHERE name = 'flow_entries';"
          "UPDATE sqlite_schema SET sql = replace(sql, ') STRICT', ')') WHERE name = 'jobs';");
  run_sql(db_of(t.path()),
          "UPDATE flow_entries SET switch_guid = 'sixteen' WHERE job_id = 48 AND seq = 0;"
          "UPDATE jobs SET started_unix_ms = 'yesterday' WHERE job_id = 46;");
  StateStore s = StateStore::open(t.path());
  const LoadedJobs loaded = s.load();
  EXPECT_TRUE(loaded.jobs.empty());
  ASSERT_EQ(loaded.quarantined_now.size(), 2u);
  EXPECT_EQ(loaded.quarantined_now[0].reason,
            "jobs row (job_id 46), column started_unix_ms: expected an integer, found text");
  EXPECT_EQ(loaded.quarantined_now[1].reason,
            "flow_entries row (job_id 48, seq 0), column switch_guid: expected an integer, found "
            "text");
  // Verbatim: the text is kept as text.
  EXPECT_EQ(pragma(db_of(t.path()),
                   "SELECT started_unix_ms || '/' || typeof(started_unix_ms) FROM quarantine "
                   "WHERE job_id = 46"),
            "yesterday/text");
}

TEST(StateStore, PutJob_RefusesAQuarantinedJobIdUntilAnOperatorReleasesIt) {
  TempDir t;
  store_46_and_48(t.path());
  run_sql(db_of(t.path()), "UPDATE flow_entries SET entry = 'garbage' WHERE job_id = 48");
  StateStore s = StateStore::open(t.path());
  ASSERT_EQ(s.load().quarantined_now.size(), 1u);
  try {
    s.put_job(sample_job(48));
    FAIL() << "a quarantined job id was reused";
  } catch (const StateError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "job 48 is quarantined (flow_entries row (job_id 48, seq 0)"))
        << what;
    EXPECT_TRUE(contains(what, "until an operator releases it")) << what;
  }
  EXPECT_FALSE(s.find_job(JobId(48)).has_value());
  ASSERT_TRUE(s.find_quarantined(JobId(48)).has_value());
  EXPECT_FALSE(s.find_quarantined(JobId(46)).has_value());

  EXPECT_TRUE(s.release_quarantined(JobId(48)));
  EXPECT_FALSE(s.release_quarantined(JobId(48)));
  EXPECT_TRUE(s.quarantined().empty());
  EXPECT_EQ(pragma(db_of(t.path()), "SELECT count(*) FROM quarantine_entries"), "0");
  s.put_job(sample_job(48));
  EXPECT_EQ(s.load().jobs.size(), 2u);
}

TEST(StateStore, Quarantine_MovesAJobTheControllerCannotUseWithItsRows) {
  TempDir t;
  store_46_and_48(t.path());
  StateStore s = StateStore::open(t.path());
  EXPECT_TRUE(s.quarantine(JobId(48), "its request is not a job_start"));
  EXPECT_FALSE(s.quarantine(JobId(48), "again"));
  EXPECT_FALSE(s.quarantine(JobId(7), "never stored"));
  const std::vector<QuarantinedJob> q = s.quarantined();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].id, JobId(48));
  EXPECT_EQ(q[0].reason,
            "jobs row (job_id 48): the controller cannot use it: its request is not a job_start");
  EXPECT_EQ(q[0].table, "jobs");
  EXPECT_EQ(q[0].column, "");
  EXPECT_EQ(q[0].entry_rows, 3u);
  EXPECT_EQ(pragma(db_of(t.path()), "SELECT request FROM quarantine WHERE job_id = 48"),
            sample_job(48).request);
  const LoadedJobs loaded = s.load();
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.quarantined_before.size(), 1u);
}

TEST(StateStore, PutJob_RefusesWhatLoadCouldNotReadBack) {
  TempDir t;
  StateStore s = StateStore::open(t.path());
  StoredJob j = sample_job(5);
  j.request = "not json";
  EXPECT_THROW(s.put_job(j), std::invalid_argument);
  j = sample_job(5);
  j.request = "[]";
  EXPECT_THROW(s.put_job(j), std::invalid_argument);
  j = sample_job(5);
  j.user = "\xff";
  EXPECT_THROW(s.put_job(j), std::invalid_argument);
  j = sample_job(5);
  j.phase = "\xc3(";
  EXPECT_THROW(s.put_job(j), std::invalid_argument);
  EXPECT_TRUE(s.load().jobs.empty());
}

// ---- two controllers, permissions, read-only file systems ----

TEST(StateStore, Open_RefusesASecondStoreOnTheSameDirectoryInOneProcess) {
  TempDir t;
  StateStore first = StateStore::open(t.path());
  const std::string what = open_error(t.path());
  EXPECT_EQ(what, "state directory " + t.path() + " is in use by process " +
                      std::to_string(::getpid()) +
                      " (another opensm with the same state_dir?); give each SM port its own "
                      "state_dir");
  first.put_job(sample_job(1));  // the first store is unharmed
  EXPECT_EQ(first.load().jobs.size(), 1u);
}

TEST(StateStore, Open_RefusesASecondStoreWhileAnotherProcessHoldsTheDirectory) {
  TempDir t;
  int ready[2];
  int release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    try {
      StateStore s = StateStore::open(t.path());
      char c = 'r';
      if (::write(ready[1], &c, 1) != 1) ::_exit(2);
      (void)::read(release[0], &c, 1);  // until the parent has tried
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const std::string what = open_error(t.path());
  EXPECT_TRUE(contains(what, "is in use by process " + std::to_string(child) + " ")) << what;
  ::close(release[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ::close(ready[0]);
  // The lock died with its process: no stale lock to clean up.
  EXPECT_NO_THROW((void)StateStore::open(t.path()));
}

TEST(StateStore, Open_TightensStateFilesOthersCouldRead) {
  TempDir t;
  {
    StateStore s = StateStore::open(t.path() + "/state");
    s.put_job(sample_job(1));
  }
  const std::string dir = t.path() + "/state";
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(db_of(dir).c_str(), 0644), 0);
  ASSERT_EQ(::chmod((dir + "/" + StateStore::kMarkerFileName).c_str(), 0640), 0);
  StateStore s = StateStore::open(dir);
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(mode_of(db_of(dir)), 0600u);
  EXPECT_EQ(mode_of(dir + "/" + StateStore::kMarkerFileName), 0600u);
  ASSERT_EQ(s.warnings().size(), 3u);
  EXPECT_EQ(s.warnings()[0],
            "state directory " + dir + ": mode 0755 let group or others read it; changed to 0700");
  EXPECT_EQ(s.warnings()[2],
            db_of(dir) + ": mode 0644 let group or others read it; changed to 0600");
  EXPECT_EQ(s.load().jobs.size(), 1u);
}

TEST(StateStore, Open_RefusesAStateFileOthersCouldWrite) {
  TempDir t;
  { (void)StateStore::open(t.path()); }
  for (const char* name :
       {StateStore::kFileName, StateStore::kMarkerFileName, StateStore::kLockFileName}) {
    const std::string path = t.path() + "/" + name;
    ASSERT_EQ(::chmod(path.c_str(), 0660), 0);
    const std::string what = open_error(t.path());
    EXPECT_EQ(what, path +
                        ": writable by group or others (mode 0660): it could have been "
                        "changed; check it, then chmod 0600 it");
    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  }
  EXPECT_NO_THROW((void)StateStore::open(t.path()));
}

TEST(StateStore, Open_RefusesASymbolicLinkInPlaceOfTheDatabase) {
  TempDir t;
  { (void)StateStore::open(t.path() + "/a"); }
  ASSERT_EQ(::mkdir((t.path() + "/b").c_str(), 0700), 0);
  std::filesystem::create_symlink(db_of(t.path() + "/a"), db_of(t.path() + "/b"));
  const std::string what = open_error(t.path() + "/b");
  EXPECT_TRUE(contains(what, db_of(t.path() + "/b") + ": a symbolic link")) << what;
}

TEST(StateStore, Open_RefusesADirectoryOrFileOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  TempDir t;
  { (void)StateStore::open(t.path() + "/state"); }
  const std::string dir = t.path() + "/state";
  ASSERT_EQ(::chown(db_of(dir).c_str(), 65534, 65534), 0);
  EXPECT_TRUE(contains(open_error(dir), db_of(dir) + ": owned by uid 65534, but the controller "
                                                     "runs as uid 0"));
  ASSERT_EQ(::chown(db_of(dir).c_str(), 0, 0), 0);
  ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
  EXPECT_TRUE(contains(open_error(dir), "state directory " + dir + ": owned by uid 65534"));
}

// Runs `body` in a child process and returns what it wrote to its pipe ("" and a failure when
// the child did not exit 0; "skip: why" when it could not set up its test).
std::string in_child(const std::function<std::string()>& body) {
  int out[2];
  if (::pipe(out) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(out[0]);
    std::string text;
    try {
      text = body();
    } catch (const std::exception& e) {
      text = std::string("exception: ") + e.what();
    }
    const ssize_t n = ::write(out[1], text.data(), text.size());
    ::_exit(n == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  ::close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) {
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return text;
}

// As root, chmod restricts nothing: the test mounts a read-only tmpfs in a mount namespace of
// its own (the child's), so nothing outside the test sees it.
std::string mount_private_tmpfs(const std::string& at, unsigned long flags) {
  if (::unshare(CLONE_NEWNS) != 0) return std::string("skip: unshare: ") + std::strerror(errno);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("skip: mount --make-rprivate /: ") + std::strerror(errno);
  }
  if (::mount("tmpfs", at.c_str(), "tmpfs", flags, "mode=0700") != 0) {
    return std::string("skip: mount tmpfs: ") + std::strerror(errno);
  }
  return {};
}

TEST(StateStore, Open_RefusesAStateDirectoryItCannotWrite) {
  TempDir t;
  const std::string dir = t.path() + "/state";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  std::string what;
  if (::geteuid() != 0) {
    ASSERT_EQ(::chmod(dir.c_str(), 0500), 0);
    what = open_error(dir);
    ::chmod(dir.c_str(), 0700);
    EXPECT_TRUE(contains(what, "state directory " + dir + ": not writable by uid")) << what;
    return;
  }
  what = in_child([&] {
    if (std::string skip = mount_private_tmpfs(dir, MS_RDONLY); !skip.empty()) return skip;
    return open_error(dir);
  });
  if (what.rfind("skip: ", 0) == 0) GTEST_SKIP() << what;
  EXPECT_EQ(what, "state directory " + dir +
                      ": on a read-only file system; the controller writes every job change "
                      "there (remount it read-write, or point state_dir to a writable directory)");
}

TEST(StateStore, Open_RefusesAStoreWhoseFileSystemWasRemountedReadOnly) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a file system read-only";
  TempDir t;
  const std::string dir = t.path() + "/state";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::string what = in_child([&] {
    if (std::string skip = mount_private_tmpfs(dir, 0); !skip.empty()) return skip;
    {
      StateStore s = StateStore::open(dir);
      s.put_job(sample_job(46));
    }
    if (::mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
      return std::string("skip: remount read-only: ") + std::strerror(errno);
    }
    return open_error(dir);
  });
  if (what.rfind("skip: ", 0) == 0) GTEST_SKIP() << what;
  EXPECT_TRUE(contains(what, "on a read-only file system")) << what;
}

// ---- crash safety ----

// What the writer child logs around each change (write(2) to a file: survives SIGKILL).
struct LogRecord {
  std::uint32_t kind;  // 1 = about to put, 2 = about to delete, 3 = the change returned
  std::uint32_t entries;
  std::uint64_t id;
  std::uint64_t gen;
};

constexpr std::uint64_t kCrashJobs = 12;

StoredJob crash_job(std::uint64_t id, std::uint64_t gen, std::uint32_t n) {
  StoredJob j;
  j.id = JobId(id);
  j.user = "slurm";
  j.request = nlohmann::json{{"gen", gen}, {"entries", n}}.dump();
  j.algorithm = "sdn-optimal";
  j.started_unix_ms = static_cast<std::int64_t>(gen);
  for (std::uint32_t i = 0; i < n; ++i) {
    j.entries.push_back(
        {Guid(0x8000000000000000ULL | ((gen + i) % 5 + 1)),
         entry(id, static_cast<std::uint16_t>(gen & 0xFFFF), static_cast<std::uint16_t>(i + 1),
               static_cast<std::uint16_t>(gen % 1000 + 1), static_cast<std::uint8_t>(i % 36 + 1))});
  }
  return j;
}

[[noreturn]] void crash_writer(const std::string& dir, const std::string& log, unsigned round) {
  try {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    if (fd < 0) ::_exit(2);
    StateStore s = StateStore::open(dir);
    std::mt19937_64 rng(round);
    for (std::uint64_t gen = std::uint64_t{round} * 1'000'000 + 1;; ++gen) {
      const std::uint64_t id = 1 + rng() % kCrashJobs;
      const bool del = rng() % 6 == 0;
      const auto n = static_cast<std::uint32_t>(1 + rng() % 400);
      const LogRecord intent{del ? 2u : 1u, n, id, gen};
      if (::write(fd, &intent, sizeof intent) != sizeof intent) ::_exit(2);
      if (del) {
        (void)s.delete_job(JobId(id));
      } else {
        s.put_job(crash_job(id, gen, n));
      }
      const LogRecord done{3, 0, id, gen};
      if (::write(fd, &done, sizeof done) != sizeof done) ::_exit(2);
    }
  } catch (...) {
    ::_exit(3);
  }
}

// A job stored by crash_writer must be whole: the entry count its request names, every entry
// from the same generation. Returns the generation.
std::uint64_t check_whole(const StoredJob& j) {
  const auto req = nlohmann::json::parse(j.request);
  const auto gen = req.at("gen").get<std::uint64_t>();
  const auto n = req.at("entries").get<std::uint32_t>();
  EXPECT_EQ(j.entries.size(), n) << "job " << j.id.value() << " gen " << gen;
  const StoredJob want = crash_job(j.id.value(), gen, n);
  for (std::size_t i = 0; i < std::min(j.entries.size(), want.entries.size()); ++i) {
    EXPECT_EQ(j.entries[i].switch_guid, want.entries[i].switch_guid);
    EXPECT_TRUE(j.entries[i].entry.same_rule(want.entries[i].entry))
        << "job " << j.id.value() << " entry " << i << " mixes generations";
  }
  return gen;
}

TEST(StateStore, SigkillDuringWrites_LeavesEveryJobWholeOrAbsent_AndKeepsAcknowledgedChanges) {
  TempDir t;
  const std::string dir = t.path() + "/state";
  (void)StateStore::open(dir);
  std::map<std::uint64_t, std::uint64_t> expected;  // id -> generation stored (absent: none)
  std::mt19937_64 timing(7);
  std::size_t acknowledged = 0;
  std::size_t killed_mid_change = 0;
  constexpr unsigned kRounds = 10;
  for (unsigned round = 1; round <= kRounds; ++round) {
    const std::string log = t.path() + "/writer.log";
    std::filesystem::remove(log);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) crash_writer(dir, log, round);
    // Let the writer complete one change however slow the disk, then kill at a random moment.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::error_code ec;
    // file_size() reports -1 with ec set until the child has created the log: keep waiting.
    auto logged = [&]() {
      const auto size = std::filesystem::file_size(log, ec);
      return !ec && size >= 2 * sizeof(LogRecord);
    };
    while (!logged() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + timing() % 60));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "writer exited by itself, status " << status;

    // Replay the log: acknowledged changes must be in the store; the one in flight may or may
    // not be, but whole.
    std::ifstream in(log, std::ios::binary);
    LogRecord in_flight{};  // kind 0: none
    LogRecord rec{};
    while (in.read(reinterpret_cast<char*>(&rec), sizeof rec)) {
      if (rec.kind == 3) {
        ASSERT_NE(in_flight.kind, 0u);
        if (in_flight.kind == 1) {
          expected[in_flight.id] = in_flight.gen;
        } else {
          expected.erase(in_flight.id);
        }
        in_flight = LogRecord{};
        ++acknowledged;
      } else {
        in_flight = rec;
      }
    }
    if (in_flight.kind != 0) ++killed_mid_change;

    StateStore s = StateStore::open(dir);
    std::map<std::uint64_t, std::uint64_t> actual;
    for (const StoredJob& j : s.load_jobs()) actual[j.id.value()] = check_whole(j);
    for (std::uint64_t id = 1; id <= kCrashJobs; ++id) {
      const auto want = expected.find(id);
      const auto got = actual.find(id);
      const bool as_acknowledged = want == expected.end()
                                       ? got == actual.end()
                                       : got != actual.end() && got->second == want->second;
      bool as_in_flight = false;
      if (in_flight.kind != 0 && in_flight.id == id) {
        as_in_flight = in_flight.kind == 1 ? got != actual.end() && got->second == in_flight.gen
                                           : got == actual.end();
      }
      EXPECT_TRUE(as_acknowledged || as_in_flight) << "round " << round << " job " << id;
    }
    // The switch index agrees with the jobs.
    std::size_t by_switch = 0;
    for (const Guid g : s.switches()) by_switch += s.intended_entries(g).size();
    std::size_t by_job = 0;
    for (const StoredJob& j : s.load_jobs()) by_job += j.entries.size();
    EXPECT_EQ(by_switch, by_job);
    expected = actual;
  }
  // The test proves something only if the writer got work done and was caught mid-change.
  EXPECT_GE(acknowledged, std::size_t{kRounds});
  EXPECT_GE(killed_mid_change, kRounds / 2);
  std::cout << "[ crash    ] " << kRounds << " kills, " << acknowledged << " changes acknowledged, "
            << killed_mid_change << " kills during a change\n";
}

}  // namespace
}  // namespace ibsdn
