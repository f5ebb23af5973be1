#include "plugin/notice/notice.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "flowtable/flow_text.hpp"
#include "plugin/notice/names.hpp"

namespace ibsdn {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxPatternText = 256;
constexpr std::size_t kMaxSwitchName = 64;
constexpr std::size_t kMaxMessage = 400;

constexpr std::array<std::pair<ErrorCode, std::string_view>, 14> kErrorNames = {{
    {ErrorCode::kParseError, "parse_error"},
    {ErrorCode::kUnsupportedVersion, "unsupported_version"},
    {ErrorCode::kUnknownOp, "unknown_op"},
    {ErrorCode::kInvalid, "invalid"},
    {ErrorCode::kTooLarge, "too_large"},
    {ErrorCode::kForbidden, "forbidden"},
    {ErrorCode::kUnknownJob, "unknown_job"},
    {ErrorCode::kUnknownHost, "unknown_host"},
    {ErrorCode::kUnknownPhase, "unknown_phase"},
    {ErrorCode::kUnroutable, "unroutable"},
    {ErrorCode::kTimeout, "timeout"},
    {ErrorCode::kInstallFailed, "install_failed"},
    {ErrorCode::kBusy, "busy"},
    {ErrorCode::kInternal, "internal"},
}};

// The ops in the order of the Request alternatives.
constexpr std::array<std::string_view, std::variant_size_v<Request>> kOps = {
    "job_start", "job_end", "phase", "hint",  "jobs", "flows",
    "links",     "route",   "audit", "stats", "ping"};

// Thrown inside the parser only; parse_request() turns it into its result.
struct Failure {
  RequestError error;
};

// Error messages quote client input: keep them printable ASCII and short whatever came in.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= kMaxMessage) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", byte);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void fail(ErrorCode code, const std::string& at, std::string_view what) {
  std::string message = at.empty() ? std::string(what) : "at " + at + ": " + std::string(what);
  throw Failure{{code, printable(at), printable(message)}};
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string child(const std::string& at, std::string_view key) {
  return at + "/" + pointer_token(key);
}
std::string child(const std::string& at, std::size_t index) {
  return at + "/" + std::to_string(index);
}

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

// Typed access to the fields of one JSON object, each error naming the field's pointer.
class Object {
 public:
  Object(const json& j, std::string at, std::string_view what) : j_(j), at_(std::move(at)) {
    if (!j.is_object()) {
      fail(ErrorCode::kInvalid, at_,
           "expected " + std::string(what) + " (an object), got " + j.type_name());
    }
  }

  void allow_only(std::initializer_list<std::string_view> known, std::string_view context) const {
    for (const auto& [key, value] : j_.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(ErrorCode::kInvalid, child(at_, key),
             "unknown field for " + std::string(context) + " (accepted: " + list + ")");
      }
    }
  }

  [[nodiscard]] const json* find(std::string_view key) const {
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  [[nodiscard]] bool has(std::string_view key) const { return find(key) != nullptr; }
  [[nodiscard]] const json& need(std::string_view key) const {
    const json* v = find(key);
    if (!v) fail(ErrorCode::kInvalid, child(at_, key), "missing");
    return *v;
  }
  [[nodiscard]] std::string at(std::string_view key) const { return child(at_, key); }

 private:
  const json& j_;
  std::string at_;
};

std::uint64_t to_uint(const json& v, const std::string& at, std::uint64_t min, std::uint64_t max,
                      std::string_view what) {
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (!v.is_number_integer()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be an integer in " + range + ", got " +
             (v.is_number_float() ? std::string("a non-integer number") : v.type_name()));
  }
  if (!v.is_number_unsigned()) {
    fail(ErrorCode::kInvalid, at, std::string(what) + " must not be negative (" + range + ")");
  }
  const auto x = v.get<std::uint64_t>();
  if (x < min || x > max) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " " + std::to_string(x) + " is out of range " + range);
  }
  return x;
}

