#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/names.hpp"
#include "plugin/notice/notice.hpp"

namespace ibsdn {
namespace {

using nlohmann::json;

Request parse_ok(const std::string& line) {
  const ParsedRequest p = parse_request(line);
  if (!p.ok()) ADD_FAILURE() << line << "\n -> " << p.error().message;
  return p.ok() ? p.request() : Request{PingQuery{}};
}

const std::vector<std::string> kExamples = {
    R"({"v":1,"op":"job_start","job":4242,"user":"alice","uid":1001,"nodes":["node01","node02","gpu-rack3.node17"],"pattern":"3dnn","ranks_per_node":4,"mapping":"cyclic","elephants":[[0,5],[3,1]],"phases":[{"name":"halo","pattern":"shift:k=3"},{"name":"reduce","matrix":[[0,1,100],[1,0,50]]}],"algorithm":"sdn-greedy"})",
    R"({"v":1,"op":"job_start","job":7,"user":"slurm","nodes":["n1"],"matrix":[[1,0,10],[0,1,5],[1,0,20],[2,3,0]]})",
    R"({"v":1,"op":"job_end","job":4242})",
    R"({"v":1,"op":"phase","job":4242,"action":"begin","name":"halo"})",
    R"({"v":1,"op":"phase","job":4242,"action":"begin","name":"io","pattern":"ring"})",
    R"({"v":1,"op":"phase","job":4242,"action":"end","name":"halo"})",
    R"({"v":1,"op":"hint","job":4242,"elephants":[[0,1],[2,3]]})",
    R"({"v":1,"op":"jobs"})",
    R"({"v":1,"op":"flows","switch":"0x0002c90300000001","job":4242,"from_switch":true})",
    R"({"v":1,"op":"flows","switch":17})",
    R"({"v":1,"op":"flows","switch":"l1s003"})",
    R"({"v":1,"op":"links","top":10})",
    R"({"v":1,"op":"route","src":"node01","dst":"node02"})",
    R"({"v":1,"op":"audit"})",
    R"({"v":1,"op":"stats"})",
    R"({"v":1,"op":"ping"})",
    R"({"v":1,"op":"quarantine"})",
    R"({"v":1,"op":"quarantine_release","job":48,"delete_entries":true})",
    R"({"v":1,"op":"quarantine_release","job":49})",
    R"({"v":1,"op":"job_start","job":8,"user":"slurm","nodes":["n1"],"matrix":[[0,0,64],[0,1,5],[2,2,0]],"matrix_skipped":{"self_pairs":1,"intra_rank_bytes":10,"zero_pairs":4},"phases":[{"name":"io","matrix":[[1,1,7]],"matrix_skipped":{"zero_pairs":2}}]})",
    R"({"v":1,"op":"phase","job":8,"action":"begin","name":"dump","matrix":[[3,3,1],[3,0,0]]})",
    R"({"v":1,"op":"job_start","job":10,"user":"slurm","nodes":["n1","n2"],"pattern":"ring","backend":"lft","path_bits":true})",
    R"({"v":1,"op":"jobs","job":10})",
    R"({"v":1,"op":"route","src":"n1","dst":"n2","job":10})",
};

const std::string kStart = R"({"v":1,"op":"job_start","job":9,"user":"alice",)";

TEST(Notice, JobStart_AllFields) {
  const Request r = parse_ok(kExamples[0]);
  ASSERT_TRUE(std::holds_alternative<JobStartRequest>(r));
  const auto& s = std::get<JobStartRequest>(r);
  EXPECT_EQ(s.job, JobId(4242));
  EXPECT_EQ(s.user, "alice");
  EXPECT_EQ(s.uid, std::optional<std::uint32_t>(1001));
  EXPECT_EQ(s.nodes, (std::vector<std::string>{"node01", "node02", "gpu-rack3.node17"}));
  ASSERT_TRUE(std::holds_alternative<PatternSpec>(s.traffic));
  EXPECT_EQ(std::get<PatternSpec>(s.traffic).name, "3dnn");
  EXPECT_EQ(s.ranks_per_node, std::optional<std::uint32_t>(4));
  EXPECT_EQ(s.mapping, Mapping::kCyclic);
  EXPECT_EQ(s.elephants, (std::vector<RankPair>{{0, 5}, {3, 1}}));
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.phases[0].name, "halo");
  EXPECT_EQ(std::get<PatternSpec>(s.phases[0].traffic).k, 3);
  EXPECT_EQ(std::get<TrafficMatrix>(s.phases[1].traffic),
            (TrafficMatrix{{{0, 1, 100}, {1, 0, 50}}, {}}));
  EXPECT_EQ(s.algorithm, std::optional<std::string>("sdn-greedy"));
  EXPECT_EQ(op_name(r), "job_start");
  EXPECT_EQ(required_privilege(r), Privilege::kScheduler);
}

TEST(Notice, JobStart_MatrixIsNormalisedLikeAMatrixFile) {
  const auto s = std::get<JobStartRequest>(parse_ok(kExamples[1]));
  // Sorted by (src, dst), the repeated (1,0) summed, the zero pair skipped; defaults applied.
  EXPECT_EQ(std::get<TrafficMatrix>(s.traffic).flows,
            (std::vector<RankFlow>{{0, 1, 5}, {1, 0, 30}}));
  EXPECT_EQ(std::get<TrafficMatrix>(s.traffic).skipped, (SkippedPairs{0, 0, 1}));
  EXPECT_EQ(s.mapping, Mapping::kBlock);
  EXPECT_FALSE(s.uid.has_value());
  EXPECT_FALSE(s.ranks_per_node.has_value());
  EXPECT_FALSE(s.algorithm.has_value());
}

TrafficMatrix start_matrix(const std::string& fields) {
  const auto s = std::get<JobStartRequest>(parse_ok(kStart + R"("nodes":["a"],)" + fields + "}"));
  return std::get<TrafficMatrix>(s.traffic);
}

// Profilers list a rank's traffic to itself and, in full dumps, every pair: skipped and counted.
TEST(Notice, Matrix_SelfAndZeroPairsAreSkippedAndCounted) {
  const TrafficMatrix m = start_matrix(
      R"("matrix":[[2,2,100],[0,1,5],[2,2,28],[1,0,0],[3,3,0],[0,2,0],[0,2,0],[1,2,9]])");
  EXPECT_EQ(m.flows, (std::vector<RankFlow>{{0, 1, 5}, {1, 2, 9}}));
  // (2,2) listed twice: one self pair of 128 bytes. (1,0), (0,2) twice and (3,3) without bytes:
  // three zero pairs.
  EXPECT_EQ(m.skipped, (SkippedPairs{1, 128, 3}));
}

TEST(Notice, Matrix_DuplicatesSummingToZeroAreOneZeroPair) {
  const TrafficMatrix m = start_matrix(R"("matrix":[[0,1,0],[0,1,0],[0,1,0],[1,0,4]])");
  EXPECT_EQ(m.flows, (std::vector<RankFlow>{{1, 0, 4}}));
  EXPECT_EQ(m.skipped, (SkippedPairs{0, 0, 1}));
}

TEST(Notice, Matrix_AllPairsSkippedLeavesNoFlowsAndTheCounts) {
  const TrafficMatrix m = start_matrix(R"("matrix":[[0,0,1],[1,1,2],[0,1,0]])");
  EXPECT_TRUE(m.flows.empty());
  EXPECT_EQ(m.skipped, (SkippedPairs{2, 3, 1}));
}

// The counts travel with the request (the state store keeps request_to_json's form): what the
// sender says it skipped is added to what the matrix itself skips, and written back.
TEST(Notice, MatrixSkipped_AddsToTheMatrixCountsAndRoundTrips) {
  const TrafficMatrix m =
      start_matrix(R"("matrix":[[0,0,64],[0,1,5],[2,2,0]],)"
                   R"("matrix_skipped":{"self_pairs":1,"intra_rank_bytes":10,"zero_pairs":4})");
  EXPECT_EQ(m.flows, (std::vector<RankFlow>{{0, 1, 5}}));
  EXPECT_EQ(m.skipped, (SkippedPairs{2, 74, 5}));
  JobStartRequest r;
  r.job = JobId(3);
  r.user = "u";
  r.nodes = {"a"};
  r.traffic = m;
  const json j = request_to_json(r);
  EXPECT_EQ(j["matrix"].dump(), "[[0,1,5]]");
  EXPECT_EQ(j["matrix_skipped"].dump(), R"({"intra_rank_bytes":74,"self_pairs":2,"zero_pairs":5})");
  EXPECT_EQ(parse_ok(j.dump()), Request(r));
  // Nothing skipped, nothing written: the canonical form of an ordinary matrix is unchanged.
  r.traffic = TrafficMatrix{{{0, 1, 5}}, {}};
  EXPECT_FALSE(request_to_json(r).contains("matrix_skipped"));
}

TEST(Notice, EveryOtherRequestType) {
  EXPECT_EQ(std::get<JobEndRequest>(parse_ok(kExamples[2])).job, JobId(4242));
  const auto declared = std::get<PhaseRequest>(parse_ok(kExamples[3]));
  EXPECT_EQ(declared.action, PhaseAction::kBegin);
  EXPECT_EQ(declared.name, "halo");
  EXPECT_FALSE(declared.traffic.has_value());
  const auto adhoc = std::get<PhaseRequest>(parse_ok(kExamples[4]));
  ASSERT_TRUE(adhoc.traffic.has_value());
  EXPECT_EQ(std::get<PatternSpec>(*adhoc.traffic).name, "ring");
  EXPECT_EQ(std::get<PhaseRequest>(parse_ok(kExamples[5])).action, PhaseAction::kEnd);
  const Request hint = parse_ok(kExamples[6]);
  EXPECT_EQ(std::get<HintRequest>(hint).elephants, (std::vector<RankPair>{{0, 1}, {2, 3}}));
  EXPECT_EQ(required_privilege(hint), Privilege::kJobOwnerOrScheduler);
  EXPECT_TRUE(std::holds_alternative<JobsQuery>(parse_ok(kExamples[7])));
  const auto flows = std::get<FlowsQuery>(parse_ok(kExamples[8]));
  EXPECT_EQ(flows.switch_ref, std::optional<SwitchRef>(Guid(0x0002c90300000001ULL)));
  EXPECT_EQ(flows.job, std::optional<JobId>(JobId(4242)));
  EXPECT_TRUE(flows.from_switch);
  EXPECT_EQ(std::get<FlowsQuery>(parse_ok(kExamples[9])).switch_ref,
            std::optional<SwitchRef>(Lid(17)));
  EXPECT_EQ(std::get<FlowsQuery>(parse_ok(kExamples[10])).switch_ref,
            std::optional<SwitchRef>(std::string("l1s003")));
  EXPECT_EQ(std::get<LinksQuery>(parse_ok(kExamples[11])).top, std::optional<std::uint32_t>(10));
  const auto route = std::get<RouteQuery>(parse_ok(kExamples[12]));
  EXPECT_EQ(route.src, "node01");
  EXPECT_EQ(route.dst, "node02");
  EXPECT_TRUE(std::holds_alternative<AuditQuery>(parse_ok(kExamples[13])));
  EXPECT_TRUE(std::holds_alternative<StatsQuery>(parse_ok(kExamples[14])));
  const Request ping = parse_ok(kExamples[15]);
  EXPECT_TRUE(std::holds_alternative<PingQuery>(ping));
  EXPECT_EQ(required_privilege(ping), Privilege::kAnyone);
}

TEST(Notice, Quarantine_ListForAnyoneReleaseForRootOnly) {
  const Request list = parse_ok(kExamples[16]);
  EXPECT_TRUE(std::holds_alternative<QuarantineQuery>(list));
  EXPECT_EQ(required_privilege(list), Privilege::kAnyone);
  const Request release = parse_ok(kExamples[17]);
  EXPECT_EQ(release, Request(QuarantineReleaseRequest{JobId(48), true}));
  EXPECT_EQ(required_privilege(release), Privilege::kRoot);
  // Without delete_entries the entries stay on the switches: the default loses nothing at once.
  EXPECT_EQ(parse_ok(kExamples[18]), Request(QuarantineReleaseRequest{JobId(49), false}));
}

TEST(Notice, ANulByteAnywhereInTheLineIsRefused) {
  for (const std::string& line : {std::string(R"({"v":1,"op":"ping"})") + std::string(2, '\0'),
                                  std::string(R"({"v":1,"op":"ping"})") + '\0' + "\n",
                                  std::string(R"({"v":1,"op":"pi)") + '\0' + R"(ng"})"}) {
    const ParsedRequest p = parse_request(line);
    ASSERT_FALSE(p.ok()) << line.size();
    EXPECT_EQ(p.error().code, ErrorCode::kParseError);
    EXPECT_NE(p.error().message.find("a NUL byte at offset"), std::string::npos)
        << p.error().message;
  }
}

TEST(Notice, PathBitsAndOneJobQueries) {
  const auto start = std::get<JobStartRequest>(parse_ok(kExamples[21]));
  EXPECT_TRUE(start.path_bits);
  EXPECT_EQ(start.backend, InstallBackend::kLft);
  EXPECT_FALSE(std::get<JobStartRequest>(parse_ok(kExamples[1])).path_bits);
  EXPECT_EQ(std::get<JobsQuery>(parse_ok(kExamples[22])).job, JobId(10));
  EXPECT_FALSE(std::get<JobsQuery>(parse_ok(kExamples[7])).job.has_value());
  EXPECT_EQ(std::get<RouteQuery>(parse_ok(kExamples[23])).job, JobId(10));
  EXPECT_EQ(request_to_json(QuarantineReleaseRequest{JobId(49), false}).dump(),
            R"({"job":49,"op":"quarantine_release","v":1})");
}

TEST(Notice, TrailingNewlineAndCrlfAreAccepted) {
  EXPECT_TRUE(parse_request(kExamples[2] + "\n").ok());
  EXPECT_TRUE(parse_request(kExamples[2] + "\r\n").ok());
}

TEST(Notice, RequestToJson_RoundTripsEveryExample) {
  for (const std::string& line : kExamples) {
    const Request r = parse_ok(line);
    const std::string again = request_to_json(r).dump();
    const ParsedRequest p = parse_request(again);
    ASSERT_TRUE(p.ok()) << again << " -> " << p.error().message;
    EXPECT_EQ(p.request(), r) << line;
  }
}

// The parser's table (op -> parser) and op_name() list the ops separately; the examples cover
// every op, so a request parsed from "op": X must be named X again.
TEST(Notice, OpName_IsTheOpTheRequestWasParsedFrom) {
  std::set<std::string> ops;
  for (const std::string& line : kExamples) {
    const std::string op = json::parse(line).at("op");
    EXPECT_EQ(op_name(parse_ok(line)), op) << line;
    ops.insert(op);
  }
  EXPECT_EQ(ops.size(), std::variant_size_v<Request>);
}

struct Malformed {
  std::string line;
  ErrorCode code;
  std::string at;
  std::string says;
};

std::string repeat_nodes(std::size_t n) {
  std::string out = R"({"v":1,"op":"job_start","job":1,"user":"u","pattern":"ring","nodes":[)";
  for (std::size_t i = 0; i < n; ++i) out += (i ? ",\"n" : "\"n") + std::to_string(i) + "\"";
  return out + "]}";
}

std::string huge_matrix_line() {
  std::string out = R"({"v":1,"op":"job_start","job":1,"user":"u","nodes":["a"],"matrix":[)";
  for (std::size_t i = 0; out.size() <= kMaxNoticeLineBytes; ++i) {
    out += (i ? ",[" : "[") + std::to_string(i) + ",0,1]";
  }
  return out + "]}";
}

std::vector<Malformed> malformed_cases() {
  return {
      {"not json at all", ErrorCode::kParseError, "", "not JSON"},
      {"", ErrorCode::kParseError, "", "not JSON"},
      {R"([1,2,3])", ErrorCode::kParseError, "", "a request is a JSON object, got array"},
      {R"({"v":1,"op":"ping"} {"v":1})", ErrorCode::kParseError, "", "not JSON"},
      {R"({"v":1,"op":"ping",)", ErrorCode::kParseError, "", "not JSON"},
      {"{\"v\":1,\"op\":\"ping\"}\n{\"v\":1}", ErrorCode::kParseError, "", "single line"},
      {R"({"op":"ping"})", ErrorCode::kInvalid, "/v", "missing"},
      {R"({"v":2,"op":"ping"})", ErrorCode::kUnsupportedVersion, "/v", "protocol version 2"},
      {R"({"v":0,"op":"bogus"})", ErrorCode::kUnsupportedVersion, "/v", "speaks version 1"},
      {R"({"v":"1","op":"ping"})", ErrorCode::kInvalid, "/v", "must be the integer 1"},
      {R"({"v":1})", ErrorCode::kInvalid, "/op", "missing"},
      {R"({"v":1,"op":"reboot"})", ErrorCode::kUnknownOp, "/op", "unknown op 'reboot'"},
      {R"({"v":1,"op":"ping","v":1})", ErrorCode::kInvalid, "/v", "duplicate key"},
      {R"({"v":1,"op":"job_end"})", ErrorCode::kInvalid, "/job", "missing"},
      {R"({"v":1,"op":"job_end","job":-3})", ErrorCode::kInvalid, "/job", "must not be negative"},
      {R"({"v":1,"op":"job_end","job":0})", ErrorCode::kInvalid, "/job", "out of range"},
      {R"({"v":1,"op":"job_end","job":9223372036854775808})", ErrorCode::kInvalid, "/job",
       "out of range 1..9223372036854775807"},
      {R"({"v":1,"op":"job_end","job":1.5})", ErrorCode::kInvalid, "/job", "must be an integer"},
      {R"({"v":1,"op":"job_end","job":"42"})", ErrorCode::kInvalid, "/job", "got string"},
      {R"({"v":1,"op":"job_end","job":1,"force":true})", ErrorCode::kInvalid, "/force",
       "unknown field for job_end"},
      {kStart + R"("nodes":["a","b","c","bad..host"],"pattern":"ring"})", ErrorCode::kInvalid,
       "/nodes/3", "not a valid host name"},
      {kStart + R"("nodes":["a","under_score"],"pattern":"ring"})", ErrorCode::kInvalid, "/nodes/1",
       "not a valid host name"},
      {kStart + R"("nodes":["a","b","a"],"pattern":"ring"})", ErrorCode::kInvalid, "/nodes/2",
       "listed twice (first at /nodes/0)"},
      {kStart + R"("nodes":["a",7],"pattern":"ring"})", ErrorCode::kInvalid, "/nodes/1",
       "must be a string"},
      {kStart + R"("nodes":[],"pattern":"ring"})", ErrorCode::kInvalid, "/nodes", "at least one"},
      {kStart + R"("nodes":"a,b","pattern":"ring"})", ErrorCode::kInvalid, "/nodes",
       "must be an array"},
      {repeat_nodes(kMaxJobNodes + 1), ErrorCode::kTooLarge, "/nodes", "the limit is 100000"},
      {huge_matrix_line(), ErrorCode::kTooLarge, "", "the limit is 1048576"},
      {kStart + R"("nodes":["a"]})", ErrorCode::kInvalid, "/pattern", "missing (or give matrix)"},
      {kStart + R"("nodes":["a"],"pattern":"3dnm"})", ErrorCode::kInvalid, "/pattern",
       "unknown pattern '3dnm'"},
      {kStart + R"("nodes":["a"],"pattern":"shift:q=2"})", ErrorCode::kInvalid, "/pattern",
       "unknown option 'q'"},
      {kStart + R"("nodes":["a"],"pattern":"matrix:file=/etc/shadow"})", ErrorCode::kInvalid,
       "/pattern", "send the \"matrix\" field"},
      {kStart + R"("nodes":["a"],"pattern":"ring","matrix":[]})", ErrorCode::kInvalid, "/matrix",
       "either pattern or matrix"},
      {kStart + R"("nodes":["a"],"matrix":[[0,1,5],[1,2,-4]]})", ErrorCode::kInvalid, "/matrix/1/2",
       "bytes must not be negative"},
      {kStart + R"("nodes":["a"],"matrix":[[0,1,5],[1,2]]})", ErrorCode::kInvalid, "/matrix/1",
       "[src_rank, dst_rank, bytes]"},
      {kStart + R"("nodes":["a"],"matrix":[[3,3,18446744073709551615],[2,2,1]]})",
       ErrorCode::kInvalid, "/matrix/1/2", "the bytes of the self pairs (src_rank == dst_rank)"},
      {kStart + R"("nodes":["a"],"pattern":"ring","matrix_skipped":{"zero_pairs":1}})",
       ErrorCode::kInvalid, "/matrix_skipped", "goes with matrix only"},
      {kStart + R"("nodes":["a"],"matrix":[],"matrix_skipped":[1,0,0]})", ErrorCode::kInvalid,
       "/matrix_skipped", "expected matrix_skipped (an object), got array"},
      {kStart + R"("nodes":["a"],"matrix":[],"matrix_skipped":{"self":1}})", ErrorCode::kInvalid,
       "/matrix_skipped/self", "unknown field for matrix_skipped"},
      {kStart + R"("nodes":["a"],"matrix":[],"matrix_skipped":{"zero_pairs":-1}})",
       ErrorCode::kInvalid, "/matrix_skipped/zero_pairs", "must not be negative"},
      {kStart +
           R"("nodes":["a"],"matrix":[],"matrix_skipped":{"self_pairs":2,"intra_rank_bytes":1}})",
       ErrorCode::kInvalid, "/matrix_skipped/intra_rank_bytes", "at least self_pairs"},
      {kStart + R"("nodes":["a"],"matrix":[],"matrix_skipped":{"intra_rank_bytes":8}})",
       ErrorCode::kInvalid, "/matrix_skipped/intra_rank_bytes", "0 only without self pairs"},
      {kStart +
           R"("nodes":["a"],"matrix":[[1,0,0]],"matrix_skipped":{"zero_pairs":18446744073709551615}})",
       ErrorCode::kInvalid, "/matrix_skipped/zero_pairs", "exceeds 2^64-1"},
      {kStart + R"("nodes":["a"],"pattern":"ring","elephants":[[0,1],[2,2]]})", ErrorCode::kInvalid,
       "/elephants/1", "does not send to itself"},
      {kStart + R"("nodes":["a"],"matrix":[[0,4294967296,5]]})", ErrorCode::kInvalid, "/matrix/0/1",
       "out of range 0..4294967295"},
      {kStart + R"("nodes":["a"],"matrix":[[0,1,18446744073709551615],[0,1,1]]})",
       ErrorCode::kInvalid, "/matrix/1/2", "exceed 2^64-1"},
      {kStart + R"("nodes":["a"],"pattern":"ring","mapping":"random"})", ErrorCode::kInvalid,
       "/mapping", "not a mapping"},
      {kStart + R"("nodes":["a"],"pattern":"ring","ranks_per_node":0})", ErrorCode::kInvalid,
       "/ranks_per_node", "out of range 1..4096"},
      {kStart + R"("nodes":["a"],"pattern":"ring","elephants":[[0,1],[2,"3"]]})",
       ErrorCode::kInvalid, "/elephants/1/1", "a rank must be an integer"},
      {kStart + R"("nodes":["a"],"pattern":"ring","algorithm":"Fast est"})", ErrorCode::kInvalid,
       "/algorithm", "'Fast est' is not a valid algorithm name"},
      {kStart + R"("nodes":["a"],"pattern":"ring","algorithm":""})", ErrorCode::kInvalid,
       "/algorithm", "empty algorithm name"},
      {kStart + R"("nodes":["a"],"pattern":"ring","path_bits":1})", ErrorCode::kInvalid,
       "/path_bits", "path_bits"},
      {R"({"v":1,"op":"jobs","job":0})", ErrorCode::kInvalid, "/job", "out of range"},
      {R"({"v":1,"op":"route","src":"a","dst":"b","job":"x"})", ErrorCode::kInvalid, "/job", "job"},
      {kStart +
           R"("nodes":["a"],"pattern":"ring","phases":[{"name":"x","pattern":"ring"},{"name":"x","pattern":"ring"}]})",
       ErrorCode::kInvalid, "/phases/1/name", "declared twice (first at /phases/0/name)"},
      {kStart + R"("nodes":["a"],"pattern":"ring","phases":[{"name":"x","patern":"ring"}]})",
       ErrorCode::kInvalid, "/phases/0/patern", "unknown field for a phase"},
      {kStart +
           R"("nodes":["a"],"pattern":"ring","phases":[{"name":"bad name","pattern":"ring"}]})",
       ErrorCode::kInvalid, "/phases/0/name", "not a valid phase name"},
      {R"({"v":1,"op":"job_start","job":9,"user":"al ice","nodes":["a"],"pattern":"ring"})",
       ErrorCode::kInvalid, "/user", "not a valid user name"},
      {R"({"v":1,"op":"job_start","job":9,"user":"alice","uid":4294967295,"nodes":["a"],"pattern":"ring"})",
       ErrorCode::kInvalid, "/uid", "out of range"},
      {R"({"v":1,"op":"phase","job":1,"action":"pause","name":"x"})", ErrorCode::kInvalid,
       "/action", "begin or end"},
      {R"({"v":1,"op":"phase","job":1,"action":"end","name":"x","pattern":"ring"})",
       ErrorCode::kInvalid, "/pattern", "phase end takes no pattern"},
      {R"({"v":1,"op":"phase","job":1,"action":"end","name":"x","matrix_skipped":{}})",
       ErrorCode::kInvalid, "/matrix_skipped", "phase end takes no pattern or matrix"},
      {R"({"v":1,"op":"hint","job":1})", ErrorCode::kInvalid, "/elephants", "missing"},
      {R"({"v":1,"op":"flows","switch":"0xfffffffffffffffff"})", ErrorCode::kInvalid, "/switch",
       "1 to 16 hex digits"},
      {R"({"v":1,"op":"flows","switch":49152})", ErrorCode::kInvalid, "/switch",
       "out of range 1..49151"},
      {R"({"v":1,"op":"flows","from_switch":"yes"})", ErrorCode::kInvalid, "/from_switch",
       "true or false"},
      {R"({"v":1,"op":"links","top":0})", ErrorCode::kInvalid, "/top", "out of range"},
      {R"({"v":1,"op":"route","src":"a","dst":"a"})", ErrorCode::kInvalid, "/dst", "same host"},
      {R"({"v":1,"op":"route","src":"a"})", ErrorCode::kInvalid, "/dst", "missing"},
      {R"({"v":1,"op":"quarantine","job":48})", ErrorCode::kInvalid, "/job",
       "unknown field for quarantine"},
      {R"({"v":1,"op":"quarantine_release"})", ErrorCode::kInvalid, "/job", "missing"},
      {R"({"v":1,"op":"quarantine_release","job":0})", ErrorCode::kInvalid, "/job", "out of range"},
      {R"({"v":1,"op":"quarantine_release","job":48,"delete_entries":1})", ErrorCode::kInvalid,
       "/delete_entries", "true or false"},
      {R"({"v":1,"op":"quarantine_release","job":48,"force":true})", ErrorCode::kInvalid, "/force",
       "unknown field for quarantine_release"},
      {R"({"v":1,"op":"ping","a/b~c":1})", ErrorCode::kInvalid, "/a~1b~0c", "unknown field"},
      {R"({"v":1,"op":"ping","x":[[[[[[[[[1]]]]]]]]]})", ErrorCode::kParseError, "/x/0/0/0/0/0/0/0",
       "nested deeper than 8 levels"},
      {"{\"v\":1,\"op\":\"job_end\",\"job\":1,\"\xff\":1}", ErrorCode::kParseError, "", "not JSON"},
  };
}

TEST(Notice, MalformedRequestsGiveTheRightCodeAndPointer) {
  for (const Malformed& m : malformed_cases()) {
    const ParsedRequest p = parse_request(m.line);
    const std::string shown = m.line.substr(0, 200);
    ASSERT_FALSE(p.ok()) << shown;
    const RequestError& e = p.error();
    EXPECT_EQ(to_string(e.code), to_string(m.code)) << shown << "\n -> " << e.message;
    EXPECT_EQ(e.at, m.at) << shown << "\n -> " << e.message;
    EXPECT_NE(e.message.find(m.says), std::string::npos) << shown << "\n -> " << e.message;
    if (!m.at.empty()) {
      EXPECT_EQ(e.message.rfind("at " + m.at + ": ", 0), 0u) << e.message;
    }
  }
}

// The protocol knows no routing registry: a well-formed name reaches the controller, which
// refuses the ones it has no algorithm for (ControllerBridge.UnknownAlgorithm_...).
TEST(Notice, AlgorithmName_OnlyItsSyntaxIsChecked) {
  const Request r = parse_ok(kStart + R"("nodes":["a"],"pattern":"ring","algorithm":"fastest"})");
  EXPECT_EQ(std::get<JobStartRequest>(r).algorithm, std::optional<std::string>("fastest"));
  EXPECT_FALSE(parse_request(kStart + R"("nodes":["a"],"pattern":"ring","algorithm":"9x"})").ok());
  EXPECT_FALSE(parse_request(kStart + R"("nodes":["a"],"pattern":"ring","algorithm":")" +
                             std::string(kMaxAlgorithmNameLength + 1, 'a') + "\"}")
                   .ok());
}

TEST(Notice, ErrorMessagesArePrintableAsciiAndBounded) {
  const std::string line =
      kStart + "\"nodes\":[\"h\xc3\xa9llo" + std::string(300, 'x') + "\"],\"pattern\":\"ring\"}";
  const ParsedRequest p = parse_request(line);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().at, "/nodes/0");
  for (const char c : p.error().message) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7F) << p.error().message;
  }
  EXPECT_LT(p.error().message.size(), 500u);
}

