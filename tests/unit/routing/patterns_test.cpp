#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include "routing/patterns/mapping.hpp"
#include "routing/patterns/pattern.hpp"
#include "routing/patterns/rng.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

Pairs pairs_of(const std::vector<RankFlow>& flows) {
  Pairs out;
  for (const RankFlow& f : flows) out.emplace_back(f.src, f.dst);
  return out;
}

// Expands {src, {dst...}} into the ordered pair list a pattern must return.
Pairs expected(const std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>>& adj) {
  Pairs out;
  for (const auto& [src, dsts] : adj) {
    for (const std::uint32_t d : dsts) out.emplace_back(src, d);
  }
  return out;
}

std::vector<RankFlow> gen(std::string_view spec, std::uint32_t ranks, std::uint64_t seed = 1) {
  return generate_pattern(PatternSpec::parse(spec), ranks, seed);
}

std::vector<std::uint32_t> partners(const std::vector<RankFlow>& flows, std::uint32_t src) {
  std::vector<std::uint32_t> out;
  for (const RankFlow& f : flows) {
    if (f.src == src) out.push_back(f.dst);
  }
  return out;
}

struct Degrees {
  std::vector<std::uint32_t> out, in;
};
Degrees degrees(const std::vector<RankFlow>& flows, std::uint32_t ranks) {
  Degrees d{std::vector<std::uint32_t>(ranks), std::vector<std::uint32_t>(ranks)};
  for (const RankFlow& f : flows) {
    ++d.out.at(f.src);
    ++d.in.at(f.dst);
  }
  return d;
}

// The contract of every pattern: ordered by (src, dst), hence no duplicates; no self pairs; ranks
// in range; the requested bytes.
void expect_well_formed(const std::vector<RankFlow>& flows, std::uint32_t ranks,
                        std::uint64_t bytes, const std::string& what) {
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const RankFlow& f = flows[i];
    ASSERT_NE(f.src, f.dst) << what;
    ASSERT_LT(f.src, ranks) << what;
    ASSERT_LT(f.dst, ranks) << what;
    ASSERT_EQ(f.bytes, bytes) << what;
    if (i > 0) {
      ASSERT_LT(std::pair(flows[i - 1].src, flows[i - 1].dst), std::pair(f.src, f.dst)) << what;
    }
  }
}

// --- PatternSpec ------------------------------------------------------------------------------

TEST(PatternSpec, ParsesNameAndTypedOptions) {
  const PatternSpec shift = PatternSpec::parse("shift:k=3");
  EXPECT_EQ(shift.name, "shift");
  EXPECT_EQ(shift.k, 3);
  EXPECT_EQ(shift.bytes, PatternSpec::kDefaultBytes);
  EXPECT_EQ(PatternSpec::parse(" stencil3d : dims=8x8x16 ").dims,
            (std::vector<std::uint32_t>{8, 8, 16}));
  EXPECT_EQ(PatternSpec::parse("random4").bytes, 1048576u);
  EXPECT_EQ(PatternSpec::parse("matrix:file=tm.txt").file, "tm.txt");
  const PatternSpec umesh = PatternSpec::parse("umesh:min=2,max=4,range=5,bytes=4K");
  EXPECT_EQ(umesh.min_partners, 2u);
  EXPECT_EQ(umesh.max_partners, 4u);
  EXPECT_EQ(umesh.range, 5u);
  EXPECT_EQ(umesh.bytes, 4096u);
  EXPECT_EQ(PatternSpec::parse("ring:bytes=3G").bytes, 3ull << 30);
  EXPECT_EQ(PatternSpec::parse("shift:k=-5").k, -5);
}

