// ibsdn-sim route's report (sim_backend/cmd_route.cpp) for a traffic-matrix job: the pairs kept
// and the self and zero pairs skipped (issue 9), in the text and the JSON report.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim_backend/commands.hpp"
#include "tests/unit/temp_dir.hpp"

namespace ibsdn {
namespace {

// What `ibsdn-sim ARGS` prints, the route command parsed as main() does.
std::string sim_output(const std::string& args) {
  CLI::App app;
  app.require_subcommand(1);
  add_route_command(app);
  testing::internal::CaptureStdout();
  try {
    app.parse(args, false);
  } catch (...) {
    testing::internal::GetCapturedStdout();
    throw;
  }
  return testing::internal::GetCapturedStdout();
}

// 16 hosts, one rank each: (0,5) and (5,0) cross the fabric; (3,3) is a self pair listed twice;
// (7,8) and (9,9) carry no bytes.
std::string write_matrix(const test::TempDir& dir) {
  const std::string path = dir.file("tm.txt");
  std::ofstream(path) << "0 5 100\n5 0 50\n3 3 4096\n7 8 0\n3 3 1024\n0 5 0\n9 9 0\n";
  return path;
}

const std::string kJob = "route --xgft 2;4,4;1,4 --ranks-per-node 1 --alg dmodk ";

TEST(SimRouteReport, MatrixLineCountsPairsSelfPairsAndZeroPairs) {
  const test::TempDir dir("ibsdn-sim-report");
  const std::string out = sim_output(kJob + "--pattern matrix:file=" + write_matrix(dir));
  EXPECT_NE(out.find("\nmatrix      2 pairs, 1 self pair skipped (5120 bytes intra-rank), 2 zero "
                     "pairs skipped\nflows       2 fabric flows from 2 rank pairs\n"),
            std::string::npos)
      << out;
}

TEST(SimRouteReport, JsonReportHasTheMatrixCounts) {
  const test::TempDir dir("ibsdn-sim-report");
  const nlohmann::json j =
      nlohmann::json::parse(sim_output(kJob + "--json --pattern matrix:file=" + write_matrix(dir)));
  EXPECT_EQ(j.at("matrix").dump(),
            R"({"intra_rank_bytes":5120,"pairs":2,"self_pairs":1,"zero_pairs":2})");
  EXPECT_EQ(j.at("rank_flows"), 2);
}

TEST(SimRouteReport, NamedPatternHasNoMatrixLine) {
  const std::string out = sim_output(kJob + "--pattern ring");
  EXPECT_EQ(out.find("matrix"), std::string::npos) << out;
  EXPECT_FALSE(
      nlohmann::json::parse(sim_output(kJob + "--json --pattern ring")).contains("matrix"));
}

}  // namespace
}  // namespace ibsdn
