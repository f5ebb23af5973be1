// Standard Workload Format traces read strictly and written back (sim_backend/workload/swf.hpp).
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim_backend/workload/swf.hpp"
#include "tests/support/file_line_error_expect.hpp"

namespace ibsdn {
namespace {

// A trace in the Parallel Workloads Archive's layout: the header comments its conversion scripts
// write (a value continued on indented ';' lines, a lone ';' closing the header), then right-
// aligned columns. The machine and the values are made up for the tests.
const char* const kArchiveTrace = R"(; Version: 2.2
; Computer: Linux cluster (test machine)
; Installation: none, hand-written for the tests
; Acknowledge: nobody
; Information: http://www.cs.huji.ac.il/labs/parallel/workload/
;              http://www.cs.huji.ac.il/labs/parallel/workload/swf.html
; Conversion: by hand 1 Jan 2024
; MaxJobs: 10
; MaxRecords: 10
; Preemption: No
; UnixStartTime: 1170316800
; TimeZone: -28800
; TimeZoneString: US/Pacific
; StartTime: Thu Feb  1 00:00:00 PST 2007
; EndTime:   Thu Feb  1 06:00:00 PST 2007
; MaxNodes: 1024
; MaxProcs: 4096
; Note: the values are made up;
;       every filter of seed 002 IV.A.1 drops at least one job.
;
     1      0     10   3600    16     -1     -1    16   7200     -1  1   12   3  -1  1  -1  -1  -1
     2     30      5      0     4     -1     -1     4     60     -1  0   12   3  -1  1  -1  -1  -1
     3     45     20    100     8     -1     -1     8    600     -1 -1    7   2  -1  2  -1  -1  -1
     4     60      0     50    -1     -1     -1     9    600     -1  5    7   2  -1  2  -1  -1  -1
     5     90    300   1200  4100     -1     -1  4100   3600     -1  1    5   1  -1  1  -1  -1  -1
     6    100     40     -1    32     -1     -1    32   1800     -1  0    5   1  -1  1  -1  -1  -1
     7    110     40    600    -1     -1     -1    -1   1800     -1  1    5   1  -1  1  -1  -1  -1
     8    115     -1    600     4     -1     -1     4   1800     -1  1    5   1  -1  1  -1  -1  -1
     9  120.5   0.25  30.75     2   12.5 1024.5     2     60   2048  1    9   4   3  1   2   8  15
    10    130      0     60     1     -1     -1     1     60     -1  1    9   4  -1  1  -1  -1  -1
)";

TEST(Swf, ArchiveLayoutLoadsWithEveryFieldAndHeaderValue) {
  const SwfTrace t = parse_swf(kArchiveTrace, "test.swf");
  const SwfHeader& h = t.header;
  ASSERT_EQ(h.fields.size(), 17u);
  EXPECT_EQ(*h.find("Version"), "2.2");
  EXPECT_EQ(*h.find("Computer"), "Linux cluster (test machine)");
  EXPECT_EQ(*h.find("Information"),
            "http://www.cs.huji.ac.il/labs/parallel/workload/\n"
            "http://www.cs.huji.ac.il/labs/parallel/workload/swf.html");
  EXPECT_EQ(*h.find("EndTime"), "Thu Feb  1 06:00:00 PST 2007");
  EXPECT_EQ(*h.find("TimeZoneString"), "US/Pacific");
  EXPECT_EQ(h.all("Note"),
            "the values are made up;\nevery filter of seed 002 IV.A.1 drops at least one job.");
  EXPECT_EQ(h.find("Queues"), nullptr);
  EXPECT_EQ(h.max_nodes, 1024);
  EXPECT_EQ(h.max_procs, 4096);
  EXPECT_EQ(h.unix_start_time, 1170316800);

  ASSERT_EQ(t.jobs.size(), 10u);
  const SwfJob& first = t.jobs[0];
  EXPECT_EQ(first.id, JobId(1));
  EXPECT_EQ(first.line, 21u);
  EXPECT_EQ(first.submit_s, 0);
  EXPECT_EQ(first.wait_s, 10);
  EXPECT_EQ(first.run_s, 3600);
  EXPECT_EQ(first.allocated_procs, 16);
  EXPECT_EQ(first.avg_cpu_s, kSwfUnknown);
  EXPECT_EQ(first.requested_procs, 16);
  EXPECT_EQ(first.requested_time_s, 7200);
  EXPECT_EQ(first.status, SwfStatus::kCompleted);
  EXPECT_EQ(first.user, 12);
  EXPECT_EQ(first.group, 3);
  EXPECT_EQ(first.executable, kSwfUnknown);
  EXPECT_EQ(first.queue, 1);
  EXPECT_EQ(first.think_time_s, kSwfUnknown);

  const SwfJob& full = t.jobs[8];  // every field known, fractions in the time and memory fields
  EXPECT_EQ(full.id, JobId(9));
  EXPECT_EQ(full.submit_s, 120.5);
  EXPECT_EQ(full.wait_s, 0.25);
  EXPECT_EQ(full.run_s, 30.75);
  EXPECT_EQ(full.avg_cpu_s, 12.5);
  EXPECT_EQ(full.used_memory_kb, 1024.5);
  EXPECT_EQ(full.requested_memory_kb, 2048);
  EXPECT_EQ(full.executable, 3);
  EXPECT_EQ(full.partition, 2);
  EXPECT_EQ(full.preceding_job, 8);
  EXPECT_EQ(full.think_time_s, 15);
  EXPECT_EQ(t.jobs[2].status, SwfStatus::kUnknown);
  EXPECT_EQ(t.jobs[3].status, SwfStatus::kCancelled);
}

TEST(Swf, StreamReadingGivesTheSameTraceAsTextParsing) {
  std::istringstream in(kArchiveTrace);
  const SwfTrace a = read_swf(in, "test.swf");
  const SwfTrace b = parse_swf(kArchiveTrace, "test.swf");
  EXPECT_EQ(a.header, b.header);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_TRUE(a.jobs[i].same_fields(b.jobs[i])) << i;
    EXPECT_EQ(a.jobs[i].line, b.jobs[i].line);
  }
}

