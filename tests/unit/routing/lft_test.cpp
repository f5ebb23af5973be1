// LFT model: OpenSM dumps parse (and bad ones are refused with file:line), LFTs filled from a
// destination-based algorithm trace exactly its paths, and the tracer reports loops and holes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/lft.hpp"
#include "routing/path_text.hpp"
#include "routing/xgft.hpp"
#include "tests/support/all_pairs.hpp"
#include "tests/support/file_line_error_expect.hpp"

namespace ibsdn {
namespace {

PortNum port(int p) {
  return PortNum(static_cast<std::uint8_t>(p));
}
Lid lid(int l) {
  return Lid(static_cast<std::uint16_t>(l));
}

// swA holds h1 (port 1) and h2 (port 2), swB holds h3 (port 1); swA[3] - swB[3]; swB[2] is free.
Fabric small_fabric() {
  Fabric f;
  const NodeIdx a = f.add_node(NodeKind::kSwitch, "swA", 3, Guid(0x10));
  const NodeIdx b = f.add_node(NodeKind::kSwitch, "swB", 3, Guid(0x20));
  const NodeIdx h1 = f.add_node(NodeKind::kHca, "h1", 1, Guid(0x100));
  const NodeIdx h2 = f.add_node(NodeKind::kHca, "h2", 1, Guid(0x200));
  const NodeIdx h3 = f.add_node(NodeKind::kHca, "h3", 1, Guid(0x300));
  f.connect(h1, port(1), a, port(1), 100.0);
  f.connect(h2, port(1), a, port(2), 100.0);
  f.connect(a, port(3), b, port(3), 100.0);
  f.connect(h3, port(1), b, port(1), 100.0);
  f.compute_levels();
  return f;
}

// Written by hand in the shapes OpenSM 3.3.23 produces (see routing/lft.hpp).
const std::string kSubnetLst =
    "{ SW Ports:03 SystemGUID:0000000000000010 NodeGUID:0000000000000010 "
    "PortGUID:0000000000000010 VenID:000000 DevID:0000 Rev:000000A1 {swA} LID:0004 PN:01 } "
    "{ CA-SM Ports:01 SystemGUID:0000000000000100 NodeGUID:0000000000000100 "
    "PortGUID:0000000000000101 VenID:00000000 DevID:0000 Rev:000000A1 {h1 HCA-1} LID:0001 PN:01 } "
    "PHY=4x LOG=ACT SPD=2.5\n"
    "{ SW Ports:03 SystemGUID:0000000000000010 NodeGUID:0000000000000010 "
    "PortGUID:0000000000000010 VenID:000000 DevID:0000 Rev:000000A1 {swA} LID:0004 PN:02 } "
    "{ CA Ports:01 SystemGUID:0000000000000200 NodeGUID:0000000000000200 "
    "PortGUID:0000000000000201 VenID:00000000 DevID:0000 Rev:000000A1 {h2 HCA-1} LID:0002 PN:01 } "
    "PHY=4x LOG=ACT SPD=2.5\n"
    "{ SW Ports:03 SystemGUID:0000000000000010 NodeGUID:0000000000000010 "
    "PortGUID:0000000000000010 VenID:000000 DevID:0000 Rev:000000A1 {swA} LID:0004 PN:03 } "
    "{ SW Ports:03 SystemGUID:0000000000000020 NodeGUID:0000000000000020 "
    "PortGUID:0000000000000020 VenID:00000000 DevID:0000 Rev:000000A1 {swB} LID:0005 PN:03 } "
    "PHY=4x LOG=ACT SPD=2.5\n"
    "{ SW Ports:03 SystemGUID:0000000000000020 NodeGUID:0000000000000020 "
    "PortGUID:0000000000000020 VenID:000000 DevID:0000 Rev:000000A1 {swB} LID:0005 PN:01 } "
    "{ CA Ports:01 SystemGUID:0000000000000300 NodeGUID:0000000000000300 "
    "PortGUID:0000000000000301 VenID:00000000 DevID:0000 Rev:000000A1 {h3 HCA-1} LID:0003 PN:01 } "
    "PHY=4x LOG=ACT SPD=2.5\n";

const std::string kLftsDump =
    "Unicast lids [0-5] of switch Lid 4 guid 0x0000000000000010 ('swA'):\n"
    "0x0001 001 # Channel Adapter portguid 0x0000000000000101: 'h1 HCA-1'\n"
    "0x0002 002 # Channel Adapter portguid 0x0000000000000201: 'h2 HCA-1'\n"
    "0x0003 003 # Channel Adapter portguid 0x0000000000000301: 'h3 HCA-1'\n"
    "0x0004 000 # Switch portguid 0x0000000000000010: 'swA'\n"
    "0x0005 003 # Switch portguid 0x0000000000000020: 'swB'\n"
    "5 lids dumped\n"
    "Unicast lids [0-5] of switch Lid 5 guid 0x0000000000000020 ('swB'):\n"
    "0x0001 003\n"
    "0x0002 003\n"
    "0x0003 001\n"
    "0x0004 003\n"
    "0x0005 000\n"
    "5 lids dumped\n";

/// 1-based number of the first line containing `needle`.
std::size_t line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(LftDump, HandWrittenDump_ParsesLidsAndTables) {
  const Fabric f = small_fabric();
  const LftSet s = lfts_from_opensm_dump(f, kLftsDump, kSubnetLst);
  const NodeIdx a = *f.find("swA");
  const NodeIdx b = *f.find("swB");
  EXPECT_EQ(s.lids.lid(*f.find("h1")), lid(1));
  EXPECT_EQ(s.lids.lid(*f.find("h2")), lid(2));
  EXPECT_EQ(s.lids.lid(*f.find("h3")), lid(3));
  EXPECT_EQ(s.lids.lid(a), lid(4));
  EXPECT_EQ(s.lids.lid(b), lid(5));
  EXPECT_EQ(s.lids.owner(lid(3))->node, *f.find("h3"));
  EXPECT_EQ(s.lids.owner(lid(5))->port, kSwitchPort0);
  ASSERT_TRUE(s.has_table(a));
  ASSERT_TRUE(s.has_table(b));
  EXPECT_EQ(s.table(a).out(lid(2)), port(2));
  EXPECT_EQ(s.table(a).out(lid(4)), kSwitchPort0);
  EXPECT_EQ(s.table(b).out(lid(1)), port(3));
  EXPECT_EQ(s.table(b).out(lid(0)), kLftUnset);   // OpenSM never writes LID 0's 255
  EXPECT_EQ(s.table(b).out(lid(99)), kLftUnset);  // beyond the table

  const Trace t = trace(f, s, *f.find("h1"), *f.find("h3"));
  ASSERT_TRUE(t.ok()) << t.error;
  ASSERT_EQ(t.path.size(), 3u);
  EXPECT_EQ(f.link(t.path[0]).to, a);
  EXPECT_EQ(f.link(t.path[1]).from_port, port(3));
  EXPECT_EQ(f.link(t.path[2]).to, *f.find("h3"));
}

// A replay numbers its ports as OpenSM did from the subnet list alone (ibsdn-sim paths).
TEST(LftDump, SubnetListAlone_GivesTheLidsOfTheWholeDump) {
  const Fabric f = small_fabric();
  const LidMap lids = lids_from_opensm_subnet_list(f, kSubnetLst);
  const LftSet s = lfts_from_opensm_dump(f, kLftsDump, kSubnetLst);
  for (const char* name : {"h1", "h2", "h3", "swA", "swB"}) {
    EXPECT_EQ(lids.lid(*f.find(name)), s.lids.lid(*f.find(name))) << name;
  }
  EXPECT_EQ(lids.lid(*f.find("swB")), lid(5));
  const std::string other = replaced(kSubnetLst, "LID:0005 PN:01", "LID:0006 PN:01");
  testing_errors::expect_file_line_error<DumpError>(
      [&] { (void)lids_from_opensm_subnet_list(f, other, "S.lst"); }, "S.lst", 4, "LID");
}

// The one path text: both hosts, then each switch with the port the path leaves it by.
TEST(PathText, PathLine_NamesEverySwitchAndItsOutputPort) {
  const Fabric f = small_fabric();
  const LftSet s = lfts_from_opensm_dump(f, kLftsDump, kSubnetLst);
  const Trace t = trace(f, s, *f.find("h1"), *f.find("h3"));
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(path_line(f, *f.find("h1"), *f.find("h3"), t.path), "h1 h3 swA:3 swB:1");
  const Trace local = trace(f, s, *f.find("h2"), *f.find("h1"));
  EXPECT_EQ(path_line(f, *f.find("h2"), *f.find("h1"), local.path), "h2 h1 swA:1");
}

TEST(LftDump, CrlfAndBlankLines_AreAccepted) {
  std::string crlf;
  for (char c : kLftsDump) crlf += c == '\n' ? std::string("\r\n\r\n") : std::string(1, c);
  const Fabric f = small_fabric();
  EXPECT_EQ(lfts_from_opensm_dump(f, crlf, kSubnetLst).table(*f.find("swB")).out(lid(3)), port(1));
}

struct BadDump {
  const char* what;
  bool in_lfts;        // which file is broken
  std::string from;    // text replaced ...
  std::string to;      // ... by this
  std::string needle;  // the error's line holds this text (empty: one past the end)
  std::string message;
};

TEST(LftDump, MalformedDumps_NameFileAndLine) {
  const std::vector<BadDump> cases = {
      {"entry before any header", true,
       "Unicast lids [0-5] of switch Lid 4 guid 0x0000000000000010 ('swA'):\n", "0x0009 001\n",
       "0x0009 001", "outside a switch block"},
      {"unknown switch GUID", true, "Lid 5 guid 0x0000000000000020",
       "Lid 5 guid 0x0000000000000bad", "0x0000000000000bad",
       "switch GUID 0x0000000000000bad is not a node"},
      {"HCA GUID as a switch", true, "Lid 5 guid 0x0000000000000020",
       "Lid 5 guid 0x0000000000000300", "guid 0x0000000000000300", "is HCA h3, not a switch"},
      {"port beyond the switch", true, "0x0003 001\n", "0x0003 007\n", "0x0003 007",
       "port 7 for LID 3, but swB has 3 ports"},
      {"LID beyond the block", true, "0x0005 000\n5 lids", "0x0006 000\n5 lids", "0x0006 000",
       "beyond the block's range"},
      {"duplicate LID", true, "0x0002 003\n", "0x0001 002\n", "0x0001 002",
       "second entry for LID 1"},
      {"malformed port", true, "0x0002 003\n", "0x0002 x03\n", "0x0002 x03",
       "malformed output port"},
      {"garbage line", true, "0x0002 003\n", "hello\n", "hello", "unrecognised line"},
      {"trailer mismatch", true, "0x0005 000\n5 lids dumped", "0x0005 000\n4 lids dumped",
       "4 lids dumped", "ends with 4"},
      {"truncated dump", true, "0x0005 000\n5 lids dumped\n", "0x0005 000\n", "",
       "end of file inside the block of swB"},
      {"switch LID disagrees", true, "switch Lid 5", "switch Lid 7", "switch Lid 7",
       "LID 7 here but LID 5 in the subnet list"},
      {"unknown node GUID", false, "NodeGUID:0000000000000300", "NodeGUID:0000000000000301",
       "NodeGUID:0000000000000301", "node GUID 0x0000000000000301 ('h3 HCA-1') is not a node"},
      {"cable not in the fabric", false, "{swB} LID:0005 PN:01 }", "{swB} LID:0005 PN:02 }",
       "{swB} LID:0005 PN:02 }", "cable swB[2] - h3[1] is not in the fabric"},
      {"malformed LID", false, "{h2 HCA-1} LID:0002", "{h2 HCA-1} LID:zz02", "LID:zz02",
       "LID is not a 16-bit hexadecimal number"},
      {"unterminated record", false, "LID:0003 PN:01 } PHY", "LID:0003 PN:01 PHY",
       "LID:0003 PN:01 PHY", "expected '}' closing the port record of 'h3 HCA-1'"},
      {"kind mismatch", false, "{ CA Ports:01 SystemGUID:0000000000000200",
       "{ SW Ports:01 SystemGUID:0000000000000200", "{ SW Ports:01 SystemGUID:0000000000000200",
       "listed as SW but is HCA h2"},
      {"LID used twice", false, "{h2 HCA-1} LID:0002", "{h2 HCA-1} LID:0001", "{h2 HCA-1} LID:0001",
       "LID 0x0001 is given to two ports"},
  };
  const Fabric f = small_fabric();
  for (const BadDump& c : cases) {
    const std::string lfts = c.in_lfts ? replaced(kLftsDump, c.from, c.to) : kLftsDump;
    const std::string lst = c.in_lfts ? kSubnetLst : replaced(kSubnetLst, c.from, c.to);
    const std::string& broken = c.in_lfts ? lfts : lst;
    const std::size_t want_line =
        c.needle.empty()
            ? 1 + static_cast<std::size_t>(std::count(broken.begin(), broken.end(), '\n'))
            : line_of(broken, c.needle);
    SCOPED_TRACE(c.what);
    testing_errors::expect_file_line_error<DumpError>(
        [&] { (void)lfts_from_opensm_dump(f, lfts, lst, "L.dump", "S.lst"); },
        c.in_lfts ? "L.dump" : "S.lst", want_line, c.message);
  }
}

TEST(LftDump, EmptyLftDump_IsRefusedOnAFabricWithSwitches) {
  const Fabric f = small_fabric();
  EXPECT_THROW((void)lfts_from_opensm_dump(f, "", kSubnetLst), DumpError);
}

using test::all_pairs;

void expect_lfts_trace_algorithm_paths(const Fabric& f, const std::string& algorithm) {
  const auto alg = make_algorithm(algorithm);
  const LftSet s = lfts_from_destination_routes(f, sequential_lids(f), *alg);
  const std::vector<Flow> flows = all_pairs(f);
  const std::vector<Path> paths = alg->route(RouteRequest{f, flows});
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Trace t = trace(f, s, flows[i].src, flows[i].dst);
    ASSERT_TRUE(t.ok()) << f.kind_label << " " << f.node(flows[i].src).name << " -> "
                        << f.node(flows[i].dst).name << ": " << t.error;
    ASSERT_EQ(t.path, paths[i]) << f.kind_label << " " << f.node(flows[i].src).name << " -> "
                                << f.node(flows[i].dst).name;
  }
}

TEST(LftFromRoutes, DmodkLfts_TraceExactlyDmodkPaths_AllPairsOnXgfts) {
  for (const char* p : {"2;4,4;1,4", "2;8,8;1,8", "3;4,4,4;1,4,4", "3;4,4,2;1,4,2", "3;2,3,4;1,2,3",
                        "4;2,2,2,2;1,2,2,2"}) {
    expect_lfts_trace_algorithm_paths(generate_xgft(XgftParams::parse(p)), "dmodk");
  }
}

TEST(LftFromRoutes, MinhopLfts_TraceExactlyMinhopPaths_OnXgftAndDragonfly) {
  expect_lfts_trace_algorithm_paths(generate_xgft(XgftParams::parse("3;4,4,2;1,4,2")), "minhop");
  expect_lfts_trace_algorithm_paths(generate_dragonfly(2, 4, 2, 9), "minhop");
}

TEST(LftFromRoutes, SourceBasedAlgorithm_IsRefused) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  try {
    (void)lfts_from_destination_routes(f, sequential_lids(f), *make_algorithm("smodk"));
    ADD_FAILURE() << "smodk accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not destination-based"), std::string::npos) << e.what();
  }
}

