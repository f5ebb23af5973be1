// Proofs of the fat-tree routing algorithms: SDN-optimal reaches NL_D exactly on full-bisection
// XGFTs, every path is a valid shortest up*/down* path, SDN-greedy matches Algorithm 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "routing/algorithm.hpp"
#include "routing/route_quality.hpp"
#include "routing/sdn_adaptive.hpp"
#include "routing/sdn_optimal.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

// The tests build their own demands (not through routing/patterns) so that a bug there cannot
// hide one here. std::mt19937_64 is fully specified by the standard: same seeds, same demands.
std::vector<Flow> flows_from_pairs(const Fabric& f,
                                   const std::vector<std::pair<std::uint32_t, std::uint32_t>>& p) {
  std::vector<Flow> out;
  for (auto [s, d] : p) {
    Flow fl;
    fl.src = f.hcas()[s];
    fl.dst = f.hcas()[d];
    out.push_back(fl);
  }
  set_weights(out);
  return out;
}

using Pairs = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

Pairs random_multigraph(std::uint32_t n, std::uint32_t count, std::mt19937_64& rng) {
  Pairs p;
  while (p.size() < count) {
    const auto s = static_cast<std::uint32_t>(rng() % n);
    const auto d = static_cast<std::uint32_t>(rng() % n);
    if (s != d) p.emplace_back(s, d);  // repeated pairs allowed: a multigraph
  }
  return p;
}

Pairs random_permutation(std::uint32_t n, std::mt19937_64& rng) {
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::shuffle(perm.begin(), perm.end(), rng);
  Pairs p;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (perm[i] != i) p.emplace_back(i, perm[i]);
  }
  return p;
}

Pairs shift(std::uint32_t n, std::uint32_t k) {
  Pairs p;
  for (std::uint32_t i = 0; i < n; ++i) p.emplace_back(i, (i + k) % n);
  return p;
}

Pairs stencil2d_with_wrap(std::uint32_t rows, std::uint32_t cols) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> s;
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t c = 0; c < cols; ++c) {
      const std::uint32_t me = r * cols + c;
      for (auto [dr, dc] : {std::pair{1u, 0u}, {rows - 1, 0u}, {0u, 1u}, {0u, cols - 1}}) {
        const std::uint32_t other = ((r + dr) % rows) * cols + (c + dc) % cols;
        if (other != me) s.emplace(me, other);
      }
    }
  }
  return Pairs(s.begin(), s.end());
}

Pairs all_to_all_subset(std::uint32_t n, std::uint32_t size, std::mt19937_64& rng) {
  std::vector<std::uint32_t> nodes(n);
  std::iota(nodes.begin(), nodes.end(), 0u);
  std::shuffle(nodes.begin(), nodes.end(), rng);
  nodes.resize(size);
  Pairs p;
  for (auto a : nodes) {
    for (auto b : nodes) {
      if (a != b) p.emplace_back(a, b);
    }
  }
  return p;
}

struct Routed {
  std::vector<Flow> flows;
  std::vector<Path> paths;
  RouteQuality q;
};

Routed route(const Fabric& f, const std::string& alg, const Pairs& pairs) {
  Routed r;
  r.flows = flows_from_pairs(f, pairs);
  r.paths = make_algorithm(alg)->route(RouteRequest{f, r.flows});
  EXPECT_EQ(r.paths.size(), r.flows.size());
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    const std::string why = validate_path(f, r.flows[i], r.paths[i]);
    EXPECT_EQ(why, "") << alg << " flow " << i;
    if (!why.empty()) break;
  }
  r.q = evaluate(f, r.flows, r.paths);
  return r;
}

const char* const kFullXgfts[] = {
    "2;4,4;1,4",     "2;6,3;1,6",     "2;3,7;1,3",     "2;8,8;1,8",         "3;4,4,3;1,4,4",
    "3;3,5,2;1,3,5", "3;2,2,6;1,2,2", "3;4,2,5;1,4,2", "4;2,3,2,2;1,2,3,2",
};

