#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "routing/patterns/pattern.hpp"
#include "sim_backend/apps/app_model.hpp"
#include "sim_backend/apps/app_spec.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn {
namespace {

AppProgram gen(std::string_view text, std::uint32_t ranks, std::uint64_t seed = 1) {
  return generate_app(AppSpec::parse(text), ranks, seed);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::uint32_t> destinations(const AppPhase& phase, std::uint32_t src) {
  std::vector<std::uint32_t> out;
  for (const RankFlow& m : phase.messages) {
    if (m.src == src) out.push_back(m.dst);
  }
  return out;
}

std::set<std::pair<std::uint32_t, std::uint32_t>> pair_set(const std::vector<RankFlow>& flows) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> out;
  for (const RankFlow& f : flows) out.emplace(f.src, f.dst);
  return out;
}

// --- the spec
// -------------------------------------------------------------------------------------

TEST(AppSpec, ParsesSkeletonOptions) {
  const AppSpec s = AppSpec::parse("stencil4d:dims=2x2x2x4,bytes=1M,iter=5,compute=2ms,gpu=4");
  EXPECT_EQ(s.name, "stencil4d");
  EXPECT_EQ(s.kind(), AppKind::kSkeleton);
  EXPECT_EQ(s.dims, (std::vector<std::uint32_t>{2, 2, 2, 4}));
  EXPECT_EQ(s.bytes, 1u << 20);
  EXPECT_EQ(s.iterations, 5u);
  EXPECT_DOUBLE_EQ(s.compute_s, 2e-3);
  EXPECT_DOUBLE_EQ(s.gpu_speedup, 4.0);
}

TEST(AppSpec, PatternSourceKeepsThePatternsOwnOptionsInItsPattern) {
  const AppSpec s = AppSpec::parse("shift:k=3,iter=7,bytes=64K,compute=10ms");
  EXPECT_EQ(s.kind(), AppKind::kPattern);
  EXPECT_EQ(s.pattern.name, "shift");
  EXPECT_EQ(s.pattern.k, 3);
  EXPECT_EQ(s.pattern.bytes, 64u << 10);
  EXPECT_EQ(s.bytes, PatternSpec::kDefaultBytes);
  EXPECT_EQ(s.iterations, 7u);
  EXPECT_DOUBLE_EQ(s.compute_s, 0.01);
}

TEST(AppSpec, DefaultsAreTheRegistrysPerApp) {
  const AppSpec stencil = app_defaults("stencil4d");
  EXPECT_EQ(stencil.bytes, 100'000'000u);  // thesis Fig 2.5
  EXPECT_DOUBLE_EQ(stencil.compute_s, 16.8e-3);
  EXPECT_DOUBLE_EQ(stencil.gpu_speedup, 4.75);
  EXPECT_EQ(stencil.iterations, 10u);
  const AppSpec mixed = app_defaults("random-perm-mixed");
  EXPECT_DOUBLE_EQ(mixed.gap_s, 0.1);  // thesis 4.4.2's 100 ms
  EXPECT_EQ(mixed.rounds, 1u);
  EXPECT_DOUBLE_EQ(mixed.gpu_speedup, 1.0);
  EXPECT_EQ(AppSpec::parse("stencil4d"), stencil);
}

TEST(AppSpec, RejectsBadSpecsNamingTheAppAndOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nosuch", "unknown app 'nosuch' (known: stencil3d, stencil4d, subcomm3d"},
      {":iter=1", "app: missing name"},
      {"stencil4d:msg=1M",
       "app 'stencil4d': unknown option 'msg' (accepted: dims, bytes, iter, compute, gpu)"},
      {"shift:gap=1s",
       "app 'shift': unknown option 'gap' (accepted: k, bytes, iter, compute, gpu)"},
      {"kripke:rounds=2", "app 'kripke': unknown option 'rounds'"},
      {"random-perm-third:gap=1ms", "app 'random-perm-third': unknown option 'gap'"},
      {"matrix:file=x.txt,bytes=5", "app 'matrix': unknown option 'bytes'"},
      {"stencil4d:bytes=-1M", "app 'stencil4d': option bytes: '-1M' is negative"},
      {"stencil4d:bytes=0", "app 'stencil4d': option bytes: must be at least 1"},
      {"stencil4d:bytes=2048G", "option bytes: 2199023255552 exceeds the limit"},
      {"stencil4d:bytes=1.5M", "option bytes: '1.5M' is not an integer"},
      {"stencil4d:iter=0", "app 'stencil4d': option iter: 0 is out of range 1..1000000"},
      {"stencil4d:iter=-3", "option iter: '-3' is negative"},
      {"stencil4d:iter=1000001", "option iter: 1000001 is out of range"},
      {"stencil4d:compute=-2ms", "app 'stencil4d': option compute: '-2ms' is negative"},
      {"stencil4d:compute=2", "option compute: '2' needs a unit (s, ms, us, ns)"},
      {"stencil4d:compute=fast", "option compute: 'fast' is not a number"},
      {"stencil4d:compute=2h", "option compute: '2h' is not a number"},
      {"stencil4d:compute=2hs", "option compute: '2hs' is not a number"},
      {"stencil4d:compute=4000s", "option compute: 4000 s is out of range 0..3600"},
      {"stencil4d:gpu=0", "app 'stencil4d': option gpu: must be above 0"},
      {"stencil4d:gpu=-2", "option gpu: '-2' is negative"},
      {"stencil4d:gpu=nan", "option gpu: 'nan' is not a number"},
      {"stencil4d:gpu=inf", "option gpu: 'inf' is not a number"},
      {"stencil4d:dims=2x2x8", "option dims: '2x2x8' has 3 extents, expected 4"},
      {"subcomm3d:dims=2x0x4", "option dims: '2x0x4' has an extent of 0"},
      {"subcomm3d:dims=2xx4", "option dims: bad extent in dims '2xx4'"},
      {"random-perm-mixed:rounds=0", "option rounds: 0 is out of range 1..64"},
      {"random-perm-mixed:rounds=65", "option rounds: 65 is out of range 1..64"},
      {"random-perm-mixed:gap=-1ms", "option gap: '-1ms' is negative"},
      {"stencil4d:iter", "option iter needs a value"},
      {"stencil4d:iter=", "option iter needs a value"},
      {"stencil4d:", "empty option"},
      {"stencil4d:iter=1,,gpu=2", "empty option"},
      {"stencil4d:iter=1,iter=2", "option iter given twice"},
      {"stencil4d: iter=1", "contains white space"},
      {"shift:k=0", "pattern 'shift': option k: must not be 0"},
      {"matrix:iter=2", "pattern 'matrix': needs option file=PATH"},
  };
  for (const auto& [text, message] : cases) {
    const std::string what = error_of([&spec = text] { AppSpec::parse(spec); });
    EXPECT_NE(what.find(message), std::string::npos) << text << " -> " << what;
  }
}

TEST(AppSpec, ValidateRejectsFieldsTheAppDoesNotTake) {
  AppSpec s = app_defaults("kripke");
  s.gap_s = 0.2;
  EXPECT_NE(error_of([&] { s.validate(); }).find("app 'kripke': does not take option gap"),
            std::string::npos);
  AppSpec shift = app_defaults("shift");
  shift.bytes = 5;  // a pattern source's size is its pattern's
  EXPECT_NE(error_of([&] { shift.validate(); }).find("app 'shift': does not take option bytes"),
            std::string::npos);
  AppSpec third = app_defaults("random-perm-third");
  third.dims = {3};
  EXPECT_NE(error_of([&] { third.validate(); }).find("does not take option dims"),
            std::string::npos);
}

TEST(AppSpec, ToStringRoundTrips) {
  for (const std::string text :
       {"stencil4d", "stencil4d:dims=2x2x2x4,bytes=1024,iter=3,compute=2ms,gpu=2.5",
        "subcomm3d:compute=16.8ms", "shift:k=3,bytes=4096,iter=2,compute=1s",
        "random-perm-mixed:gap=250us,rounds=3", "milc:gpu=1", "random-perm:compute=0.1s",
        "umesh:min=2,max=4,iter=4"}) {
    const AppSpec s = AppSpec::parse(text);
    EXPECT_EQ(AppSpec::parse(s.to_string()), s) << text << " -> " << s.to_string();
  }
  EXPECT_EQ(AppSpec::parse("stencil4d:compute=16.8ms,gpu=4.75").to_string(), "stencil4d");
  EXPECT_EQ(AppSpec::parse("shift:iter=2,k=3").to_string(), "shift:k=3,iter=2");
  EXPECT_EQ(AppSpec::parse("kripke:compute=0.1s").to_string(), "kripke:compute=100ms");
}

TEST(AppSpec, DurationsTakeAUnitAndPrintBackExactly) {
  EXPECT_EQ(parse_duration("2ms", nullptr), 2e-3);
  EXPECT_EQ(parse_duration("0.5s", nullptr), 0.5);
  EXPECT_EQ(parse_duration("250us", nullptr), 250e-6);
  EXPECT_EQ(parse_duration("10ns", nullptr), 10e-9);
  EXPECT_EQ(parse_duration("1e-3s", nullptr), 1e-3);
  EXPECT_EQ(parse_duration("0", nullptr), 0.0);
  std::string why;
  EXPECT_FALSE(parse_duration("ms", &why));
  EXPECT_EQ(why, "is not a number");
  EXPECT_FALSE(parse_duration("+2ms", &why));
  EXPECT_FALSE(parse_duration("0x10s", &why));
  EXPECT_EQ(duration_to_string(0.0168), "16.8ms");
  EXPECT_EQ(duration_to_string(0.1), "100ms");
  EXPECT_EQ(duration_to_string(2.0), "2s");
  EXPECT_EQ(duration_to_string(0.0), "0");
  for (const double t : {1e-12, 3.3e-7, 0.617e-3, 1234.5, 1.0 / 3}) {
    EXPECT_EQ(parse_duration(duration_to_string(t), nullptr), t) << duration_to_string(t);
  }
}

TEST(AppRegistry, NamesSkeletonsPhasedAndEveryOtherPattern) {
  const std::vector<std::string> names = app_names();
  const std::vector<std::string> apps = {
      "stencil3d",     "stencil4d",        "subcomm3d", "kripke",  "laghos",
      "amg",           "sw4lite",          "milc",      "nekbone", "random-perm-mixed",
      "stencil-mixed", "random-perm-third"};
  ASSERT_GE(names.size(), apps.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + apps.size()), apps);
  for (const std::string& p : pattern_names()) {
    EXPECT_EQ(std::count(names.begin(), names.end(), p), 1) << p;
  }
  for (const std::string& n : names) {
    EXPECT_FALSE(summary_of_app(n).empty()) << n;
    EXPECT_FALSE(app_options(n).empty()) << n;
  }
  EXPECT_EQ(app_options("random-perm-mixed"),
            (std::vector<std::string>{"bytes", "iter", "compute", "gpu", "gap", "rounds"}));
}

