// parse_request(): a request line to a typed Request, every refusal naming the value at fault.
#include <array>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "common/names.hpp"
#include "common/quote_for_message.hpp"
#include "flowtable/guid_text.hpp"
#include "plugin/notice/fields.hpp"
#include "plugin/notice/limits.hpp"
#include "plugin/notice/request.hpp"
#include "plugin/notice/version.hpp"

namespace ibsdn {
namespace {

using nlohmann::json;
using notice_fields::child;
using notice_fields::fail;
using notice_fields::Failure;
using notice_fields::Object;
using notice_fields::printable;
using notice_fields::to_array;
using notice_fields::to_bool;
using notice_fields::to_string_value;
using notice_fields::to_uint;

// Sees the parse events before the values are built: rejects nesting beyond kMaxNoticeDepth and
// keys repeated within an object (JSON parsers disagree on which copy wins; a request must not
// mean different things to the hook and to the controller).
class ShapeCheck {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        enter(false);
        break;
      case json::parse_event_t::array_start:
        enter(true);
        break;
      case json::parse_event_t::key: {
        Frame& f = stack_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) fail(ErrorCode::kInvalid, pointer(), "duplicate key");
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;       // arrays: the element being read
    std::string key;             // objects: the key being read
    std::set<std::string> keys;  // objects: keys seen so far
  };

  void enter(bool array) {
    if (stack_.size() >= kMaxNoticeDepth) {
      fail(ErrorCode::kParseError, pointer(),
           "nested deeper than " + std::to_string(kMaxNoticeDepth) + " levels");
    }
    stack_.push_back(Frame{array, 0, {}, {}});
  }
  void element_done() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  [[nodiscard]] std::string pointer() const {
    std::string p;
    for (const Frame& f : stack_) p = f.array ? child(p, f.index) : child(p, f.key);
    return p;
  }

  std::vector<Frame> stack_;
};

// ---- The protocol's values ---------------------------------------------------------------

std::uint32_t to_rank(const json& v, const std::string& at) {
  return static_cast<std::uint32_t>(
      to_uint(v, at, 0, std::numeric_limits<std::uint32_t>::max(), "a rank"));
}

JobId to_job(const json& v, const std::string& at) {
  return JobId(to_uint(v, at, 1, kMaxJobId, "a job id"));
}

std::string to_hostname(const json& v, const std::string& at) {
  const std::string& name = to_string_value(v, at, "a host name");
  if (std::string why = hostname_problem(name); !why.empty()) {
    fail(ErrorCode::kInvalid, at, quote_for_message(name) + " is not a valid host name: " + why);
  }
  return name;
}

PatternSpec to_pattern(const json& v, const std::string& at) {
  const std::string& text = to_string_value(v, at, "a pattern");
  if (text.size() > kMaxPatternText) {
    fail(ErrorCode::kTooLarge, at,
         "a pattern text is at most " + std::to_string(kMaxPatternText) + " characters");
  }
  PatternSpec spec;
  try {
    spec = PatternSpec::parse(text);
    spec.validate();
  } catch (const std::invalid_argument& e) {
    fail(ErrorCode::kInvalid, at, e.what());
  }
  if (spec.name == "matrix") {
    fail(ErrorCode::kInvalid, at,
         "the matrix pattern reads a file on the controller's host; send the \"matrix\" field "
         "instead");
  }
  return spec;
}

// Self pairs and zero totals are skipped and counted, not refused: real profiler output has them
// (traffic_matrix.hpp). kMaxMatrixEntries bounds the entries read, skipped ones included.
TrafficMatrix to_matrix(const json& v, const std::string& at) {
  to_array(v, at, "matrix", kMaxMatrixEntries);
  TrafficMatrixBuilder matrix;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string eat = child(at, i);
    const json& e = v[i];
    if (!e.is_array() || e.size() != 3) {
      fail(ErrorCode::kInvalid, eat, "a matrix entry is [src_rank, dst_rank, bytes]");
    }
    RankFlow f;
    f.src = to_rank(e[0], child(eat, 0));
    f.dst = to_rank(e[1], child(eat, 1));
    f.bytes = to_uint(e[2], child(eat, 2), 0, std::numeric_limits<std::uint64_t>::max(), "bytes");
    switch (matrix.add(f)) {
      case TrafficMatrixBuilder::Overflow::kNone:
        break;
      case TrafficMatrixBuilder::Overflow::kPair:
        fail(ErrorCode::kInvalid, child(eat, 2),
             "the bytes of this pair, summed over its entries, exceed 2^64-1");
      case TrafficMatrixBuilder::Overflow::kIntraRank:
        fail(ErrorCode::kInvalid, child(eat, 2),
             "the bytes of the self pairs (src_rank == dst_rank), summed, exceed 2^64-1");
    }
  }
  return matrix.finish();
}