TEST(LftFromRoutes, SwitchOwnLid_GoesToPort0) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const LftSet s = lfts_from_destination_routes(f, sequential_lids(f), *make_algorithm("dmodk"));
  for (NodeIdx sw : f.switches()) EXPECT_EQ(s.table(sw).out(s.lids.lid(sw)), kSwitchPort0);
}

// Damaged dmodk tables on XGFT(2;4,4;1,4): host 0 (leaf 0) sends to host 4 (leaf 1).
class LftTraceErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    s = lfts_from_destination_routes(f, sequential_lids(f), *make_algorithm("dmodk"));
    const Trace t = trace(f, s, src, dst);
    ASSERT_TRUE(t.ok()) << t.error;
    ASSERT_EQ(t.path.size(), 4u);
    leaf0 = f.link(t.path[1]).from;
    spine = f.link(t.path[1]).to;
    leaf1 = f.link(t.path[2]).to;
    dlid = s.lids.lid(dst);
  }
  Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  LftSet s;
  NodeIdx src = f.hcas()[0];
  NodeIdx dst = f.hcas()[4];
  NodeIdx leaf0, spine, leaf1;
  Lid dlid;
};

TEST_F(LftTraceErrors, SpineSendingBackDown_IsALoop) {
  s.table(spine).set(dlid, f.xgft()->down_port[spine.value()][0]);  // back to leaf 0
  const Trace t = trace(f, s, src, dst);
  EXPECT_EQ(t.status, TraceStatus::kLoop) << t.error;
  EXPECT_NE(t.error.find(f.node(leaf0).name), std::string::npos) << t.error;
}