// --- generation: limits checked first
// -------------------------------------------------------------

TEST(AppModel, RejectsRankCountsAndGridsThatDoNotFit) {
  EXPECT_NE(error_of([] { gen("stencil4d", 0); }).find("app 'stencil4d': no ranks"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              gen("kripke", kMaxAppRanks + 1);
            }).find("app 'kripke': 1048577 ranks; at most 1048576 are allowed"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              gen("subcomm3d:dims=2x2x3", 8);
            }).find("app 'subcomm3d': option dims: 2x2x3 holds 12 ranks, the job has 8"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              gen("random-perm-mixed", 2);
            }).find("app 'random-perm-mixed': needs at least 3 ranks"),
            std::string::npos);
  EXPECT_NE(error_of([] { gen("shift:k=4", 4); }).find("pattern 'shift': k=4"), std::string::npos);
}

TEST(AppModel, RefusesTooManyMessagesBeforeGenerating) {
  // 5000 x 4999 pairs: refused from the bound alone (generating would take seconds and 400 MB).
  const AppSpec all = AppSpec::parse("all-to-all");
  EXPECT_EQ(app_message_bound(all, 5000), 5000u * 4999u);
  EXPECT_NE(error_of([&] {
              generate_app(all, 5000, 1);
            }).find("app 'all-to-all': up to 24995000 messages on 5000 ranks; at most 20000000"),
            std::string::npos);
  EXPECT_EQ(app_message_bound(AppSpec::parse("subcomm3d"), 1000), 1000u * 27u);  // 10x10x10
  EXPECT_EQ(app_message_bound(AppSpec::parse("random-perm-mixed:rounds=3"), 100), 600u);
}