// "matrix_skipped": the pairs the sender skipped before sending the matrix (ibsdnctl reading a
// file; the controller's own stored request), added to those skipped here.
void add_sender_skipped(const json& v, const std::string& at, SkippedPairs& skipped) {
  const Object o(v, at, "matrix_skipped");
  o.allow_only({"self_pairs", "intra_rank_bytes", "zero_pairs"}, "matrix_skipped");
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const auto field = [&o](const char* name) -> std::uint64_t {
    const json* n = o.find(name);
    return n != nullptr ? to_uint(*n, o.at(name), 0, kMax, name) : 0;
  };
  const SkippedPairs sent{field("self_pairs"), field("intra_rank_bytes"), field("zero_pairs")};
  if (sent.intra_rank_bytes < sent.self_pairs ||
      (sent.self_pairs == 0) != (sent.intra_rank_bytes == 0)) {
    fail(ErrorCode::kInvalid, o.at("intra_rank_bytes"),
         "a self pair carries at least one byte (a self pair without bytes is a zero pair): "
         "intra_rank_bytes is at least self_pairs, and 0 only without self pairs");
  }
  for (const auto& [name, into, more] :
       {std::tuple{"self_pairs", &skipped.self_pairs, sent.self_pairs},
        std::tuple{"intra_rank_bytes", &skipped.intra_rank_bytes, sent.intra_rank_bytes},
        std::tuple{"zero_pairs", &skipped.zero_pairs, sent.zero_pairs}}) {
    if (more > kMax - *into) {
      fail(ErrorCode::kInvalid, o.at(name),
           "added to what the matrix itself skips, exceeds 2^64-1");
    }
    *into += more;
  }
}

std::optional<Traffic> to_traffic(const Object& o, bool required) {
  const json* pattern = o.find("pattern");
  const json* matrix = o.find("matrix");
  const json* skipped = o.find("matrix_skipped");
  if (pattern && matrix) {
    fail(ErrorCode::kInvalid, o.at("matrix"), "give either pattern or matrix, not both");
  }
  if (skipped && !matrix) {
    fail(ErrorCode::kInvalid, o.at("matrix_skipped"), "goes with matrix only");
  }
  if (pattern) return Traffic(to_pattern(*pattern, o.at("pattern")));
  if (matrix) {
    TrafficMatrix m = to_matrix(*matrix, o.at("matrix"));
    if (skipped) add_sender_skipped(*skipped, o.at("matrix_skipped"), m.skipped);
    return Traffic(std::move(m));
  }
  if (required) fail(ErrorCode::kInvalid, o.at("pattern"), "missing (or give matrix)");
  return std::nullopt;
}

std::vector<RankPair> to_elephants(const json& v, const std::string& at) {
  to_array(v, at, "elephants", kMaxElephants);
  std::vector<RankPair> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string eat = child(at, i);
    const json& e = v[i];
    if (!e.is_array() || e.size() != 2) {
      fail(ErrorCode::kInvalid, eat, "an elephant is [src_rank, dst_rank]");
    }
    RankPair p{to_rank(e[0], child(eat, 0)), to_rank(e[1], child(eat, 1))};
    // Unlike a matrix's self pair, which profilers emit, a hint is written by hand and names a
    // pair to route apart: a rank to itself has no route, so it is the sender's mistake.
    if (p.src == p.dst) fail(ErrorCode::kInvalid, eat, "a rank does not send to itself");
    out.push_back(p);
  }
  return out;
}

std::string to_phase_name(const json& v, const std::string& at) {
  const std::string& name = to_string_value(v, at, "a phase name");
  if (std::string why = phase_name_problem(name); !why.empty()) {
    fail(ErrorCode::kInvalid, at, quote_for_message(name) + " is not a valid phase name: " + why);
  }
  return name;
}