TEST(SdnOptimal, ReachesNodeLoadBoundOnFullXgfts_OverManyRandomDemands) {
  std::mt19937_64 rng(20261122);
  int demands = 0;
  for (const char* spec : kFullXgfts) {
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    const auto n = static_cast<std::uint32_t>(f.hcas().size());
    std::vector<Pairs> cases;
    for (int i = 0; i < 12; ++i)
      cases.push_back(random_multigraph(n, static_cast<std::uint32_t>(1 + rng() % (4 * n)), rng));
    for (int i = 0; i < 6; ++i) cases.push_back(random_permutation(n, rng));
    for (std::uint32_t k : {1u, 2u, n / 2, n - 1}) cases.push_back(shift(n, k));
    cases.push_back(stencil2d_with_wrap(n / 4 ? 4 : 1, n / 4 ? n / 4 : n));
    cases.push_back(all_to_all_subset(n, std::min(n, 9u), rng));
    cases.push_back(all_to_all_subset(n, n, rng));
    for (const Pairs& pairs : cases) {
      if (pairs.empty()) continue;
      const Routed r = route(f, "sdn-optimal", pairs);
      ASSERT_EQ(r.q.bound.value, r.q.bound.node_load)
          << spec << ": full trees have no subtree term";
      ASSERT_EQ(static_cast<std::uint32_t>(r.q.max_link_load), r.q.bound.node_load)
          << spec << " with " << pairs.size() << " flows";
      ++demands;
    }
  }
  EXPECT_GE(demands, 200);
}

TEST(SdnOptimal, PartitionsIntoExactlyNodeLoadMatchings) {
  std::mt19937_64 rng(7);
  const Fabric f = generate_xgft(XgftParams::parse("2;6,3;1,6"));
  const auto flows = flows_from_pairs(f, random_multigraph(18, 60, rng));
  const auto matchings = partition_into_matchings(*f.xgft(), flows);
  EXPECT_EQ(matchings.size(), node_load(flows));
  std::vector<int> used(flows.size(), 0);
  for (const auto& m : matchings) {
    std::set<NodeIdx> src;
    std::set<NodeIdx> dst;
    for (auto i : m) {
      ++used[i];
      EXPECT_TRUE(src.insert(flows[i].src).second) << "a source twice in one matching";
      EXPECT_TRUE(dst.insert(flows[i].dst).second) << "a destination twice in one matching";
    }
  }
  EXPECT_TRUE(std::all_of(used.begin(), used.end(), [](int u) { return u == 1; }));
}

TEST(SdnOptimal, ReachesBoundOnTheThunderXgftForAPermutation) {
  const Fabric f = generate_xgft(XgftParams::parse("3;8,8,16;1,8,8"));
  std::mt19937_64 rng(3);
  const Routed r = route(f, "sdn-optimal", random_permutation(1024, rng));
  EXPECT_EQ(r.q.max_link_load, 1);
}

TEST(DmodK, CongestsOnAdversarialPermutationWhereSdnOptimalDoesNot) {
  // Every host of leaf 0 sends to the hosts of leaf 1 with destinations that share d mod 4:
  // DmodK sends them all through one spine.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const Pairs pairs = {{0, 4}, {1, 8}, {2, 12}, {3, 0}};
  EXPECT_EQ(route(f, "dmodk", pairs).q.max_link_load, 3);
  EXPECT_EQ(route(f, "sdn-optimal", pairs).q.max_link_load, 1);
}

TEST(DmodK, IsDestinationBasedSoAnLftCanHoldIt) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,3;1,4,4"));
  std::mt19937_64 rng(11);
  const Routed r = route(f, "dmodk", random_multigraph(48, 400, rng));
  std::map<std::pair<std::uint32_t, std::uint32_t>, LinkId> out;  // (switch, dst) -> link
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    for (LinkId l : r.paths[i]) {
      const auto key = std::pair{f.link(l).from.value(), r.flows[i].dst.value()};
      auto [it, fresh] = out.emplace(key, l);
      EXPECT_TRUE(fresh || it->second == l) << "two ports for one destination at a switch";
    }
  }
}