TEST(AppModel, EveryAppKeepsItsContractAndBound) {
  for (const std::string& name : app_names()) {
    if (name == "matrix") continue;  // needs a file: AppModel.MatrixIsTheFilesBytesAsOnePhase
    for (const std::uint32_t ranks : {3u, 16u, 24u, 32u, 64u}) {
      const AppSpec spec = app_defaults(name);
      const AppProgram p = generate_app(spec, ranks, 7);
      std::uint64_t messages = 0;
      for (const AppPhase& phase : p.phases) {
        EXPECT_EQ(phase.compute_s.size(), ranks) << name;
        EXPECT_GE(phase.iterations, 1u);
        for (std::size_t i = 0; i < phase.messages.size(); ++i) {
          const RankFlow& m = phase.messages[i];
          EXPECT_NE(m.src, m.dst) << name;
          EXPECT_LT(m.dst, ranks) << name;
          EXPECT_GT(m.bytes, 0u) << name;
          if (i > 0) {
            EXPECT_LE(phase.messages[i - 1].src, m.src) << name;
          }
        }
        messages += phase.messages.size();
      }
      EXPECT_LE(messages, app_message_bound(spec, ranks)) << name << " on " << ranks;
      EXPECT_EQ(p.app, spec.to_string());
      EXPECT_EQ(p.ranks, ranks);
    }
  }
}

