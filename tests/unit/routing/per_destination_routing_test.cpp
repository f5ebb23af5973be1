// Routing for a target with one output port per (switch, destination), an LFT
// (RouteRequest::per_destination): sdn-volume and sdn-optimal on full, tapered and degraded
// fat-trees, for all-to-all, Random4, 3DNN, random permutations and heavy-tailed volumes, over
// many seeds. Their paths fit (per_destination_consistent), are shortest up*/down* paths, compile
// at FlowDefinitionLevel::kDlid without demoting a flow into entries the LFTs accept, and trace
// back to themselves; sdn-volume's largest utilisation is never above DmodK's (a start of the
// search), exactly; sdn-optimal keeps L_D = NL_D on permutations of full-bisection trees. And
// what the constraint costs against sdn-volume without it, measured and bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/fat_tree.hpp"
#include "routing/fat_tree_paths.hpp"
#include "routing/flow_compiler.hpp"
#include "routing/lft.hpp"
#include "routing/lft_overrides.hpp"
#include "routing/patterns/pattern.hpp"
#include "routing/per_destination.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"
#include "sim_backend/workload/volume_traffic.hpp"
#include "tests/support/fat_tree_fabrics.hpp"
#include "tests/support/flow_sets.hpp"
#include "tests/support/param_names.hpp"