// The paper's definition, literally: enumerate every shortest path, score each by its maximum
// link load, keep the first minimum in the order (y_2, y_3, ...) ascending.
std::vector<Path> greedy_reference(const Fabric& f, const std::vector<Flow>& flows) {
  const XgftLayout& x = *f.xgft();
  std::vector<int> load(f.num_links(), 0);
  std::vector<Path> out;
  for (const Flow& fl : flows) {
    const auto s = x.host_of_node[fl.src.value()];
    const auto d = x.host_of_node[fl.dst.value()];
    const int k = x.nca_level(s, d);
    std::vector<std::uint64_t> order;
    for (std::uint64_t y = 0; y < x.paths_at_level(k); ++y) order.push_back(y);
    // Sort by digits y_2, y_3, ... with y_2 most significant.
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
      for (int l = 2; l <= k; ++l) {
        const auto da = (a / x.w_prefix[l - 1]) % static_cast<std::uint64_t>(x.params.w[l - 1]);
        const auto db = (b / x.w_prefix[l - 1]) % static_cast<std::uint64_t>(x.params.w[l - 1]);
        if (da != db) return da < db;
      }
      return false;
    });
    Path best;
    int best_load = -1;
    for (std::uint64_t y : order) {
      Path p;
      xgft_path(f, x, s, d, y, p);
      int m = 0;
      for (LinkId l : p) m = std::max(m, load[l.value()]);
      if (best_load < 0 || m < best_load) {
        best_load = m;
        best = p;
      }
    }
    for (LinkId l : best) ++load[l.value()];
    out.push_back(best);
  }
  return out;
}

TEST(SdnGreedy, ChoosesExactlyThePathsOfAlgorithm2) {
  std::mt19937_64 rng(5);
  for (const char* spec : {"2;4,4;1,4", "3;3,3,2;1,3,3", "3;4,2,3;1,2,2"}) {
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    const auto n = static_cast<std::uint32_t>(f.hcas().size());
    for (int t = 0; t < 10; ++t) {
      const auto flows = flows_from_pairs(f, random_multigraph(n, n * 2, rng));
      const auto got = make_algorithm("sdn-greedy")->route(RouteRequest{f, flows});
      EXPECT_EQ(got, greedy_reference(f, flows)) << spec << " trial " << t;
    }
  }
}

TEST(SdnGreedy, HandCheckedSmallCaseTakesTheFreeSpine) {
  // XGFT(2;2,2;1,2): hosts 0,1 on leaf 0 and 2,3 on leaf 1; two spines.
  const Fabric f = generate_xgft(XgftParams::parse("2;2,2;1,2"));
  const Routed r = route(f, "sdn-greedy", {{0, 2}, {1, 3}});
  // First flow takes spine 0 (tie, lowest digit); second must avoid it.
  EXPECT_EQ(xgft_path_y_index(f, *f.xgft(), r.paths[0]), 0u);
  EXPECT_EQ(xgft_path_y_index(f, *f.xgft(), r.paths[1]), 1u);
  EXPECT_EQ(r.q.max_link_load, 1);
}

TEST(SdnGreedy, NeverWorseThanDmodKOnPermutations) {
  std::mt19937_64 rng(99);
  int better = 0;
  int equal = 0;
  for (const char* spec : {"2;8,8;1,8", "3;4,4,4;1,4,4", "3;8,8,4;1,8,8", "3;6,3,4;1,6,3"}) {
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    const auto n = static_cast<std::uint32_t>(f.hcas().size());
    for (int t = 0; t < 25; ++t) {
      const Pairs pairs = random_permutation(n, rng);
      const int greedy = route(f, "sdn-greedy", pairs).q.max_link_load;
      const int dmodk = route(f, "dmodk", pairs).q.max_link_load;
      ASSERT_LE(greedy, dmodk) << spec << " seed trial " << t;
      (greedy < dmodk ? better : equal)++;
    }
  }
  RecordProperty("greedy_better", better);
  RecordProperty("greedy_equal", equal);
  std::printf("sdn-greedy vs dmodk on 100 permutations: better %d, equal %d, worse 0\n", better,
              equal);
  EXPECT_GT(better, 50);
}

