// ibsdnctl: the command line turned into notice requests (read back with the controller's own
// parser), usage errors, the text printed for each response (from the controller's response
// builders), and the socket client against a canned in-test server.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/exit_code.hpp"
#include "cli/ibsdnctl.hpp"
#include "cli/response_format.hpp"
#include "flowtable/flow_text.hpp"
#include "plugin/notice/client/notice_client.hpp"
#include "plugin/notice/notice.hpp"
#include "tests/support/temp_dir.hpp"

namespace ibsdn::cli {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A private directory for sockets and matrix files, removed with everything in it.
using test::TempDir;

struct Outcome {
  int exit_code = 0;
  std::string out;
  std::string err;
};

Outcome run(const std::vector<std::string>& args,
            const std::optional<std::string>& socket_env = std::nullopt) {
  std::ostringstream out;
  std::ostringstream err;
  const int rc = run_ibsdnctl(args, Environment{socket_env, std::nullopt}, out, err);
  return {rc, out.str(), err.str()};
}

CommandLine parse_in(const Environment& env, const std::vector<std::string>& args,
                     std::string* err_text = nullptr) {
  std::ostringstream out;
  std::ostringstream err;
  CommandLine cl = parse_command_line(args, env, out, err);
  if (err_text) *err_text = err.str();
  return cl;
}

CommandLine parse(const std::vector<std::string>& args, std::string* err_text = nullptr,
                  const std::optional<std::string>& socket_env = std::nullopt) {
  return parse_in(Environment{socket_env, std::nullopt}, args, err_text);
}

// The request the controller reads from the line ibsdnctl would send for `args` in `env`.
Request sent_request(const std::vector<std::string>& args, const Environment& env = {}) {
  std::string err;
  const CommandLine cl = parse_in(env, args, &err);
  if (!cl.invocation) {
    ADD_FAILURE() << "no request: " << err;
    return PingQuery{};
  }
  const ParsedRequest p = parse_request(request_line(cl.invocation->request));
  if (!p.ok()) {
    ADD_FAILURE() << "the controller refuses the line: " << p.error().message;
    return PingQuery{};
  }
  EXPECT_EQ(p.request(), cl.invocation->request);
  return p.request();
}

// ---- Command line -> request --------------------------------------------------------------

TEST(IbsdnctlCommandLine, Queries_BuildTheirRequests) {
  EXPECT_EQ(sent_request({"ping"}), Request(PingQuery{}));
  EXPECT_EQ(sent_request({"jobs"}), Request(JobsQuery{}));
  EXPECT_EQ(sent_request({"audit"}), Request(AuditQuery{}));
  EXPECT_EQ(sent_request({"audit", "--repair"}), Request(AuditQuery{true}));
  EXPECT_EQ(sent_request({"stats"}), Request(StatsQuery{}));
  EXPECT_EQ(sent_request({"links"}), Request(LinksQuery{}));
  EXPECT_EQ(sent_request({"links", "--top", "5"}), Request(LinksQuery{5}));
  EXPECT_EQ(sent_request({"route", "node01", "node02"}),
            Request(RouteQuery{"node01", "node02", std::nullopt}));
  EXPECT_EQ(sent_request({"route", "node01", "node02", "--job", "48"}),
            Request(RouteQuery{"node01", "node02", JobId(48)}));
  EXPECT_EQ(sent_request({"flows"}), Request(FlowsQuery{}));
}

TEST(IbsdnctlCommandLine, Flows_SwitchIsLidGuidOrName) {
  EXPECT_EQ(sent_request({"flows", "--switch", "l1s003", "--job", "4242", "--from-switch"}),
            Request(FlowsQuery{SwitchRef(std::string("l1s003")), JobId(4242), true}));
  EXPECT_EQ(sent_request({"flows", "--switch", "17"}),
            Request(FlowsQuery{SwitchRef(Lid(17)), std::nullopt, false}));
  EXPECT_EQ(sent_request({"flows", "--switch", "0x0002c90300000001"}),
            Request(FlowsQuery{SwitchRef(Guid(0x0002c90300000001)), std::nullopt, false}));
}

TEST(IbsdnctlCommandLine, JobStart_AllOptionsReachTheRequest) {
  JobStartRequest want;
  want.job = JobId(4242);
  want.user = "alice";
  want.uid = 1001;
  want.nodes = {"node01", "node02", "node03"};
  want.traffic = PatternSpec::parse("shift:k=3");
  want.ranks_per_node = 4;
  want.mapping = Mapping::kCyclic;
  want.elephants = {{0, 5}, {3, 1}, {2, 7}};
  want.algorithm = "sdn-greedy";
  EXPECT_EQ(
      sent_request({"job",        "start",     "--job",       "4242",       "--user",
                    "alice",      "--uid",     "1001",        "--nodes",    "node01,node02",
                    "--nodes",    "node03",    "--pattern",   "shift:k=3",  "--ranks-per-node",
                    "4",          "--mapping", "cyclic",      "--elephant", "0:5,3:1",
                    "--elephant", "2:7",       "--algorithm", "sdn-greedy"}),
      Request(want));
}

// The file's self and zero pairs are not sent, their counts are: the controller reports them.
TEST(IbsdnctlCommandLine, JobStart_MatrixFileIsReadAndNormalised) {
  const TempDir dir;
  const std::string path = dir.file("tm.txt");
  std::ofstream(path) << "# measured\n1 0 10\n0 1 5\n1 0 20   # again\n2 3 0\n1 1 64\n";
  JobStartRequest want;
  want.job = JobId(7);
  want.user = "slurm";
  want.nodes = {"n1", "n2"};
  want.traffic = TrafficMatrix{{{0, 1, 5}, {1, 0, 30}}, {1, 64, 1}};
  EXPECT_EQ(sent_request({"job", "start", "--job", "7", "--user", "slurm", "--nodes", "n1,n2",
                          "--matrix", path}),
            Request(want));
}

TEST(IbsdnctlCommandLine, JobEndPhaseHint_BuildTheirRequests) {
  EXPECT_EQ(sent_request({"job", "end", "--job", "9"}), Request(JobEndRequest{JobId(9)}));
  EXPECT_EQ(sent_request({"job", "phase", "--job", "9", "--begin", "halo"}),
            Request(PhaseRequest{JobId(9), PhaseAction::kBegin, "halo", std::nullopt}));
  EXPECT_EQ(sent_request({"job", "phase", "--job", "9", "--begin", "io", "--pattern", "ring"}),
            Request(PhaseRequest{JobId(9), PhaseAction::kBegin, "io",
                                 Traffic(PatternSpec::parse("ring"))}));
  EXPECT_EQ(sent_request({"job", "phase", "--job", "9", "--end", "halo"}),
            Request(PhaseRequest{JobId(9), PhaseAction::kEnd, "halo", std::nullopt}));
  EXPECT_EQ(sent_request({"job", "hint", "--job", "9", "--elephant", "0:1", "2:3"}),
            Request(HintRequest{JobId(9), {{0, 1}, {2, 3}}}));
  EXPECT_EQ(sent_request({"job", "hint", "--job", "9", "--clear"}),
            Request(HintRequest{JobId(9), {}}));
}

#ifdef IBSDN_HAVE_SLURM_HOSTLIST
JobStartRequest ring_job(std::vector<std::string> nodes) {
  JobStartRequest r;
  r.job = JobId(1);
  r.user = "alice";
  r.nodes = std::move(nodes);
  r.traffic = PatternSpec::parse("ring");
  return r;
}

std::vector<std::string> ring_job_args(std::vector<std::string> nodes_options) {
  std::vector<std::string> a = {"job",    "start", "--job",     "1",
                                "--user", "alice", "--pattern", "ring"};
  a.insert(a.end(), nodes_options.begin(), nodes_options.end());
  return a;
}

// Slurm host lists as SLURM_JOB_NODELIST and squeue write them, expanded by libslurm in their
// order (the rank placement); several --nodes add up.
TEST(IbsdnctlCommandLine, JobStart_NodesTakeSlurmHostlistsInTheirOrder) {
  EXPECT_EQ(sent_request(ring_job_args({"--nodes", "node[01-03,07],gpu3"})),
            Request(ring_job({"node01", "node02", "node03", "node07", "gpu3"})));
  EXPECT_EQ(sent_request(ring_job_args({"--nodes", "n3,n1,n2"})),
            Request(ring_job({"n3", "n1", "n2"})));
  EXPECT_EQ(sent_request(ring_job_args({"--nodes", "r[1-2]n[1-2]", "--nodes", "gpu[7-8]"})),
            Request(ring_job({"r1n1", "r1n2", "r2n1", "r2n2", "gpu7", "gpu8"})));
  const CommandLine all = parse(ring_job_args({"--nodes", "node[00001-16000]"}));
  ASSERT_TRUE(all.invocation);
  const auto& nodes = std::get<JobStartRequest>(all.invocation->request).nodes;
  ASSERT_EQ(nodes.size(), 16000u);
  EXPECT_EQ(nodes.front(), "node00001");
  EXPECT_EQ(nodes.back(), "node16000");
}

// libslurm expands "bad[1-" to "bad]": every such list is refused before it gets there, saying
// what is wrong and at which character.
TEST(IbsdnctlCommandLine, JobStart_MalformedHostlistsAreRefusedSayingWhatAndWhere) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad[1-", "--nodes: host list 'bad[1-': at character 7: expected a number in the brackets"},
      {"node[01-16,20", "--nodes: host list 'node[01-16,20': at character 5: '[' is never closed"},
      {"n[3-1]", "--nodes: host list 'n[3-1]': at character 3: range 3-1 runs backwards"},
      {"a,,b", "--nodes: host list 'a,,b': at character 3: empty host name"},
      {"n1 n2", "--nodes: host list 'n1 n2': at character 3: unexpected character ' '"},
      {"n[1-3],n2", "--nodes: host list 'n[1-3],n2': host 'n2' appears twice"},
      {"n[0-999999999]",
       "--nodes: host list 'n[0-999999999]': at character 3: names more than 100000 hosts"},
      {"-n[1-2]", "--nodes: host list '-n[1-2]': host '-n1': "},
  };
  for (const auto& [list, message] : cases) {
    const Outcome r = run(ring_job_args({"--nodes", list}), "/nonexistent/never-connected.sock");
    EXPECT_EQ(r.exit_code, 2) << list;
    EXPECT_NE(r.err.find("ibsdnctl: " + message), std::string::npos)
        << list << "\n stderr: " << r.err;
  }
  // Across --nodes values a host twice is the protocol's check, by its place in the request.
  const Outcome twice = run(ring_job_args({"--nodes", "n[1-2]", "--nodes", "n2"}), "/none.sock");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("ibsdnctl: --nodes: at /nodes/2: host 'n2' is listed"),
            std::string::npos)
      << twice.err;
}
#endif