TEST(PatternSpec, RejectsBadSpecsNamingTheOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nosuch", "unknown pattern 'nosuch'"},
      {":k=1", "missing name"},
      {"shift:kk=3", "unknown option 'kk' (accepted: k, bytes)"},
      {"ring:k=3", "unknown option 'k'"},
      {"matrix:file=a.txt,bytes=5", "unknown option 'bytes'"},
      {"shift:k", "option k needs a value"},
      {"shift:k=", "option k needs a value"},
      {"shift:", "empty option"},
      {"shift:k=1,,bytes=2", "empty option"},
      {"shift:k=x", "option k: 'x' is not an integer"},
      {"shift:k=3.5", "option k: '3.5' is not an integer"},
      {"shift:k=0", "option k: must not be 0"},
      {"shift:k=1,k=2", "option k given twice"},
      {"stencil3d:dims=8x8", "option dims: '8x8' has 2 extents, expected 3"},
      {"stencil4d:dims=8x8x16", "option dims: '8x8x16' has 3 extents, expected 4"},
      {"stencil4d:dims=8x8x4x0", "option dims: '8x8x4x0' has an extent of 0"},
      {"stencil3d:dims=8xx8", "option dims"},
      {"many-to-many:dims=4x-4x4", "option dims"},
      {"matrix", "needs option file=PATH"},
      {"umesh:min=8,max=4", "option min (8) exceeds option max (4)"},
      {"spread:max=3", "option min (6) exceeds option max (3)"},
      {"spread:min=-1", "option min: '-1' is negative"},
      {"umesh:range=0", "option range"},
      {"random4:bytes=0", "option bytes"},
      {"random4:bytes=K", "option bytes: 'K'"},
      {"ring:bytes=99999999999999G", "option bytes: '99999999999999G' is out of range"},
  };
  for (const auto& [text, message] : cases) {
    try {
      PatternSpec::parse(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
          << text << " -> " << e.what();
    }
  }
}

TEST(PatternSpec, ValidateRejectsFieldsThePatternDoesNotTake) {
  PatternSpec ring;
  ring.name = "ring";
  ring.k = 3;
  try {
    generate_pattern(ring, 8, 1);
    ADD_FAILURE() << "ring accepted k";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "pattern 'ring': does not take option k");
  }
  PatternSpec stencil;
  stencil.name = "stencil4d";
  stencil.dims = {8, 8, 16};
  EXPECT_THROW(stencil.validate(), std::invalid_argument);
}

TEST(PatternSpec, ToStringRoundTrips) {
  for (const std::string text :
       {"ring", "shift:k=-3", "stencil3d:dims=8x8x16", "stencil4d:dims=8x8x4x4,bytes=4096",
        "umesh:min=2,max=9,range=4", "spread:max=30", "matrix:file=tm.txt",
        "many-to-many:dims=2x3x4"}) {
    const PatternSpec spec = PatternSpec::parse(text);
    EXPECT_EQ(spec.to_string(), text);
    EXPECT_EQ(PatternSpec::parse(spec.to_string()), spec);
  }
  EXPECT_EQ(PatternSpec::parse("ring:bytes=1M").to_string(), "ring");
}

TEST(PatternRegistry, ListsEveryPatternWithSummaryAndOptions) {
  EXPECT_EQ(pattern_names(),
            (std::vector<std::string>{"ring", "2dnn", "3dnn", "random4", "random8", "random-perm",
                                      "shift", "stencil3d", "stencil4d", "all-to-all",
                                      "many-to-many", "umesh", "spread", "matrix"}));
  for (const std::string& name : pattern_names()) EXPECT_FALSE(pattern_summary(name).empty());
  EXPECT_EQ(pattern_options("shift"), (std::vector<std::string>{"k", "bytes"}));
  EXPECT_EQ(pattern_options("umesh"), (std::vector<std::string>{"min", "max", "range", "bytes"}));
  EXPECT_EQ(pattern_options("matrix"), (std::vector<std::string>{"file"}));
  EXPECT_THROW(pattern_summary("nosuch"), std::invalid_argument);
}

// The syntax (pattern_syntax.def, shared with the notice protocol) and the generators
// (patterns.def) are two tables: a name in one only would be accepted in a notice and then fail
// to route, or be routable but never accepted.
TEST(PatternRegistry, EverySyntaxNameHasAGeneratorAndEveryGeneratorASyntax) {
  const std::vector<std::string> syntax = pattern_names();
  const std::vector<std::string> generators = generator_names();
  for (const std::string& name : syntax) {
    EXPECT_NE(std::find(generators.begin(), generators.end(), name), generators.end())
        << name << " has a syntax but no generator";
  }
  for (const std::string& name : generators) {
    EXPECT_NE(std::find(syntax.begin(), syntax.end(), name), syntax.end())
        << name << " has a generator but no syntax";
  }
  EXPECT_EQ(std::set<std::string>(generators.begin(), generators.end()).size(), generators.size())
      << "a generator is registered twice";
}

