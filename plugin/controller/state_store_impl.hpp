// StateStore's state (internal to state_store*.cpp): the lock, the database and its prepared
// statements, the transaction guard, and what the files by concept share: state_store.cpp opens
// (directory, lock, marker, file checks, creation), state_store_jobs.cpp reads and writes job
// rows, state_store_quarantine.cpp moves unreadable jobs aside and releases them.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plugin/controller/state_dir.hpp"
#include "plugin/controller/state_error.hpp"
#include "plugin/controller/state_store.hpp"
#include "plugin/controller/state_store_sql.hpp"

namespace ibsdn {
namespace state_store_detail {

constexpr std::uint64_t kMaxStoredJobId =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

inline std::int64_t now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
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

}  // namespace state_store_detail

struct StateStore::Impl {
  using Db = state_store_sql::Db;
  using Run = state_store_sql::Run;
  using Statement = state_store_sql::Statement;
  using Problem = state_store_detail::Problem;

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

  // Job rows (state_store_jobs.cpp).
  /// Prepares the statements on jobs and flow_entries.
  void prepare_job_statements();
  void read_job_row(const Run& r, StoredJob& j) const;
  /// Reads a jobs row as load() does: every column checked, the first problem returned.
  std::optional<Problem> decode_job_row(const Run& r, StoredJob& j) const;
  /// Reads a flow_entries row (job_id, seq, switch_guid, entry) of job `job`.
  static std::optional<Problem> decode_entry_row(const Run& r, std::int64_t job,
                                                 IntendedEntry& out);

  // The quarantine (state_store_quarantine.cpp).
  /// Prepares the statements on the quarantine tables.
  void prepare_quarantine_statements();
  /// Moves job `job`'s rows into the quarantine tables; the caller's transaction commits.
  QuarantinedJob move_to_quarantine(std::int64_t job, const Problem& p);
  std::vector<QuarantinedJob> read_quarantined(Run& r) const;
};

}  // namespace ibsdn
