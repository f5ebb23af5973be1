#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "plugin/opensm/glue_lft.hpp"
#include "plugin/opensm/sdn_engine.hpp"
#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/subnet.hpp"
#include "routing/xgft.hpp"
#include "tests/unit/plugin/abi_test_fabric.hpp"

namespace ibsdn::plugin {
namespace {

/// One OSMSDN_NO_PATH-filled buffer per switch, sized like OpenSM's (LIDs 0..max).
struct Tables {
  std::vector<std::vector<std::uint8_t>> bytes;
  std::vector<osmsdn_lft> lfts;
  Tables(const Fabric& f, std::size_t entries) {
    for (const NodeIdx s : f.switches()) {
      bytes.emplace_back(entries, OSMSDN_NO_PATH);
      lfts.push_back(osmsdn_lft{f.node(s).guid.value(), bytes.back().data(),
                                static_cast<std::uint32_t>(entries)});
    }
  }
  [[nodiscard]] std::uint8_t entry(std::size_t sw, Lid lid) const { return bytes[sw][lid.value()]; }
};

TEST(SdnEngine, RunsDmodKOnARecognisedXgftAndRoutesEveryLidEverywhere) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const LidMap lids = sequential_lids(f);
  const test::AbiBuffers abi = test::to_abi(f, lids);
  Subnet af = subnet_from_abi(abi.view);
  const SdnTables t = compute_sdn_tables(af);
  EXPECT_EQ(t.algorithm, "dmodk");
  EXPECT_EQ(t.topology, "XGFT(2;4,4;1,4)");

  const auto dmodk = make_algorithm("dmodk");
  const LftSet expected = lfts_from_destination_routes(f, lids, *dmodk);
  Tables out(f, lids.max_lid().value() + 1u);
  write_tables(af, t.lfts, out.lfts);
  for (std::size_t i = 0; i < f.switches().size(); ++i) {
    const NodeIdx s = f.switches()[i];
    EXPECT_EQ(out.entry(i, Lid(0)), OSMSDN_NO_PATH);
    for (std::uint16_t l = 1; l <= lids.max_lid().value(); ++l) {
      ASSERT_NE(out.entry(i, Lid(l)), OSMSDN_NO_PATH) << f.node(s).name << " LID " << l;
      EXPECT_EQ(out.entry(i, Lid(l)), expected.table(s).out(Lid(l)).value())
          << f.node(s).name << " LID " << l;
    }
  }
}

TEST(SdnEngine, FallsBackToMinhopOffXgfts) {
  // Three switches in a ring, one HCA each: no fat-tree levels.
  Fabric f;
  std::vector<NodeIdx> sw;
  for (int i = 0; i < 3; ++i) {
    const std::string name = "h" + std::to_string(i);
    const NodeIdx h = f.add_node(NodeKind::kHca, name, 1, Guid(0x100u + static_cast<unsigned>(i)));
    f.node(h).description = name + " HCA-1";
    sw.push_back(f.add_node(NodeKind::kSwitch, "s" + std::to_string(i), 3,
                            Guid(0x200u + static_cast<unsigned>(i))));
    f.node(sw.back()).description = "s" + std::to_string(i);
    f.connect(h, PortNum(1), sw.back(), PortNum(1), 100.0);
  }
  for (int i = 0; i < 3; ++i) {
    f.connect(sw[static_cast<std::size_t>(i)], PortNum(2),
              sw[static_cast<std::size_t>((i + 1) % 3)], PortNum(3), 100.0);
  }
  const LidMap lids = sequential_lids(f);
  Subnet af = subnet_from_abi(test::to_abi(f, lids).view);
  const SdnTables t = compute_sdn_tables(af);
  EXPECT_EQ(t.algorithm, "minhop");
  EXPECT_NE(t.topology.find("not a fat-tree"), std::string::npos);
  Tables out(f, lids.max_lid().value() + 1u);
  write_tables(af, t.lfts, out.lfts);
  // Each switch sends its own HCA's LID down port 1 and every LID somewhere.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out.entry(i, lids.lid(*f.find("h" + std::to_string(i)))), 1);
    for (std::uint16_t l = 1; l <= lids.max_lid().value(); ++l) {
      EXPECT_NE(out.entry(i, Lid(l)), OSMSDN_NO_PATH) << "s" << i << " LID " << l;
    }
  }
}

