#include "scheduler_hook/sdn_options.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "common/quote_for_message.hpp"
#include "plugin/notice/limits.hpp"
#include "routing/patterns/mapping_kind.hpp"
#include "routing/patterns/traffic_matrix.hpp"

namespace ibsdn::slurm_hook {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

template <typename T>
std::optional<T> whole_number(std::string_view text) {
  T v{};
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

void check_size(const std::string& encoded, std::string_view what) {
  if (encoded.size() > kMaxVariableBytes) {
    throw OptionError(std::string(what) + " is " + std::to_string(encoded.size()) +
                      " bytes once encoded; at most " + std::to_string(kMaxVariableBytes) +
                      " fit the job's environment (use a named pattern)");
  }
}

std::string path_of(std::string_view value) {
  if (value.size() < 2 || value.front() != '@') throw OptionError("expected @FILE");
  return std::string(value.substr(1));
}

}  // namespace

void set_pattern_option(SdnVariables& v, std::string_view value) {
  if (!value.empty() && value.front() == '@') {
    TrafficMatrix m;
    try {
      m = read_traffic_matrix(path_of(value), std::nullopt);
    } catch (const std::invalid_argument& e) {
      throw OptionError(e.what());  // "FILE:LINE: what" or "FILE: cannot open ..."
    }
    if (m.flows.empty()) {
      throw OptionError(std::string(value.substr(1)) +
                        ": the matrix has no pair of distinct ranks "
                        "with bytes");
    }
    std::string rows;
    for (const RankFlow& f : m.flows) {
      if (!rows.empty()) rows += ';';
      rows += std::to_string(f.src) + ' ' + std::to_string(f.dst) + ' ' + std::to_string(f.bytes);
    }
    check_size(rows, "the matrix");
    v.pattern.reset();
    v.matrix = std::move(rows);
    v.matrix_skipped.reset();
    if (m.skipped.any()) {
      v.matrix_skipped = std::to_string(m.skipped.self_pairs) + ' ' +
                         std::to_string(m.skipped.intra_rank_bytes) + ' ' +
                         std::to_string(m.skipped.zero_pairs);
    }
    return;
  }
  PatternSpec spec;
  try {
    spec = PatternSpec::parse(value);
    spec.validate();
  } catch (const std::invalid_argument& e) {
    throw OptionError(e.what());
  }
  if (spec.name == "matrix") {
    throw OptionError(
        "the matrix pattern would make the controller read a file on its own host; "
        "give the file as --sdn-pattern=@FILE instead");
  }
  v.matrix.reset();
  v.matrix_skipped.reset();
  v.pattern = spec.to_string();
}

void set_hints_option(SdnVariables& v, std::string_view value) {
  const std::string path = path_of(value);
  std::ifstream in(path);
  if (!in) throw OptionError(path + ": cannot open");
  std::string encoded;
  std::string line;
  std::size_t line_no = 0;
  std::size_t pairs = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::string_view l = line;
    if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
    l = trim(l);
    if (l.empty()) continue;
    const auto space = l.find_first_of(" \t");
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (space == std::string_view::npos) {
      throw OptionError(where + "expected SRC DST (two rank numbers), found " +
                        quote_for_message(l));
    }
    const auto src = whole_number<std::uint32_t>(l.substr(0, space));
    const auto dst = whole_number<std::uint32_t>(trim(l.substr(space)));
    if (!src || !dst) {
      throw OptionError(where + "expected SRC DST (two rank numbers 0..4294967295), found " +
                        quote_for_message(l));
    }
    if (*src == *dst) throw OptionError(where + "an elephant pair needs two distinct ranks");
    if (++pairs > kMaxElephants) {
      throw OptionError(path + ": more than " + std::to_string(kMaxElephants) + " pairs");
    }
    if (!encoded.empty()) encoded += ',';
    encoded += std::to_string(*src) + ':' + std::to_string(*dst);
  }
  if (in.bad()) throw OptionError(path + ": read error");
  if (encoded.empty()) throw OptionError(path + ": no SRC DST pair");
  check_size(encoded, "the hints");
  v.hints = std::move(encoded);
}

void set_ranks_per_node_option(SdnVariables& v, std::string_view value) {
  const auto n = whole_number<std::uint32_t>(value);
  if (!n || *n < 1 || *n > kMaxRanksPerNode) {
    throw OptionError(quote_for_message(value) + " is not a number in 1.." +
                      std::to_string(kMaxRanksPerNode));
  }
  v.ranks_per_node = std::to_string(*n);
}