// Users mark phases and hints from inside their jobs: --job defaults to $SLURM_JOB_ID there.
TEST(IbsdnctlCommandLine, JobPhaseAndHint_DefaultToTheSlurmJobTheyRunIn) {
  const Environment in_job{std::nullopt, "4242"};
  EXPECT_EQ(sent_request({"job", "phase", "--begin", "halo"}, in_job),
            Request(PhaseRequest{JobId(4242), PhaseAction::kBegin, "halo", std::nullopt}));
  EXPECT_EQ(sent_request({"job", "phase", "--end", "halo"}, in_job),
            Request(PhaseRequest{JobId(4242), PhaseAction::kEnd, "halo", std::nullopt}));
  EXPECT_EQ(sent_request({"job", "hint", "--elephant", "0:1"}, in_job),
            Request(HintRequest{JobId(4242), {{0, 1}}}));
  EXPECT_EQ(sent_request({"job", "hint", "--job", "7", "--clear"}, in_job),
            Request(HintRequest{JobId(7), {}}));
  // Only phase and hint: ending or starting a job stays explicit.
  std::string err;
  EXPECT_FALSE(parse_in(in_job, {"job", "end"}, &err).invocation);
  EXPECT_NE(err.find("--job is required"), std::string::npos) << err;

  const std::vector<std::pair<std::optional<std::string>, std::string>> cases = {
      {std::nullopt, "ibsdnctl: --job: required outside a Slurm job ($SLURM_JOB_ID is not set)"},
      {"", "ibsdnctl: --job: required outside a Slurm job"},
      {"42.3",
       "ibsdnctl: --job: $SLURM_JOB_ID is '42.3', not a job id (1..9223372036854775807); "
       "give --job"},
      {"0", "$SLURM_JOB_ID is '0', not a job id"},
      {"9223372036854775808", "$SLURM_JOB_ID is '9223372036854775808', not a job id"},
  };
  for (const auto& [value, message] : cases) {
    const CommandLine cl =
        parse_in(Environment{std::nullopt, value}, {"job", "hint", "--clear"}, &err);
    EXPECT_FALSE(cl.invocation) << message;
    EXPECT_EQ(cl.exit_code, ExitCode::kUsage);
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
}

TEST(IbsdnctlCommandLine, Quarantine_ListsOrReleasesKeepingEntriesUnlessAsked) {
  EXPECT_EQ(sent_request({"quarantine"}), Request(QuarantineQuery{}));
  EXPECT_EQ(sent_request({"quarantine", "release", "--job", "48"}),
            Request(QuarantineReleaseRequest{JobId(48), false}));
  EXPECT_EQ(sent_request({"quarantine", "release", "--job", "48", "--delete-entries"}),
            Request(QuarantineReleaseRequest{JobId(48), true}));
  EXPECT_EQ(parse({"quarantine"}).invocation->timeout, 10000ms);
  EXPECT_EQ(parse({"quarantine", "release", "--job", "48"}).invocation->timeout, 30000ms);
}

TEST(IbsdnctlCommandLine, Socket_OptionThenEnvironmentThenDefault) {
  EXPECT_EQ(
      parse({"--socket", "/tmp/a.sock", "ping"}, nullptr, "/tmp/env.sock").invocation->socket_path,
      "/tmp/a.sock");
  EXPECT_EQ(parse({"ping"}, nullptr, "/tmp/env.sock").invocation->socket_path, "/tmp/env.sock");
  EXPECT_EQ(parse({"ping"}, nullptr, "").invocation->socket_path, "/run/ibsdn/notice.sock");
  EXPECT_EQ(parse({"ping"}).invocation->socket_path, "/run/ibsdn/notice.sock");
}

TEST(IbsdnctlCommandLine, Timeout_LongerForRequestsThatInstallEntries) {
  EXPECT_EQ(parse({"ping"}).invocation->timeout, 10000ms);
  EXPECT_EQ(parse({"job", "end", "--job", "1"}).invocation->timeout, 10000ms);
  EXPECT_EQ(
      parse({"job", "start", "--job", "1", "--user", "u", "--nodes", "a", "--pattern", "ring"})
          .invocation->timeout,
      30000ms);
  EXPECT_EQ(parse({"job", "phase", "--job", "1", "--begin", "p"}).invocation->timeout, 30000ms);
  EXPECT_EQ(parse({"job", "hint", "--job", "1", "--clear"}).invocation->timeout, 30000ms);
  EXPECT_EQ(parse({"--timeout", "250", "job", "hint", "--job", "1", "--clear"}).invocation->timeout,
            250ms);
}

TEST(IbsdnctlCommandLine, GlobalOptions_MayFollowTheCommand) {
  const CommandLine cl = parse({"flows", "--json", "--timeout", "77", "--socket", "/tmp/s"});
  ASSERT_TRUE(cl.invocation);
  EXPECT_TRUE(cl.invocation->json_output);
  EXPECT_EQ(cl.invocation->timeout, 77ms);
  EXPECT_EQ(cl.invocation->socket_path, "/tmp/s");
  EXPECT_FALSE(parse({"flows"}).invocation->json_output);
}

TEST(IbsdnctlCommandLine, Help_EveryCommandHasItAndExitsZero) {
  const std::vector<std::vector<std::string>> commands = {{},
                                                          {"ping"},
                                                          {"flows"},
                                                          {"jobs"},
                                                          {"links"},
                                                          {"route"},
                                                          {"audit"},
                                                          {"stats"},
                                                          {"job"},
                                                          {"job", "start"},
                                                          {"job", "end"},
                                                          {"job", "phase"},
                                                          {"job", "hint"},
                                                          {"quarantine"},
                                                          {"quarantine", "release"}};
  for (std::vector<std::string> args : commands) {
    std::string usage = "Usage: ibsdnctl";
    for (const std::string& a : args) usage += " " + a;
    args.push_back("--help");
    const Outcome r = run(args);
    EXPECT_EQ(r.exit_code, 0) << usage;
    EXPECT_NE(r.out.find(usage), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Exit codes:"), std::string::npos) << usage;
    EXPECT_EQ(r.err, "");
  }
}

// ---- Usage errors -----------------------------------------------------------------------

struct UsageCase {
  std::vector<std::string> args;
  std::string message;  // what stderr must contain: the option and what was wrong
};

TEST(IbsdnctlCommandLine, UsageErrors_ExitTwoNamingTheOption) {
  const TempDir dir;
  const std::string bad_matrix = dir.file("bad.txt");
  std::ofstream(bad_matrix) << "0 1 5\n1 x 3\n";
  const std::vector<std::string> start = {"job", "start", "--job", "1", "--user", "alice"};
  auto with = [&start](std::vector<std::string> more) {
    std::vector<std::string> a = start;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const std::vector<UsageCase> cases = {
      {{}, "a command is needed (ping, flows, jobs, links, route, audit, stats, job, quarantine)"},
      {{"bogus"}, "unknown command 'bogus'"},
      {{"job", "bogus"}, "unknown command 'bogus' (known: start, end, phase, hint)"},
      {{"ping", "--bogus"}, "The following argument was not expected: --bogus"},
      {{"flows", "--job", "0"}, "--job: Value 0 not in range"},
      {{"flows", "--job", "abc"}, "--job"},
      {{"flows", "--switch", "0xZZ"}, "--switch: '0xZZ' is not a GUID"},
      {{"flows", "--switch", "70000"}, "--switch: LID 70000 is out of the unicast range"},
      {{"links", "--top", "0"}, "--top: Value 0 not in range 1 to 1000000"},
      {{"route", "a"}, "DST is required"},
      {{"route", "a", "a"}, "DST: at /dst: src and dst are the same host"},
      {{"route", "a", "b_c"}, "DST: at /dst: 'b_c' is not a valid host name"},
      {{"--timeout", "0", "ping"}, "--timeout"},
      {{"job", "start", "--job", "1", "--nodes", "a", "--pattern", "ring"}, "--user is required"},
      {with({"--nodes", "a"}), "job start needs --pattern TEXT or --matrix FILE"},
#ifdef IBSDN_HAVE_SLURM_HOSTLIST
      {with({"--nodes", "a,b_x", "--pattern", "ring"}), "--nodes: host list 'a,b_x': host 'b_x'"},
      {with({"--nodes", "a,a", "--pattern", "ring"}), "--nodes: host list 'a,a': host 'a' appears"},
#else
      {with({"--nodes", "a,b_x", "--pattern", "ring"}), "--nodes: at /nodes/1: 'b_x'"},
      {with({"--nodes", "a,a", "--pattern", "ring"}), "--nodes: at /nodes/1: host 'a' is listed"},
      {with({"--nodes", "n[1-4]", "--pattern", "ring"}), "--nodes: 'n[1-4]': this ibsdnctl was"},
#endif
      {with({"--nodes", "a", "--pattern", "shift:k=0"}), "--pattern: pattern 'shift'"},
      {with({"--nodes", "a", "--pattern", "nosuch"}), "--pattern:"},
      {with({"--nodes", "a", "--pattern", "matrix:file=tm"}), "--pattern: the matrix pattern"},
      {with({"--nodes", "a", "--pattern", "ring", "--matrix", bad_matrix}),
       "--pattern excludes --matrix"},
      {with({"--nodes", "a", "--matrix", bad_matrix}), "--matrix: " + bad_matrix + ":2: dst_rank"},
      {with({"--nodes", "a", "--matrix", dir.file("none.txt")}),
       "--matrix: " + dir.file("none.txt") + ": cannot open"},
      {with({"--nodes", "a", "--pattern", "ring", "--elephant", "1-2"}),
       "--elephant: '1-2' is not SRC:DST"},
      {with({"--nodes", "a", "--pattern", "ring", "--elephant", "3:3"}),
       "--elephant: at /elephants/0: a rank does not send to itself"},
      {with({"--nodes", "a", "--pattern", "ring", "--mapping", "random"}), "--mapping"},
      {with({"--nodes", "a", "--pattern", "ring", "--ranks-per-node", "0"}), "--ranks-per-node"},
      {with({"--nodes", "a", "--pattern", "ring", "--uid", "4294967295"}), "--uid"},
      {with({"--nodes", "a", "--pattern", "ring", "--algorithm", "sdn_optimal"}),
       "--algorithm: at /algorithm: 'sdn_optimal' is not a valid algorithm name"},
      {{"job", "start", "--job", "1", "--user", "9lives", "--nodes", "a", "--pattern", "ring"},
       "--user: at /user: '9lives' is not a valid user name"},
      {{"job", "phase", "--job", "1"}, "job phase needs --begin NAME or --end NAME"},
      {{"job", "phase", "--job", "1", "--begin", "a b"}, "--begin: at /name: 'a b'"},
      {{"job", "phase", "--job", "1", "--end", "a", "--pattern", "ring"},
       "--end excludes --pattern"},
      {{"job", "hint", "--job", "1"}, "job hint needs --elephant SRC:DST (or --clear"},
      {{"job", "end"}, "--job is required"},
      {{"quarantine", "release"}, "--job is required"},
      {{"quarantine", "release", "--job", "0"}, "--job: Value 0 not in range"},
      {{"quarantine", "bogus"}, "The following argument was not expected: bogus"},
      {{"quarantine", "--delete-entries"},
       "The following argument was not expected: --delete-entries"},
  };
  for (const UsageCase& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += " " + a;
    const Outcome r = run(c.args, "/nonexistent/never-connected.sock");
    EXPECT_EQ(r.exit_code, 2) << joined;
    EXPECT_NE(r.err.find("ibsdnctl: " + c.message), std::string::npos)
        << joined << "\n stderr: " << r.err;
    EXPECT_NE(r.err.find("--help' for more information"), std::string::npos) << joined;
    EXPECT_EQ(r.out, "") << joined;
  }
}

// ---- Formatting ---------------------------------------------------------------------------

FlowEntry entry(std::uint64_t cookie, std::uint16_t slid, std::uint16_t dlid, std::uint8_t port) {
  FlowEntry e;
  e.cookie = cookie;
  e.priority = 100;
  e.match = FlowMatch::exact_pair(Lid(slid), Lid(dlid));
  e.action.output = PortNum(port);
  return e;
}

TEST(IbsdnctlFormat, Flows_OvsOfctlStyleHeaderAndEntries) {
  const std::vector<SwitchFlows> switches = {
      {Guid(0x0002c90300000003),
       Lid(3),
       "l1s003",
       {entry(0x1092, 0x12, 0x40, 7), entry(0x1092, 0x13, 0x40, 8)}},
      {Guid(0x0002c90300000004), Lid(4), "l1s004", {entry(0x2a, 0x12, 0x41, 1)}},
  };
  EXPECT_EQ(format_flows(flows_response(switches, false)),
            "source=controller: 2 switches, 3 entries\n"
            "switch S-0002c90300000003 (l1s003) guid=0x0002c90300000003 lid=3: 2 entries\n"
            " cookie=0x1092, priority=100, slid=0x12, dlid=0x40 actions=output:7, n_packets=0\n"
            " cookie=0x1092, priority=100, slid=0x13, dlid=0x40 actions=output:8, n_packets=0\n"
            "switch S-0002c90300000004 (l1s004) guid=0x0002c90300000004 lid=4: 1 entry\n"
            " cookie=0x2a, priority=100, slid=0x12, dlid=0x41 actions=output:1, n_packets=0\n");
  EXPECT_EQ(format_flows(flows_response({}, true)), "source=switch: 0 switches, 0 entries\n");
}

TEST(IbsdnctlFormat, Flows_EntryTheClientCannotParseFallsBackToItsText) {
  json r =
      flows_response(std::vector<SwitchFlows>{{Guid(1), Lid(1), "s", {entry(1, 2, 3, 4)}}}, false);
  r["switches"][0]["entries"][0]["actions"]["output"] = 999;  // a field from a later version
  r["switches"][0]["entries"][0]["text"] = "cookie=0x1, priority=100 actions=future:1";
  EXPECT_NE(format_flows(r).find("\n cookie=0x1, priority=100 actions=future:1\n"),
            std::string::npos);
  r["switches"][0]["entries"][0].erase("text");
  EXPECT_THROW(format_flows(r), MalformedResponse);
}

TEST(IbsdnctlFormat, Jobs_TableWithUtcStartTimes) {
  const std::vector<JobSummary> jobs = {
      {JobId(4242), "alice", 2, "3dnn", "sdn-optimal", "halo", 56, 1714564800000, false,
       std::nullopt},
      {JobId(7), "bob", 128, "matrix", "dmodk", "", 0, 1714564801500, true,
       MatrixCounts{900, {3, 4096, 1}}},
      {JobId(8), "bob", 2, "matrix", "dmodk", "", 0, 1714564801500, false, MatrixCounts{1, {}}},
  };
  // Skipped matrix pairs are a line under the table, for the jobs that have some.
  EXPECT_EQ(
      format_jobs(jobs_response(jobs)),
      " JOB  USER   NODES  PATTERN  ALGORITHM    PHASE  ENTRIES  STARTED               DEGRADED\n"
      "4242  alice      2  3dnn     sdn-optimal  halo        56  2024-05-01T12:00:00Z  no\n"
      "   7  bob      128  matrix   dmodk        -            0  2024-05-01T12:00:01Z  yes\n"
      "   8  bob        2  matrix   dmodk        -            0  2024-05-01T12:00:01Z  no\n"
      "job 7 matrix: 900 pairs, 3 self pairs skipped (4096 bytes intra-rank), 1 zero pair "
      "skipped\n");
  EXPECT_EQ(format_jobs(jobs_response({})),
            "JOB  USER  NODES  PATTERN  ALGORITHM  PHASE  ENTRIES  STARTED  DEGRADED\n");
  // The reason the controller gives stands beside the algorithm.
  JobSummary with_reason = jobs[0];
  with_reason.algorithm = "sdn-volume";
  with_reason.algorithm_reason = "volumes";
  EXPECT_NE(format_jobs(jobs_response({&with_reason, 1})).find(" sdn-volume (volumes) "),
            std::string::npos);
}

TEST(IbsdnctlFormat, Links_TableInTheControllersOrder) {
  const std::vector<LinkRow> links = {
      {"l1s003", PortNum(7), "l2s001", PortNum(1), 12, 3.5},
      {"node01", PortNum(1), "l1s003", PortNum(2), 3, 0.25},
  };
  EXPECT_EQ(format_links(links_response(links)),
            "FROM    PORT  ->  TO      PORT  FLOWS  WEIGHT\n"
            "l1s003     7  ->  l2s001     1     12     3.5\n"
            "node01     1  ->  l1s003     2      3    0.25\n");
}

TEST(IbsdnctlFormat, Route_MarksFlowEntryJobLftEntryAndDefaultLftHops) {
  const std::vector<RouteHop> hops = {
      {"node01", Guid(0x0002c90300000a01), PortNum(1), false, 0},
      {"l1s003", Guid(0x0002c90300000003), PortNum(7), true, 0x1092},
      {"l2s001", Guid(0x0002c90300000011), PortNum(3), false, 0},
      {"l1s004", Guid(0x0002c90300000004), PortNum(2), true, 0x1092, true},
  };
  EXPECT_EQ(format_route(route_response("node01", "node02", hops)),
            "node01 -> node02: 4 hops\n"
            "  1  node01  guid=0x0002c90300000a01  out_port=1  lft\n"
            "  2  l1s003  guid=0x0002c90300000003  out_port=7  flow-entry (cookie=0x1092)\n"
            "  3  l2s001  guid=0x0002c90300000011  out_port=3  lft\n"
            "  4  l1s004  guid=0x0002c90300000004  out_port=2  lft-entry (cookie=0x1092)\n");
}

TEST(IbsdnctlFormat, Route_OfAJobOnALidOffsetNamesItsDlid) {
  const std::vector<RouteHop> hops = {{"node01", Guid(0x0002c90300000a01), PortNum(1), false, 0}};
  json r = route_response("node01", "node02", hops);
  r["dlid"] = 5u;
  r["lid_offset"] = 1u;
  EXPECT_EQ(format_route(r),
            "node01 -> node02: 1 hop (DLID 5, LID offset 1)\n"
            "  1  node01  guid=0x0002c90300000a01  out_port=1  lft\n");
  r["dlid"] = 4u;
  r["lid_offset"] = 0u;
  EXPECT_EQ(format_route(r).substr(0, 24), "node01 -> node02: 1 hop\n");
}

TEST(IbsdnctlFormat, Audit_ConsistentOrFindingsTable) {
  const json clean = audit_response(24, {});
  EXPECT_EQ(format_audit(clean), "audit: 24 switches checked, consistent\n");
  EXPECT_FALSE(audit_found_differences(clean));

  const std::vector<AuditFinding> findings = {
      {Guid(0x0002c90300000003), "l1s003", "missing",
       "cookie=0x1092, priority=100, dlid=0x40 actions=output:7"},
      {Guid(0x0002c90300000004), "l1s004", "unreachable", "no answer to TableInfo"},
  };
  const json dirty = audit_response(24, findings);
  EXPECT_EQ(format_audit(dirty),
            "audit: 24 switches checked, 2 findings\n"
            "SWITCH              NAME    KIND         DETAIL\n"
            "0x0002c90300000003  l1s003  missing      cookie=0x1092, priority=100, dlid=0x40 "
            "actions=output:7\n"
            "0x0002c90300000004  l1s004  unreachable  no answer to TableInfo\n");
  EXPECT_TRUE(audit_found_differences(dirty));
}

TEST(IbsdnctlFormat, Stats_NameValueLinesSorted) {
  const std::vector<std::pair<std::string, std::uint64_t>> counters = {
      {"notices", 1200}, {"flow_mods_sent", 345678}, {"jobs_active", 2}};
  EXPECT_EQ(format_stats(stats_response(counters)),
            "flow_mods_sent  345678\n"
            "jobs_active          2\n"
            "notices           1200\n");
}

TEST(IbsdnctlFormat, Ready_SummarisesFlowsLoadDegradationAndTimings) {
  JobReady r;
  r.job = JobId(4242);
  r.algorithm = "sdn-optimal";
  r.flows = 12;
  r.flows_on_default = 2;
  r.entries = 56;
  r.max_link_load = 2;
  r.bound = 1.5;
  r.max_link_ms = 0.25;
  r.bound_ms = 0.125;
  r.degraded = true;
  r.warnings = {"l1s003: table full", "l1s004: no answer"};
  r.route_ms = 0.4;
  r.compile_ms = 0.125;
  r.install_ms = 3.2;
  EXPECT_EQ(format_ready(ready_response(r)),
            "job 4242 ready\n"
            "algorithm:      sdn-optimal\n"
            "flows:          12, 2 on the default (LFT) route\n"
            "entries:        56\n"
            "max link load:  2 (lower bound L_D 1.5)\n"
            "max link time:  0.25 ms for its bytes (lower bound 0.125 ms)\n"
            "degraded:       yes\n"
            "warning:        l1s003: table full\n"
            "warning:        l1s004: no answer\n"
            "time:           route 0.4 ms, compile 0.125 ms, install 3.2 ms\n");
  // Why the algorithm, and the guard's measure, when the controller says them.
  r.algorithm = "sdn-volume";
  r.algorithm_reason = "volumes";
  r.guard_measure = "bytes";
  const std::string text = format_ready(ready_response(r));
  EXPECT_NE(
      text.find("\nalgorithm:      sdn-volume (default for flows whose byte volumes differ)\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\nload guard:     compares bytes against the default routes\n"),
            std::string::npos)
      << text;
  r.algorithm_reason = "from-the-future";
  EXPECT_NE(format_ready(ready_response(r)).find("sdn-volume (from-the-future)"),
            std::string::npos);
  r.warnings.clear();
  r.matrix = MatrixCounts{12, {0, 0, 0}};
  EXPECT_EQ(format_ready(ready_response(r)).find("matrix:"), std::string::npos);
  r.matrix = MatrixCounts{12, {1, 1, 30}};
  EXPECT_NE(format_ready(ready_response(r))
                .find("\nmatrix:         12 pairs, 1 self pair skipped (1 byte intra-rank), 30 "
                      "zero pairs skipped\nentries:        56\n"),
            std::string::npos)
      << format_ready(ready_response(r));
}

TEST(IbsdnctlFormat, Ready_NamesTheBackendsAndWhatADryRunWouldBuy) {
  JobReady r;
  r.job = JobId(7);
  r.algorithm = "sdn-optimal";
  r.flows = 16;
  r.entries = 10;
  r.max_link_load = 1;
  r.bound = 1;
  r.backend = "auto";
  r.table_switches = 1;
  r.table_entries = 2;
  r.lft_switches = 4;
  r.lft_entries = 8;
  r.lft_blocks = 5;
  json j = ready_response(r);
  EXPECT_NE(
      format_ready(j).find("\nbackend:        auto: 2 flow entries on 1 switch, 8 LFT entries "
                           "on 4 switches (5 blocks written)\n"),
      std::string::npos)
      << format_ready(j);
  j["backend"] = "dry_run";
  j["dry_run"] = {{"written", false},
                  {"planned", {{"max_link_load", 1}, {"max_link_ms", 0.5}}},
                  {"lft_only", {{"max_link_load", 3}, {"max_link_ms", 1.5}}},
                  {"bound", {{"max_link_load", 1}, {"max_link_ms", 0.5}}}};
  const std::string dry = format_ready(j);
  EXPECT_NE(dry.find("(5 blocks to write)\n"), std::string::npos) << dry;
  EXPECT_NE(dry.find("\ndry run:        nothing written; max link load 1 as planned, 3 on the LFT "
                     "alone (max link time 0.5 ms against 1.5 ms)\n"),
            std::string::npos)
      << dry;
  j["dry_run"].erase("lft_only");
  EXPECT_THROW(format_ready(j), MalformedResponse);
}

TEST(IbsdnctlFormat, Pong_ShowsVersionAndProtocol) {
  EXPECT_EQ(format_pong(pong_response("0.1.0")), "pong: ibsdn 0.1.0, notice protocol 1\n");
}

TEST(IbsdnctlFormat, JobEnd_SaysWhatWasRemovedAndWhichSwitchesDidNotAnswer) {
  nlohmann::json r = ok_response();
  r["job"] = 7u;
  r["entries_removed"] = 3u;
  r["warnings"] = {"switch 0x2: no answer"};
  EXPECT_EQ(format_response(JobEndRequest{JobId(7)}, r),
            "job 7 ended: 3 entries removed\nwarning: switch 0x2: no answer\n");
  EXPECT_THROW(format_response(JobEndRequest{JobId(1)}, ok_response()), MalformedResponse);
}

TEST(IbsdnctlFormat, Quarantine_TableWithWhatTheSwitchesHold) {
  const QuarantineRow rows[] = {
      {JobId(48), "flow_entries row (job_id 48, seq 3), column entry: unreadable flow entry",
       1714564800000, 12, 10, 3},
      {JobId(7), "jobs row (job_id 7)", 1714564801000, 0, std::nullopt, std::nullopt}};
  EXPECT_EQ(format_response(QuarantineQuery{}, quarantine_response(rows)),
            "JOB  QUARANTINED           STORED  ON SWITCHES       REASON\n"
            " 48  2024-05-01T12:00:00Z      12  10 on 3 switches  flow_entries row (job_id 48, seq "
            "3), column entry: unreadable flow entry\n"
            "  7  2024-05-01T12:00:01Z       0  unknown           jobs row (job_id 7)\n");
}

TEST(IbsdnctlFormat, QuarantineRelease_SaysExplicitlyWhetherEntriesWereDeleted) {
  QuarantineRelease kept;
  kept.job = JobId(48);
  kept.entries_on_switches = 10;
  kept.switches = 3;
  const std::string left = format_response(QuarantineReleaseRequest{JobId(48), false},
                                           quarantine_release_response(kept));
  EXPECT_EQ(left,
            "job 48 released from quarantine: the controller no longer keeps it, and its id may be "
            "used again\n"
            "entries: NOT deleted (10 on 3 switches at their last audit); they are no longer the "
            "controller's: the next audit with repair removes them (the periodic check, a SUBNET "
            "UP, or 'ibsdnctl audit --repair'), or, should opensm restart first, it adopts them "
            "as job 48 (then 'ibsdnctl job end --job 48' removes them); if job 48 still runs, its "
            "traffic then takes the LFT routes\n");
  kept.entries_on_switches.reset();
  kept.switches.reset();
  EXPECT_NE(
      format_response(QuarantineReleaseRequest{JobId(48), false}, quarantine_release_response(kept))
          .find("NOT deleted (how many the switches hold is unknown)"),
      std::string::npos);

  QuarantineRelease deleted;
  deleted.job = JobId(48);
  deleted.entries_deleted = true;
  deleted.entries_removed = 10;
  deleted.switches_removed = 3;
  deleted.warnings = {"switch 0x0000000000000002: no answer"};
  EXPECT_EQ(format_response(QuarantineReleaseRequest{JobId(48), true},
                            quarantine_release_response(deleted)),
            "job 48 released from quarantine: the controller no longer keeps it, and its id may be "
            "used again\n"
            "entries: 10 with cookie 0x30 deleted from 3 switches\n"
            "warning: switch 0x0000000000000002: no answer\n");
}

TEST(IbsdnctlFormat, ResponseForRequest_BareOkPrintsNothing) {
  EXPECT_EQ(
      format_response(PhaseRequest{JobId(1), PhaseAction::kEnd, "p", std::nullopt}, ok_response()),
      "");
  EXPECT_THROW(format_response(PhaseRequest{JobId(1), PhaseAction::kBegin, "p", std::nullopt},
                               ok_response()),
               MalformedResponse);
}

TEST(IbsdnctlFormat, MissingOrMistypedField_NamesItsPointer) {
  json jobs = jobs_response(
      std::vector<JobSummary>{{JobId(1), "u", 1, "ring", "dmodk", "", 0, 0, false, std::nullopt}});
  jobs["jobs"][0].erase("user");
  try {
    format_jobs(jobs);
    ADD_FAILURE() << "no exception";
  } catch (const MalformedResponse& e) {
    EXPECT_STREQ(e.what(), "at /jobs/0/user: missing");
  }
  json links = links_response({});
  links["links"] = "many";
  try {
    format_links(links);
    ADD_FAILURE() << "no exception";
  } catch (const MalformedResponse& e) {
    EXPECT_STREQ(e.what(), "at /links: expected an array");
  }
}

// ---- Response line checks -----------------------------------------------------------------

TEST(IbsdnctlClient, InterpretResponse_ChecksVersionOkAndError) {
  const Reply ok = interpret_response(R"({"v":1,"ok":true})", "/s");
  EXPECT_EQ(ok.status, Reply::Status::kOk);
  EXPECT_EQ(ok.line, R"({"v":1,"ok":true})");

  const Reply refused = interpret_response(
      error_response(ErrorCode::kUnknownJob, "no active job 42", "/job").dump(), "/s");
  EXPECT_EQ(refused.status, Reply::Status::kControllerError);
  EXPECT_EQ(refused.error_code, "unknown_job");
  EXPECT_EQ(refused.message, "no active job 42");

  for (const std::string bad : {"garbage", "[1,2]", R"({"ok":true})", R"({"v":2,"ok":true})",
                                R"({"v":1})", R"({"v":1,"ok":"yes"})", R"({"v":1,"ok":false})",
                                R"({"v":1,"ok":false,"error":{"code":3}})"}) {
    const Reply r = interpret_response(bad, "/run/x.sock");
    EXPECT_EQ(r.status, Reply::Status::kNoAnswer) << bad;
    EXPECT_TRUE(r.message.starts_with("/run/x.sock: malformed response: ")) << r.message;
  }
}

// ---- The client against a canned server -------------------------------------------------

// Accepts one connection on a Unix socket, reads one request line and then answers with a canned
// line, stays silent until the client hangs up, or closes at once; or, refusing the connection
// like the controller at its limits, writes the canned line and closes without reading anything.
class CannedServer {
 public:
  enum class Mode { kAnswer, kSilent, kClose, kRefuse };

  explicit CannedServer(std::string reply, Mode mode = Mode::kAnswer)
      : path_(dir_.file("notice.sock")), reply_(std::move(reply)), mode_(mode) {
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, sizeof addr.sun_path - 1);
    if (listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 4) != 0) {
      ADD_FAILURE() << "cannot listen on " << path_;
    }
    thread_ = std::thread([this] { serve(); });
  }
  CannedServer(const CannedServer&) = delete;
  CannedServer& operator=(const CannedServer&) = delete;
  ~CannedServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  [[nodiscard]] const std::string& path() const { return path_; }
  /// What the client wrote, once it has hung up.
  std::string received() {
    if (thread_.joinable()) thread_.join();
    return received_;
  }

 private:
  // Waits for `fd` in slices so that the destructor can stop a server no client came to.
  bool readable(int fd) const {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) return true;
    }
    return false;
  }

  void serve() {
    if (!readable(listen_fd_)) return;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    if (mode_ == Mode::kRefuse) {
      (void)::send(fd, reply_.data(), reply_.size(), MSG_NOSIGNAL);
      ::close(fd);
      return;
    }
    char buf[4096];
    while (received_.find('\n') == std::string::npos && readable(fd)) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      received_.append(buf, static_cast<std::size_t>(n));
    }
    if (mode_ == Mode::kAnswer) {
      (void)::send(fd, reply_.data(), reply_.size(), MSG_NOSIGNAL);
    }
    if (mode_ == Mode::kSilent) {
      while (readable(fd) && ::recv(fd, buf, sizeof buf, 0) > 0) {
      }
    }
    ::close(fd);
  }

  TempDir dir_;
  std::string path_;
  std::string reply_;
  Mode mode_;
  int listen_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::string received_;
  std::thread thread_;
};