TEST(SdnGreedy, WeightedVariantBalancesWeights) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  std::mt19937_64 rng(1);
  const Routed r = route(f, "sdn-greedy-weighted", random_multigraph(16, 48, rng));
  const Routed u = route(f, "dmodk", random_multigraph(16, 48, rng));
  EXPECT_GT(r.q.max_weight, 0.0);
  EXPECT_LE(r.q.max_weight, u.q.max_weight + 1.0);
}

TEST(TaperedBound, CountsSubtreeUpLinks) {
  // XGFT(2;6,2;1,2): each leaf has 6 hosts and 2 up links (3:1).
  const Fabric f = generate_xgft(XgftParams::parse("2;6,2;1,2"));
  const auto flows = flows_from_pairs(f, shift(12, 6));  // every flow leaves its leaf
  const LowerBound b = lower_bound(f, flows);
  EXPECT_EQ(b.node_load, 1u);
  EXPECT_EQ(b.value, 3u);
  EXPECT_NE(b.binding.find("level-1"), std::string::npos) << b.binding;
}

TEST(SdnOptimalTapered, MeetsTheTaperedBoundOnPermutations) {
  std::mt19937_64 rng(42);
  for (const char* spec : {"2;6,2;1,2", "3;6,4,3;1,2,4", "3;24,16,4;1,8,16"}) {
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    const auto n = static_cast<std::uint32_t>(f.hcas().size());
    for (int t = 0; t < 5; ++t) {
      const Routed r = route(f, "sdn-optimal-tapered", random_permutation(n, rng));
      EXPECT_GE(static_cast<std::uint32_t>(r.q.max_link_load), r.q.bound.value);
      EXPECT_EQ(static_cast<std::uint32_t>(r.q.max_link_load), r.q.bound.value)
          << spec << " trial " << t << " bound " << r.q.bound.binding;
    }
  }
}

TEST(SdnOptimalTapered, AlsoReachesNodeLoadOnFullTrees) {
  std::mt19937_64 rng(8);
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,3;1,4,4"));
  for (int t = 0; t < 20; ++t) {
    const Routed r = route(f, "sdn-optimal-tapered", random_multigraph(48, 100, rng));
    EXPECT_EQ(static_cast<std::uint32_t>(r.q.max_link_load), r.q.bound.node_load);
  }
}

TEST(SdnAdaptive, UsesSinglePathOnlyForDemandsUpToAPermutation) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  EXPECT_TRUE(decide_sdn_adaptive(flows_from_pairs(f, shift(16, 3))).single_path);
  const auto dense = decide_sdn_adaptive(flows_from_pairs(f, {{0, 1}, {0, 2}}));
  EXPECT_FALSE(dense.single_path);
  EXPECT_EQ(dense.node_load, 2u);
  EXPECT_EQ(route(f, "sdn-adaptive", shift(16, 3)).q.max_link_load, 1);
}

TEST(Registry, UnknownAlgorithmListsTheKnownOnes) {
  try {
    (void)make_algorithm("ecmp");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sdn-optimal"), std::string::npos);
  }
}

TEST(Routing, RejectsFlowsThatAreNotBetweenDistinctHcas) {
  const Fabric f = generate_xgft(XgftParams::parse("2;2,2;1,2"));
  std::vector<Flow> flows(1);
  flows[0].src = f.hcas()[0];
  flows[0].dst = f.hcas()[0];
  EXPECT_THROW((void)make_algorithm("sdn-optimal")->route(RouteRequest{f, flows}),
               std::invalid_argument);
  flows[0].dst = f.switches()[0];
  EXPECT_THROW((void)make_algorithm("dmodk")->route(RouteRequest{f, flows}), std::invalid_argument);
}

}  // namespace
}  // namespace ibsdn