TEST(AppModel, SameSeedSameProgram_RandomAppsChangeWithTheSeed) {
  for (const std::string name :
       {"random-perm", "random-perm-mixed", "random-perm-third", "random8", "umesh"}) {
    const AppProgram a = gen(name, 64, 11);
    const AppProgram b = gen(name, 64, 11);
    const AppProgram c = gen(name, 64, 12);
    ASSERT_EQ(a.phases.size(), b.phases.size());
    for (std::size_t i = 0; i < a.phases.size(); ++i) {
      EXPECT_EQ(a.phases[i].messages, b.phases[i].messages) << name;
    }
    EXPECT_NE(a.phases[0].messages, c.phases[0].messages) << name;
  }
  EXPECT_EQ(gen("nekbone", 64, 1).phases[0].messages, gen("nekbone", 64, 2).phases[0].messages);
}

// --- exact message sets
// -----------------------------------------------------------------------------

TEST(AppSkeleton, Stencil4dOnTwoCubedTwiceSendsTwoMessagesToEachOfFourNeighbours) {
  // 2x2x2x2: strides 8, 4, 2, 1; along every dimension +1 and -1 are the same rank (r xor
  // stride), and the thesis' code sends to both (8 MPI_Isend per iteration, Fig 2.5).
  const AppProgram p = gen("stencil4d:dims=2x2x2x2,bytes=1000,compute=1ms,gpu=2,iter=3", 16);
  ASSERT_EQ(p.phases.size(), 1u);
  const AppPhase& phase = p.phases[0];
  EXPECT_EQ(phase.name, "stencil4d");
  EXPECT_EQ(phase.iterations, 3u);
  EXPECT_FALSE(phase.barrier_before);
  EXPECT_EQ(phase.compute_s, std::vector<double>(16, 0.5e-3));
  std::vector<RankFlow> expected;
  for (std::uint32_t r = 0; r < 16; ++r) {
    for (const std::uint32_t stride : {8u, 4u, 2u, 1u}) {
      expected.push_back({r, r ^ stride, 1000});
      expected.push_back({r, r ^ stride, 1000});
    }
  }
  EXPECT_EQ(phase.messages, expected);
  // The same pairs as the stencil4d pattern the controller routes.
  EXPECT_EQ(pair_set(phase.messages),
            pair_set(generate_pattern(PatternSpec::parse("stencil4d:dims=2x2x2x2"), 16, 1)));
}