std::uint32_t to_rank(const json& v, const std::string& at) {
  return static_cast<std::uint32_t>(
      to_uint(v, at, 0, std::numeric_limits<std::uint32_t>::max(), "a rank"));
}

const std::string& to_string_value(const json& v, const std::string& at, std::string_view what) {
  if (!v.is_string()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be a string, got " + std::string(v.type_name()));
  }
  return v.get_ref<const std::string&>();
}

bool to_bool(const json& v, const std::string& at, std::string_view what) {
  if (!v.is_boolean()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be true or false, got " + std::string(v.type_name()));
  }
  return v.get<bool>();
}

const json& to_array(const json& v, const std::string& at, std::string_view what, std::size_t max) {
  if (!v.is_array()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be an array, got " + std::string(v.type_name()));
  }
  if (v.size() > max) {
    fail(ErrorCode::kTooLarge, at,
         std::string(what) + " has " + std::to_string(v.size()) + " elements, the limit is " +
             std::to_string(max));
  }
  return v;
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

std::vector<RankFlow> to_matrix(const json& v, const std::string& at) {
  to_array(v, at, "matrix", kMaxMatrixEntries);
  struct Item {
    RankFlow flow;
    std::size_t index;
  };
  std::vector<Item> items;
  items.reserve(v.size());
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
    if (f.src == f.dst) fail(ErrorCode::kInvalid, eat, "a rank does not send to itself");
    items.push_back({f, i});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::pair(a.flow.src, a.flow.dst) < std::pair(b.flow.src, b.flow.dst);
  });
  std::vector<RankFlow> out;
  for (std::size_t i = 0; i < items.size();) {
    RankFlow sum = items[i].flow;
    std::size_t j = i + 1;
    for (; j < items.size() && items[j].flow.src == sum.src && items[j].flow.dst == sum.dst; ++j) {
      if (items[j].flow.bytes > std::numeric_limits<std::uint64_t>::max() - sum.bytes) {
        fail(ErrorCode::kInvalid, child(child(at, items[j].index), 2),
             "the bytes of this pair, summed over its entries, exceed 2^64-1");
      }
      sum.bytes += items[j].flow.bytes;
    }
    if (sum.bytes > 0) out.push_back(sum);
    i = j;
  }
  return out;
}

std::optional<Traffic> to_traffic(const Object& o, bool required) {
  const json* pattern = o.find("pattern");
  const json* matrix = o.find("matrix");
  if (pattern && matrix) {
    fail(ErrorCode::kInvalid, o.at("matrix"), "give either pattern or matrix, not both");
  }
  if (pattern) return Traffic(to_pattern(*pattern, o.at("pattern")));
  if (matrix) return Traffic(to_matrix(*matrix, o.at("matrix")));
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

JobStartRequest to_job_start(const Object& o) {
  o.allow_only({"v", "op", "job", "user", "uid", "nodes", "pattern", "matrix", "ranks_per_node",
                "mapping", "elephants", "phases", "algorithm"},
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
      po.allow_only({"name", "pattern", "matrix"}, "a phase");
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
  return r;
}

PhaseRequest to_phase(const Object& o) {
  o.allow_only({"v", "op", "job", "action", "name", "pattern", "matrix"}, "phase");
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
  if (r.action == PhaseAction::kEnd && (o.has("pattern") || o.has("matrix"))) {
    fail(ErrorCode::kInvalid, o.at(o.has("pattern") ? "pattern" : "matrix"),
         "phase end takes no pattern or matrix");
  }
  r.traffic = to_traffic(o, false);
  return r;
}

SwitchRef to_switch_ref(const json& v, const std::string& at) {
  if (v.is_number()) {
    return Lid(static_cast<std::uint16_t>(to_uint(v, at, 1, 0xBFFF, "a switch LID")));
  }
  const std::string& text = to_string_value(v, at, "switch (a LID, \"0xGUID\" or a name)");
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::uint64_t g = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), g, 16);
    if (text.size() > 18 || ec != std::errc() || ptr != text.data() + text.size()) {
      fail(ErrorCode::kInvalid, at, "a GUID is 0x and 1 to 16 hex digits");
    }
    return Guid(g);
  }
  if (text.empty() || text.size() > kMaxSwitchName) {
    fail(ErrorCode::kInvalid, at,
         "a switch name has 1 to " + std::to_string(kMaxSwitchName) + " characters");
  }
  return text;
}