TEST(PatternRegistry, RejectsZeroRanks) {
  EXPECT_THROW(gen("ring", 0), std::invalid_argument);
}

// --- integer grid helpers -----------------------------------------------------------------------

TEST(PatternGrid, CeilRootIsExactAtPerfectPowersAndJustAbove) {
  EXPECT_EQ(ceil_root(0, 2), 0u);
  EXPECT_EQ(ceil_root(1, 2), 1u);
  EXPECT_EQ(ceil_root(4, 2), 2u);
  EXPECT_EQ(ceil_root(5, 2), 3u);
  EXPECT_EQ(ceil_root(10, 2), 4u);
  EXPECT_EQ(ceil_root(27, 3), 3u);
  EXPECT_EQ(ceil_root(28, 3), 4u);
  EXPECT_EQ(ceil_root(1000000, 3), 100u);
  EXPECT_EQ(ceil_root(1000001, 3), 101u);
  EXPECT_EQ(ceil_root(4291015625u, 3), 1625u);  // 1625^3
  EXPECT_EQ(ceil_root(4291015626u, 3), 1626u);
  EXPECT_EQ(ceil_root(4294967295u, 2), 65536u);
  EXPECT_EQ(ceil_root(4294967295u, 1), 4294967295u);
}

TEST(PatternGrid, MostCubicMinimisesTheLargestExtent) {
  using V = std::vector<std::uint32_t>;
  EXPECT_EQ(most_cubic(1000, 3), (V{10, 10, 10}));
  EXPECT_EQ(most_cubic(24, 3), (V{2, 3, 4}));
  EXPECT_EQ(most_cubic(7, 3), (V{1, 1, 7}));
  EXPECT_EQ(most_cubic(1, 3), (V{1, 1, 1}));
  EXPECT_EQ(most_cubic(16, 4), (V{2, 2, 2, 2}));
  EXPECT_EQ(most_cubic(1024, 4), (V{4, 4, 8, 8}));
  EXPECT_EQ(most_cubic(1536, 3), (V{8, 12, 16}));
  EXPECT_EQ(most_cubic(4294967295u, 2), (V{65535, 65537}));
}

TEST(PatternGrid, StencilDefaultsAreTheThesisShapes) {
  using V = std::vector<std::uint32_t>;
  EXPECT_EQ(default_stencil_dims(1024, 3), (V{8, 8, 16}));
  EXPECT_EQ(default_stencil_dims(1024, 4), (V{8, 8, 4, 4}));
  EXPECT_EQ(default_stencil_dims(1536, 3), (V{8, 8, 24}));
  EXPECT_EQ(default_stencil_dims(1536, 4), (V{8, 8, 6, 4}));
  EXPECT_EQ(default_stencil_dims(512, 3), (V{8, 8, 8}));
  EXPECT_EQ(default_stencil_dims(64, 4), (V{2, 2, 4, 4}));
}

// --- deterministic patterns, hand-checked
// ---------------------------------------------------------

TEST(PatternRing, TwoRanksTalkOnceEachWay_ThreeRanksFormACycleBothWays) {
  EXPECT_EQ(pairs_of(gen("ring", 2)), (Pairs{{0, 1}, {1, 0}}));
  EXPECT_EQ(pairs_of(gen("ring", 3)), (Pairs{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}));
  EXPECT_EQ(pairs_of(gen("ring", 5)),
            expected({{0, {1, 4}}, {1, {0, 2}}, {2, {1, 3}}, {3, {2, 4}}, {4, {0, 3}}}));
  EXPECT_TRUE(gen("ring", 1).empty());
}

TEST(Pattern2dnn, SevenRanksOnThreeByThreeSkipTheTwoHoles) {
  // 0 1 2 / 3 4 5 / 6 . .
  EXPECT_EQ(pairs_of(gen("2dnn", 7)), expected({{0, {1, 2, 3, 6}},
                                                {1, {0, 2, 4}},
                                                {2, {0, 1, 5}},
                                                {3, {0, 4, 5, 6}},
                                                {4, {1, 3, 5}},
                                                {5, {2, 3, 4}},
                                                {6, {0, 3}}}));
}

