// The per-destination check (routing/per_destination.hpp) and what the algorithms do with
// RouteRequest::per_destination: those that honour it return paths the check accepts, the others
// refuse the request naming those that do.
#include "routing/per_destination.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/xgft.hpp"
#include "tests/support/throws_naming.hpp"

namespace ibsdn {
namespace {

/// Every ordered pair of `hosts`.
std::vector<Flow> all_to_all(const std::vector<NodeIdx>& hosts) {
  std::vector<Flow> out;
  for (NodeIdx a : hosts) {
    for (NodeIdx b : hosts) {
      if (a != b) out.push_back(Flow{.src = a, .dst = b});
    }
  }
  return out;
}

TEST(PerDestinationCheck, AcceptsDmodKAndNamesWhereSmodKSplitsADestination) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const std::vector<Flow> flows = all_to_all(f.hcas());
  const auto dmodk = make_algorithm("dmodk")->route({f, flows});
  std::string why;
  EXPECT_TRUE(per_destination_consistent(f, flows, dmodk, &why)) << why;
  const auto smodk = make_algorithm("smodk")->route({f, flows});
  ASSERT_FALSE(per_destination_consistent(f, flows, smodk, &why));
  // Two sources on one leaf take different up ports toward one destination on another leaf.
  EXPECT_NE(why.find("sends traffic for "), std::string::npos) << why;
  EXPECT_NE(why.find(" out of port "), std::string::npos) << why;
  EXPECT_FALSE(per_destination_consistent(f, flows, smodk, nullptr));
}

TEST(PerDestinationCheck, SkipsFlowsWithoutAPathAndRefusesAMissingPath) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const std::vector<Flow> flows = all_to_all(f.hcas());
  std::vector<Path> smodk = make_algorithm("smodk")->route({f, flows});
  // Only one flow per destination keeps its path: nothing can disagree.
  std::vector<bool> kept(f.num_nodes(), false);
  for (std::size_t i = 0; i < flows.size(); ++i) {
    if (kept[flows[i].dst.value()]) smodk[i].clear();
    kept[flows[i].dst.value()] = true;
  }
  EXPECT_TRUE(per_destination_consistent(f, flows, smodk, nullptr));
  smodk.pop_back();
  EXPECT_TRUE(test::throws_naming(
      [&] { (void)per_destination_consistent(f, flows, smodk, nullptr); }, "paths for"));
}

TEST(PerDestinationRequest, AlgorithmsThatDoNotHonourItRefuseNamingThoseThatDo) {
  const Fabric tree = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const Fabric dragonfly = generate_dragonfly(2, 4, 2, 5);
  std::string honouring;
  for (const std::string& name : algorithm_names()) {
    if (make_algorithm(name)->honours_per_destination()) honouring += name + " ";
  }
  EXPECT_NE(honouring.find("dmodk"), std::string::npos) << honouring;
  EXPECT_NE(honouring.find("minhop"), std::string::npos) << honouring;
  for (const std::string& name : algorithm_names()) {
    const auto alg = make_algorithm(name);
    const Fabric& f = alg->unsupported_reason(tree).empty() ? tree : dragonfly;
    ASSERT_EQ(alg->unsupported_reason(f), "") << name;
    const std::vector<Flow> flows = all_to_all(f.hcas());
    RouteRequest req{f, flows};
    req.per_destination = true;
    if (alg->honours_per_destination()) {
      const auto paths = alg->route(req);
      std::string why;
      EXPECT_TRUE(per_destination_consistent(f, flows, paths, &why)) << name << ": " << why;
    } else {
      EXPECT_TRUE(test::throws_naming([&] { (void)alg->route(req); }, "these can: dmodk")) << name;
      req.per_destination = false;
      EXPECT_NO_THROW((void)alg->route(req)) << name;
    }
  }
}

}  // namespace
}  // namespace ibsdn
