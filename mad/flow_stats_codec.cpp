#include "mad/flow_stats_codec.hpp"

#include <optional>
#include <string>

#include "mad/codec_layout.hpp"
#include "mad/flow_fields_codec.hpp"

namespace ibsdn::mad::wire {
namespace {

// FlowStats GetResp page.
constexpr std::size_t kOffStatsTotal = kOffBody;           // 32
constexpr std::size_t kOffStatsCount = kOffBody + 4;       // 36
constexpr std::size_t kOffStatsGeneration = kOffBody + 8;  // 40
constexpr std::size_t kOffStatsEntries = kOffBody + 16;    // 48
static_assert(kOffStatsEntries + kMaxStatsEntriesPerMad * kStatsEntrySize <= kMadSize);
static_assert(kOffStatsEntries + (kMaxStatsEntriesPerMad + 1) * kStatsEntrySize > kMadSize);

// Offsets inside one 40-byte stats entry.
constexpr std::size_t kEnCookie = 0;
constexpr std::size_t kEnPackets = 8;
constexpr std::size_t kEnPriority = 16;
constexpr std::size_t kEnFields = 18;
constexpr std::size_t kEnOutput = 19;
constexpr std::size_t kEnDlid = 20;
constexpr std::size_t kEnSlid = 24;
constexpr std::size_t kEnDestQp = 28;
constexpr std::size_t kEnSl = 36;
constexpr std::size_t kEnSetSl = 38;
constexpr std::size_t kEnReserved = 39;
constexpr std::uint8_t kEnHasSetSl = 0x10;  // bit 4 of the fields byte; bits 0-3 are the IbFields

template <typename T>
void put_entry_field(MadBytes& b, std::size_t off, std::size_t width,
                     const std::optional<Masked<T>>& f, std::uint8_t bit, std::uint8_t& fields) {
  if (!f) return;
  fields = static_cast<std::uint8_t>(fields | bit);
  put_n(b, off, width, f->value);
  put_n(b, off + width, width, f->mask);
}

template <typename T>
void read_entry_field(const Reader& r, std::size_t off, std::size_t width, IbField f, bool present,
                      std::optional<Masked<T>>& slot) {
  if (!present) {
    r.expect_zero(off, off + 2 * width, Status::kMalformedMatch, "absent match field");
    return;
  }
  const std::uint32_t value = r.at_n(off, width);
  const std::uint32_t mask = r.at_n(off + width, width);
  check_field(f, value, mask, off, off + width);
  store_field(slot, value, mask);
}

}  // namespace

void put_stats(MadBytes& b, const FlowStatsReply& r, std::uint32_t start) {
  if (r.entries.size() > kMaxStatsEntriesPerMad) {
    unrepresentable(std::to_string(r.entries.size()) + " FlowStats entries, at most " +
                    std::to_string(kMaxStatsEntriesPerMad) + " fit in one MAD");
  }
  if (std::uint64_t{start} + r.entries.size() > r.total) {
    unrepresentable("FlowStats page from " + std::to_string(start) + " with " +
                    std::to_string(r.entries.size()) + " entries exceeds total " +
                    std::to_string(r.total));
  }
  put<std::uint32_t>(b, kOffStatsTotal, r.total);
  b[kOffStatsCount] = static_cast<std::uint8_t>(r.entries.size());
  put<std::uint64_t>(b, kOffStatsGeneration, r.generation);
  for (std::size_t i = 0; i < r.entries.size(); ++i) {
    const FlowEntry& e = r.entries[i];
    check_match(e.match);
    check_action(e.action);
    const std::size_t o = kOffStatsEntries + i * kStatsEntrySize;
    put<std::uint64_t>(b, o + kEnCookie, e.cookie);
    put<std::uint64_t>(b, o + kEnPackets, e.n_packets);
    put<std::uint16_t>(b, o + kEnPriority, e.priority);
    std::uint8_t fields = 0;
    put_entry_field(b, o + kEnDlid, 2, e.match.dlid, 1u << 0, fields);
    put_entry_field(b, o + kEnSlid, 2, e.match.slid, 1u << 1, fields);
    put_entry_field(b, o + kEnSl, 1, e.match.sl, 1u << 2, fields);
    put_entry_field(b, o + kEnDestQp, 4, e.match.dest_qp, 1u << 3, fields);
    if (e.action.set_sl) {
      fields = static_cast<std::uint8_t>(fields | kEnHasSetSl);
      b[o + kEnSetSl] = e.action.set_sl->value();
    }
    b[o + kEnFields] = fields;
    b[o + kEnOutput] = e.action.output.value();
  }
}

FlowStatsReply read_stats(const Reader& r, std::uint32_t start) {
  constexpr Status kBad = Status::kInvalidField;
  FlowStatsReply rep;
  rep.total = r.at<std::uint32_t>(kOffStatsTotal);
  const std::size_t count = r.at<std::uint8_t>(kOffStatsCount);
  if (count > kMaxStatsEntriesPerMad) {
    reject(kBad, kOffStatsCount,
           "entry count " + std::to_string(count) + " above " +
               std::to_string(kMaxStatsEntriesPerMad));
  }
  if (std::uint64_t{start} + count > rep.total) {
    reject(kBad, kOffStatsCount,
           "page from entry " + std::to_string(start) + " with " + std::to_string(count) +
               " entries exceeds the total " + std::to_string(rep.total));
  }
  r.expect_zero(kOffStatsCount + 1, kOffStatsGeneration, kBad, "reserved");
  rep.generation = r.at<std::uint64_t>(kOffStatsGeneration);
  rep.entries.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t o = kOffStatsEntries + i * kStatsEntrySize;
    FlowEntry e;
    e.cookie = r.at<std::uint64_t>(o + kEnCookie);
    e.n_packets = r.at<std::uint64_t>(o + kEnPackets);
    e.priority = r.at<std::uint16_t>(o + kEnPriority);
    const std::uint8_t fields = r.at<std::uint8_t>(o + kEnFields);
    if ((fields & ~0x1Fu) != 0) {
      reject(kBad, o + kEnFields, "entry field bits " + hex(fields) + " beyond 0x1f");
    }
    read_entry_field(r, o + kEnDlid, 2, IbField::kDlid, (fields & 1u) != 0, e.match.dlid);
    read_entry_field(r, o + kEnSlid, 2, IbField::kSlid, (fields & 2u) != 0, e.match.slid);
    read_entry_field(r, o + kEnSl, 1, IbField::kSl, (fields & 4u) != 0, e.match.sl);
    read_entry_field(r, o + kEnDestQp, 4, IbField::kDestQp, (fields & 8u) != 0, e.match.dest_qp);
    const std::uint8_t port = r.at<std::uint8_t>(o + kEnOutput);
    if (port < kMinPort || port > kMaxPort) {
      reject(kBad, o + kEnOutput, "output port " + std::to_string(port) + " outside 1-254");
    }
    e.action.output = PortNum{port};
    const std::uint8_t set_sl = r.at<std::uint8_t>(o + kEnSetSl);
    if ((fields & kEnHasSetSl) != 0) {
      if (set_sl > kSlMask) {
        reject(kBad, o + kEnSetSl, "set_sl " + std::to_string(set_sl) + " above 15");
      }
      e.action.set_sl = ServiceLevel{set_sl};
    } else if (set_sl != 0) {
      reject(kBad, o + kEnSetSl, "set_sl without its field bit");
    }
    r.expect_zero(o + kEnReserved, o + kStatsEntrySize, kBad, "entry reserved");
    rep.entries.push_back(e);
  }
  r.expect_zero(kOffStatsEntries + count * kStatsEntrySize, kMadSize, kBad, "unused entry");
  return rep;
}

}  // namespace ibsdn::mad::wire