TEST(Pattern2dnn, TenRanksOnFourByFourLeaveTheLastRowEmpty) {
  // 0 1 2 3 / 4 5 6 7 / 8 9 . . / . . . .
  EXPECT_EQ(pairs_of(gen("2dnn", 10)), expected({{0, {1, 3, 4}},
                                                 {1, {0, 2, 5}},
                                                 {2, {1, 3, 6}},
                                                 {3, {0, 2, 7}},
                                                 {4, {0, 5, 7, 8}},
                                                 {5, {1, 4, 6, 9}},
                                                 {6, {2, 5, 7}},
                                                 {7, {3, 4, 6}},
                                                 {8, {4, 9}},
                                                 {9, {5, 8}}}));
}

TEST(Pattern2dnn, TwoByTwoCountsEachNeighbourOnce) {
  EXPECT_EQ(pairs_of(gen("2dnn", 4)),
            expected({{0, {1, 2}}, {1, {0, 3}}, {2, {0, 3}}, {3, {1, 2}}}));
}

TEST(Pattern3dnn, NineRanksFillOnePlaneOfThreeCubed) {
  // The other two planes are empty, so only the 3x3 torus of plane 0 remains.
  EXPECT_EQ(pairs_of(gen("3dnn", 9)), expected({{0, {1, 2, 3, 6}},
                                                {1, {0, 2, 4, 7}},
                                                {2, {0, 1, 5, 8}},
                                                {3, {0, 4, 5, 6}},
                                                {4, {1, 3, 5, 7}},
                                                {5, {2, 3, 4, 8}},
                                                {6, {0, 3, 7, 8}},
                                                {7, {1, 4, 6, 8}},
                                                {8, {2, 5, 6, 7}}}));
}

TEST(Pattern3dnn, TwentySevenRanksFormTheFullTorus) {
  const auto flows = gen("3dnn", 27);
  EXPECT_EQ(flows.size(), 27u * 6u);
  EXPECT_EQ(partners(flows, 0), (std::vector<std::uint32_t>{1, 2, 3, 6, 9, 18}));
  EXPECT_EQ(partners(flows, 13), (std::vector<std::uint32_t>{4, 10, 12, 14, 16, 22}));
  EXPECT_EQ(partners(flows, 26), (std::vector<std::uint32_t>{8, 17, 20, 23, 24, 25}));
  // 28 ranks need a 4^3 grid: rank 0's plane neighbours 16 and 48 lie in the empty planes.
  EXPECT_EQ(partners(gen("3dnn", 28), 0), (std::vector<std::uint32_t>{1, 3, 4, 12, 16}));
}

