// Host lists: the syntax check that libslurm lacks, the bound known before any expansion, and
// libslurm's expansion of what passes.
#include "common/slurm_hostlist.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ibsdn {
namespace {

using Hosts = std::vector<std::string>;

std::string count_error(std::string_view text, std::size_t max = 100000) {
  try {
    count_hostlist(text, max);
  } catch (const HostlistError& e) {
    return e.what();
  }
  return "";
}

TEST(Hostlist, ExpandsRangesAndSinglesInSlurmsOrder) {
  EXPECT_EQ(expand_hostlist("node[01-03,07],gpu3", 100),
            (Hosts{"node01", "node02", "node03", "node07", "gpu3"}));
  EXPECT_EQ(expand_hostlist("node01", 100), (Hosts{"node01"}));
  EXPECT_EQ(count_hostlist("r[1-2]n[1-4]", 100), 8u);
  EXPECT_EQ(expand_hostlist("r[1-2]n[1-2]", 100), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
}

TEST(Hostlist, RefusesWhatLibslurmWouldMisread) {
  EXPECT_EQ(count_error("bad[1-"),
            "host list 'bad[1-': at character 7: expected a number in the brackets");
  EXPECT_EQ(count_error("bad[1-2"), "host list 'bad[1-2': at character 4: '[' is never closed");
  EXPECT_EQ(count_error(""), "host list is empty");
  EXPECT_EQ(count_error("a,,b"), "host list 'a,,b': at character 3: empty host name");
  EXPECT_EQ(count_error("a,"), "host list 'a,': at character 3: empty host name");
  EXPECT_EQ(count_error("n[]"),
            "host list 'n[]': at character 3: expected a number in the brackets");
  EXPECT_EQ(count_error("n[3-1]"), "host list 'n[3-1]': at character 3: range 3-1 runs backwards");
  EXPECT_EQ(count_error("n[1[2]]"), "host list 'n[1[2]]': at character 4: brackets cannot nest");
  EXPECT_EQ(count_error("n1]"), "host list 'n1]': at character 3: ']' without '['");
  EXPECT_EQ(count_error("n1 n2"), "host list 'n1 n2': at character 3: unexpected character ' '");
  EXPECT_EQ(
      count_error("n[1x3]"),
      "host list 'n[1x3]': at character 4: expected ',', '-' or ']' in the brackets, found 'x'");
}

TEST(Hostlist, BoundsHugeRangesBeforeExpanding) {
  EXPECT_EQ(count_error("n[0-999999999999]"),
            "host list 'n[0-999999999999]': at character 3: names more than 100000 hosts");
  EXPECT_EQ(count_error("a[1-1000]b[1-1000]"),
            "host list 'a[1-1000]b[1-1000]': at character 1: names more than 100000 hosts");
  EXPECT_EQ(count_error("n[1-60000],m[1-60000]"),
            "host list 'n[1-60000],m[1-60000]': at character 12: names more than 100000 hosts");
  EXPECT_EQ(count_hostlist("n[1-100000]", 100000), 100000u);
  EXPECT_EQ(count_error("n[1-3]", 2),
            "host list 'n[1-3]': at character 3: names more than 2 hosts");
}

TEST(Hostlist, RefusesDuplicatesAndInvalidHostNames) {
  EXPECT_THROW(expand_hostlist("n1,n1", 10), HostlistError);
  EXPECT_THROW(expand_hostlist("-n1", 10), HostlistError);
}

}  // namespace
}  // namespace ibsdn
