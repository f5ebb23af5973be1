// ibsdn-sim route's report (sim_backend/cli/cmd_route.cpp): for a traffic-matrix job the pairs kept
// and the self and zero pairs skipped (as profilers list them), in the text and the JSON report;
// the splittable LP bound beside the cut bound.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "sim_backend/cli/commands.hpp"
#include "tests/support/temp_dir.hpp"

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

// On a complete XGFT the cut bound is the splittable optimum, so the LP (over every link, detours
// included) finds the same value; the ratio is taken against the larger of the two.
TEST(SimRouteReport, LpBound_EqualsTheCutBoundOnACompleteXgft) {
  const nlohmann::json j = nlohmann::json::parse(
      sim_output("route --xgft 2;4,4;1,4 --alg dmodk --pattern random-perm --seed 3 --json"));
  ASSERT_TRUE(j.contains("lp_bound")) << j.dump();
  ASSERT_TRUE(j.at("lp_bound").at("computed").get<bool>()) << j.dump();
  const double cut = j.at("volume_bound_seconds").get<double>();
  EXPECT_NEAR(j.at("lp_bound").at("seconds").get<double>(), cut, cut * 1e-9);
  EXPECT_NEAR(j.at("volume_ratio").get<double>(), j.at("max_link_seconds").get<double>() / cut,
              1e-9);
}

// With cables gone the cut bound ignores which paths survive; the LP does not, and it is never
// below the cut bound. util/bound is against the LP then.
TEST(SimRouteReport, LpBound_IsAtLeastTheCutBoundOnADegradedTree) {
  const std::string args =
      "route --xgft 2;8,8;1,8 --fail-cables 20 --fail-seed 2 --alg dmodk "
      "--pattern random-perm --seed 5 ";
  const nlohmann::json j = nlohmann::json::parse(sim_output(args + "--json"));
  ASSERT_TRUE(j.at("lp_bound").at("computed").get<bool>()) << j.dump();
  const double lp = j.at("lp_bound").at("seconds").get<double>();
  EXPECT_GE(lp, j.at("volume_bound_seconds").get<double>() * (1 - 1e-9));
  EXPECT_NEAR(j.at("volume_ratio").get<double>(), j.at("max_link_seconds").get<double>() / lp,
              1e-9);
  EXPECT_NE(sim_output(args).find("\nLP bound    "), std::string::npos);
}

TEST(SimRouteReport, LpSecondsZero_LeavesTheLpOut) {
  const std::string args = "route --xgft 2;4,4;1,4 --alg dmodk --lp-seconds 0 ";
  EXPECT_FALSE(nlohmann::json::parse(sim_output(args + "--json")).contains("lp_bound"));
  EXPECT_EQ(sim_output(args).find("LP bound"), std::string::npos);
}

}  // namespace
}  // namespace ibsdn