TEST(AppSkeleton, Stencil4dOnTheThesisGridMatchesThePatternOneMessagePerPair) {
  const AppProgram p = gen("stencil4d:bytes=4096", 1024);  // 8x8x4x4 (thesis 4.4.2)
  const std::vector<RankFlow> pattern =
      generate_pattern(PatternSpec::parse("stencil4d:bytes=4096"), 1024, 1);
  EXPECT_EQ(aggregate_rank_traffic(p), pattern);
  EXPECT_EQ(destinations(p.phases[0], 0),
            (std::vector<std::uint32_t>{128, 896, 16, 112, 4, 12, 1, 3}));
}

TEST(AppSkeleton, Subcomm3dOnTwoCubedTalksAlongEachLine) {
  // 2x2x2: every line has two ranks, so each rank's three sub-communicators hold one partner each.
  const AppProgram p = gen("subcomm3d:dims=2x2x2,bytes=64", 8);
  std::vector<RankFlow> expected;
  for (std::uint32_t r = 0; r < 8; ++r) {
    for (const std::uint32_t stride : {4u, 2u, 1u}) expected.push_back({r, r ^ stride, 64});
  }
  EXPECT_EQ(p.phases.at(0).messages, expected);
}

TEST(AppSkeleton, Subcomm3dAllToAllWithinEveryLine) {
  // 2x3x4, strides 12, 4, 1: rank 17 = (1, 1, 1).
  const AppProgram p = gen("subcomm3d:dims=2x3x4", 24);
  EXPECT_EQ(destinations(p.phases[0], 17), (std::vector<std::uint32_t>{5, 13, 21, 16, 18, 19}));
  EXPECT_EQ(p.phases[0].messages.size(), 24u * 6u);
}

TEST(AppSkeleton, MeshSkeletonsHaveNoWrapAround) {
  // kripke on 2x3x4, rank 0 = (0, 0, 0): only the + neighbours exist.
  const AppProgram kripke = gen("kripke:dims=2x3x4", 24);
  EXPECT_EQ(destinations(kripke.phases[0], 0), (std::vector<std::uint32_t>{12, 4, 1}));
  // sw4lite on 3x3, the centre rank 4: four faces, then the allreduce's 1, 2, 4, 8 hops.
  const AppProgram sw4 = gen("sw4lite:dims=3x3", 9);
  EXPECT_EQ(destinations(sw4.phases[0], 4), (std::vector<std::uint32_t>{7, 1, 5, 3, 5, 6, 8, 3}));
  // amg on 1x1x8: level distances 1, 2, 4 along z, face bytes quartered per level.
  const AppProgram amg = gen("amg:dims=1x1x8,bytes=1024", 8);
  std::vector<RankFlow> rank2;
  for (const RankFlow& m : amg.phases[0].messages) {
    if (m.src == 2) rank2.push_back(m);
  }
  EXPECT_EQ(rank2, (std::vector<RankFlow>{{2, 3, 1024},
                                          {2, 1, 1024},
                                          {2, 4, 256},
                                          {2, 0, 256},
                                          {2, 6, 64},
                                          {2, 3, 8},
                                          {2, 4, 8},
                                          {2, 6, 8}}));
}

TEST(AppSkeleton, NekboneCentreRankHas26NeighboursWithFaceEdgeCornerSizes) {
  const AppProgram p = gen("nekbone:dims=3x3x3,bytes=4096", 27);
  std::vector<RankFlow> centre;
  for (const RankFlow& m : p.phases[0].messages) {
    if (m.src == 13) centre.push_back(m);
  }
  ASSERT_EQ(centre.size(), 26u + 5u);  // 26 neighbours, then the allreduce's 1, 2, 4, 8, 16
  std::map<std::uint64_t, int> sizes;
  for (std::size_t i = 0; i < 26; ++i) ++sizes[centre[i].bytes];
  EXPECT_EQ(sizes, (std::map<std::uint64_t, int>{{16, 8}, {256, 12}, {4096, 6}}));
  EXPECT_EQ(centre[0], (RankFlow{13, 0, 16}));  // offset (-1, -1, -1): a corner
}

// --- thesis Fig 3.1: compute / communication shares
// ------------------------------------------------

struct ShareCase {
  std::string name;
  double cpu_comm_share;  // gpu=1
  double gpu_comm_share;  // with the app's default GPU speedup
};

std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t pos = 1;  // after the leading '|'
  for (std::size_t bar; (bar = line.find('|', pos)) != std::string::npos; pos = bar + 1) {
    std::string cell = line.substr(pos, bar - pos);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    cells.push_back(cell);
  }
  return cells;
}