TEST(PatternShift, SendsToRankPlusKModN) {
  EXPECT_EQ(pairs_of(gen("shift:k=3", 8)),
            (Pairs{{0, 3}, {1, 4}, {2, 5}, {3, 6}, {4, 7}, {5, 0}, {6, 1}, {7, 2}}));
  EXPECT_EQ(pairs_of(gen("shift:k=11", 8)), pairs_of(gen("shift:k=3", 8)));
  EXPECT_EQ(pairs_of(gen("shift:k=-1", 4)), (Pairs{{0, 3}, {1, 0}, {2, 1}, {3, 2}}));
  EXPECT_EQ(pairs_of(gen("shift", 3)), (Pairs{{0, 1}, {1, 2}, {2, 0}}));
  try {
    gen("shift:k=8", 8);
    ADD_FAILURE() << "k=8 accepted for 8 ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("k=8"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gen("shift:k=-16", 8), std::invalid_argument);
  EXPECT_THROW(gen("shift", 1), std::invalid_argument);
}

TEST(PatternStencil, TwoByThreeByFourIsRowMajorWithTheLastExtentFastest) {
  const auto flows = gen("stencil3d:dims=2x3x4", 24);
  // Extent 2 along the first axis: +1 and -1 are both rank 12, counted once.
  EXPECT_EQ(partners(flows, 0), (std::vector<std::uint32_t>{1, 3, 4, 8, 12}));
  EXPECT_EQ(partners(flows, 23), (std::vector<std::uint32_t>{11, 15, 19, 20, 22}));
  EXPECT_EQ(flows.size(), 24u * 5u);
}

TEST(PatternStencil, ThesisDefaultsGiveTheExpectedStrides) {
  // 8x8x16: strides 128, 16, 1.
  EXPECT_EQ(partners(gen("stencil3d", 1024), 0),
            (std::vector<std::uint32_t>{1, 15, 16, 112, 128, 896}));
  // 8x8x4x4: strides 128, 16, 4, 1.
  EXPECT_EQ(partners(gen("stencil4d", 1024), 0),
            (std::vector<std::uint32_t>{1, 3, 4, 12, 16, 112, 128, 896}));
  // 8x8x24: strides 192, 24, 1.
  EXPECT_EQ(partners(gen("stencil3d", 1536), 0),
            (std::vector<std::uint32_t>{1, 23, 24, 168, 192, 1344}));
  // 8x8x6x4: strides 192, 24, 4, 1.
  EXPECT_EQ(partners(gen("stencil4d", 1536), 0),
            (std::vector<std::uint32_t>{1, 3, 4, 20, 24, 168, 192, 1344}));
}

TEST(PatternStencil, RejectsDimsThatDoNotHoldTheRanks) {
  try {
    gen("stencil3d:dims=8x8x8", 1000);
    ADD_FAILURE() << "8x8x8 accepted for 1000 ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "pattern 'stencil3d': dims=8x8x8 holds 512 ranks, but the job has 1000");
  }
}

TEST(PatternAllToAll, GivesEveryOrderedPair) {
  EXPECT_EQ(pairs_of(gen("all-to-all", 3)),
            (Pairs{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}));
  for (std::uint32_t n = 1; n <= 40; ++n) {
    const auto flows = gen("all-to-all", n);
    EXPECT_EQ(flows.size(), std::size_t{n} * (n - 1));
    expect_well_formed(flows, n, PatternSpec::kDefaultBytes, "all-to-all");
  }
}

TEST(PatternManyToMany, AllToAllAlongEachYLine) {
  const auto flows = gen("many-to-many:dims=2x3x4", 24);
  EXPECT_EQ(flows.size(), 8u * 3u * 2u);  // X*Z lines of 3 ranks, 6 ordered pairs each
  EXPECT_EQ(partners(flows, 0), (std::vector<std::uint32_t>{4, 8}));
  EXPECT_EQ(partners(flows, 5), (std::vector<std::uint32_t>{1, 9}));
  EXPECT_EQ(partners(flows, 23), (std::vector<std::uint32_t>{15, 19}));
  // Default dims: most_cubic(24, 3) = 2x3x4.
  EXPECT_EQ(gen("many-to-many", 24), flows);
  EXPECT_THROW(gen("many-to-many:dims=2x3x4", 25), std::invalid_argument);
}

TEST(PatternUmesh, WindowOfOneTakesBothAdjacentRanks) {
  EXPECT_EQ(pairs_of(gen("umesh:min=2,max=2,range=1", 5)),
            (Pairs{{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}, {3, 4}, {4, 3}}));
}

// --- the matrix pattern (the file format: traffic_matrix_test.cpp) -----------------------------

TEST(PatternMatrix, IsTheFilesFlowsAndChecksRanks) {
  const std::string path = ::testing::TempDir() + "ibsdn_patterns_test_tm.txt";
  {
    std::ofstream out(path);
    out << "2 0 10\n0 2 5\n1 1 8\n0 1 0\n";
  }
  // The pattern is the flows; the skipped pairs are reported by who reads the file (ibsdn-sim).
  EXPECT_EQ(gen("matrix:file=" + path, 3), (std::vector<RankFlow>{{0, 2, 5}, {2, 0, 10}}));
  try {
    gen("matrix:file=" + path, 2);
    ADD_FAILURE() << "rank 2 accepted for 2 ranks";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":1: src_rank 2", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
  try {
    gen("matrix:file=" + path, 3);
    ADD_FAILURE() << "missing file accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot open", 0), 0u) << e.what();
  }
}

// --- random patterns: properties over many N and seeds ------------------------------------------

TEST(PatternRandom, RandomPermIsADerangement) {
  for (std::uint32_t n = 2; n <= 60; ++n) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const auto flows = gen("random-perm", n, seed);
      expect_well_formed(flows, n, PatternSpec::kDefaultBytes, "random-perm");
      const Degrees d = degrees(flows, n);
      ASSERT_EQ(d.out, std::vector<std::uint32_t>(n, 1)) << n << " " << seed;
      ASSERT_EQ(d.in, std::vector<std::uint32_t>(n, 1)) << n << " " << seed;
    }
  }
  EXPECT_EQ(pairs_of(gen("random-perm", 2)), (Pairs{{0, 1}, {1, 0}}));
  EXPECT_TRUE(gen("random-perm", 1).empty());
}