TEST_F(LftTraceErrors, UnsetEntry_IsAHole) {
  s.table(leaf1).set(dlid, kLftUnset);
  const Trace t = trace(f, s, src, dst);
  EXPECT_EQ(t.status, TraceStatus::kUnset) << t.error;
  EXPECT_NE(t.error.find(f.node(leaf1).name + " has no entry for LID 0x0005 (n0005)"),
            std::string::npos)
      << t.error;
  EXPECT_EQ(t.path.size(), 3u);  // up to leaf 1
}

TEST_F(LftTraceErrors, PortBeyondTheSwitch_IsReported) {
  s.table(spine).set(dlid, port(9));
  EXPECT_EQ(trace(f, s, src, dst).status, TraceStatus::kNoSuchPort);
}

TEST_F(LftTraceErrors, Port0AndWrongHost_AreWrongDestinations) {
  s.table(leaf1).set(dlid, kSwitchPort0);
  EXPECT_EQ(trace(f, s, src, dst).status, TraceStatus::kWrongDestination);
  s.table(leaf1).set(dlid, f.xgft()->down_port[leaf1.value()][1]);  // host 5, not host 4
  const Trace t = trace(f, s, src, dst);
  EXPECT_EQ(t.status, TraceStatus::kWrongDestination);
  EXPECT_NE(t.error.find("delivered to n0006, not n0005"), std::string::npos) << t.error;
}