TEST(Swf, CrlfLineEndsAndAMissingFinalNewlineAreAccepted) {
  const std::string text =
      "; MaxNodes: 4\r\n1 0 0 5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\r\n"
      "2 1 0 5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1";
  std::istringstream in(text);
  for (const SwfTrace& t : {parse_swf(text, "crlf.swf"), read_swf(in, "crlf.swf")}) {
    EXPECT_EQ(t.header.max_nodes, 4);
    ASSERT_EQ(t.jobs.size(), 2u);
    EXPECT_EQ(t.jobs[1].line, 3u);
  }
}

TEST(Swf, UnknownHeaderValuesLeaveTheTypedFieldsUnset) {
  const SwfTrace t =
      parse_swf("; MaxNodes: UNKNOWN\n; MaxProcs: -1\n; UnixStartTime: unknown\n", "u.swf");
  EXPECT_FALSE(t.header.max_nodes);
  EXPECT_FALSE(t.header.max_procs);
  EXPECT_FALSE(t.header.unix_start_time);
  EXPECT_EQ(*t.header.find("MaxNodes"), "UNKNOWN");
}

TEST(Swf, CommentsAmongTheJobsAreNotHeader) {
  const SwfTrace t = parse_swf(
      "; MaxNodes: 4\n1 0 0 5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n; MaxNodes: 8\n\n", "c.swf");
  EXPECT_EQ(t.header.max_nodes, 4);
  EXPECT_EQ(t.header.fields.size(), 1u);
}