// The table of docs/simulation-timing.md, "Skeletons and Fig 3.1": its app names and its two share
// columns, so that the document and the model cannot drift apart.
std::vector<ShareCase> documented_shares() {
  std::ifstream in(std::string(IBSDN_SOURCE_DIR) + "/docs/simulation-timing.md");
  std::string line;
  while (std::getline(in, line) && line != "### Skeletons and Fig 3.1") {
  }
  while (std::getline(in, line) && line.rfind("| app |", 0) != 0) {
  }
  const std::vector<std::string> header = table_cells(line);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t cpu = column("comm share CPU");
  const std::size_t gpu = column("comm share GPU");
  std::vector<ShareCase> out;
  while (std::getline(in, line) && line.rfind("|", 0) == 0) {
    const std::vector<std::string> cells = table_cells(line);
    if (cells.size() != header.size() || cells[0].rfind("`", 0) != 0) continue;
    out.push_back(
        {cells[0].substr(1, cells[0].size() - 2), std::stod(cells[cpu]), std::stod(cells[gpu])});
  }
  return out;
}

TEST(AppSkeleton, CommunicationSharesMatchTheDocumentedTableOn32RanksAtThesisBandwidth) {
  const std::vector<ShareCase> table = documented_shares();
  std::vector<std::string> names;
  for (const ShareCase& c : table) names.push_back(c.name);
  ASSERT_EQ(names, (std::vector<std::string>{"stencil4d", "subcomm3d", "kripke", "laghos", "amg",
                                             "sw4lite", "milc", "nekbone"}));
  for (const ShareCase& c : table) {
    AppSpec cpu = app_defaults(c.name);
    cpu.gpu_speedup = 1;
    const double cpu_share =
        estimate_profile(generate_app(cpu, kAppReferenceRanks, 1), kThesisLinkBandwidth)
            .comm_share();
    const double gpu_share =
        estimate_profile(generate_app(app_defaults(c.name), kAppReferenceRanks, 1),
                         kThesisLinkBandwidth)
            .comm_share();
    // The table states 3 decimals.
    EXPECT_NEAR(cpu_share, c.cpu_comm_share, 0.0005) << c.name;
    EXPECT_NEAR(gpu_share, c.gpu_comm_share, 0.0005) << c.name;
  }
}

TEST(AppSkeleton, SharesKeepWhatThesis32SaysOfEachApplication) {
  const auto share = [](const char* name, bool gpu) {
    AppSpec s = app_defaults(name);
    if (!gpu) s.gpu_speedup = 1;
    return estimate_profile(generate_app(s, kAppReferenceRanks, 1), kThesisLinkBandwidth)
        .comm_share();
  };
  // "At 32 processes, Stencil4d and Subcomm3d are dominated by communication", and after
  // scaling "spend most of their time in communication".
  for (const char* n : {"stencil4d", "subcomm3d"}) {
    EXPECT_GT(share(n, false), 0.5) << n;
    EXPECT_GT(share(n, true), 0.9) << n;
  }
  // "Kripke and Laghos ... more than 95% of the time in computation".
  for (const char* n : {"kripke", "laghos"}) EXPECT_LT(share(n, false), 0.05) << n;
  // "AMG and SW4lite spend ~80% of their time in computation".
  for (const char* n : {"amg", "sw4lite"}) EXPECT_NEAR(share(n, false), 0.2, 0.01) << n;
  // "the other applications now spend between 25-65% in communication".
  for (const char* n : {"kripke", "laghos", "amg", "sw4lite"}) {
    EXPECT_GE(share(n, true), 0.25 - 0.001) << n;
    EXPECT_LE(share(n, true), 0.65 + 0.001) << n;
  }
}

TEST(AppModel, ProfileIsSlowestComputePlusLargestInjectionTimesIterations) {
  // 16 ranks, 8 messages of 1000 bytes out of and into every rank, 3 iterations, 1 ms / 2.
  const AppProgram p = gen("stencil4d:dims=2x2x2x2,bytes=1000,compute=1ms,gpu=2,iter=3", 16);
  const AppProfile profile = estimate_profile(p, 1e6);
  EXPECT_DOUBLE_EQ(profile.compute_s, 3 * 0.5e-3);
  EXPECT_DOUBLE_EQ(profile.comm_s, 3 * 8000 / 1e6);
}