TEST(PatternRandom, RandomPermDrawsEveryDerangementOfThree) {
  // Three ranks have exactly two derangements, the two 3-cycles; both must appear.
  std::set<Pairs> seen;
  for (std::uint64_t seed = 0; seed < 40; ++seed)
    seen.insert(pairs_of(gen("random-perm", 3, seed)));
  EXPECT_EQ(seen, (std::set<Pairs>{{{0, 1}, {1, 2}, {2, 0}}, {{0, 2}, {1, 0}, {2, 1}}}));
}

TEST(PatternRandom, RandomKHasOutDegreeExactlyK) {
  for (const auto& [name, k] : {std::pair{"random4", 4u}, std::pair{"random8", 8u}}) {
    for (std::uint32_t n = 1; n <= 50; ++n) {
      for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const auto flows = gen(std::string(name) + ":bytes=7", n, seed);
        expect_well_formed(flows, n, 7, name);
        const Degrees d = degrees(flows, n);
        ASSERT_EQ(d.out, std::vector<std::uint32_t>(n, std::min(k, n - 1))) << name << " " << n;
      }
    }
  }
}

TEST(PatternRandom, SpreadAndUmeshStayWithinTheirCountsAndWindows) {
  for (std::uint32_t n = 1; n <= 90; n += 7) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const auto spread = gen("spread", n, seed);
      expect_well_formed(spread, n, PatternSpec::kDefaultBytes, "spread");
      const Degrees ds = degrees(spread, n);
      for (std::uint32_t r = 0; r < n; ++r) {
        ASSERT_GE(ds.out[r], std::min(6u, n - 1));
        ASSERT_LE(ds.out[r], std::min(20u, n - 1));
      }
      const auto umesh = gen("umesh", n, seed);
      expect_well_formed(umesh, n, PatternSpec::kDefaultBytes, "umesh");
      const Degrees du = degrees(umesh, n);
      for (const RankFlow& f : umesh) {
        ASSERT_LE(f.src > f.dst ? f.src - f.dst : f.dst - f.src, 30u);
      }
      for (std::uint32_t r = 0; r < n; ++r) {
        const std::uint32_t window = std::min(r, 30u) + std::min(n - 1 - r, 30u);
        ASSERT_GE(du.out[r], std::min(6u, window));
        ASSERT_LE(du.out[r], std::min(20u, window));
      }
    }
  }
}

TEST(PatternRandom, SpreadDrawsTheWholeCountRange) {
  std::set<std::uint32_t> counts;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Degrees d = degrees(gen("spread", 200, seed), 200);
    counts.insert(d.out.begin(), d.out.end());
  }
  EXPECT_EQ(counts.size(), 15u);  // every count of 6..20 occurs
  EXPECT_EQ(*counts.begin(), 6u);
  EXPECT_EQ(*counts.rbegin(), 20u);
  // Large counts take the hashed path of the distinct-partner draw.
  const auto many = gen("spread:min=40,max=40", 100, 9);
  expect_well_formed(many, 100, PatternSpec::kDefaultBytes, "spread 40");
  EXPECT_EQ(degrees(many, 100).out, std::vector<std::uint32_t>(100, 40));
}

TEST(PatternRandom, SameSeedSameFlows_OtherSeedOtherFlows) {
  for (const std::string name : {"random4", "random8", "random-perm", "umesh", "spread"}) {
    EXPECT_EQ(gen(name, 64, 42), gen(name, 64, 42)) << name;
    EXPECT_NE(gen(name, 64, 42), gen(name, 64, 43)) << name;
  }
}