TEST(IbsdnctlClient, Ping_SendsTheRequestLineAndPrintsThePong) {
  CannedServer server(to_line(pong_response("0.1.0")));
  const Outcome r = run({"--socket", server.path(), "ping"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pong: ibsdn 0.1.0, notice protocol 1\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(server.received(), request_line(PingQuery{}) + "\n");
}

TEST(IbsdnctlClient, SocketFromEnvironment_IsUsed) {
  CannedServer server(to_line(pong_response("0.1.0")));
  EXPECT_EQ(run({"ping"}, server.path()).exit_code, 0);
}

TEST(IbsdnctlClient, Flows_EndToEndPrintsEntryText) {
  const std::vector<SwitchFlows> switches = {
      {Guid(0x0002c90300000003), Lid(3), "l1s003", {entry(0x1092, 0x12, 0x40, 7)}}};
  CannedServer server(to_line(flows_response(switches, false)));
  const Outcome r =
      run({"--socket", server.path(), "flows", "--switch", "l1s003", "--job", "4242"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n cookie=0x1092, priority=100, slid=0x12, dlid=0x40 actions=output:7, "
                       "n_packets=0\n"),
            std::string::npos)
      << r.out;
  const ParsedRequest sent = parse_request(server.received());
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(sent.request(),
            Request(FlowsQuery{SwitchRef(std::string("l1s003")), JobId(4242), false}));
}

TEST(IbsdnctlClient, Json_PrintsTheResponseLineAsReceived) {
  const std::string line = to_line(
      stats_response(std::vector<std::pair<std::string, std::uint64_t>>{{"jobs_active", 2}}));
  CannedServer server(line);
  const Outcome r = run({"stats", "--json", "--socket", server.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, line);
}

TEST(IbsdnctlClient, ControllerError_ExitsOneWithCodeAndMessage) {
  CannedServer server(to_line(error_response(ErrorCode::kUnknownJob, "no active job 42", "/job")));
  const Outcome r = run({"--socket", server.path(), "job", "end", "--job", "42"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "ibsdnctl: unknown_job: no active job 42\n");
}

TEST(IbsdnctlClient, QuarantineRelease_OfAnUnknownJobExitsOneWithTheControllersReason) {
  CannedServer server(to_line(error_response(
      ErrorCode::kUnknownJob,
      "job 99 is not quarantined; the quarantine query lists them (ibsdnctl quarantine)", "/job")));
  const Outcome r = run({"--socket", server.path(), "quarantine", "release", "--job", "99"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "ibsdnctl: unknown_job: job 99 is not quarantined; the quarantine query lists them "
            "(ibsdnctl quarantine)\n");
  const ParsedRequest sent = parse_request(server.received());
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(sent.request(), Request(QuarantineReleaseRequest{JobId(99), false}));
}

TEST(IbsdnctlClient, AuditWithFindings_ExitsOne) {
  const std::vector<AuditFinding> findings = {
      {Guid(0x0002c90300000003), "l1s003", "differs", "n_entries 3, expected 4"}};
  {
    CannedServer server(to_line(audit_response(4, findings)));
    const Outcome r = run({"--socket", server.path(), "audit"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("l1s003  differs  n_entries 3, expected 4"), std::string::npos) << r.out;
  }
  {
    CannedServer server(to_line(audit_response(4, findings)));
    EXPECT_EQ(run({"--socket", server.path(), "--json", "audit"}).exit_code, 1);
  }
  {
    CannedServer server(to_line(audit_response(4, {})));
    EXPECT_EQ(run({"--socket", server.path(), "audit"}).exit_code, 0);
  }
}

TEST(IbsdnctlClient, Garbage_ExitsThreeNamingTheSocket) {
  CannedServer server("HTTP/1.1 400 Bad Request\n");
  const Outcome r = run({"--socket", server.path(), "ping"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("ibsdnctl: " + server.path() + ": malformed response: not JSON"),
            std::string::npos)
      << r.err;
}

TEST(IbsdnctlClient, AnswerOfTheWrongShape_ExitsThree) {
  CannedServer server(to_line(ok_response()));
  const Outcome r = run({"--socket", server.path(), "ping"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "ibsdnctl: " + server.path() + ": malformed response: at /pong: missing\n");
}

TEST(IbsdnctlClient, SilentServer_TimesOutWithExitThree) {
  CannedServer server("", CannedServer::Mode::kSilent);
  const Outcome r = run({"--socket", server.path(), "--timeout", "200", "jobs"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "ibsdnctl: " + server.path() + ": no response within 200 ms (--timeout)\n");
}

TEST(IbsdnctlClient, ServerClosesWithoutAnswer_ExitsThree) {
  CannedServer server("", CannedServer::Mode::kClose);
  const Outcome r = run({"--socket", server.path(), "jobs"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("closed the connection without answering"), std::string::npos) << r.err;
}

TEST(IbsdnctlClient, ResponseWithoutNewline_IsIncomplete) {
  CannedServer server(R"({"v":1,"ok":true,"pong":true)");  // then closes
  const Outcome r = run({"--socket", server.path(), "ping"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("closed the connection after 28 bytes"), std::string::npos) << r.err;
}

TEST(IbsdnctlClient, OversizedResponse_IsRefused) {
  CannedServer server(std::string(5000, 'x') + "\n");
  const Reply r = call_controller(server.path(), request_line(PingQuery{}), 5s, 1000);
  EXPECT_EQ(r.status, Reply::Status::kNoAnswer);
  EXPECT_EQ(r.message, server.path() + ": malformed response: longer than 1000 bytes");
}

// A request far larger than the socket's buffer: the write cannot complete before the server
// closes, so it fails with EPIPE (without a SIGPIPE, which would end this test program).
std::string huge_request() {
  return R"({"v":1,"op":"ping","pad":")" + std::string(std::size_t{8} << 20, 'x') + "\"}";
}

TEST(IbsdnctlClient, RefusedBeforeTheRequestIsWritten_ShowsTheServersLineNotABrokenPipe) {
  CannedServer server(
      to_line(error_response(ErrorCode::kBusy,
                             "uid 65534 holds 8 connections, the per-uid limit is 8")),
      CannedServer::Mode::kRefuse);
  const Reply r = call_controller(server.path(), huge_request(), 5s);
  EXPECT_EQ(r.status, Reply::Status::kControllerError) << r.message;
  EXPECT_EQ(r.error_code, "busy");
  EXPECT_EQ(r.message, "uid 65534 holds 8 connections, the per-uid limit is 8");
}

TEST(IbsdnctlClient, RefusedWithoutALine_ReportsTheFailedWrite) {
  CannedServer server("", CannedServer::Mode::kRefuse);
  const Reply r = call_controller(server.path(), huge_request(), 5s);
  EXPECT_EQ(r.status, Reply::Status::kNoAnswer);
  EXPECT_TRUE(r.message.starts_with("cannot send the request to " + server.path() + ": "))
      << r.message;
}

TEST(IbsdnctlClient, NoSocket_ExitsThreeWithPathAndErrno) {
  const TempDir dir;
  const std::string path = dir.file("absent.sock");
  const Outcome r = run({"--socket", path, "ping"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "ibsdnctl: cannot connect to " + path + ": No such file or directory\n");
}

TEST(IbsdnctlClient, SocketPathTooLong_ExitsThree) {
  const Outcome r = run({"--socket", "/tmp/" + std::string(200, 'a'), "ping"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("the path is longer than 107 bytes"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ibsdn::cli
