#include "routing/patterns/traffic_matrix.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace ibsdn {
namespace {

constexpr std::array<const char*, 3> kFieldNames = {"src_rank", "dst_rank", "bytes"};

class LineError {
 public:
  LineError(std::string_view source, std::size_t line) : prefix_(std::string(source) + ":") {
    prefix_ += std::to_string(line) + ": ";
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(prefix_ + what);
  }

 private:
  std::string prefix_;
};

std::vector<std::string_view> split_fields(std::string_view text) {
  constexpr std::string_view kBlank = " \t\r\v\f";
  std::vector<std::string_view> out;
  std::size_t pos = text.find_first_not_of(kBlank);
  while (pos != std::string_view::npos) {
    const std::size_t end = text.find_first_of(kBlank, pos);
    out.push_back(text.substr(pos, end == std::string_view::npos ? end : end - pos));
    pos = end == std::string_view::npos ? end : text.find_first_not_of(kBlank, end);
  }
  return out;
}

std::uint64_t parse_field(std::string_view token, const char* field, std::uint64_t max,
                          const LineError& err) {
  const std::string quoted = "'" + std::string(token) + "'";
  if (token.front() == '-') err.fail(std::string(field) + " " + quoted + " is negative");
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec == std::errc::result_out_of_range && ptr == token.data() + token.size()) {
    err.fail(std::string(field) + " " + quoted + " is too large");
  }
  if (ec != std::errc() || ptr != token.data() + token.size()) {
    err.fail(std::string(field) + " " + quoted + " is not a non-negative integer");
  }
  if (v > max) err.fail(std::string(field) + " " + quoted + " is too large");
  return v;
}

}  // namespace

TrafficMatrixBuilder::Overflow TrafficMatrixBuilder::add(const RankFlow& row) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (row.src == row.dst && row.bytes > kMax - intra_rank_bytes_) return Overflow::kIntraRank;
  std::uint64_t& total = totals_[{row.src, row.dst}];
  if (row.bytes > kMax - total) return Overflow::kPair;
  total += row.bytes;
  if (row.src == row.dst) intra_rank_bytes_ += row.bytes;
  return Overflow::kNone;
}

TrafficMatrix TrafficMatrixBuilder::finish() {
  TrafficMatrix out;
  out.skipped.intra_rank_bytes = intra_rank_bytes_;
  for (const auto& [pair, total] : totals_) {
    if (total == 0) {
      ++out.skipped.zero_pairs;
    } else if (pair.first == pair.second) {
      ++out.skipped.self_pairs;
    } else {
      out.flows.push_back({pair.first, pair.second, total});
    }
  }
  totals_.clear();
  intra_rank_bytes_ = 0;
  return out;
}

TrafficMatrix parse_traffic_matrix(std::istream& in, std::string_view source,
                                   std::optional<std::uint32_t> ranks) {
  TrafficMatrixBuilder matrix;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const LineError err(source, number);
    std::string_view text(line);
    text = text.substr(0, text.find('#'));
    const std::vector<std::string_view> fields = split_fields(text);
    if (fields.empty()) continue;
    if (fields.size() < kFieldNames.size()) {
      err.fail(std::string("missing ") + kFieldNames[fields.size()] +
               ": expected 'src_rank dst_rank bytes'");
    }
    if (fields.size() > kFieldNames.size()) {
      err.fail("extra field '" + std::string(fields[kFieldNames.size()]) +
               "' after 'src_rank dst_rank bytes'");
    }
    constexpr std::uint64_t kMaxRank = std::numeric_limits<std::uint32_t>::max();
    const auto src =
        static_cast<std::uint32_t>(parse_field(fields[0], kFieldNames[0], kMaxRank, err));
    const auto dst =
        static_cast<std::uint32_t>(parse_field(fields[1], kFieldNames[1], kMaxRank, err));
    const std::uint64_t b =
        parse_field(fields[2], kFieldNames[2], std::numeric_limits<std::uint64_t>::max(), err);
    for (const auto& [rank, field] :
         {std::pair{src, kFieldNames[0]}, std::pair{dst, kFieldNames[1]}}) {
      if (ranks && rank >= *ranks) {
        err.fail(std::string(field) + " " + std::to_string(rank) + " is not below the job's " +
                 std::to_string(*ranks) + " ranks");
      }
    }
    switch (matrix.add({src, dst, b})) {
      case TrafficMatrixBuilder::Overflow::kNone:
        break;
      case TrafficMatrixBuilder::Overflow::kPair:
        err.fail("bytes of pair " + std::to_string(src) + " -> " + std::to_string(dst) +
                 " overflow 64 bits when adding up its lines");
      case TrafficMatrixBuilder::Overflow::kIntraRank:
        err.fail("bytes of the self pairs (src_rank == dst_rank) overflow 64 bits when added up");
    }
  }
  if (in.bad()) throw std::invalid_argument(std::string(source) + ": read error");
  return matrix.finish();
}

TrafficMatrix read_traffic_matrix(const std::string& path, std::optional<std::uint32_t> ranks) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open (" + std::strerror(errno) + ")");
  return parse_traffic_matrix(in, path, ranks);
}

std::string matrix_summary(std::uint64_t pairs, const SkippedPairs& skipped) {
  const auto count = [](std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return count(pairs, "pair", "pairs") + ", " +
         count(skipped.self_pairs, "self pair", "self pairs") + " skipped (" +
         count(skipped.intra_rank_bytes, "byte", "bytes") + " intra-rank), " +
         count(skipped.zero_pairs, "zero pair", "zero pairs") + " skipped";
}

}  // namespace ibsdn
