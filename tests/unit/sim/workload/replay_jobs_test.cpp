// Seed 002 IV.A.1's choice of the jobs a replay runs (sim_backend/workload/replay_jobs.hpp), and
// what the summary says about them (sim_backend/workload/trace_stats.hpp).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim_backend/workload/replay_jobs.hpp"
#include "sim_backend/workload/trace_stats.hpp"

namespace ibsdn {
namespace {

// One job per filter, in the order the filters run; 4 CPUs per node, a 1024-node system.
const char* const kTrace =
    "; MaxNodes: 1024\n"
    "; MaxProcs: 4096\n"
    ";\n"
    " 1      0   10 3600   16 -1 -1   16 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // kept: 4 nodes
    " 2     30    5    0    4 -1 -1    4 -1 -1  0 -1 -1 -1 -1 -1 -1 -1\n"   // run time 0
    " 3     40    5   -1    4 -1 -1    4 -1 -1  0 -1 -1 -1 -1 -1 -1 -1\n"   // run time unknown
    " 4     45   20  100    8 -1 -1    8 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"   // status -1
    " 5     60    0   50   -1 -1 -1    9 -1 -1  5 -1 -1 -1 -1 -1 -1 -1\n"   // kept: 3 nodes (req.)
    " 6     70    0   50   -1 -1 -1   -1 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // no processor count
    " 7     80    0   50    0 -1 -1    0 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // zero processors
    " 8     90  300 1200 4100 -1 -1 4100 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // 1025 nodes > 1024
    " 9    100   -1  600    4 -1 -1    4 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // wait unknown
    "10  120.5 0.25 30.75   2 -1 -1    2 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // kept: 1 node
    "11    130    0   60 4096 -1 -1 4096 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n"   // kept: 1024 nodes
    "12    140    0   60    1 -1 -1    1 -1 -1  1 -1 -1 -1 -1 -1 -1 -1\n";  // kept: 1 node

TEST(ReplayJobs, EachFilterDropsWhatSeed002Drops) {
  const SwfTrace t = parse_swf(kTrace, "filters.swf");
  const ReplaySelection s = select_replay_jobs(t, ReplayFilter{1024, 4, 0});
  const ReplayCounts& c = s.counts;
  EXPECT_EQ(c.read, 12u);
  EXPECT_EQ(c.no_run_time, 2u);
  EXPECT_EQ(c.status_unknown, 1u);
  EXPECT_EQ(c.no_size, 2u);
  EXPECT_EQ(c.too_large, 1u);
  EXPECT_EQ(c.no_start, 1u);
  EXPECT_EQ(c.beyond_first, 0u);
  EXPECT_EQ(c.kept, 5u);
  std::vector<std::uint64_t> ids;
  for (const TraceJob& j : s.jobs) ids.push_back(j.id.value());
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{1, 5, 10, 11, 12}));
}

TEST(ReplayJobs, StartIsSubmitPlusWaitAndEndAddsTheRunTime) {
  const ReplaySelection s =
      select_replay_jobs(parse_swf(kTrace, "filters.swf"), ReplayFilter{1024, 4, 0});
  ASSERT_EQ(s.jobs.size(), 5u);
  const TraceJob& a = s.jobs[0];
  EXPECT_EQ(a.nodes, 4u);  // 16 processors / 4
  EXPECT_EQ(a.submit_s, 0);
  EXPECT_EQ(a.start_s, 10);
  EXPECT_EQ(a.end_s, 3610);
  EXPECT_EQ(a.line, 4u);
  const TraceJob& b = s.jobs[1];
  EXPECT_EQ(b.nodes, 3u);  // allocation unknown: ceil(9 requested / 4)
  EXPECT_EQ(b.start_s, 60);
  EXPECT_EQ(b.end_s, 110);
  const TraceJob& c = s.jobs[2];
  EXPECT_EQ(c.nodes, 1u);  // ceil(2 / 4)
  EXPECT_EQ(c.start_s, 120.75);
  EXPECT_EQ(c.end_s, 151.5);
  EXPECT_EQ(s.jobs[3].nodes, 1024u);  // exactly the system: kept
}

