// The flow case format (sim_backend/flowmodel/flow_case.hpp) read strictly, the completion output,
// and `ibsdn-sim flows` (sim_backend/cli/cmd_flows.cpp).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "sim_backend/flowmodel/flow_case.hpp"
#include "tests/support/file_line_error_expect.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sim/cli/sim_run.hpp"

namespace ibsdn {
namespace {

using testing_errors::expect_file_line_error;

TEST(FlowModelCase, ReadsLinksAndMessagesWithCommentsAndTabs) {
  const FlowCase c = parse_flow_case(
      "# a two-hop case\n"
      "\n"
      "link up.0:1 1.25e9 1e-6   # one direction\n"
      "link\tdown-0_1\t12500000000\t0\r\n"
      "message 3 0 1048576 up.0:1,down-0_1\n"
      "  message 1 0.5 1e3 down-0_1 # trailing comment\n",
      "c.flows");
  ASSERT_EQ(c.links.size(), 2u);
  EXPECT_EQ(c.links[0].name, "up.0:1");
  EXPECT_EQ(c.links[0].bandwidth, 1.25e9);
  EXPECT_EQ(c.links[0].latency, 1e-6);
  EXPECT_EQ(c.links[1].bandwidth, 1.25e10);
  ASSERT_EQ(c.messages.size(), 2u);
  EXPECT_EQ(c.messages[0].id, 3u);
  EXPECT_EQ(c.messages[0].size, 1048576.0);
  EXPECT_EQ(c.messages[0].route, (std::vector<LinkId>{LinkId(0), LinkId(1)}));
  EXPECT_EQ(c.messages[1].start, 0.5);
  EXPECT_EQ(c.messages[1].route, std::vector<LinkId>{LinkId(1)});
}

TEST(FlowModelCase, WrittenCasesReadBackToTheSameCase) {
  FlowCase c;
  c.links = {{"up.0:1", 1.25e9 / 3, 1e-6 / 7}, {"", 12.5e9, 0}};
  FlowMessage m;
  m.id = 9;
  m.start = 0.1;
  m.size = 1048576;
  m.route = {LinkId(0), LinkId(1)};
  c.messages.push_back(m);
  m.id = 2;
  m.start = 2.0 / 3.0;
  m.route = {LinkId(1)};
  c.messages.push_back(m);
  const std::string text = format_flow_case(c);
  const FlowCase back = parse_flow_case(text, "written");
  ASSERT_EQ(back.links.size(), 2u);
  EXPECT_EQ(back.links[1].name, "l1") << "an unnamed link gets its index";
  for (std::size_t l = 0; l < 2; ++l) {
    EXPECT_EQ(back.links[l].bandwidth, c.links[l].bandwidth);
    EXPECT_EQ(back.links[l].latency, c.links[l].latency);
  }
  ASSERT_EQ(back.messages.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.messages[i].id, c.messages[i].id);
    EXPECT_EQ(back.messages[i].start, c.messages[i].start) << "bit for bit";
    EXPECT_EQ(back.messages[i].size, c.messages[i].size);
    EXPECT_EQ(back.messages[i].route, c.messages[i].route);
  }
  c.links[1].name = "up.0:1";
  EXPECT_THROW(format_flow_case(c), std::invalid_argument) << "a name twice";
  c.links[1].name = "a b";
  EXPECT_THROW(format_flow_case(c), std::invalid_argument) << "a space";
}

TEST(FlowModelCase, PrintsCompletionsSortedByIdWithFullPrecision) {
  const FlowCase c = parse_flow_case("link l 3 0\nmessage 20 0 1 l\nmessage 4 0 1 l\n", "c");
  EXPECT_EQ(format_completions(c.messages, {0.1, 2.0 / 3.0}),
            "4 0.66666666666666663\n20 0.10000000000000001\n");
}

struct BadLine {
  const char* text;
  std::size_t line;
  const char* message;
};

TEST(FlowModelCase, RefusesMalformedLinesWithFileAndLine) {
  const std::string head = "link a 1e9 0\nlink b 1e9 1e-6\n";
  const std::vector<BadLine> cases{
      {"message 1 0 10 a,c\n", 3, "unknown link 'c'"},
      {"link a 1 0\n", 3, "link 'a' declared twice (first at line 1)"},
      {"message 1 0 10 a\nmessage 1 0 10 b\n", 4, "message id 1 given twice (first at line 3)"},
      {"message 1 0 ten a\n", 3, "size 'ten' is not a number"},
      {"message 1 0 10\n", 3, "missing fields"},
      {"link c 1e9 0 extra\n", 3, "trailing junk 'extra'"},
      {"message 1 0 10 a b\n", 3, "trailing junk 'b'"},
      {"message -1 0 10 a\n", 3, "id '-1' is not a non-negative integer"},
      {"message 1 -2 10 a\n", 3, "start -2 is negative"},
      {"message 1 0 0 a\n", 3, "size 0 is not above 0"},
      {"link c 0 0\n", 3, "bandwidth 0 is not above 0"},
      {"link c 1 -1e-6\n", 3, "latency -1e-6 is negative"},
      {"link c inf 0\n", 3, "bandwidth 'inf' is not a number"},
      {"link c nan 0\n", 3, "bandwidth 'nan' is not a number"},
      {"link c 1e999 0\n", 3, "bandwidth '1e999' is out of range"},
      {"link c+ 1 0\n", 3, "outside [A-Za-z0-9_.:-]"},
      {"message 1 0 10 a,,b\n", 3, "empty link name"},
      {"message 1 0 10 a,b,a\n", 3, "link 'a' twice in one route"},
      {"message 99999999999999999999 0 10 a\n", 3, "out of range"},
      {"flow 1 0 10 a\n", 3, "unknown record 'flow'"},
      {"message 1 0 10 d\nlink d 1 0\n", 3, "declared before the messages"},
  };
  for (const BadLine& b : cases) {
    SCOPED_TRACE(b.text);
    expect_file_line_error<FlowCaseError>(
        [&] { (void)parse_flow_case(head + b.text, "case.flows"); }, "case.flows", b.line,
        b.message);
  }
}

TEST(FlowModelCase, RefusesACaseBeyondItsLimits) {
  FlowCaseLimits limits;
  limits.max_links = 2;
  limits.max_messages = 1;
  limits.max_route_links = 2;
  limits.max_line_length = 40;
  expect_file_line_error<FlowCaseError>(
      [&] { (void)parse_flow_case("link a 1 0\nlink b 1 0\nlink c 1 0\n", "x", limits); }, "x", 3,
      "more than 2 links");
  expect_file_line_error<FlowCaseError>(
      [&] { (void)parse_flow_case("link a 1 0\nmessage 1 0 1 a\nmessage 2 0 1 a\n", "x", limits); },
      "x", 3, "more than 1 messages");
  expect_file_line_error<FlowCaseError>(
      [&] { (void)parse_flow_case("link a 1 0\nlink b 1 0\nmessage 1 0 1 a,b,a\n", "x", limits); },
      "x", 3, "route longer than 2 links");
  expect_file_line_error<FlowCaseError>(
      [&] { (void)parse_flow_case("# " + std::string(50, 'x') + "\n", "x", limits); }, "x", 1,
      "line longer than 40 bytes");
}

TEST(FlowModelCase, MissingFileIsRefusedNamingIt) {
  try {
    (void)read_flow_case_file("/nonexistent/case.flows");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/case.flows"), std::string::npos);
  }
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(FlowModelCase, CommandPrintsCompletionsIncrementalOrFull) {
  const test::TempDir dir("ibsdn-flows");
  // docs/simulation-flow.md's example: message 2 sends 1250 bytes alone before message 1 joins.
  write(dir.file("two.flows"),
        "link up 1.25e9 1e-6\nlink down 1.25e9 1e-6\nmessage 1 0 1e6 up,down\n"
        "message 2 0 1e6 up\n");
  const std::string want = "1 0.001601\n2 0.0016000000000000001\n";
  // CM02 weighs message 2 (1 us of route latency) twice message 1 (2 us): 2/3 of `up` from 2 us,
  // so it ends at 2 us + 998750 B / (1.25e9 x 2/3 B/s) = 1.2005 ms; message 1 still ends last.
  const std::string cm02 = "1 0.001601\n2 0.0012005\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs{
      {{}, want}, {{"--full"}, want}, {{"--sharing", "cm02"}, cm02}};
  for (const auto& [extra, out] : runs) {
    std::vector<std::string> args{"flows", dir.file("two.flows")};
    args.insert(args.end(), extra.begin(), extra.end());
    const test::SimRun r = test::sim(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, out);
  }
}

TEST(FlowModelCase, CommandRefusesABadCaseWithExitStatus2) {
  const test::TempDir dir("ibsdn-flows");
  write(dir.file("bad.flows"), "link a 1e9 0\nmessage 1 0 10 a,b\n");
  const test::SimRun r = test::sim({"flows", dir.file("bad.flows")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(dir.file("bad.flows") + ":2: unknown link 'b'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(test::sim({"flows", dir.file("missing.flows")}).status, 2);
}

}  // namespace
}  // namespace ibsdn