SwitchRef to_switch_ref(const json& v, const std::string& at) {
  if (v.is_number()) {
    return Lid(static_cast<std::uint16_t>(to_uint(v, at, 1, 0xBFFF, "a switch LID")));
  }
  const std::string& text = to_string_value(v, at, "switch (a LID, \"0xGUID\" or a name)");
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    const std::optional<Guid> guid = parse_guid(text);
    if (!guid) fail(ErrorCode::kInvalid, at, "a GUID is 0x and 1 to 16 hex digits");
    return *guid;
  }
  if (text.empty() || text.size() > kMaxSwitchName) {
    fail(ErrorCode::kInvalid, at,
         "a switch name has 1 to " + std::to_string(kMaxSwitchName) + " characters");
  }
  return text;
}

// ---- One parser per op -------------------------------------------------------------------

Request parse_job_start(const Object& o) {
  o.allow_only(
      {"v", "op", "job", "user", "uid", "nodes", "pattern", "matrix", "matrix_skipped",
       "ranks_per_node", "mapping", "elephants", "phases", "algorithm", "backend", "path_bits"},
      "job_start");
  JobStartRequest r;
  r.job = to_job(o.need("job"), o.at("job"));
  r.user = to_string_value(o.need("user"), o.at("user"), "user");
  if (std::string why = user_name_problem(r.user); !why.empty()) {
    fail(ErrorCode::kInvalid, o.at("user"),
         quote_for_message(r.user) + " is not a valid user name: " + why);
  }
  if (const json* uid = o.find("uid")) {
    r.uid = static_cast<std::uint32_t>(to_uint(*uid, o.at("uid"), 0, kMaxUid, "uid"));
  }
  const std::string nodes_at = o.at("nodes");
  const json& nodes = to_array(o.need("nodes"), nodes_at, "nodes", kMaxJobNodes);
  if (nodes.empty()) fail(ErrorCode::kInvalid, nodes_at, "a job has at least one node");
  std::unordered_map<std::string_view, std::size_t> seen;
  r.nodes.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    r.nodes.push_back(to_hostname(nodes[i], child(nodes_at, i)));
    const auto [it, fresh] = seen.emplace(nodes[i].get_ref<const std::string&>(), i);
    if (!fresh) {
      fail(ErrorCode::kInvalid, child(nodes_at, i),
           "host " + quote_for_message(r.nodes.back()) + " is listed twice (first at " +
               child(nodes_at, it->second) + ")");
    }
  }
  r.traffic = *to_traffic(o, true);
  if (const json* rpn = o.find("ranks_per_node")) {
    r.ranks_per_node = static_cast<std::uint32_t>(
        to_uint(*rpn, o.at("ranks_per_node"), 1, kMaxRanksPerNode, "ranks_per_node"));
  }
  if (const json* m = o.find("mapping")) {
    const std::string& text = to_string_value(*m, o.at("mapping"), "mapping");
    try {
      r.mapping = parse_mapping(text);
    } catch (const std::invalid_argument&) {
      fail(ErrorCode::kInvalid, o.at("mapping"),
           quote_for_message(text) + " is not a mapping (block or cyclic)");
    }
  }
  if (const json* e = o.find("elephants")) r.elephants = to_elephants(*e, o.at("elephants"));
  if (const json* p = o.find("phases")) {
    const std::string phases_at = o.at("phases");
    to_array(*p, phases_at, "phases", kMaxPhases);
    for (std::size_t i = 0; i < p->size(); ++i) {
      const Object po((*p)[i], child(phases_at, i), "a phase");
      po.allow_only({"name", "pattern", "matrix", "matrix_skipped"}, "a phase");
      PhaseDecl d;
      d.name = to_phase_name(po.need("name"), po.at("name"));
      for (std::size_t k = 0; k < r.phases.size(); ++k) {
        if (r.phases[k].name == d.name) {
          fail(ErrorCode::kInvalid, po.at("name"),
               "phase " + quote_for_message(d.name) + " is declared twice (first at " +
                   child(child(phases_at, k), "name") + ")");
        }
      }
      d.traffic = *to_traffic(po, true);
      r.phases.push_back(std::move(d));
    }
  }
  if (const json* a = o.find("algorithm")) {
    const std::string& name = to_string_value(*a, o.at("algorithm"), "algorithm");
    if (std::string why = algorithm_name_problem(name); !why.empty()) {
      fail(ErrorCode::kInvalid, o.at("algorithm"),
           quote_for_message(name) + " is not a valid algorithm name: " + why);
    }
    r.algorithm = name;
  }
  if (const json* b = o.find("backend")) {
    const std::string& name = to_string_value(*b, o.at("backend"), "backend");
    r.backend = parse_install_backend(name);
    if (!r.backend) {
      fail(ErrorCode::kInvalid, o.at("backend"),
           quote_for_message(name) + " is not one of " + std::string(kInstallBackendNames));
    }
  }
  if (const json* p = o.find("path_bits"))
    r.path_bits = to_bool(*p, o.at("path_bits"), "path_bits");
  return r;
}