void set_mapping_option(SdnVariables& v, std::string_view value) {
  try {
    v.mapping = std::string(to_string(parse_mapping(value)));
  } catch (const std::invalid_argument&) {
    throw OptionError(quote_for_message(value) + " is not block or cyclic");
  }
}

bool apply_variables(const SdnVariables& v, JobStartRequest& r) {
  const auto fail = [](const char* var, const std::string& what) {
    throw OptionError(std::string("SPANK_") + var + ": " + what);
  };
  if (v.pattern && v.matrix) fail(kVarMatrix, "given together with SPANK_SDN_PATTERN");
  if (v.pattern) {
    try {
      PatternSpec spec = PatternSpec::parse(*v.pattern);
      spec.validate();
      if (spec.name == "matrix") fail(kVarPattern, "the matrix pattern is refused in notices");
      r.traffic = std::move(spec);
    } catch (const std::invalid_argument& e) {
      fail(kVarPattern, e.what());
    }
  } else if (v.matrix) {
    if (v.matrix->size() > kMaxVariableBytes) fail(kVarMatrix, "longer than the submit limit");
    std::string rows = *v.matrix;
    for (char& c : rows) {
      if (c == ';') c = '\n';
    }
    std::istringstream in(rows);
    try {
      TrafficMatrix m = parse_traffic_matrix(in, std::string("SPANK_") + kVarMatrix, std::nullopt);
      if (v.matrix_skipped) {
        std::istringstream counts(*v.matrix_skipped);
        SkippedPairs& s = m.skipped;
        std::string rest;
        if (!(counts >> s.self_pairs >> s.intra_rank_bytes >> s.zero_pairs) || (counts >> rest)) {
          fail(kVarMatrixSkipped, "expected three counts SELF_PAIRS INTRA_RANK_BYTES ZERO_PAIRS");
        }
      }
      r.traffic = std::move(m);
    } catch (const std::invalid_argument& e) {
      throw OptionError(e.what());  // "SPANK_SDN_MATRIX:LINE: what"
    }
  } else {
    return false;
  }
  if (v.hints) {
    r.elephants.clear();
    std::string_view rest = *v.hints;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view pair = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      const auto colon = pair.find(':');
      const auto src = whole_number<std::uint32_t>(pair.substr(0, colon));
      const auto dst = colon == std::string_view::npos
                           ? std::nullopt
                           : whole_number<std::uint32_t>(pair.substr(colon + 1));
      if (!src || !dst) fail(kVarHints, quote_for_message(pair) + " is not SRC:DST");
      if (r.elephants.size() >= kMaxElephants) fail(kVarHints, "too many pairs");
      r.elephants.push_back({*src, *dst});
    }
  }
  if (v.ranks_per_node) {
    const auto n = whole_number<std::uint32_t>(*v.ranks_per_node);
    if (!n || *n < 1 || *n > kMaxRanksPerNode) {
      fail(kVarRanksPerNode, quote_for_message(*v.ranks_per_node) + " is not in 1.." +
                                 std::to_string(kMaxRanksPerNode));
    }
    r.ranks_per_node = *n;
  }
  if (v.mapping) {
    try {
      r.mapping = parse_mapping(*v.mapping);
    } catch (const std::invalid_argument&) {
      fail(kVarMapping, quote_for_message(*v.mapping) + " is not block or cyclic");
    }
  }
  return true;
}

std::string request_problem(const JobStartRequest& request) {
  const ParsedRequest parsed = parse_request(request_to_json(request).dump());
  if (parsed.ok()) return {};
  return parsed.error().message;
}

std::string submit_problem(const SdnVariables& v) {
  JobStartRequest r;
  r.job = JobId(1);
  r.user = "submit";
  r.nodes = {"node"};
  try {
    if (!apply_variables(v, r)) {
      if (v.hints || v.ranks_per_node || v.mapping) {
        return "--sdn-hints, --sdn-ranks-per-node and --sdn-mapping need --sdn-pattern";
      }
      return {};
    }
  } catch (const OptionError& e) {
    return e.what();
  }
  return request_problem(r);
}

}  // namespace ibsdn::slurm_hook