TEST(Swf, SubmitTimesMayGoBackWithinTheTolerance) {
  const std::string text =
      "1 100 0 5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"
      "2 95 0 5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
  EXPECT_THROW((void)parse_swf(text, "t.swf"), SwfError);
  SwfLimits tolerant;
  tolerant.submit_tolerance_s = 10;
  EXPECT_EQ(parse_swf(text, "t.swf", tolerant).jobs.size(), 2u);
}

struct Malformed {
  const char* name;
  std::string text;
  std::size_t line;
  std::string message;
  SwfLimits limits;
};

const std::string kJob = "1 0 0 5 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1";

/// kJob with field `f` (1-based) replaced by `value` and the job number by `id`.
std::string job_with(int f, const std::string& value, int id = 1) {
  std::istringstream in(kJob);
  std::string out;
  std::string tok;
  for (int i = 1; in >> tok; ++i) {
    if (i == 1) tok = std::to_string(id);
    if (i == f) tok = value;
    out += (out.empty() ? "" : " ") + tok;
  }
  return out + "\n";
}

SwfLimits line_limit(std::size_t n) {
  SwfLimits l;
  l.max_line_length = n;
  return l;
}
SwfLimits job_limit(std::size_t n) {
  SwfLimits l;
  l.max_jobs = n;
  return l;
}

std::vector<Malformed> malformed_cases() {
  return {
      {"SeventeenFields",
       "; Version: 2.2\n" + kJob.substr(0, kJob.size() - 3) + "\n",
       2,
       "expected 18 fields, found 17",
       {}},
      {"NineteenFields", kJob + " 7\n", 1, "expected 18 fields, found 19", {}},
      {"WordInRunTime", job_with(4, "abc"), 1, "field 4 (run time): 'abc' is not a number", {}},
      {"ExponentInSubmit",
       job_with(2, "1e3"),
       1,
       "field 2 (submit time): '1e3' is not a number",
       {}},
      {"InfinityInWait", job_with(3, "inf"), 1, "'inf' is not a number", {}},
      {"PlusSign", job_with(5, "+4"), 1, "'+4' is not a number", {}},
      {"FractionOfProcessors",
       job_with(5, "4.5"),
       1,
       "field 5 (allocated processors): '4.5' is not an integer",
       {}},
      {"NegativeWait",
       job_with(3, "-5"),
       1,
       "field 3 (wait time): '-5' is negative (only -1, unknown, may be)",
       {}},
      {"NegativeUser", job_with(12, "-2"), 1, "field 12 (user id): '-2' is negative", {}},
      {"StatusSeven", job_with(11, "7"), 1, "field 11 (status): 7 is not a status", {}},
      {"JobNumberZero", job_with(1, "0", 0), 1, "field 1 (job number): 0 is not >= 1", {}},
      {"HugeInteger", job_with(5, "99999999999999999999"), 1, "is out of range", {}},
      {"ValueAboveBound", job_with(4, "2000000000000000"), 1, "is above 1000000000000000", {}},
      {"DuplicateJobNumber",
       job_with(0, "", 1) + job_with(0, "", 2) + job_with(0, "", 1),
       3,
       "duplicate job number 1 (first at line 1)",
       {}},
      {"SubmitGoesBack",
       job_with(2, "100", 1) + job_with(2, "50", 2),
       2,
       "submit time 50 goes back before line 1's 100",
       {}},
      {"ControlByteInHeader", "; Note: a\x01z\n", 1, "control character in a header comment", {}},
      {"MaxNodesNotANumber",
       "; MaxNodes: many\n",
       1,
       "header MaxNodes: 'many' is not an integer (nor UNKNOWN)",
       {}},
      {"MaxNodesZero", "; MaxNodes: 0\n", 1, "header MaxNodes: 0 is below 1", {}},
      {"MaxProcsTwice",
       "; MaxProcs: 8\n; Note: x\n; MaxProcs: 16\n",
       3,
       "header MaxProcs given twice (first at line 1)",
       {}},
      {"OverlongComment", "; Note: short\n;" + std::string(64, 'x') + "\n", 2,
       "line longer than 64 bytes", line_limit(64)},
      {"OverlongJob", kJob + "\n" + job_with(0, "", 2).insert(0, 60, ' '), 2,
       "line longer than 64 bytes", line_limit(64)},
      {"TooManyJobs", job_with(0, "", 1) + job_with(0, "", 2) + job_with(0, "", 3), 3,
       "more than 2 jobs (the limit of a trace)", job_limit(2)},
  };
}

