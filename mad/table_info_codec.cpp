#include "mad/table_info_codec.hpp"

#include <string>

#include "mad/codec_layout.hpp"

namespace ibsdn::mad::wire {
namespace {

// TableInfo GetResp.
constexpr std::size_t kOffTiCapacity = 32;
constexpr std::size_t kOffTiUsed = 36;
constexpr std::size_t kOffTiGeneration = 40;
constexpr std::size_t kOffTiLevel = 48;
constexpr std::size_t kOffTiNumPorts = 49;
constexpr std::size_t kOffTiLookups = 56;
constexpr std::size_t kOffTiMatched = 64;
constexpr std::size_t kOffTiMissed = 72;
constexpr std::size_t kOffTiEnd = 80;

}  // namespace

void put_table_info(MadBytes& b, const TableInfo& t) {
  const auto level = static_cast<std::uint8_t>(t.level);
  if (level < 1 || level > 4) unrepresentable("flow definition level " + std::to_string(level));
  if (t.used > t.capacity) {
    unrepresentable("TableInfo used " + std::to_string(t.used) + " above capacity " +
                    std::to_string(t.capacity));
  }
  put<std::uint32_t>(b, kOffTiCapacity, t.capacity);
  put<std::uint32_t>(b, kOffTiUsed, t.used);
  put<std::uint64_t>(b, kOffTiGeneration, t.generation);
  b[kOffTiLevel] = level;
  b[kOffTiNumPorts] = t.num_ports;
  put<std::uint64_t>(b, kOffTiLookups, t.lookups);
  put<std::uint64_t>(b, kOffTiMatched, t.matched);
  put<std::uint64_t>(b, kOffTiMissed, t.missed);
}

TableInfo read_table_info(const Reader& r) {
  constexpr Status kBad = Status::kInvalidField;
  TableInfo t;
  t.capacity = r.at<std::uint32_t>(kOffTiCapacity);
  t.used = r.at<std::uint32_t>(kOffTiUsed);
  if (t.used > t.capacity) {
    reject(kBad, kOffTiUsed,
           "used " + std::to_string(t.used) + " above capacity " + std::to_string(t.capacity));
  }
  t.generation = r.at<std::uint64_t>(kOffTiGeneration);
  const std::uint8_t level = r.at<std::uint8_t>(kOffTiLevel);
  if (level < 1 || level > 4) {
    reject(kBad, kOffTiLevel, "flow definition level " + std::to_string(level) + " not 1-4");
  }
  t.level = static_cast<FlowDefinitionLevel>(level);
  t.num_ports = r.at<std::uint8_t>(kOffTiNumPorts);
  r.expect_zero(kOffTiNumPorts + 1, kOffTiLookups, kBad, "reserved");
  t.lookups = r.at<std::uint64_t>(kOffTiLookups);
  t.matched = r.at<std::uint64_t>(kOffTiMatched);
  t.missed = r.at<std::uint64_t>(kOffTiMissed);
  r.expect_zero(kOffTiEnd, kMadSize, kBad, "reserved");
  return t;
}

}  // namespace ibsdn::mad::wire