TEST(Notice, ResponsesHaveTheDocumentedShape) {
  EXPECT_EQ(to_line(ok_response()), "{\"ok\":true,\"v\":1}\n");
  const json err = error_response(ErrorCode::kUnknownJob, "no job 5");
  EXPECT_EQ(err.dump(),
            R"({"error":{"code":"unknown_job","message":"no job 5"},"ok":false,"v":1})");
  const json err_at = error_response(RequestError{ErrorCode::kInvalid, "/job", "at /job: x"});
  EXPECT_EQ(err_at["error"]["at"], "/job");

  JobReady r;
  r.job = JobId(42);
  r.algorithm = "sdn-optimal";
  r.flows = 120;
  r.flows_on_default = 30;
  r.entries = 400;
  r.max_link_load = 2;
  r.bound = 2;
  r.degraded = true;
  r.warnings = {"table of l1s003 full: 3 flows on the LFT"};
  r.route_ms = 1.5;
  r.compile_ms = 0.25;
  r.install_ms = 12;
  const json ready = ready_response(r);
  EXPECT_EQ(ready["ok"], true);
  EXPECT_EQ(ready["v"], 1);
  EXPECT_EQ(ready["job"], 42);
  EXPECT_EQ(ready["flows"], 120);
  EXPECT_EQ(ready["flows_on_default"], 30);
  EXPECT_EQ(ready["max_link_load"], 2.0);
  EXPECT_EQ(ready["bound"], 2.0);
  EXPECT_EQ(ready["degraded"], true);
  EXPECT_EQ(ready["warnings"].size(), 1u);
  EXPECT_EQ(ready["timings_ms"]["route"], 1.5);
  EXPECT_EQ(ready["timings_ms"]["compile"], 0.25);
  EXPECT_EQ(ready["timings_ms"]["install"], 12.0);
  // Said only when known.
  EXPECT_FALSE(ready.contains("algorithm_reason"));
  EXPECT_FALSE(ready.contains("guard_measure"));
  r.algorithm_reason = "unit";
  r.guard_measure = "flows";
  EXPECT_EQ(ready_response(r)["algorithm_reason"], "unit");
  EXPECT_EQ(ready_response(r)["guard_measure"], "flows");

  const json pong = pong_response("0.1.0");
  EXPECT_EQ(pong["pong"], true);
  EXPECT_EQ(pong["protocol"], 1);

  FlowEntry e;
  e.cookie = 42;
  e.priority = 100;
  e.match = FlowMatch::exact_pair(Lid(0x12), Lid(0x40));
  e.action.output = PortNum(7);
  const SwitchFlows sw{Guid(0xabc), Lid(3), "l1s003", {e}};
  const json flows = flows_response(std::span(&sw, 1), false);
  EXPECT_EQ(flows["source"], "controller");
  EXPECT_EQ(flows["switches"][0]["guid"], "0x0000000000000abc");
  EXPECT_EQ(flows["switches"][0]["entries"][0]["text"],
            "cookie=0x2a, priority=100, slid=0x12, dlid=0x40 actions=output:7, n_packets=0");
  EXPECT_EQ(flows["switches"][0]["entries"][0]["actions"]["output"], 7);

  const RouteHop hops[] = {{"l1s001", Guid(1), PortNum(3), true, 42},
                           {"l2s001", Guid(2), PortNum(1), false, 0}};
  const json route = route_response("node01", "node02", hops);
  EXPECT_EQ(route["hops"][0]["by"], "flow");
  EXPECT_EQ(route["hops"][0]["cookie"], 42);
  EXPECT_EQ(route["hops"][1]["by"], "lft");
  EXPECT_FALSE(route["hops"][1].contains("cookie"));

  const AuditFinding finding{Guid(5), "l1s002", "missing", "cookie=0x2a ..."};
  EXPECT_EQ(audit_response(4, std::span(&finding, 1))["consistent"], false);
  EXPECT_EQ(audit_response(4, {})["consistent"], true);

  const std::pair<std::string, std::uint64_t> counters[] = {{"notices", 9}, {"jobs_active", 2}};
  EXPECT_EQ(stats_response(counters)["stats"]["notices"], 9);
}