namespace ibsdn {
namespace {

constexpr std::uint64_t kSeeds = 6;

enum class Tree : std::uint8_t { kTwoLevel, kThreeLevel, kTapered, kDegraded };

/// A fabric with the LFTs DmodK gives it (the default routes kDlid entries override).
struct Bed {
  Fabric f;
  LftSet dmodk;
  bool full_bisection = false;
};

Fabric degraded_three_level() {
  const Fabric full = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
  // Twelve of the 192 switch cables, spread by the seed: some pairs lose paths, no host all.
  const std::vector<CableEnd> cut = test::switch_cables(full, 5);
  Fabric f = without_cables(full, std::span(cut).first(12));
  std::string why;
  if (!recognize_fat_tree(f, &why)) throw std::logic_error(why);
  return f;
}

const Bed& bed(Tree tree) {
  static std::map<Tree, std::unique_ptr<Bed>> beds;
  auto& slot = beds[tree];
  if (!slot) {
    slot = std::make_unique<Bed>();
    switch (tree) {
      case Tree::kTwoLevel:
        slot->f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
        slot->full_bisection = true;
        break;
      case Tree::kThreeLevel:
        slot->f = generate_xgft(XgftParams::parse("3;4,4,4;1,4,4"));
        slot->full_bisection = true;
        break;
      case Tree::kTapered:  // 2:1 at both levels
        slot->f = generate_xgft(XgftParams::parse("3;4,4,4;1,2,2"));
        break;
      case Tree::kDegraded:
        slot->f = degraded_three_level();
        break;
    }
    slot->dmodk = lfts_per_destination(slot->f, sequential_lids(slot->f), *make_algorithm("dmodk"));
  }
  return *slot;
}

std::string to_string(Tree tree) {
  switch (tree) {
    case Tree::kTwoLevel:
      return "XGFT(2;4,4;1,4)";
    case Tree::kThreeLevel:
      return "XGFT(3;4,4,4;1,4,4)";
    case Tree::kTapered:
      return "XGFT(3;4,4,4;1,2,2)";
    case Tree::kDegraded:
      return "XGFT(3;4,4,4;1,4,4) without 12 cables";
  }
  return "?";
}

/// What the hosts exchange: a named pattern (unit volumes, or heavy-tailed ones drawn per flow),
/// a random permutation, or one of the volume generators' heavy-tailed MPI exchanges.
struct Demand {
  std::string name;                  // in test names
  std::string pattern;               // generate_pattern's name; empty: see below
  bool permutation = false;          // test::permutation
  std::optional<VolumeTraffic> mpi;  // volume_traffic
  bool heavy = false;                // bytes log-uniform over three decades
};

const Demand kDemands[] = {
    {"all_to_all", "all-to-all", false, {}, false},
    {"random4", "random4", false, {}, false},
    {"3dnn", "3dnn", false, {}, false},
    {"permutation", "", true, {}, false},
    {"random4_heavy", "random4", false, {}, true},
    {"3dnn_heavy", "3dnn", false, {}, true},
    {"permutation_heavy", "", true, {}, true},
    {"stencil27", "", false, VolumeTraffic::kStencil27, false},
    {"cg", "", false, VolumeTraffic::kCg, false},
    {"ft_all_to_all", "", false, VolumeTraffic::kFt, false},
    {"unstructured", "", false, VolumeTraffic::kUnstructured, false},
};

/// The demand over all hosts, ranks placed on hosts in an order drawn from the seed, without the
/// flows a degraded tree can no longer carry.
std::vector<Flow> flows_of(const Fabric& f, const Demand& d, std::uint64_t seed) {
  std::vector<NodeIdx> hosts = f.hcas();
  std::mt19937_64 rng(seed);
  std::shuffle(hosts.begin(), hosts.end(), rng);
  std::vector<Flow> flows;
  if (d.permutation) {
    flows = test::permutation(hosts, seed);
  } else {
    const auto ranks = static_cast<std::uint32_t>(hosts.size());
    const std::vector<RankFlow> rank_flows =
        d.mpi ? volume_traffic(*d.mpi, ranks, seed)
              : generate_pattern(PatternSpec::parse(d.pattern), ranks, seed);
    for (const RankFlow& r : rank_flows) {
      flows.push_back(Flow{.src = hosts[r.src], .dst = hosts[r.dst], .bytes = d.mpi ? r.bytes : 0});
    }
  }
  if (d.heavy) {
    std::uniform_real_distribution<double> decades(3.0, 6.0);
    for (Flow& fl : flows) fl.bytes = static_cast<std::uint64_t>(std::pow(10.0, decades(rng)));
  }
  const FatTreeLayout& t = *f.fat_tree();
  UpDownPaths reach(f, t);
  std::erase_if(flows, [&](const Flow& fl) {
    const NodeIdx src_leaf = t.leaf_of_host[t.host_of_node[fl.src.value()]];
    const NodeIdx dst_leaf = t.leaf_of_host[t.host_of_node[fl.dst.value()]];
    return reach.toward(dst_leaf).turn(src_leaf) == 0;
  });
  set_weights(flows);
  return flows;
}

std::vector<Path> route(const char* algorithm, const Fabric& f, std::span<const Flow> flows,
                        bool per_destination) {
  RouteRequest req{f, flows};
  req.per_destination = per_destination;
  return make_algorithm(algorithm)->route(req);
}

/// (a), (b) and (e): the paths fit one port per (switch, destination), are valid shortest
/// up*/down* paths, and become kDlid entries for every flow, which the LFTs take and which lead
/// every flow along its chosen path.
void expect_installable_in_lfts(const Bed& b, std::span<const Flow> flows,
                                const std::vector<Path>& paths, const std::string& what) {
  std::string why;
  ASSERT_TRUE(per_destination_consistent(b.f, flows, paths, &why)) << what << ": " << why;
  for (std::size_t i = 0; i < flows.size(); ++i)
    ASSERT_EQ(validate_path(b.f, flows[i], paths[i]), "") << what << ", flow " << i;
  CompileOptions opt;
  opt.level = FlowDefinitionLevel::kDlid;
  const CompiledFlows c = compile_flows(b.f, b.dmodk, flows, paths, JobId(7), opt);
  ASSERT_EQ(c.flows_on_default, 0u) << what;
  LftSet installed;
  ASSERT_NO_THROW(installed = lfts_with_dlid_entries(b.f, b.dmodk, c.tables)) << what;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Trace t = trace(b.f, installed, flows[i].src, flows[i].dst);
    ASSERT_TRUE(t.ok()) << what << ": " << t.error;
    ASSERT_EQ(t.path, paths[i]) << what << ", flow " << i;
  }
}

struct Case {
  Tree tree;
  Demand demand;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Tree tree : {Tree::kTwoLevel, Tree::kThreeLevel, Tree::kTapered, Tree::kDegraded}) {
    for (const Demand& d : kDemands) out.push_back({tree, d});
  }
  return out;
}

struct CaseName {
  std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
    return testing_names::identifier(to_string(info.param.tree) + " " + info.param.demand.name);
  }
};

