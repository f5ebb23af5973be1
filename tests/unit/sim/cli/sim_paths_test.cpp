// ibsdn-sim paths (sim_backend/cli/cmd_paths.cpp, replay_paths.*): the --job syntax, the printed
// paths (sorted, one line per flow, the second job routed on top of the first, a too small table
// degrading a job), the JSON form, and bad input refused with a message and exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "routing/xgft.hpp"
#include "sim_backend/io/input_error.hpp"
#include "sim_backend/replay/replay_paths.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/unit/sim/cli/sim_run.hpp"

namespace ibsdn {
namespace {

using test::sim;
using test::SimRun;

const std::vector<std::string> kTree = {"paths", "--xgft", "2;4,4;1,4"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The lines of job `id`'s section that are flows (not comments).
std::vector<std::string> job_lines(const std::string& out, std::uint64_t id) {
  std::istringstream in(out);
  std::vector<std::string> lines;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("job ")) {
      inside = line == "job " + std::to_string(id);
      continue;
    }
    if (inside && !line.starts_with("#")) lines.push_back(line);
  }
  return lines;
}

std::string comment_of(const std::string& out, std::uint64_t id) {
  const std::string head = "job " + std::to_string(id) + "\n# ";
  const std::size_t at = out.find(head);
  if (at == std::string::npos) return {};
  const std::size_t from = at + head.size();
  return out.substr(from, out.find('\n', from) - from);
}

TEST(SimPathsJob, ReadsEveryKeyInAnyOrder) {
  const PathsJobSpec s =
      parse_paths_job("pattern=shift:k=3;id=7;algorithm=sdn-greedy;nodes=n[1-4]");
  EXPECT_EQ(s.nodes, "n[1-4]");
  EXPECT_EQ(s.pattern, "shift:k=3");
  EXPECT_EQ(s.algorithm, "sdn-greedy");
  EXPECT_EQ(s.id, 7u);
  const PathsJobSpec plain = parse_paths_job("nodes=a,b;pattern=ring");
  EXPECT_EQ(plain, (PathsJobSpec{0, "a,b", "ring", ""}));
}

TEST(SimPathsJob, RefusesMalformedSpecsSayingWhat) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nodes=a,b", "needs nodes= and pattern="},
      {"pattern=ring", "needs nodes= and pattern="},
      {"nodes=a;pattern=ring;colour=red", "unknown key 'colour'"},
      {"nodes=a;nodes=b;pattern=ring", "nodes is given twice"},
      {"nodes=a;pattern=", "has no value"},
      {"nodes=a;ring", "is not KEY=VALUE"},
      {"nodes=a;pattern=ring;id=0", "a job id from 1"},
      {"nodes=a;pattern=ring;id=x7", "a job id from 1"},
      {"", "is not KEY=VALUE"},
  };
  for (const auto& [text, message] : cases) {
    SCOPED_TRACE(text);
    try {
      (void)parse_paths_job(text);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(SimPathsJob, ExpandsHostListsAndRefusesAHostTwice) {
  EXPECT_EQ(expand_job_hosts("n0001,n0003"), (std::vector<std::string>{"n0001", "n0003"}));
  EXPECT_THROW((void)expand_job_hosts("n0001,n0001"), InputError);
#ifdef IBSDN_HAVE_SLURM_HOSTLIST
  EXPECT_EQ(expand_job_hosts("n[0001-0003]"),
            (std::vector<std::string>{"n0001", "n0002", "n0003"}));
  EXPECT_THROW((void)expand_job_hosts("n[0001-0003],n0002"), InputError);
#endif
}

TEST(SimPaths, PrintsEveryFlowOnceSortedWithTheSwitchesItCrosses) {
  const SimRun r = sim(
      with(kTree, {"--routing", "dmodk", "--job", "nodes=n0005,n0001,n0002,n0009;pattern=ring"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = job_lines(r.out, 1);
  // Ranks in the order given, each talking to both neighbours: n0005 - n0001 - n0002 - n0009.
  EXPECT_EQ(lines.size(), 8u) << r.out;
  EXPECT_TRUE(std::is_sorted(lines.begin(), lines.end())) << r.out;
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[0], "n0001 n0002 l1s001:2") << "hosts 1-4 hang off leaf l1s001's ports 1-4";
  EXPECT_EQ(lines[3].rfind("n0002 n0009 l1s001:", 0), 0u) << lines[3];
  EXPECT_NE(lines[3].find(" l1s003:1"), std::string::npos) << "n0009 is l1s003's first host";
  EXPECT_EQ(comment_of(r.out, 1), "ring on 4 nodes, dmodk: 8 flows, 0 entries, ok");
  EXPECT_EQ(
      r.out.rfind("# ibsdn-sim paths: XGFT(2;4,4;1,4), 16 compute nodes, 8 switches; LIDs "
                  "sequential; default routes dmodk; table capacity 4096; install backend auto\n",
                  0),
      0u)
      << r.out;
}

// n0001 -> n0005 and n0002 -> n0009 leave leaf l1s001 toward destinations DmodK sends up the same
// port (controller_ibsim.sh, section 2): the second job must avoid the first one's link.
TEST(SimPaths, SecondJobIsRoutedOnTopOfTheFirst) {
  const std::vector<std::string> jobs = {"--job", "nodes=n0001,n0005;pattern=shift:k=1", "--job",
                                         "nodes=n0002,n0009;pattern=shift:k=1"};
  const auto up_port = [](const std::string& line) {
    const std::size_t at = line.find(" l1s001:");
    return at == std::string::npos ? std::string() : line.substr(at, line.find(' ', at + 1) - at);
  };
  const SimRun lft = sim(with(with(kTree, {"--routing", "dmodk"}), jobs));
  ASSERT_EQ(lft.status, 0) << lft.err;
  ASSERT_FALSE(job_lines(lft.out, 1).empty());
  ASSERT_FALSE(job_lines(lft.out, 2).empty());
  EXPECT_EQ(up_port(job_lines(lft.out, 1)[0]), up_port(job_lines(lft.out, 2)[0]))
      << "the case is meant to collide on the default routes:\n"
      << lft.out;

  const SimRun sdn = sim(with(with(kTree, {"--routing", "sdn-optimal"}), jobs));
  ASSERT_EQ(sdn.status, 0) << sdn.err;
  ASSERT_FALSE(job_lines(sdn.out, 1).empty());
  ASSERT_FALSE(job_lines(sdn.out, 2).empty());
  EXPECT_NE(up_port(job_lines(sdn.out, 1)[0]), up_port(job_lines(sdn.out, 2)[0])) << sdn.out;
}

TEST(SimPaths, JsonHasTheSameFlowsAndHops) {
  const std::vector<std::string> args =
      with(kTree, {"--job", "nodes=n0001,n0006,n0011,n0016;pattern=all-to-all;algorithm=sdn-greedy",
                   "--job", "nodes=n0002,n0007;pattern=ring;id=9"});
  const SimRun text = sim(args);
  const SimRun json = sim(with(args, {"--json"}));
  ASSERT_EQ(text.status, 0) << text.err;
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.at("jobs").size(), 2u);
  EXPECT_EQ(j.at("routing"), "auto") << "the controller's default on a fat-tree";
  EXPECT_EQ(j.at("jobs")[0].at("algorithm"), "sdn-greedy");
  EXPECT_EQ(j.at("jobs")[1].at("job"), 9);
  // auto: the controller's choice for a ring whose flows all carry the same bytes.
  EXPECT_EQ(j.at("jobs")[1].at("algorithm"), "sdn-optimal");
  for (const nlohmann::json& job : j.at("jobs")) {
    std::vector<std::string> lines;
    for (const nlohmann::json& fl : job.at("flows")) {
      std::string line = fl.at("src").get<std::string>() + " " + fl.at("dst").get<std::string>();
      for (const nlohmann::json& hop : fl.at("hops")) {
        line += " " + hop.at("switch").get<std::string>() + ":" +
                std::to_string(hop.at("port").get<int>());
      }
      lines.push_back(line);
    }
    EXPECT_EQ(lines, job_lines(text.out, job.at("job").get<std::uint64_t>()));
  }
  EXPECT_EQ(job_lines(text.out, 1).size(), 12u);
}

TEST(SimPaths, TooSmallTableCapacity_DegradesTheJob) {
  const std::vector<std::string> job = {
      "--job", "nodes=n0001,n0002,n0005,n0006,n0009,n0013;pattern=all-to-all"};
  const SimRun full = sim(with(kTree, job));
  ASSERT_EQ(full.status, 0) << full.err;
  EXPECT_NE(comment_of(full.out, 1).find(" entries, ok"), std::string::npos) << full.out;
  const SimRun small = sim(with(with(kTree, {"--table-capacity", "1"}), job));
  ASSERT_EQ(small.status, 0) << small.err;
  EXPECT_NE(comment_of(small.out, 1).find(" entries, degraded"), std::string::npos) << small.out;
  EXPECT_EQ(job_lines(small.out, 1).size(), 30u);
  EXPECT_NE(job_lines(small.out, 1), job_lines(full.out, 1));
}

// The same job with its routes in the LFTs: no table capacity, so a one-entry flow table changes
// nothing, and a destination's flows leave each switch by one port (the LFT holds one per DLID).
TEST(SimPaths, LftBackend_IgnoresTheTableCapacity_AndSaysWhereTheRoutesWent) {
  const std::vector<std::string> job = {
      "--job", "nodes=n0001,n0002,n0005,n0006,n0009,n0013;pattern=all-to-all"};
  const SimRun lft = sim(with(with(kTree, {"--install-backend", "lft"}), job));
  ASSERT_EQ(lft.status, 0) << lft.err;
  EXPECT_NE(lft.out.find("; install backend lft"), std::string::npos) << lft.out;
  EXPECT_NE(comment_of(lft.out, 1).find(" entries, ok"), std::string::npos) << lft.out;
  const SimRun small =
      sim(with(with(kTree, {"--install-backend", "lft", "--table-capacity", "1"}), job));
  ASSERT_EQ(small.status, 0) << small.err;
  EXPECT_EQ(job_lines(small.out, 1), job_lines(lft.out, 1));
  // One port per (switch, destination): the first hop after each switch name agrees for every
  // flow toward one destination.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> ports;
  for (const std::string& line : job_lines(lft.out, 1)) {
    std::istringstream in(line);
    std::string src, dst, hop;
    in >> src >> dst;
    while (in >> hop) ports[{hop.substr(0, hop.find(':')), dst}].insert(hop);
  }
  ASSERT_FALSE(ports.empty());
  for (const auto& [key, out] : ports) {
    EXPECT_EQ(out.size(), 1u) << key.first << " toward " << key.second;
  }
  const SimRun df = sim({"paths", "--dragonfly", "2,4,2,5", "--install-backend", "lft", "--job",
                         "nodes=n0001,n0002;pattern=ring"});
  EXPECT_EQ(df.status, 2) << df.out;
  EXPECT_NE(df.err.find("--install-backend lft: the fabric is not a fat-tree"), std::string::npos)
      << df.err;
}

// OpenSM's LIDs are not the sequential ones (under ibsim its own HCA gets LID 1, n0016 LID 3 and
// n0002 LID 11): the replay takes them from the subnet list, so that its flow entries match the
// fabric's SLIDs and DLIDs. The paths do not change with them: DmodK picks the up port by the
// destination's host index in the tree (recovered from the cabling), not by its LID.
TEST(SimPaths, SubnetList_NumbersThePortsAsOpenSmDid) {
  const Fabric f = generate_xgft(XgftParams::parse("2;4,4;1,4"));
  const auto hex = [](std::uint64_t v, int width) {
    std::ostringstream s;
    s << std::hex << std::setw(width) << std::setfill('0') << v;
    return s.str();
  };
  const std::size_t hcas = f.hcas().size();
  const auto lid_of = [&](NodeIdx n) {
    const auto h = std::find(f.hcas().begin(), f.hcas().end(), n);
    if (h != f.hcas().end()) return hcas - static_cast<std::size_t>(h - f.hcas().begin());
    return hcas + 1 +
           static_cast<std::size_t>(std::find(f.switches().begin(), f.switches().end(), n) -
                                    f.switches().begin());
  };
  const auto end = [&](NodeIdx n, PortNum p) {
    const Node& node = f.node(n);
    const std::string g = hex(node.guid.value(), 16);
    const std::string pg = hex(node.guid.value() + (node.is_switch() ? 0 : p.value()), 16);
    return std::string("{ ") + (node.is_switch() ? "SW" : "CA") +
           " Ports:" + hex(node.ports.size(), 2) + " SystemGUID:" + g + " NodeGUID:" + g +
           " PortGUID:" + pg + " VenID:000000 DevID:0000 Rev:000000A1 {" + node.name +
           "} LID:" + hex(lid_of(n), 4) + " PN:" + hex(p.value(), 2) + " }";
  };
  std::string lst;
  for (const Link& l : f.links()) {
    if (l.from < l.to) lst += end(l.from, l.from_port) + " " + end(l.to, l.to_port) + " PHY=4x\n";
  }
  const test::TempDir dir("ibsdn-sim-paths");
  std::ofstream(dir.file("subnet.lst")) << lst;
  const std::vector<std::string> args =
      with(kTree, {"--job", "nodes=n0001,n0005,n0009,n0013,n0002;pattern=all-to-all", "--json"});
  const SimRun seq = sim(args);
  const SimRun osm = sim(with(args, {"--subnet-lst", dir.file("subnet.lst")}));
  ASSERT_EQ(seq.status, 0) << seq.err;
  ASSERT_EQ(osm.status, 0) << osm.err;
  const nlohmann::json js = nlohmann::json::parse(seq.out);
  const nlohmann::json jo = nlohmann::json::parse(osm.out);
  EXPECT_EQ(js.at("lids"), "sequential");
  EXPECT_EQ(jo.at("lids"), "from " + dir.file("subnet.lst"));
  const nlohmann::json& first = jo.at("jobs")[0].at("flows")[0];
  EXPECT_EQ(first.at("src"), "n0001");
  EXPECT_EQ(first.at("slid"), 16) << "n0001 is the first host, the list's last HCA LID";
  EXPECT_EQ(js.at("jobs")[0].at("flows")[0].at("slid"), 1);
  EXPECT_GT(jo.at("jobs")[0].at("entries").get<int>(), 0) << "the case has flow entries";
  for (std::size_t k = 0; k < js.at("jobs")[0].at("flows").size(); ++k) {
    EXPECT_EQ(js.at("jobs")[0].at("flows")[k].at("hops"),
              jo.at("jobs")[0].at("flows")[k].at("hops"))
        << k;
  }

  // A subnet list of another fabric is refused.
  const SimRun other = sim({"paths", "--xgft", "2;4,8;1,4", "--subnet-lst", dir.file("subnet.lst"),
                            "--job", "nodes=n0001,n0002;pattern=ring"});
  EXPECT_EQ(other.status, 2) << other.out;
}

TEST(SimPaths, BadInput_ExitsTwoWithAMessage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--job", "nodes=n0001,n9999;pattern=ring"}, "n9999"},
      {{"--job", "nodes=n0001,n0002;pattern=nosuchpattern"}, "nosuchpattern"},
      {{"--job", "nodes=n0001,n0002;pattern=shift:k=0"},
       "pattern='shift:k=0': pattern 'shift': option k: must not be 0"},
      {{"--job", "nodes=n0001,n0002,n0001;pattern=ring"}, "n0001"},
      {{"--job", "nodes=n0001,n0002;pattern=ring;algorithm=teleport"}, "teleport"},
      {{"--job", "nodes=n0001,n0002;pattern=ring", "--job", "nodes=n0003,n0004;pattern=ring;id=1"},
       "another job has id 1"},
      {{"--job", "nodes=n0001,n0002;pattern=ring", "--routing", "teleport"}, "teleport"},
      {{"--job", "nodes=n0001,n0002;pattern=ring;algorithm=sdn-greedy", "--routing", "dmodk"},
       "needs the controller"},
      {{"--job", "nodes=n0001;pattern=ring;colour=red"}, "unknown key"},
      {{"--job", "nodes=n0001,n0002;pattern=ring", "--subnet-lst", "/nonexistent/subnet.lst"},
       "/nonexistent/subnet.lst"},
      {{"--job", "nodes=n0001,n0002;pattern=ring", "--mapping", "diagonal"}, "diagonal"},
      {{"--job", "nodes=n0001,n0002;pattern=ring", "--install-backend", "dry_run"}, "dry_run"},
      {{}, "--job"},
  };
  for (const auto& [args, message] : cases) {
    const SimRun r = sim(with(kTree, args));
    SCOPED_TRACE(args.empty() ? std::string("no --job") : args.back());
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("job 1"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace ibsdn