Request parse_phase(const Object& o) {
  o.allow_only({"v", "op", "job", "action", "name", "pattern", "matrix", "matrix_skipped"},
               "phase");
  PhaseRequest r;
  r.job = to_job(o.need("job"), o.at("job"));
  const std::string& action = to_string_value(o.need("action"), o.at("action"), "action");
  if (action == "begin") {
    r.action = PhaseAction::kBegin;
  } else if (action == "end") {
    r.action = PhaseAction::kEnd;
  } else {
    fail(ErrorCode::kInvalid, o.at("action"),
         quote_for_message(action) + " is not a phase action (begin or end)");
  }
  r.name = to_phase_name(o.need("name"), o.at("name"));
  if (r.action == PhaseAction::kEnd &&
      (o.has("pattern") || o.has("matrix") || o.has("matrix_skipped"))) {
    fail(ErrorCode::kInvalid,
         o.at(o.has("pattern") ? "pattern" : (o.has("matrix") ? "matrix" : "matrix_skipped")),
         "phase end takes no pattern or matrix");
  }
  r.traffic = to_traffic(o, false);
  return r;
}

Request parse_job_end(const Object& o) {
  o.allow_only({"v", "op", "job"}, "job_end");
  return JobEndRequest{to_job(o.need("job"), o.at("job"))};
}

Request parse_hint(const Object& o) {
  o.allow_only({"v", "op", "job", "elephants"}, "hint");
  return HintRequest{to_job(o.need("job"), o.at("job")),
                     to_elephants(o.need("elephants"), o.at("elephants"))};
}

Request parse_jobs(const Object& o) {
  o.allow_only({"v", "op", "job"}, "jobs");
  JobsQuery q;
  if (const json* j = o.find("job")) q.job = to_job(*j, o.at("job"));
  return q;
}

Request parse_flows(const Object& o) {
  o.allow_only({"v", "op", "switch", "job", "from_switch"}, "flows");
  FlowsQuery q;
  if (const json* s = o.find("switch")) q.switch_ref = to_switch_ref(*s, o.at("switch"));
  if (const json* j = o.find("job")) q.job = to_job(*j, o.at("job"));
  if (const json* f = o.find("from_switch")) {
    q.from_switch = to_bool(*f, o.at("from_switch"), "from_switch");
  }
  return q;
}

Request parse_links(const Object& o) {
  o.allow_only({"v", "op", "top"}, "links");
  LinksQuery q;
  if (const json* t = o.find("top")) {
    q.top = static_cast<std::uint32_t>(to_uint(*t, o.at("top"), 1, kMaxLinksTop, "top"));
  }
  return q;
}

Request parse_route(const Object& o) {
  o.allow_only({"v", "op", "src", "dst", "job"}, "route");
  RouteQuery q{to_hostname(o.need("src"), o.at("src")), to_hostname(o.need("dst"), o.at("dst")),
               std::nullopt};
  if (q.src == q.dst) fail(ErrorCode::kInvalid, o.at("dst"), "src and dst are the same host");
  if (const json* j = o.find("job")) q.job = to_job(*j, o.at("job"));
  return q;
}

Request parse_audit(const Object& o) {
  o.allow_only({"v", "op", "repair"}, "audit");
  AuditQuery q;
  if (const json* rp = o.find("repair")) q.repair = to_bool(*rp, o.at("repair"), "repair");
  return q;
}

Request parse_stats(const Object& o) {
  o.allow_only({"v", "op"}, "stats");
  return StatsQuery{};
}

Request parse_ping(const Object& o) {
  o.allow_only({"v", "op"}, "ping");
  return PingQuery{};
}

