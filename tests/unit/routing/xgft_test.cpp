#include <gtest/gtest.h>

#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

TEST(Xgft, ParsesNotationWithAndWithoutWrapper) {
  const auto a = XgftParams::parse("3;8,8,16;1,8,8");
  const auto b = XgftParams::parse("XGFT(3;8,8,16;1,8,8)");
  EXPECT_EQ(a.to_string(), "XGFT(3;8,8,16;1,8,8)");
  EXPECT_EQ(b.to_string(), a.to_string());
  EXPECT_EQ(a.num_hosts(), 1024u);
  EXPECT_TRUE(a.full_bisection());
  EXPECT_FALSE(XgftParams::parse("3;24,16,4;1,8,16").full_bisection());
}

TEST(Xgft, RejectsMalformedNotationNamingThePart) {
  EXPECT_THROW(XgftParams::parse("3;8,8;1,8,8"), std::invalid_argument);
  EXPECT_THROW(XgftParams::parse("2;8,x;1,8"), std::invalid_argument);
  EXPECT_THROW(XgftParams::parse("2;8,8;2,8"), std::invalid_argument);
  EXPECT_THROW(XgftParams::parse("2;8,8;1,8;4"), std::invalid_argument);
  EXPECT_THROW(XgftParams::parse("2;200,8;1,100"), std::invalid_argument);
  try {
    XgftParams::parse("2;8,x;1,8");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

TEST(Xgft, GeneratesTheThesisExampleWithDownPortsFirst) {
  // XGFT(3;4,4,3;1,2,2) from thesis Figure 2.2.
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,3;1,2,2"));
  const XgftLayout& x = *f.xgft();
  EXPECT_EQ(f.hcas().size(), 48u);
  EXPECT_EQ(x.switches[0].size(), 12u);
  EXPECT_EQ(x.switches[1].size(), 6u);
  EXPECT_EQ(x.switches[2].size(), 4u);
  for (NodeIdx s : x.switches[1]) {
    const Node& n = f.node(s);
    ASSERT_EQ(n.ports.size(), 6u);
    for (int p = 0; p < 4; ++p) EXPECT_EQ(f.level(n.ports[p].peer), 1) << n.name;
    for (int p = 4; p < 6; ++p) EXPECT_EQ(f.level(n.ports[p].peer), 3) << n.name;
  }
  for (NodeIdx s : x.switches[2]) {
    for (const Port& p : f.node(s).ports) EXPECT_TRUE(p.connected());
  }
  EXPECT_EQ(f.node(x.hosts[0]).name, "n0001");
  EXPECT_EQ(f.node(x.hosts[0]).description, "n0001 HCA-1");
  EXPECT_EQ(f.node(x.switches[0][2]).name, "l1s003");
}

TEST(Xgft, EveryYIndexGivesADistinctShortestPathThatRoundTrips) {
  const Fabric f = generate_xgft(XgftParams::parse("3;4,4,3;1,2,2"));
  const XgftLayout& x = *f.xgft();
  for (std::uint32_t s = 0; s < 48; s += 5) {
    for (std::uint32_t d = 0; d < 48; d += 3) {
      if (s == d) continue;
      const int k = x.nca_level(s, d);
      for (std::uint64_t y = 0; y < x.paths_at_level(k); ++y) {
        std::vector<LinkId> p;
        xgft_path(f, x, s, d, y, p);
        ASSERT_EQ(p.size(), static_cast<std::size_t>(2 * k));
        EXPECT_EQ(f.link(p.front()).from, x.hosts[s]);
        EXPECT_EQ(f.link(p.back()).to, x.hosts[d]);
        EXPECT_EQ(xgft_path_y_index(f, x, p), y);
      }
    }
  }
}

}  // namespace
}  // namespace ibsdn
