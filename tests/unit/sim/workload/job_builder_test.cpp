// The simulator's job construction: which nodes a job gets (sim_backend/workload/job_builder.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

#include "routing/xgft.hpp"
#include "sim_backend/workload/job_builder.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn {
namespace {

const Fabric& tree() {
  static const Fabric f = generate_xgft(XgftParams::parse("2;8,8;1,8"));  // 64 hosts
  return f;
}

JobSpec spec(const std::string& selection, std::uint32_t nodes, std::uint64_t seed) {
  JobSpec s;
  s.pattern = "ring";
  s.selection = selection;
  s.nodes = nodes;
  s.seed = seed;
  s.ranks_per_node = 1;
  return s;
}

TEST(JobBuilder, RandomSelectionDrawsWithoutReplacementInHostOrder) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const BuiltJob job = build_job(tree(), spec("random", 48, seed));
    ASSERT_EQ(job.nodes.size(), 48u);
    const std::set<NodeIdx> distinct(job.nodes.begin(), job.nodes.end());
    EXPECT_EQ(distinct.size(), 48u) << "seed " << seed << ": a node allocated twice";
    EXPECT_TRUE(std::is_sorted(job.nodes.begin(), job.nodes.end())) << "seed " << seed;
    for (const NodeIdx n : job.nodes) EXPECT_TRUE(tree().node(n).is_hca());
  }
}

TEST(JobBuilder, RandomSelectionIsSeededAndAllNodesMeansAll) {
  EXPECT_EQ(build_job(tree(), spec("random", 16, 7)).nodes,
            build_job(tree(), spec("random", 16, 7)).nodes);
  EXPECT_NE(build_job(tree(), spec("random", 16, 7)).nodes,
            build_job(tree(), spec("random", 16, 8)).nodes);
  EXPECT_NE(build_job(tree(), spec("random", 16, 7)).nodes,
            build_job(tree(), spec("linear", 16, 7)).nodes);
  // Every node, drawn without replacement, is every node.
  EXPECT_EQ(build_job(tree(), spec("random", 64, 3)).nodes,
            build_job(tree(), spec("linear", 64, 3)).nodes);
  EXPECT_THROW(build_job(tree(), spec("random", 65, 3)), std::invalid_argument);
}

// matrix:file=F is read for its skipped pairs too; a named pattern has none to report.
TEST(JobBuilder, MatrixJobKeepsTheFilesSkippedPairs) {
  const test::TempDir dir("ibsdn-job-builder");
  const std::string path = dir.file("tm.txt");
  std::ofstream(path) << "0 9 10\n4 4 512\n1 2 0\n";
  JobSpec s = spec("linear", 16, 1);
  s.pattern = "matrix:file=" + path;
  const BuiltJob job = build_job(tree(), s);
  EXPECT_EQ(job.rank_flows, 1u);
  EXPECT_EQ(job.matrix_skipped, (SkippedPairs{1, 512, 1}));
  EXPECT_EQ(build_job(tree(), spec("linear", 16, 1)).matrix_skipped, std::nullopt);
}

}  // namespace
}  // namespace ibsdn