Request to_request(const Object& o, std::size_t op) {
  switch (op) {
    case 0:
      return to_job_start(o);
    case 1:
      o.allow_only({"v", "op", "job"}, "job_end");
      return JobEndRequest{to_job(o.need("job"), o.at("job"))};
    case 2:
      return to_phase(o);
    case 3:
      o.allow_only({"v", "op", "job", "elephants"}, "hint");
      return HintRequest{to_job(o.need("job"), o.at("job")),
                         to_elephants(o.need("elephants"), o.at("elephants"))};
    case 4:
      o.allow_only({"v", "op"}, "jobs");
      return JobsQuery{};
    case 5: {
      o.allow_only({"v", "op", "switch", "job", "from_switch"}, "flows");
      FlowsQuery q;
      if (const json* s = o.find("switch")) q.switch_ref = to_switch_ref(*s, o.at("switch"));
      if (const json* j = o.find("job")) q.job = to_job(*j, o.at("job"));
      if (const json* f = o.find("from_switch")) {
        q.from_switch = to_bool(*f, o.at("from_switch"), "from_switch");
      }
      return q;
    }
    case 6: {
      o.allow_only({"v", "op", "top"}, "links");
      LinksQuery q;
      if (const json* t = o.find("top")) {
        q.top = static_cast<std::uint32_t>(to_uint(*t, o.at("top"), 1, kMaxLinksTop, "top"));
      }
      return q;
    }
    case 7: {
      o.allow_only({"v", "op", "src", "dst"}, "route");
      RouteQuery q{to_hostname(o.need("src"), o.at("src")),
                   to_hostname(o.need("dst"), o.at("dst"))};
      if (q.src == q.dst) fail(ErrorCode::kInvalid, o.at("dst"), "src and dst are the same host");
      return q;
    }
    case 8: {
      o.allow_only({"v", "op", "repair"}, "audit");
      AuditQuery q;
      if (const json* rp = o.find("repair")) q.repair = to_bool(*rp, o.at("repair"), "repair");
      return q;
    }
    case 9:
      o.allow_only({"v", "op"}, "stats");
      return StatsQuery{};
    default:
      o.allow_only({"v", "op"}, "ping");
      return PingQuery{};
  }
}

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
  const auto it = std::find(kOps.begin(), kOps.end(), op);
  if (it == kOps.end()) {
    std::string list;
    for (std::string_view k : kOps) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(ErrorCode::kUnknownOp, "/op",
         "unknown op " + quote_for_message(op) + " (known: " + list + ")");
  }
  return to_request(o, static_cast<std::size_t>(it - kOps.begin()));
}

// ---- request_to_json ----

std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void put_traffic(json& j, const Traffic& t) {
  if (const auto* spec = std::get_if<PatternSpec>(&t)) {
    j["pattern"] = spec->to_string();
  } else {
    json m = json::array();
    for (const RankFlow& f : std::get<std::vector<RankFlow>>(t))
      m.push_back({f.src, f.dst, f.bytes});
    j["matrix"] = std::move(m);
  }
}

json pairs_json(const std::vector<RankPair>& pairs) {
  json a = json::array();
  for (const RankPair& p : pairs) a.push_back({p.src, p.dst});
  return a;
}

json base(std::string_view op) {
  return {{"v", kNoticeProtocolVersion}, {"op", op}};
}

}  // namespace

std::string_view to_string(ErrorCode code) {
  for (const auto& [c, name] : kErrorNames) {
    if (c == code) return name;
  }
  return "internal";
}