TEST(PatternRandom, GeneratorOutputIsPinnedAcrossPlatforms) {
  // SplitMix64's published first outputs for state 0.
  PatternRng rng(0);
  EXPECT_EQ(rng.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(rng.next(), 0x6E789E6AA1B965F4ull);
  // And the flows built on it: a change here re-routes every stored random job.
  EXPECT_EQ(pairs_of(gen("random-perm", 5, 7)), (Pairs{{0, 2}, {1, 4}, {2, 3}, {3, 1}, {4, 0}}));
  EXPECT_EQ(pairs_of(gen("random4", 6, 3)), expected({{0, {1, 2, 3, 4}},
                                                      {1, {0, 2, 4, 5}},
                                                      {2, {0, 1, 3, 4}},
                                                      {3, {0, 1, 4, 5}},
                                                      {4, {0, 1, 2, 3}},
                                                      {5, {0, 2, 3, 4}}}));
}

// --- every pattern: the common contract ----------------------------------------------------------

TEST(PatternContract, EveryPatternIsOrderedDuplicateFreeAndSelfFree) {
  for (const std::string& name : pattern_names()) {
    if (name == "matrix" || name == "shift") continue;  // need a file / reject some N
    for (std::uint32_t n = 1; n <= 30; ++n) {
      const auto flows = gen(name, n, n);
      expect_well_formed(flows, n, PatternSpec::kDefaultBytes, name + " " + std::to_string(n));
      if (name == "stencil3d" || name == "3dnn") {
        for (const std::uint32_t out : degrees(flows, n).out) ASSERT_LE(out, 6u) << name;
      }
      if (name == "stencil4d") {
        for (const std::uint32_t out : degrees(flows, n).out) ASSERT_LE(out, 8u) << name;
      }
    }
  }
  for (std::uint32_t n = 2; n <= 30; ++n) {
    for (std::int64_t k = 1; k < n; ++k) {
      const auto flows = gen("shift:k=" + std::to_string(k), n);
      expect_well_formed(flows, n, PatternSpec::kDefaultBytes, "shift");
      const Degrees d = degrees(flows, n);
      ASSERT_EQ(d.out, std::vector<std::uint32_t>(n, 1));
      ASSERT_EQ(d.in, std::vector<std::uint32_t>(n, 1));
    }
  }
}

TEST(PatternContract, StencilDegreeIsTwicePerDimensionWhenExtentsExceedTwo) {
  EXPECT_EQ(degrees(gen("stencil3d:dims=3x4x5", 60), 60).out, std::vector<std::uint32_t>(60, 6));
  EXPECT_EQ(degrees(gen("stencil4d:dims=3x3x3x3", 81), 81).out, std::vector<std::uint32_t>(81, 8));
  EXPECT_EQ(degrees(gen("stencil4d:dims=1x2x3x4", 24), 24).out, std::vector<std::uint32_t>(24, 5));
}

// --- mapping and fabric flows --------------------------------------------------------------------

const NodeIdx kA(std::uint32_t{5});
const NodeIdx kB(std::uint32_t{9});

TEST(Mapping, ParsesBlockAndCyclicOnly) {
  EXPECT_EQ(parse_mapping("block"), Mapping::kBlock);
  EXPECT_EQ(parse_mapping("cyclic"), Mapping::kCyclic);
  EXPECT_EQ(to_string(Mapping::kCyclic), "cyclic");
  EXPECT_THROW(parse_mapping("Block"), std::invalid_argument);
  EXPECT_THROW(parse_mapping(""), std::invalid_argument);
}

TEST(Mapping, BlockFillsNodesInTurn_CyclicDealsRoundRobin) {
  const std::vector<NodeIdx> nodes = {NodeIdx(10), NodeIdx(11), NodeIdx(12)};
  const auto n = [](int i) { return NodeIdx(i); };
  EXPECT_EQ(
      map_ranks(nodes, 4, Mapping::kBlock, 10),
      (std::vector<NodeIdx>{n(10), n(10), n(10), n(10), n(11), n(11), n(11), n(11), n(12), n(12)}));
  EXPECT_EQ(
      map_ranks(nodes, 4, Mapping::kCyclic, 10),
      (std::vector<NodeIdx>{n(10), n(11), n(12), n(10), n(11), n(12), n(10), n(11), n(12), n(10)}));
  EXPECT_EQ(map_ranks(nodes, 4, Mapping::kBlock, 12).back(), n(12));
  EXPECT_THROW(map_ranks(nodes, 4, Mapping::kBlock, 13), std::invalid_argument);
  EXPECT_THROW(map_ranks(nodes, 4, Mapping::kCyclic, 13), std::invalid_argument);
  EXPECT_THROW(map_ranks(nodes, 0, Mapping::kBlock, 1), std::invalid_argument);
}

TEST(Mapping, BlockDropsIntraNodePairsAndMergesTheRest) {
  // Ring over 8 ranks, 4 per node: only 0<->7 and 3<->4 cross between the two nodes.
  const std::vector<NodeIdx> nodes = {kA, kB};
  const auto flows = to_fabric_flows(gen("ring", 8), map_ranks(nodes, 4, Mapping::kBlock, 8));
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].src, kA);  // first cross pair in rank order is 0 -> 7
  EXPECT_EQ(flows[0].dst, kB);
  EXPECT_EQ(flows[0].multiplicity, 2u);
  EXPECT_EQ(flows[0].bytes, 2u * PatternSpec::kDefaultBytes);
  EXPECT_EQ(flows[1].src, kB);
  EXPECT_EQ(flows[1].dst, kA);
  EXPECT_EQ(flows[1].multiplicity, 2u);
  EXPECT_DOUBLE_EQ(flows[0].weight, 1.0);
  EXPECT_DOUBLE_EQ(flows[1].weight, 1.0);
}