TEST(ReplayJobs, FirstNTakesTheEarliestKeptJobs) {
  const ReplaySelection s =
      select_replay_jobs(parse_swf(kTrace, "filters.swf"), ReplayFilter{1024, 4, 2});
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].id, JobId(1));
  EXPECT_EQ(s.jobs[1].id, JobId(5));
  EXPECT_EQ(s.counts.beyond_first, 3u);
  EXPECT_EQ(s.counts.kept, 2u);
}

TEST(ReplayJobs, CpusPerNodeChangesNodeCountsAndTheSizeFilter) {
  const ReplaySelection s =
      select_replay_jobs(parse_swf(kTrace, "filters.swf"), ReplayFilter{1024, 8, 0});
  EXPECT_EQ(s.counts.too_large, 0u);  // 4100 / 8 = 513 nodes fits
  EXPECT_EQ(s.jobs[0].nodes, 2u);
}

TEST(ReplayJobs, ZeroSystemOrCpusIsRefused) {
  const SwfTrace t = parse_swf(kTrace, "filters.swf");
  EXPECT_THROW((void)select_replay_jobs(t, ReplayFilter{0, 4, 0}), std::invalid_argument);
  EXPECT_THROW((void)select_replay_jobs(t, ReplayFilter{1024, 0, 0}), std::invalid_argument);
}

TEST(ReplayJobs, CpusPerNodeComesFromTheHeaderOnlyWhenItDividesEvenly) {
  SwfHeader h;
  EXPECT_FALSE(header_cpus_per_node(h));
  h.max_nodes = 1024;
  h.max_procs = 4096;
  EXPECT_EQ(header_cpus_per_node(h), 4u);
  h.max_procs = 4000;
  EXPECT_FALSE(header_cpus_per_node(h));
}

TraceJob job(double start, double end, std::size_t nodes) {
  TraceJob j;
  j.submit_s = start;
  j.start_s = start;
  j.end_s = end;
  j.nodes = nodes;
  return j;
}

TEST(TraceStats, PeakBusyCountsAnEndBeforeAStartAtTheSameTime) {
  EXPECT_EQ(peak_busy({job(0, 10, 3), job(10, 20, 4)}).nodes, 4u);
  const BusyPeak p = peak_busy({job(0, 10, 3), job(10, 20, 4), job(5, 15, 2)});
  EXPECT_EQ(p.nodes, 6u);
  EXPECT_EQ(p.at_s, 10);
  EXPECT_EQ(peak_busy({}).nodes, 0u);
}

TEST(TraceStats, SizesSpanAndUtilisationOfAHandCase) {
  // 10 nodes; node-seconds 1*100 + 4*100 + 5*200 = 1500; submits over 100 s; span 0..300.
  std::vector<TraceJob> jobs = {job(0, 100, 1), job(50, 150, 4), job(100, 300, 5)};
  jobs[2].submit_s = 100;
  const TraceStats s = trace_stats(jobs, 10);
  EXPECT_EQ(s.jobs, 3u);
  EXPECT_EQ(s.min_nodes, 1u);
  EXPECT_EQ(s.median_nodes, 4u);
  EXPECT_EQ(s.max_nodes, 5u);
  EXPECT_DOUBLE_EQ(s.single_node_share, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s.node_seconds, 1500);
  EXPECT_DOUBLE_EQ(s.offered_utilisation, 1500.0 / (10 * 100));
  EXPECT_DOUBLE_EQ(s.busy_utilisation, 1500.0 / (10 * 300));
  EXPECT_EQ(s.peak.nodes, 9u);
  EXPECT_EQ(s.peak.at_s, 100);
}

}  // namespace
}  // namespace ibsdn