TEST(Notice, QuarantineResponses_SayWhatTheSwitchesHoldOrNullWhenUnknown) {
  const QuarantineRow rows[] = {
      {JobId(48), "flow_entries row (job_id 48, seq 3)", 1700000000000, 12, 10, 3},
      {JobId(50), "jobs row (job_id 50)", 1700000001000, 0, std::nullopt, std::nullopt}};
  const json list = quarantine_response(rows);
  EXPECT_EQ(list["ok"], true);
  EXPECT_EQ(list["quarantine"].size(), 2u);
  EXPECT_EQ(
      list["quarantine"][0].dump(),
      R"({"entries_on_switches":10,"entries_stored":12,"job":48,)"
      R"x("quarantined_unix_ms":1700000000000,"reason":"flow_entries row (job_id 48, seq 3)",)x"
      R"("switches":3})");
  EXPECT_TRUE(list["quarantine"][1]["entries_on_switches"].is_null());
  EXPECT_TRUE(list["quarantine"][1]["switches"].is_null());

  QuarantineRelease kept;
  kept.job = JobId(48);
  kept.entries_on_switches = 10;
  kept.switches = 3;
  EXPECT_EQ(quarantine_release_response(kept).dump(),
            R"({"entries_deleted":false,"entries_on_switches":10,"entries_removed":0,"job":48,)"
            R"("ok":true,"switches":3,"switches_removed":0,"v":1,"warnings":[]})");
  QuarantineRelease deleted;
  deleted.job = JobId(48);
  deleted.entries_deleted = true;
  deleted.entries_removed = 10;
  deleted.switches_removed = 3;
  deleted.warnings = {"switch 0x2: no answer"};
  const json d = quarantine_release_response(deleted);
  EXPECT_EQ(d["entries_deleted"], true);
  EXPECT_EQ(d["entries_removed"], 10);
  EXPECT_TRUE(d["entries_on_switches"].is_null());
  EXPECT_EQ(d["warnings"].size(), 1u);
}