std::optional<ErrorCode> parse_error_code(std::string_view text) {
  for (const auto& [c, name] : kErrorNames) {
    if (name == text) return c;
  }
  return std::nullopt;
}

std::string_view op_name(const Request& r) {
  return kOps[r.index()];
}

Privilege required_privilege(const Request& r) {
  if (std::holds_alternative<JobStartRequest>(r) || std::holds_alternative<JobEndRequest>(r)) {
    return Privilege::kScheduler;
  }
  if (const auto* a = std::get_if<AuditQuery>(&r); a != nullptr && a->repair) {
    return Privilege::kScheduler;
  }
  if (std::holds_alternative<PhaseRequest>(r) || std::holds_alternative<HintRequest>(r)) {
    return Privilege::kJobOwnerOrScheduler;
  }
  return Privilege::kAnyone;
}

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

json request_to_json(const Request& request) {
  json j = base(op_name(request));
  std::visit(
      [&j](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, JobStartRequest>) {
          j["job"] = r.job.value();
          j["user"] = r.user;
          if (r.uid) j["uid"] = *r.uid;
          j["nodes"] = r.nodes;
          put_traffic(j, r.traffic);
          if (r.ranks_per_node) j["ranks_per_node"] = *r.ranks_per_node;
          if (r.mapping != Mapping::kBlock) j["mapping"] = to_string(r.mapping);
          if (!r.elephants.empty()) j["elephants"] = pairs_json(r.elephants);
          if (!r.phases.empty()) {
            json phases = json::array();
            for (const PhaseDecl& d : r.phases) {
              json p = {{"name", d.name}};
              put_traffic(p, d.traffic);
              phases.push_back(std::move(p));
            }
            j["phases"] = std::move(phases);
          }
          if (r.algorithm) j["algorithm"] = *r.algorithm;
        } else if constexpr (std::is_same_v<T, JobEndRequest>) {
          j["job"] = r.job.value();
        } else if constexpr (std::is_same_v<T, PhaseRequest>) {
          j["job"] = r.job.value();
          j["action"] = r.action == PhaseAction::kBegin ? "begin" : "end";
          j["name"] = r.name;
          if (r.traffic) put_traffic(j, *r.traffic);
        } else if constexpr (std::is_same_v<T, HintRequest>) {
          j["job"] = r.job.value();
          j["elephants"] = pairs_json(r.elephants);
        } else if constexpr (std::is_same_v<T, FlowsQuery>) {
          if (r.switch_ref) {
            if (const auto* lid = std::get_if<Lid>(&*r.switch_ref)) {
              j["switch"] = lid->value();
            } else if (const auto* guid = std::get_if<Guid>(&*r.switch_ref)) {
              j["switch"] = hex16(guid->value());
            } else {
              j["switch"] = std::get<std::string>(*r.switch_ref);
            }
          }
          if (r.job) j["job"] = r.job->value();
          if (r.from_switch) j["from_switch"] = true;
        } else if constexpr (std::is_same_v<T, LinksQuery>) {
          if (r.top) j["top"] = *r.top;
        } else if constexpr (std::is_same_v<T, RouteQuery>) {
          j["src"] = r.src;
          j["dst"] = r.dst;
        } else if constexpr (std::is_same_v<T, AuditQuery>) {
          if (r.repair) j["repair"] = true;
        }
      },
      request);
  return j;
}

// ---- Responses ----

json ok_response() {
  return {{"v", kNoticeProtocolVersion}, {"ok", true}};
}

json error_response(ErrorCode code, std::string_view message, std::string_view at) {
  json e = {{"code", to_string(code)}, {"message", message}};
  if (!at.empty()) e["at"] = at;
  return {{"v", kNoticeProtocolVersion}, {"ok", false}, {"error", std::move(e)}};
}

json error_response(const RequestError& e) {
  return error_response(e.code, e.message, e.at);
}