TEST(SdnEngine, RecognisesADragonflyForTheJobsAndKeepsMinhopTables) {
  for (const Fabric& f : {generate_dragonfly(2, 4, 2, 9), generate_megafly(2, 4, 3, 2, 4)}) {
    const LidMap lids = sequential_lids(f);
    const test::AbiBuffers abi = test::to_abi(f, lids);
    Subnet af = subnet_from_abi(abi.view);
    const SdnTables t = compute_sdn_tables(af);
    // df-* choices depend on the source: no LFT holds them, flow entries do.
    EXPECT_EQ(t.algorithm, "minhop");
    EXPECT_EQ(t.topology, f.kind_label);
    // The layout stays on the subnet: the controller's jobs pick algorithms.dragonfly by it.
    ASSERT_NE(af.fabric.dragonfly(), nullptr) << f.kind_label;
    EXPECT_EQ(af.fabric.dragonfly()->groups, f.dragonfly()->groups);
    EXPECT_EQ(af.fabric.dragonfly()->megafly(), f.dragonfly()->megafly());

    const LftSet expected = lfts_from_destination_routes(f, lids, *make_algorithm("minhop"));
    Tables out(f, lids.max_lid().value() + 1u);
    write_tables(af, t.lfts, out.lfts);
    for (std::size_t i = 0; i < f.switches().size(); ++i) {
      const NodeIdx s = f.switches()[i];
      for (const NodeIdx h : f.hcas()) {
        const Lid l = lids.lid(h);
        EXPECT_EQ(out.entry(i, l), expected.table(s).out(l).value()) << f.node(s).name;
      }
    }
  }
}

TEST(SdnEngine, LmcAliasesTakeTheirBaseLidsRoute) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const LidMap lids = sequential_lids(f);
  test::AbiBuffers abi = test::to_abi(f, lids);
  // n0016 has the highest HCA LID (16); give it LMC 1 so that LID 17 is its too, and move the
  // switches' LIDs up by one.
  for (auto& n : abi.nodes) {
    if (n.type == OSMSDN_NODE_SWITCH) ++n.lid;
  }
  abi.port(15, 1).lmc = 1;
  abi.refresh();
  Subnet af = subnet_from_abi(abi.view);
  const SdnTables t = compute_sdn_tables(af);
  Tables out(f, 32);
  write_tables(af, t.lfts, out.lfts);
  for (std::size_t i = 0; i < f.switches().size(); ++i) {
    EXPECT_NE(out.entry(i, Lid(16)), OSMSDN_NO_PATH);
    EXPECT_EQ(out.entry(i, Lid(17)), out.entry(i, Lid(16)));
    EXPECT_EQ(out.entry(i, Lid(30)), OSMSDN_NO_PATH);  // nobody's LID
  }
}

TEST(SdnEngine, DmodkTables_AreByteIdenticalToTheAllPairsBuilders_WithLmc) {
  for (const char* spec : {"2;4,4;1,4", "3;4,4,3;1,2,2", "3;6,4,3;1,3,2"}) {
    SCOPED_TRACE(spec);
    const Fabric f = generate_xgft(XgftParams::parse(spec));
    // LMC 2 on every HCA: base LIDs 4, 8, ... (aliases up to 3 above each), then the switches.
    LidMap lids(f);
    std::uint16_t next = 4;
    for (const NodeIdx h : f.hcas()) {
      lids.assign(h, PortNum(1), Lid(next));
      next = static_cast<std::uint16_t>(next + 4);
    }
    for (const NodeIdx s : f.switches()) lids.assign(s, kSwitchPort0, Lid(next++));
    test::AbiBuffers abi = test::to_abi(f, lids);
    for (const NodeIdx h : f.hcas()) abi.port(h.value(), 1).lmc = 2;
    abi.refresh();
    Subnet af = subnet_from_abi(abi.view);
    const SdnTables t = compute_sdn_tables(af);
    ASSERT_EQ(t.algorithm, "dmodk");
    const LftSet all_pairs =
        lfts_from_destination_routes(af.fabric, af.lids, *make_algorithm("dmodk"));
    Tables engine(f, next + 1u);
    Tables reference(f, next + 1u);
    write_tables(af, t.lfts, engine.lfts);
    write_tables(af, all_pairs, reference.lfts);
    EXPECT_EQ(engine.bytes, reference.bytes);
    for (std::size_t i = 0; i < f.switches().size(); ++i) {
      EXPECT_NE(engine.entry(i, Lid(7)), OSMSDN_NO_PATH);
      EXPECT_EQ(engine.entry(i, Lid(7)), engine.entry(i, Lid(4)));  // alias of the first host
    }
  }
}

TEST(SdnEngine, WritesNothingWhenATableNamesAnUnknownSwitch) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const LidMap lids = sequential_lids(f);
  Subnet af = subnet_from_abi(test::to_abi(f, lids).view);
  const SdnTables t = compute_sdn_tables(af);
  Tables out(f, 25);
  out.lfts.back().switch_guid = 0x42;
  EXPECT_THROW(write_tables(af, t.lfts, out.lfts), std::invalid_argument);
  for (const auto& b : out.bytes) {
    for (const std::uint8_t e : b) EXPECT_EQ(e, OSMSDN_NO_PATH);
  }
}