class PerDestinationRouting : public ::testing::TestWithParam<Case> {};

TEST_P(PerDestinationRouting, SdnVolumeFitsTheLftAndIsNeverWorseThanDmodK) {
  const Bed& b = bed(GetParam().tree);
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const std::vector<Flow> flows = flows_of(b.f, GetParam().demand, seed);
    const std::string what = "seed " + std::to_string(seed);
    const std::vector<Path> paths = route("sdn-volume", b.f, flows, true);
    expect_installable_in_lfts(b, flows, paths, what);
    // (c) DmodK is one of the search's starts and every move lowers the maximum: not even a
    // rounding error above it.
    const double dmodk = evaluate(b.f, flows, route("dmodk", b.f, flows, true)).max_seconds;
    EXPECT_LE(evaluate(b.f, flows, paths).max_seconds, dmodk) << what;
  }
}

TEST_P(PerDestinationRouting, SdnOptimalFitsTheLftAndKeepsPermutationsAtTheNodeLoadBound) {
  const Bed& b = bed(GetParam().tree);
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const std::vector<Flow> flows = flows_of(b.f, GetParam().demand, seed);
    const std::string what = "seed " + std::to_string(seed);
    const std::vector<Path> paths = route("sdn-optimal", b.f, flows, true);
    expect_installable_in_lfts(b, flows, paths, what);
    if (GetParam().demand.permutation && b.full_bisection) {
      // (d) At most one source per destination fits an LFT as it is: still exact.
      EXPECT_EQ(paths, route("sdn-optimal", b.f, flows, false)) << what;
      const RouteQuality q = evaluate(b.f, flows, paths);
      EXPECT_EQ(static_cast<std::uint32_t>(q.max_link_load), lower_bound(b.f, flows).node_load)
          << what;
      // sdn-volume starts from those paths (they fit), and so reaches the bound too.
      const RouteQuality v = evaluate(b.f, flows, route("sdn-volume", b.f, flows, true));
      if (!GetParam().demand.heavy) {
        EXPECT_EQ(static_cast<std::uint32_t>(v.max_link_load), q.bound.node_load) << what;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Trees, PerDestinationRouting, ::testing::ValuesIn(cases()), CaseName{});

/// What one port per (switch, destination) costs sdn-volume: its largest link utilisation under
/// the constraint over the one without, per demand. Never below DmodK's quality (tested above),
/// so bounded; measurable: somewhere the constraint must cost something, or it was not applied.
/// The ratios are printed (ctest -V). On these trees, seeds 1-6, they came out at a mean of 1.0001
/// and at most 1.0034 (the degraded tree's stencil27), 38 of the 264 demands above 1: with every
/// host in the job the host links bind most demands, constraint or not. (On the volume catalogue
/// at bench scale, jobs on part of a 512-host tree, the mean was 1.0002 and the largest 1.022.)
TEST(PerDestinationCost, ConstrainedUtilisationIsMeasurablyButBoundedlyAboveUnconstrained) {
  double sum = 0.0;
  double worst = 0.0;
  std::string worst_case;
  std::size_t n = 0;
  std::size_t costlier = 0;
  for (const Case& c : cases()) {
    const Bed& b = bed(c.tree);
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      const std::vector<Flow> flows = flows_of(b.f, c.demand, seed);
      const double free = evaluate(b.f, flows, route("sdn-volume", b.f, flows, false)).max_seconds;
      const double lft = evaluate(b.f, flows, route("sdn-volume", b.f, flows, true)).max_seconds;
      const double ratio = lft / free;
      sum += ratio;
      ++n;
      costlier += ratio > 1.0 ? 1 : 0;
      if (ratio > worst) {
        worst = ratio;
        worst_case = to_string(c.tree) + " " + c.demand.name + " seed " + std::to_string(seed);
      }
    }
  }
  std::printf(
      "sdn-volume per destination / unconstrained, max utilisation over %zu demands: "
      "mean %.4f, largest %.4f (%s), %zu costlier\n",
      n, sum / static_cast<double>(n), worst, worst_case.c_str(), costlier);
  EXPECT_GT(costlier, 0u);
  EXPECT_LT(worst, 1.5);
}

}  // namespace
}  // namespace ibsdn