json ready_response(const JobReady& r) {
  json j = ok_response();
  j["job"] = r.job.value();
  j["algorithm"] = r.algorithm;
  j["flows"] = r.flows;
  j["flows_on_default"] = r.flows_on_default;
  j["entries"] = r.entries;
  j["max_link_load"] = r.max_link_load;
  j["bound"] = r.bound;
  j["degraded"] = r.degraded;
  j["warnings"] = r.warnings;
  j["timings_ms"] = {{"route", r.route_ms}, {"compile", r.compile_ms}, {"install", r.install_ms}};
  return j;
}

json pong_response(std::string_view server_version) {
  json j = ok_response();
  j["pong"] = true;
  j["version"] = server_version;
  j["protocol"] = kNoticeProtocolVersion;
  return j;
}

json jobs_response(std::span<const JobSummary> jobs) {
  json list = json::array();
  for (const JobSummary& s : jobs) {
    list.push_back({{"job", s.job.value()},
                    {"user", s.user},
                    {"nodes", s.nodes},
                    {"pattern", s.pattern},
                    {"algorithm", s.algorithm},
                    {"phase", s.phase},
                    {"entries", s.entries},
                    {"started_unix_ms", s.started_unix_ms},
                    {"degraded", s.degraded}});
  }
  json j = ok_response();
  j["jobs"] = std::move(list);
  return j;
}

json flows_response(std::span<const SwitchFlows> switches, bool from_switch) {
  json list = json::array();
  for (const SwitchFlows& s : switches) {
    json entries = json::array();
    for (const FlowEntry& e : s.entries) {
      json f = flow_to_json(e);
      f["text"] = format_flow(e);
      entries.push_back(std::move(f));
    }
    list.push_back({{"guid", hex16(s.guid.value())},
                    {"lid", s.lid.value()},
                    {"name", s.name},
                    {"entries", std::move(entries)}});
  }
  json j = ok_response();
  j["source"] = from_switch ? "switch" : "controller";
  j["switches"] = std::move(list);
  return j;
}

json links_response(std::span<const LinkRow> links) {
  json list = json::array();
  for (const LinkRow& l : links) {
    list.push_back({{"from", l.from},
                    {"from_port", l.from_port.value()},
                    {"to", l.to},
                    {"to_port", l.to_port.value()},
                    {"flows", l.flows},
                    {"weight", l.weight}});
  }
  json j = ok_response();
  j["links"] = std::move(list);
  return j;
}

json route_response(std::string_view src, std::string_view dst, std::span<const RouteHop> hops) {
  json list = json::array();
  for (const RouteHop& h : hops) {
    json hop = {{"node", h.node},
                {"guid", hex16(h.guid.value())},
                {"out_port", h.out_port.value()},
                {"by", h.by_flow_entry ? "flow" : "lft"}};
    if (h.by_flow_entry) hop["cookie"] = h.cookie;
    list.push_back(std::move(hop));
  }
  json j = ok_response();
  j["src"] = src;
  j["dst"] = dst;
  j["hops"] = std::move(list);
  return j;
}

json audit_response(std::size_t switches_checked, std::span<const AuditFinding> findings) {
  json list = json::array();
  for (const AuditFinding& f : findings) {
    list.push_back({{"switch", hex16(f.switch_guid.value())},
                    {"name", f.switch_name},
                    {"kind", f.kind},
                    {"detail", f.detail}});
  }
  json j = ok_response();
  j["switches_checked"] = switches_checked;
  j["consistent"] = findings.empty();
  j["findings"] = std::move(list);
  return j;
}

json stats_response(std::span<const std::pair<std::string, std::uint64_t>> counters) {
  json c = json::object();
  for (const auto& [name, value] : counters) c[name] = value;
  json j = ok_response();
  j["stats"] = std::move(c);
  return j;
}

std::string to_line(const json& response) {
  std::string line = response.dump(-1, ' ', true, json::error_handler_t::replace);
  line += '\n';
  return line;
}

}  // namespace ibsdn