/// The engine keeps the running jobs' LFT entries at every sweep, but a kept entry that no longer
/// delivers (here: a leaf sending a destination of another leaf back down to a host, or an
/// up-port bounced between two switches) is left out with every other kept entry of its
/// destination, and the rest stay.
TEST(SdnEngine, KeptLftEntriesThatWouldNotDeliverAreLeftOutPerDestination) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const LidMap lids = sequential_lids(f);
  const test::AbiBuffers abi = test::to_abi(f, lids);
  Subnet s = subnet_from_abi(abi.view);
  const SdnTables defaults = compute_sdn_tables(s);
  const std::vector<NodeIdx> hcas = f.hcas();
  const std::vector<NodeIdx> sw = f.switches();
  // The first leaf and its ports: 1..4 down to its hosts, 5..8 up.
  const NodeIdx leaf = f.node(hcas[0]).ports[0].peer;
  const Lid far = lids.lid(hcas[15]);    // a host under the last leaf
  const Lid other = lids.lid(hcas[14]);  // another one there
  const PortNum up = defaults.lfts.table(leaf).out(other);
  PortNum another_up{};
  for (std::uint8_t p = 5; p <= 8; ++p) {
    if (PortNum(p) != up) another_up = PortNum(p);
  }
  LftOverrides o;
  o[f.node(leaf).guid][far.value()] = PortNum(1);    // down to a host: a dead end
  o[f.node(leaf).guid][other.value()] = another_up;  // a valid detour upwards
  KeptLftOverrides kept;
  kept.set(std::make_shared<const LftOverrides>(o));
  SdnTables t = compute_sdn_tables(s);
  EXPECT_EQ(kept.apply(s, t.lfts), 1u);
  EXPECT_EQ(kept.dropped(), 1u);
  EXPECT_EQ(t.lfts.table(leaf).out(far), defaults.lfts.table(leaf).out(far));
  EXPECT_EQ(t.lfts.table(leaf).out(other), another_up);

  // A loop: the spine behind the detour sends `other` back to the leaf, which sends it up again.
  const NodeIdx spine = f.node(leaf).ports[another_up.value() - 1].peer;
  const PortNum back = f.node(leaf).ports[another_up.value() - 1].peer_port;
  o[f.node(spine).guid][other.value()] = back;
  kept.set(std::make_shared<const LftOverrides>(o));
  SdnTables u = compute_sdn_tables(s);
  EXPECT_EQ(kept.apply(s, u.lfts), 0u);
  EXPECT_EQ(kept.dropped(), 3u);
  for (const NodeIdx n : sw) {
    EXPECT_EQ(u.lfts.table(n).out(other), defaults.lfts.table(n).out(other));
    EXPECT_EQ(u.lfts.table(n).out(far), defaults.lfts.table(n).out(far));
  }
}

TEST(SdnEngine, AJobsEntryOnAnLmcAliasIsWrittenAndLeavesTheBaseLidsRoute) {
  // LMC 1 on every HCA: base LIDs 2, 4, ..., 32, aliases one above; switches from 33.
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LidMap lids(f);
  std::uint16_t next = 2;
  for (const NodeIdx h : f.hcas()) {
    lids.assign(h, PortNum(1), Lid(next));
    next = static_cast<std::uint16_t>(next + 2);
  }
  for (const NodeIdx sw : f.switches()) lids.assign(sw, kSwitchPort0, Lid(++next));
  test::AbiBuffers abi = test::to_abi(f, lids);
  for (const NodeIdx h : f.hcas()) abi.port(h.value(), 1).lmc = 1;
  abi.refresh();
  Subnet s = subnet_from_abi(abi.view);
  const SdnTables defaults = compute_sdn_tables(s);
  // The first host's leaf sends the last host's alias up another port than the base LID's.
  const NodeIdx leaf = f.node(f.hcas().front()).ports[0].peer;
  const auto sws = f.switches();
  const auto leaf_index =
      static_cast<std::size_t>(std::find(sws.begin(), sws.end(), leaf) - sws.begin());
  const Lid base = s.lids.lid(f.hcas().back());
  const Lid alias(static_cast<std::uint16_t>(base.value() + 1));
  const PortNum up = defaults.lfts.table(leaf).out(base);
  ASSERT_EQ(defaults.lfts.table(leaf).out(alias), up);
  PortNum other_up{};
  for (std::uint8_t p = 5; p <= 8; ++p) {
    if (PortNum(p) != up) other_up = PortNum(p);
  }
  LftOverrides o;
  o[f.node(leaf).guid][alias.value()] = other_up;
  KeptLftOverrides kept;
  kept.set(std::make_shared<const LftOverrides>(o));
  SdnTables t = compute_sdn_tables(s);
  EXPECT_EQ(kept.apply(s, t.lfts), 1u);
  EXPECT_EQ(kept.dropped(), 0u);
  Tables out(f, next + 1u);
  write_tables(s, t.lfts, out.lfts);
  EXPECT_EQ(out.entry(leaf_index, alias), other_up.value());
  EXPECT_EQ(out.entry(leaf_index, base), up.value());
  // The alias's route with the entry reaches its host: ask the tracer with the job's LIDs.
  LftSet view = t.lfts;
  view.lids = lids_at_offset(s, 1, f.hcas());
  const Trace tr = trace(f, view, f.hcas().front(), f.hcas().back());
  ASSERT_TRUE(tr.ok()) << tr.error;
  EXPECT_EQ(f.link(tr.path[1]).from_port, other_up);
}

}  // namespace
}  // namespace ibsdn::plugin