// --- thesis 4.4.2: phased workloads
// -----------------------------------------------------------------

TEST(AppPhased, RandomPermMixedIsTwoDifferentPermutationsAroundAHundredMsGap) {
  const AppProgram p = gen("random-perm-mixed:iter=4,compute=1ms", 64, 5);
  ASSERT_EQ(p.phases.size(), 3u);
  const AppPhase& a = p.phases[0];
  const AppPhase& gap = p.phases[1];
  const AppPhase& b = p.phases[2];
  EXPECT_EQ(a.name, "perm-a");
  EXPECT_EQ(gap.name, "gap");
  EXPECT_EQ(b.name, "perm-b");
  EXPECT_FALSE(a.barrier_before);
  EXPECT_TRUE(gap.barrier_before);
  EXPECT_TRUE(b.barrier_before);
  EXPECT_EQ(a.iterations, 4u);
  EXPECT_EQ(b.iterations, 4u);
  EXPECT_EQ(gap.iterations, 1u);
  EXPECT_TRUE(gap.messages.empty());
  EXPECT_EQ(gap.compute_s, std::vector<double>(64, 0.1));
  EXPECT_EQ(a.compute_s, std::vector<double>(64, 1e-3));
  // A is the random-perm of the job's seed; B another derangement, every rank's partner moved.
  PatternSpec perm;
  perm.name = "random-perm";
  EXPECT_EQ(a.messages, generate_pattern(perm, 64, 5));
  ASSERT_EQ(b.messages.size(), 64u);
  std::set<std::uint32_t> targets;
  for (std::uint32_t r = 0; r < 64; ++r) {
    EXPECT_EQ(b.messages[r].src, r);
    EXPECT_NE(b.messages[r].dst, r);
    EXPECT_NE(b.messages[r].dst, a.messages[r].dst) << "rank " << r;
    targets.insert(b.messages[r].dst);
  }
  EXPECT_EQ(targets.size(), 64u);
  EXPECT_EQ(aggregate_rank_traffic(p).size(), 128u);
}

TEST(AppPhased, RoundsRepeatTheSequenceAndTheGpuScalesTheGap) {
  const AppProgram p = gen("random-perm-mixed:rounds=2,gap=40ms,gpu=4", 16, 1);
  std::vector<std::string> names;
  for (const AppPhase& phase : p.phases) names.push_back(phase.name);
  EXPECT_EQ(names, (std::vector<std::string>{"perm-a", "gap", "perm-b", "gap", "perm-a", "gap",
                                             "perm-b"}));
  EXPECT_EQ(p.phases[1].compute_s, std::vector<double>(16, 0.01));
  EXPECT_EQ(p.phases[0].messages, p.phases[4].messages);
  for (std::size_t i = 1; i < p.phases.size(); ++i) EXPECT_TRUE(p.phases[i].barrier_before);
}

TEST(AppPhased, StencilMixedIsStencil3dThenGapThenStencil4dOnTheThesisGrids) {
  const AppProgram p = gen("stencil-mixed:bytes=1K", 1024);
  ASSERT_EQ(p.phases.size(), 3u);
  EXPECT_EQ(p.phases[0].name, "stencil3d");
  EXPECT_EQ(p.phases[2].name, "stencil4d");
  EXPECT_EQ(p.phases[1].compute_s, std::vector<double>(1024, 0.1));
  // 8x8x16 and 8x8x4x4 (thesis 4.4.2): rank 0's neighbours 128 / 896, 16 / 112, 1 / 15, ...
  EXPECT_EQ(destinations(p.phases[0], 0), (std::vector<std::uint32_t>{128, 896, 16, 112, 1, 15}));
  EXPECT_EQ(destinations(p.phases[2], 0),
            (std::vector<std::uint32_t>{128, 896, 16, 112, 4, 12, 1, 3}));
  EXPECT_EQ(phase_rank_traffic(p.phases[0]),
            generate_pattern(PatternSpec::parse("stencil3d:bytes=1K"), 1024, 1));
}