TEST_F(LftTraceErrors, HopLimitAndMissingTable_AreReported) {
  EXPECT_EQ(trace(f, s, src, dst, TraceOptions{{}, 2}).status, TraceStatus::kTooManyHops);
  LftSet only_lids(f);
  only_lids.lids = s.lids;
  EXPECT_EQ(trace(f, only_lids, src, dst).status, TraceStatus::kNoTable);
  LftSet no_lids(f);
  EXPECT_EQ(trace(f, no_lids, src, dst).status, TraceStatus::kNoLid);
}

TEST(LftTrace, UncabledPort_IsReported) {
  const Fabric f = small_fabric();
  LftSet s = lfts_from_opensm_dump(f, kLftsDump, kSubnetLst);
  s.table(*f.find("swA")).set(lid(3), port(3));
  s.table(*f.find("swB")).set(lid(3), port(2));  // swB[2] has no cable
  const Trace t = trace(f, s, *f.find("h1"), *f.find("h3"));
  EXPECT_EQ(t.status, TraceStatus::kUncabled);
  EXPECT_NE(t.error.find("swB sends LID 0x0003 (h3) to port 2, not cabled"), std::string::npos)
      << t.error;
}

TEST_F(LftTraceErrors, Override_IsConsultedBeforeTheLft) {
  // Steer dst's traffic up leaf 0's other up port. dmodk never sends dst's traffic to that spine,
  // but its table is complete (complete_lfts, as OpenSM's are), so the override alone delivers.
  const PortNum lft_port = s.table(leaf0).out(dlid);
  PortNum other;
  for (PortNum p : f.xgft()->up_port[leaf0.value()]) {
    if (p != lft_port) other = p;
  }
  const NodeIdx other_spine = f.port(leaf0, other).peer;
  const PortNum down = f.xgft()->down_port[other_spine.value()][1];  // leaf 1
  const Trace only_leaf = trace(f, s, src, dst, TraceOptions{[&](NodeIdx sw, const PacketHeader&) {
                                  return sw == leaf0 ? std::optional(other) : std::nullopt;
                                }});
  ASSERT_TRUE(only_leaf.ok()) << only_leaf.error;
  EXPECT_EQ(f.link(only_leaf.path[1]).to, other_spine);

  std::size_t calls = 0;
  TraceOptions opts;
  opts.override_port = [&](NodeIdx sw, const PacketHeader& h) -> std::optional<PortNum> {
    ++calls;
    EXPECT_EQ(h.dlid, dlid);
    EXPECT_EQ(h.slid, s.lids.lid(src));
    if (sw == leaf0) return other;
    if (sw == other_spine) return down;
    return std::nullopt;
  };
  const Trace t = trace(f, s, src, dst, opts);
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(calls, 3u);
  EXPECT_EQ(f.link(t.path[1]).to, other_spine);
  EXPECT_NE(other_spine, spine);
}

TEST(LidMap, ConflictingAssignments_AreRefused) {
  const Fabric f = small_fabric();
  LidMap m(f);
  m.assign(*f.find("h1"), port(1), lid(1));
  m.assign(*f.find("h1"), port(1), lid(1));  // the same again is fine
  EXPECT_THROW(m.assign(*f.find("h2"), port(1), lid(1)), std::invalid_argument);
  EXPECT_THROW(m.assign(*f.find("h1"), port(1), lid(2)), std::invalid_argument);
  EXPECT_THROW(m.assign(*f.find("swA"), port(1), lid(3)), std::invalid_argument);
  EXPECT_THROW(m.assign(*f.find("h3"), kSwitchPort0, lid(3)), std::invalid_argument);
  EXPECT_THROW(m.assign(*f.find("h3"), port(1), lid(0xC000)), std::invalid_argument);
  EXPECT_EQ(m.max_lid(), lid(1));
}

}  // namespace
}  // namespace ibsdn