TEST(Mapping, CyclicPutsEveryRingNeighbourOnTheOtherNode) {
  const std::vector<NodeIdx> nodes = {kA, kB};
  const auto flows = to_fabric_flows(gen("ring", 8), map_ranks(nodes, 4, Mapping::kCyclic, 8));
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(std::pair(flows[0].src, flows[0].dst), std::pair(kA, kB));
  EXPECT_EQ(flows[0].multiplicity, 8u);
  EXPECT_EQ(flows[1].multiplicity, 8u);
}

TEST(Mapping, WeightsAreMinOfInverseOutAndInDegreeAfterMerging) {
  // Ranks 0,1 on P; 2,3 on Q; 4,5 on R; 6,7 on S.
  const NodeIdx p(std::uint32_t{0}), q(std::uint32_t{1}), r(std::uint32_t{2}), s(std::uint32_t{3});
  const std::vector<NodeIdx> nodes = {p, q, r, s};
  const std::vector<RankFlow> ranks = {{0, 1, 1}, {0, 2, 10}, {1, 3, 20}, {1, 4, 5},
                                       {2, 5, 7}, {6, 4, 1},  {7, 5, 2}};
  const auto flows = to_fabric_flows(ranks, map_ranks(nodes, 2, Mapping::kBlock, 8));
  ASSERT_EQ(flows.size(), 4u);
  // P->Q (merged), P->R, Q->R, S->R (merged): s_out(P) = 2, d_in(R) = 3.
  const std::vector<std::pair<NodeIdx, NodeIdx>> ends = {{p, q}, {p, r}, {q, r}, {s, r}};
  const std::vector<std::uint64_t> bytes = {30, 5, 7, 3};
  const std::vector<std::uint32_t> mult = {2, 1, 1, 2};
  const std::vector<double> weight = {0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  for (std::size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ(std::pair(flows[i].src, flows[i].dst), ends[i]) << i;
    EXPECT_EQ(flows[i].bytes, bytes[i]) << i;
    EXPECT_EQ(flows[i].multiplicity, mult[i]) << i;
    EXPECT_DOUBLE_EQ(flows[i].weight, weight[i]) << i;
  }
  EXPECT_THROW(to_fabric_flows(ranks, map_ranks(nodes, 2, Mapping::kBlock, 6)),
               std::invalid_argument);
}

TEST(Mapping, DefaultRanksPerNodeIsTheNodesGpuCount) {
  Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"), 4);
  const std::vector<NodeIdx> hcas(f.hcas().begin(), f.hcas().begin() + 3);
  EXPECT_EQ(default_ranks_per_node(f, hcas), 4u);
  EXPECT_EQ(default_ranks_per_node(f, {}), 1u);
  for (const NodeIdx n : hcas) f.node(n).gpus = 0;
  EXPECT_EQ(default_ranks_per_node(f, hcas), 1u);
  f.node(hcas[1]).gpus = 2;
  EXPECT_THROW(default_ranks_per_node(f, hcas), std::invalid_argument);
  const std::vector<NodeIdx> with_switch = {f.switches().front()};
  EXPECT_THROW(default_ranks_per_node(f, with_switch), std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
