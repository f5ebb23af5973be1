// Traffic-matrix files (routing/patterns/traffic_matrix.hpp): the format, its errors by
// FILE:LINE, and the self and zero pairs skipped and counted.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "routing/patterns/traffic_matrix.hpp"

namespace ibsdn {
namespace {

TEST(TrafficMatrix, ParsesCommentsBlanksTabsAndAddsDuplicates) {
  std::istringstream in(
      "# measured on 4 ranks\n"
      "0 1 100\n"
      "\n"
      "   \t\n"
      "1\t2  50   # trailing comment\n"
      "0 1 25\r\n"
      "3 0 0\n"
      "2 0 7");
  EXPECT_EQ(parse_traffic_matrix(in, "tm.txt", 4),
            (TrafficMatrix{{{0, 1, 125}, {1, 2, 50}, {2, 0, 7}}, {0, 0, 1}}));
}

// Profilers list a rank's traffic to itself and, in full dumps, every pair (docs/routing.md,
// "Volumes"): both are skipped and counted, by pair once its lines are added up.
TEST(TrafficMatrix, SelfAndZeroPairsAreSkippedAndCounted) {
  std::istringstream in(
      "0 0 4096\n"  // a self pair ...
      "0 1 10\n"
      "1 0 0\n"  // a zero pair
      "2 3 0\n"  // a zero pair listed twice: one zero pair
      "2 3 0\n"
      "3 3 0\n"     // a self pair without bytes: a zero pair
      "0 0 1024\n"  // ... listed twice: one self pair of 5120 bytes
      "1 1 1\n");
  const TrafficMatrix m = parse_traffic_matrix(in, "tm.txt", 4);
  EXPECT_EQ(m.flows, (std::vector<RankFlow>{{0, 1, 10}}));
  EXPECT_EQ(m.skipped, (SkippedPairs{2, 5121, 3}));
}

TEST(TrafficMatrix, DuplicatesSummingToZeroAreOneZeroPair) {
  std::istringstream in("0 1 0\n0 1 0\n0 1 0\n1 0 3\n");
  EXPECT_EQ(parse_traffic_matrix(in, "tm.txt", 2), (TrafficMatrix{{{1, 0, 3}}, {0, 0, 1}}));
}

TEST(TrafficMatrix, OnlySkippedPairsGiveNoFlowsAndTheirCounts) {
  std::istringstream in("# the diagonal and zeros only\n0 0 7\n1 1 8\n0 1 0\n1 0 0\n");
  EXPECT_EQ(parse_traffic_matrix(in, "tm.txt", 2), (TrafficMatrix{{}, {2, 15, 2}}));
  std::istringstream empty("# nothing\n");
  EXPECT_EQ(parse_traffic_matrix(empty, "tm.txt", 2), TrafficMatrix{});
}

TEST(TrafficMatrix, SummaryNamesPairsSkippedPairsAndIntraRankBytes) {
  EXPECT_EQ(matrix_summary(12, {2, 5120, 3}),
            "12 pairs, 2 self pairs skipped (5120 bytes intra-rank), 3 zero pairs skipped");
  EXPECT_EQ(matrix_summary(1, {1, 1, 1}),
            "1 pair, 1 self pair skipped (1 byte intra-rank), 1 zero pair skipped");
  EXPECT_EQ(matrix_summary(0, {}),
            "0 pairs, 0 self pairs skipped (0 bytes intra-rank), 0 zero pairs skipped");
}

TEST(TrafficMatrix, MalformedLinesNameFileAndLine) {
  const std::vector<std::tuple<std::string, std::string>> cases = {
      {"0 1 100\n0 x 5\n", "tm.txt:2: dst_rank 'x' is not a non-negative integer"},
      {"\n\n-1 2 5\n", "tm.txt:3: src_rank '-1' is negative"},
      {"0 1 -5\n", "tm.txt:1: bytes '-5' is negative"},
      {"# c\n0 8 5\n", "tm.txt:2: dst_rank 8 is not below the job's 8 ranks"},
      {"0 1 5\n3 9 0\n", "tm.txt:2: dst_rank 9 is not below the job's 8 ranks"},
      {"3 3 0\n8 8 0\n", "tm.txt:2: src_rank 8 is not below the job's 8 ranks"},
      {"1 1 18446744073709551615\n2 2 1\n",
       "tm.txt:2: bytes of the self pairs (src_rank == dst_rank) overflow"},
      {"0 1 5 6\n", "tm.txt:1: extra field '6' after 'src_rank dst_rank bytes'"},
      {"0 1 5\n\n0 1\n", "tm.txt:3: missing bytes"},
      {"0\n", "tm.txt:1: missing dst_rank"},
      {"0 1 1.5\n", "tm.txt:1: bytes '1.5' is not a non-negative integer"},
      {"4294967296 1 5\n", "tm.txt:1: src_rank '4294967296' is too large"},
      {"0 1 99999999999999999999\n", "tm.txt:1: bytes '99999999999999999999' is too large"},
      {"0 1 18446744073709551615\n# c\n0 1 1\n", "tm.txt:3: bytes of pair 0 -> 1 overflow"},
      {"0 +1 5\n", "tm.txt:1: dst_rank '+1' is not a non-negative integer"},
  };
  for (const auto& [text, message] : cases) {
    std::istringstream in(text);
    try {
      parse_traffic_matrix(in, "tm.txt", 8);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
    }
  }
}

TEST(TrafficMatrix, WithoutRankCountAcceptsAnyRank) {
  std::istringstream in("100000 7 3\n");
  EXPECT_EQ(parse_traffic_matrix(in, "tm.txt", std::nullopt).flows,
            (std::vector<RankFlow>{{100000, 7, 3}}));
}

}  // namespace
}  // namespace ibsdn
