#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "plugin/controller/state_store.hpp"

namespace ibsdn {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "ibsdn-state-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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

TEST(StateStore, Open_CreatesA0700DirectoryAndAWalDatabaseAtTheCurrentSchema) {
  TempDir t;
  const std::string dir = t.path() + "/state";
  const StateStore s = StateStore::open(dir);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(s.path(), dir + "/ibsdn-state.sqlite3");
  EXPECT_EQ(pragma(s.path(), "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(pragma(s.path(), "PRAGMA user_version"), std::to_string(StateStore::kSchemaVersion));
  EXPECT_TRUE(s.load_jobs().empty());
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
  const StateStore s = StateStore::open(t.path());
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

TEST(StateStore, Open_RefusesANewerSchemaAndAForeignFile) {
  TempDir t;
  const std::string db_path = t.path() + "/" + StateStore::kFileName;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 2", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_NE(open_error(t.path()).find("schema version 2 is newer"), std::string::npos)
      << open_error(t.path());

  TempDir u;
  std::ofstream(u.path() + "/" + StateStore::kFileName) << std::string(4096, 'z');
  const std::string what = open_error(u.path());
  EXPECT_NE(what.find(u.path() + "/ibsdn-state.sqlite3"), std::string::npos) << what;
  EXPECT_NE(what.find("not a database"), std::string::npos) << what;
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

    const StateStore s = StateStore::open(dir);
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