TEST(Notice, ToLine_ReplacesInvalidUtf8InsteadOfThrowing) {
  const std::string line = to_line(error_response(ErrorCode::kInternal, "bad \xff byte"));
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("\\ufffd"), std::string::npos) << line;
}

TEST(Notice, ErrorCodesRoundTripThroughTheirNames) {
  for (int c = 0; c <= static_cast<int>(ErrorCode::kInternal); ++c) {
    const auto code = static_cast<ErrorCode>(c);
    EXPECT_EQ(parse_error_code(to_string(code)), std::optional<ErrorCode>(code));
  }
  EXPECT_FALSE(parse_error_code("nope").has_value());
}

// Seeded byte mutations of the valid examples: every outcome is a request or an error, never an
// exception, and an accepted mutation still round-trips.
TEST(Notice, MutatedLinesNeverThrow_DeterministicFuzz) {
  std::mt19937_64 rng(20240607);
  const std::string tokens[] = {"-1",      "1e999",     "\"",      "[",    "]",
                                "{",       "}",         ",",       ":",    "null",
                                "true",    "0x10",      "\\u0000", "\xc3", "18446744073709551616",
                                "\"v\":2", "[[[[[[[[[["};
  std::size_t accepted = 0;
  std::size_t rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string s = kExamples[rng() % kExamples.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !s.empty(); ++k) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 5) {
        case 0:
          s[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          s.erase(at, 1 + rng() % 8);
          break;
        case 2:
          s.insert(at, tokens[rng() % std::size(tokens)]);
          break;
        case 3:
          s.insert(at, s.substr(at, rng() % 16));
          break;
        default:
          s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8)));
          break;
      }
    }
    ParsedRequest p(PingQuery{});
    ASSERT_NO_THROW(p = parse_request(s)) << s;
    if (p.ok()) {
      ++accepted;
      const ParsedRequest again = parse_request(request_to_json(p.request()).dump());
      ASSERT_TRUE(again.ok()) << s;
      EXPECT_EQ(again.request(), p.request()) << s;
    } else {
      ++rejected;
      EXPECT_FALSE(p.error().message.empty());
      EXPECT_NE(p.error().code, ErrorCode::kInternal) << s << " -> " << p.error().message;
      ASSERT_NO_THROW((void)to_line(error_response(p.error())));
    }
  }
  EXPECT_GT(rejected, 3000u);
  EXPECT_GT(accepted, 0u);
}

}  // namespace
}  // namespace ibsdn
