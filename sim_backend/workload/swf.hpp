// Job traces in the Parallel Workloads Archive's Standard Workload Format (SWF 2.2,
// https://www.cs.huji.ac.il/labs/parallel/workload/swf.html), read strictly and written back.
//
// A file is header comments (`; Key: value`, a value continued on following `;` lines that do not
// start a key) and one line per job of 18 whitespace-separated fields, -1 meaning unknown:
//   1 job number  2 submit time  3 wait time  4 run time  5 allocated processors
//   6 average CPU time  7 used memory (KB)  8 requested processors  9 requested time
//   10 requested memory (KB)  11 status  12 user  13 group  14 executable  15 queue
//   16 partition  17 preceding job  18 think time
// Counts, ids and the status are integers; the standard allows floating point in time fields, so
// the time and memory fields (2, 3, 4, 6, 7, 9, 10, 18) may carry a decimal fraction (never an
// exponent, "inf" or "nan").
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/file_line_error.hpp"
#include "flowtable/types.hpp"

namespace ibsdn {

/// A malformed trace. what() reads "FILE:LINE: what was wrong".
class SwfError : public FileLineError {
 public:
  using FileLineError::FileLineError;
};

/// The value of every field the trace does not know.
inline constexpr std::int64_t kSwfUnknown = -1;
/// Fields per job line.
inline constexpr std::size_t kSwfFields = 18;

/// Bounds checked while reading, so that a hostile or wrong file fails early instead of
/// exhausting memory; and how far submit times may go back (the standard sorts jobs by submit
/// time).
struct SwfLimits {
  std::size_t max_line_length = 4096;  // bytes without the line end; archive lines are ~100
  std::size_t max_jobs = 10'000'000;   // the largest archive logs hold a few million
  double submit_tolerance_s = 0.0;     // a submit time may precede an earlier line's by this much
};

/// Field 11. 2-4 mark the parts of a job that was checkpointed or swapped out (SWF 2.2).
enum class SwfStatus : std::int8_t {
  kUnknown = -1,
  kFailed = 0,
  kCompleted = 1,
  kPartialToBeContinued = 2,
  kPartialLastCompleted = 3,
  kPartialLastFailed = 4,
  kCancelled = 5,
};

/// One job line, every field as in the file (-1 where unknown).
struct SwfJob {
  JobId id{};  // field 1, >= 1 and unique in the file
  double submit_s = kSwfUnknown;
  double wait_s = kSwfUnknown;
  double run_s = kSwfUnknown;
  std::int64_t allocated_procs = kSwfUnknown;
  double avg_cpu_s = kSwfUnknown;
  double used_memory_kb = kSwfUnknown;
  std::int64_t requested_procs = kSwfUnknown;
  double requested_time_s = kSwfUnknown;
  double requested_memory_kb = kSwfUnknown;
  SwfStatus status = SwfStatus::kUnknown;
  std::int64_t user = kSwfUnknown;
  std::int64_t group = kSwfUnknown;
  std::int64_t executable = kSwfUnknown;
  std::int64_t queue = kSwfUnknown;
  std::int64_t partition = kSwfUnknown;
  std::int64_t preceding_job = kSwfUnknown;
  double think_time_s = kSwfUnknown;
  std::size_t line = 0;  // where it was read (0 for jobs not read from a file)

  /// Equal fields; `line` is where the job came from, not part of it.
  [[nodiscard]] bool same_fields(const SwfJob& o) const;
};

/// The header comments before the first job line. Comments after it are ignored.
struct SwfHeader {
  /// Every `; Key: value` in file order; a key may repeat (Note often does). Continuation lines
  /// are appended to the value after a '\n', without their leading blanks.
  std::vector<std::pair<std::string, std::string>> fields;
  // The keys a replay needs, typed; unset when absent, "UNKNOWN" or -1.
  std::optional<std::int64_t> max_nodes;
  std::optional<std::int64_t> max_procs;
  std::optional<std::int64_t> unix_start_time;

  /// The first value of `key` (keys compare exactly, as the standard spells them), or null.
  [[nodiscard]] const std::string* find(std::string_view key) const;
  /// The values of `key` joined with '\n' ("" when absent): Note and other repeated keys.
  [[nodiscard]] std::string all(std::string_view key) const;
  bool operator==(const SwfHeader&) const = default;
};

struct SwfTrace {
  SwfHeader header;
  std::vector<SwfJob> jobs;  // in file order
};

/// Parses a whole trace held in memory. Throws SwfError naming `source` and the line.
SwfTrace parse_swf(std::string_view text, std::string_view source, const SwfLimits& limits = {});
/// Reads a trace from a stream, one bounded line at a time (no line longer than the limit is ever
/// buffered). Throws SwfError naming `source` and the line.
SwfTrace read_swf(std::istream& in, std::string_view source, const SwfLimits& limits = {});
/// Reads a trace file. Throws SwfError (content) or std::runtime_error (cannot open / read).
SwfTrace read_swf_file(const std::string& path, const SwfLimits& limits = {});

/// The trace as SWF text: the header fields as `; Key: value` lines (continuations indented under
/// the value), a lone `;`, then one line per job with every column right-aligned to its widest
/// value, as the archive's files are. Numbers are printed so that parse_swf reads back the same
/// values (shortest round-trip decimal form, never an exponent). Throws std::invalid_argument for
/// a value the format cannot hold (a key with blanks or ':', a negative other than -1).
std::string format_swf(const SwfTrace& trace);

}  // namespace ibsdn