TEST(Swf, MalformedLinesGiveFileLineAndWhatWasWrong) {
  for (const Malformed& c : malformed_cases()) {
    SCOPED_TRACE(c.name);
    testing_errors::expect_file_line_error<SwfError>(
        [&] { (void)parse_swf(c.text, "bad.swf", c.limits); }, "bad.swf", c.line, c.message);
    std::istringstream in(c.text);
    testing_errors::expect_file_line_error<SwfError>(
        [&] { (void)read_swf(in, "bad.swf", c.limits); }, "bad.swf", c.line, c.message);
  }
}

TEST(Swf, LineLengthLimitCountsBytesWithoutTheLineEnd) {
  const auto padded = [](int id, std::size_t size) {
    std::string line = job_with(0, "", id);
    line.pop_back();  // the '\n'
    return line + std::string(size - line.size(), ' ');
  };
  const std::string fits = padded(1, 64) + "\r\n" + padded(2, 64) + "\n";
  std::istringstream in(fits);
  EXPECT_EQ(read_swf(in, "l.swf", line_limit(64)).jobs.size(), 2u);
  EXPECT_EQ(parse_swf(fits, "l.swf", line_limit(64)).jobs.size(), 2u);
  const std::string over = padded(1, 65) + "\n";
  std::istringstream in_over(over);
  EXPECT_THROW((void)read_swf(in_over, "l.swf", line_limit(64)), SwfError);
  EXPECT_THROW((void)parse_swf(over, "l.swf", line_limit(64)), SwfError);
}

TEST(Swf, MissingFileIsAnErrorNamingIt) {
  try {
    (void)read_swf_file("/nonexistent/trace.swf");
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trace.swf"), std::string::npos);
  }
}

TEST(Swf, FormatThenParseGivesTheSameTrace) {
  const SwfTrace t = parse_swf(kArchiveTrace, "test.swf");
  const std::string text = format_swf(t);
  const SwfTrace back = parse_swf(text, "again.swf");
  EXPECT_EQ(back.header, t.header);
  ASSERT_EQ(back.jobs.size(), t.jobs.size());
  for (std::size_t i = 0; i < t.jobs.size(); ++i) EXPECT_TRUE(back.jobs[i].same_fields(t.jobs[i]));
  // Right-aligned columns: every job line has the same length.
  std::istringstream lines(text);
  std::string line;
  std::size_t width = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == ';') continue;
    if (width == 0) width = line.size();
    EXPECT_EQ(line.size(), width) << line;
  }
  EXPECT_NE(text.find("; Information: http://www.cs.huji.ac.il/labs/parallel/workload/\n"
                      ";              http://www.cs.huji.ac.il/labs/parallel/workload/swf.html\n"),
            std::string::npos);
}

TEST(Swf, FormatRefusesWhatItCouldNotReadBack) {
  SwfTrace t;
  t.header.fields = {{"Max Nodes", "4"}};
  EXPECT_THROW((void)format_swf(t), std::invalid_argument);
  t.header.fields = {{"Note", "a\nMaxNodes: 4"}};  // the continuation would read as a key
  EXPECT_THROW((void)format_swf(t), std::invalid_argument);
  t.header.fields = {};
  t.jobs.resize(1);
  t.jobs[0].id = JobId(1);
  t.jobs[0].wait_s = -3;
  EXPECT_THROW((void)format_swf(t), std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