TEST(AppPhased, RandomPermThirdKeepsEveryThirdSourceOfTheSameSeedsPermutation) {
  const AppProgram p = gen("random-perm-third", 1536, 9);
  ASSERT_EQ(p.phases.size(), 1u);
  PatternSpec perm;
  perm.name = "random-perm";
  std::vector<RankFlow> expected;
  for (const RankFlow& f : generate_pattern(perm, 1536, 9)) {
    if (f.src % 3 == 0) expected.push_back(f);
  }
  EXPECT_EQ(p.phases[0].messages, expected);
  EXPECT_EQ(expected.size(), 512u);
  // 8 of the 24 sources of every 24-rank leaf (the 3:1 tapered tree's), under block placement.
  for (std::uint32_t leaf = 0; leaf < 1536 / 24; ++leaf) {
    EXPECT_EQ(std::count_if(expected.begin(), expected.end(),
                            [&](const RankFlow& f) { return f.src / 24 == leaf; }),
              8);
  }
}

// --- aggregate traffic for the static model
// ---------------------------------------------------------

TEST(AppTraffic, AggregateSumsRepeatedPairsAndScalesByIterationsForTheWholeRun) {
  const AppProgram p = gen("stencil4d:dims=2x2x2x2,bytes=1000,iter=3", 16);
  const std::vector<RankFlow> pass = aggregate_rank_traffic(p);
  ASSERT_EQ(pass.size(), 64u);
  EXPECT_EQ(pass[0], (RankFlow{0, 1, 2000}));
  for (const RankFlow& f : pass) EXPECT_EQ(f.bytes, 2000u);
  const std::vector<RankFlow> run = aggregate_rank_traffic(p, TrafficSpan::kWholeRun);
  for (const RankFlow& f : run) EXPECT_EQ(f.bytes, 6000u);
}

TEST(AppTraffic, PatternSourceAggregateIsThePatternsFlows) {
  for (const std::string text : {"random-perm", "shift:k=5", "umesh", "all-to-all"}) {
    const AppProgram p =
        gen(text + (text.find(':') == std::string::npos ? ":" : ",") + "iter=4", 48, 3);
    EXPECT_EQ(aggregate_rank_traffic(p), generate_pattern(PatternSpec::parse(text), 48, 3)) << text;
  }
}

TEST(AppTraffic, OverflowOfAPairIsRefused) {
  AppProgram p;
  p.app = "test";
  p.ranks = 2;
  AppPhase phase;
  phase.iterations = 4;
  phase.compute_s = {0, 0};
  phase.messages = {{0, 1, std::uint64_t{1} << 62}};
  p.phases.push_back(phase);
  EXPECT_EQ(aggregate_rank_traffic(p), (std::vector<RankFlow>{{0, 1, std::uint64_t{1} << 62}}));
  EXPECT_THROW(aggregate_rank_traffic(p, TrafficSpan::kWholeRun), std::overflow_error);
}

TEST(AppModel, MatrixIsTheFilesBytesAsOnePhase) {
  const test::TempDir dir("ibsdn-app-matrix");
  const std::string path = dir.path() + "/tm.txt";
  {
    std::ofstream out(path);
    out << "0 1 100\n1 0 200\n2 0 300\n";
  }
  const AppSpec spec = AppSpec::parse("matrix:file=" + path + ",iter=2,compute=5ms");
  // 24 bytes of file hold at most 4 lines of 6 bytes: fewer than the 6 pairs of 3 ranks.
  EXPECT_EQ(app_message_bound(spec, 3), 4u);
  const AppProgram p = generate_app(spec, 3, 1);
  ASSERT_EQ(p.phases.size(), 1u);
  EXPECT_EQ(p.phases[0].iterations, 2u);
  EXPECT_EQ(p.phases[0].messages, (std::vector<RankFlow>{{0, 1, 100}, {1, 0, 200}, {2, 0, 300}}));
  // A missing file is named, not mistaken for a matrix too large (R (R - 1) pairs).
  EXPECT_NE(error_of([&] {
              gen("matrix:file=" + dir.path() + "/none.txt", 10'000);
            }).find("app 'matrix': cannot read '" + dir.path() + "/none.txt'"),
            std::string::npos);
}

}  // namespace
}  // namespace ibsdn