Request parse_quarantine(const Object& o) {
  o.allow_only({"v", "op"}, "quarantine");
  return QuarantineQuery{};
}

Request parse_quarantine_release(const Object& o) {
  o.allow_only({"v", "op", "job", "delete_entries"}, "quarantine_release");
  QuarantineReleaseRequest r;
  r.job = to_job(o.need("job"), o.at("job"));
  if (const json* d = o.find("delete_entries")) {
    r.delete_entries = to_bool(*d, o.at("delete_entries"), "delete_entries");
  }
  return r;
}

struct OpParser {
  std::string_view op;
  Request (*parse)(const Object&);
};

// Adding a request: its alternative in Request, its name in request.cpp's op list, one parser
// above and one line here.
constexpr std::array<OpParser, std::variant_size_v<Request>> kParsers = {{
    {"job_start", &parse_job_start},
    {"job_end", &parse_job_end},
    {"phase", &parse_phase},
    {"hint", &parse_hint},
    {"jobs", &parse_jobs},
    {"flows", &parse_flows},
    {"links", &parse_links},
    {"route", &parse_route},
    {"audit", &parse_audit},
    {"stats", &parse_stats},
    {"ping", &parse_ping},
    {"quarantine", &parse_quarantine},
    {"quarantine_release", &parse_quarantine_release},
}};

Request parse_or_throw(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > kMaxNoticeLineBytes) {
    fail(ErrorCode::kTooLarge, "",
         "the line has " + std::to_string(line.size()) + " bytes, the limit is " +
             std::to_string(kMaxNoticeLineBytes));
  }
  if (line.find('\n') != std::string_view::npos) {
    fail(ErrorCode::kParseError, "", "a request is a single line");
  }
  // JSON text never holds a NUL byte (inside a string it is \u0000); the JSON reader would stop
  // at one and take what precedes it.
  if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
    fail(ErrorCode::kParseError, "",
         "a NUL byte at offset " + std::to_string(nul) + ": a request is JSON text");
  }
  json j;
  try {
    j = json::parse(line.begin(), line.end(), ShapeCheck{});
  } catch (const json::exception& e) {
    // Drop nlohmann's "[json.exception.parse_error.101] " tag: clients need the position only.
    std::string_view what = e.what();
    if (const auto tag_end = what.find("] "); what.starts_with("[json.") && tag_end != what.npos) {
      what.remove_prefix(tag_end + 2);
    }
    fail(ErrorCode::kParseError, "", "not JSON: " + std::string(what));
  }
  if (!j.is_object()) {
    fail(ErrorCode::kParseError, "",
         std::string("a request is a JSON object, got ") + j.type_name());
  }
  const Object o(j, "", "a request");
  const json* v = o.find("v");
  if (!v) fail(ErrorCode::kInvalid, "/v", "missing (the protocol version, 1)");
  if (!v->is_number_integer()) {
    fail(ErrorCode::kInvalid, "/v",
         std::string("the protocol version must be the integer 1, got ") + v->type_name());
  }
  if (!v->is_number_unsigned() ||
      v->get<std::uint64_t>() != static_cast<std::uint64_t>(kNoticeProtocolVersion)) {
    fail(ErrorCode::kUnsupportedVersion, "/v",
         "protocol version " + v->dump() + " is not supported; this controller speaks version " +
             std::to_string(kNoticeProtocolVersion));
  }
  const std::string& op = to_string_value(o.need("op"), "/op", "op");
  for (const OpParser& p : kParsers) {
    if (p.op == op) return p.parse(o);
  }
  std::string list;
  for (const OpParser& p : kParsers) list += (list.empty() ? "" : ", ") + std::string(p.op);
  fail(ErrorCode::kUnknownOp, "/op",
       "unknown op " + quote_for_message(op) + " (known: " + list + ")");
}

}  // namespace

ParsedRequest parse_request(std::string_view line) noexcept {
  try {
    return ParsedRequest(parse_or_throw(line));
  } catch (const Failure& f) {
    return ParsedRequest(f.error);
  } catch (const std::exception& e) {
    // A limit above should have stopped this first (e.g. memory for a huge array).
    return ParsedRequest(RequestError{ErrorCode::kInternal, "",
                                      printable(std::string("request not parsed: ") + e.what())});
  }
}

}  // namespace ibsdn
