#include "plugin/controller/refusal_log.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace ibsdn {
namespace {

using namespace std::chrono_literals;
using Clock = RefusalLog::Clock;
using Summary = RefusalLog::Summary;

const Clock::time_point t0 = Clock::time_point{} + 1h;

TEST(RefusalLog, FirstRefusalOfAUid_IsLoggedInFull) {
  RefusalLog log(10s);
  EXPECT_TRUE(log.refused(1000, "limit", t0));
  EXPECT_TRUE(log.due(t0 + 1h).empty());
  EXPECT_FALSE(log.next_due());
}

TEST(RefusalLog, RefusalsWithinTheInterval_AreCountedIntoOneSummary) {
  RefusalLog log(10s);
  ASSERT_TRUE(log.refused(1000, "first", t0));
  for (int i = 1; i <= 57; ++i) EXPECT_FALSE(log.refused(1000, "r" + std::to_string(i), t0 + 1s));
  EXPECT_EQ(log.next_due(), t0 + 10s);
  EXPECT_TRUE(log.due(t0 + 9s).empty());
  EXPECT_EQ(log.due(t0 + 10s), (std::vector<Summary>{{1000, 57, "r57"}}));
  EXPECT_TRUE(log.due(t0 + 10s).empty());
}

TEST(RefusalLog, AFlood_GetsAtMostOneLinePerUidAndInterval) {
  RefusalLog log(10s);
  std::size_t lines = 0;
  std::size_t counted = 0;
  // One refusal every 10 ms for a minute, the log asked for summaries as often.
  for (auto t = t0; t < t0 + 60s; t += 10ms) {
    lines += log.refused(1000, "limit", t) ? 1 : 0;
    for (const Summary& s : log.due(t)) {
      ++lines;
      counted += s.count;
    }
  }
  for (const Summary& s : log.flush()) {
    ++lines;
    counted += s.count;
  }
  EXPECT_EQ(lines, 1u + 6u);  // the first in full, a summary every 10 s (the last at the end)
  EXPECT_EQ(counted + 1, 6000u);
}

TEST(RefusalLog, Uids_AreLimitedApart) {
  RefusalLog log(10s);
  EXPECT_TRUE(log.refused(1000, "a", t0));
  EXPECT_FALSE(log.refused(1000, "a", t0 + 1s));
  EXPECT_TRUE(log.refused(1001, "b", t0 + 2s));
  EXPECT_FALSE(log.refused(1001, "b", t0 + 3s));
  EXPECT_EQ(log.due(t0 + 10s), (std::vector<Summary>{{1000, 1, "a"}}));
  EXPECT_EQ(log.next_due(), t0 + 12s);
  EXPECT_EQ(log.due(t0 + 12s), (std::vector<Summary>{{1001, 1, "b"}}));
}

TEST(RefusalLog, AUidQuietForAnInterval_IsLoggedInFullAgain) {
  RefusalLog log(10s);
  EXPECT_TRUE(log.refused(1000, "a", t0));
  EXPECT_TRUE(log.refused(1000, "a", t0 + 10s));  // nothing counted in between
  EXPECT_FALSE(log.refused(1000, "a", t0 + 11s));
  EXPECT_EQ(log.due(t0 + 20s).size(), 1u);
  EXPECT_TRUE(log.due(t0 + 30s).empty());  // quiet since the summary: forgotten
  EXPECT_TRUE(log.refused(1000, "a", t0 + 31s));
}

TEST(RefusalLog, RefusalAfterTheIntervalWithACountPending_JoinsTheSummary) {
  RefusalLog log(10s);
  EXPECT_TRUE(log.refused(1000, "a", t0));
  EXPECT_FALSE(log.refused(1000, "a", t0 + 1s));
  EXPECT_FALSE(log.refused(1000, "b", t0 + 15s));  // due() not asked yet: counted
  EXPECT_EQ(log.due(t0 + 15s), (std::vector<Summary>{{1000, 2, "b"}}));
}

TEST(RefusalLog, Flush_GivesEveryCountNotYetDue) {
  RefusalLog log(10s);
  EXPECT_TRUE(log.refused(1000, "a", t0));
  EXPECT_FALSE(log.refused(1000, "a", t0 + 1s));
  EXPECT_TRUE(log.refused(1001, "b", t0 + 1s));
  EXPECT_EQ(log.flush(), (std::vector<Summary>{{1000, 1, "a"}}));
  EXPECT_FALSE(log.next_due());
  EXPECT_TRUE(log.refused(1000, "a", t0 + 2s));
}

TEST(RefusalLog, ZeroInterval_LogsEveryRefusal) {
  RefusalLog log(0ms);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(log.refused(1000, "a", t0));
  EXPECT_TRUE(log.flush().empty());
}

TEST(RefusalLog, Summary_SaysHowManyFromWhomAndWhy) {
  EXPECT_EQ(RefusalLog::text({1000, 57, "uid 1000 holds 8 connections, the per-uid limit is 8"}),
            "57 more connections refused from uid 1000 (the last: uid 1000 holds 8 connections, "
            "the per-uid limit is 8)");
  EXPECT_EQ(RefusalLog::text({0, 1, "64 connections are open"}),
            "1 more connection refused from uid 0 (the last: 64 connections are open)");
}

}  // namespace
}  // namespace ibsdn
