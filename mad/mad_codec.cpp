#include "mad/mad_codec.hpp"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

// Byte offsets below are from the start of the 256-byte MAD, the unit in which DecodeError
// reports them; docs/wire-format.md has the same numbers in its tables.

namespace ibsdn::mad {
namespace {

// --- IBA common header (bytes 0-23) -------------------------------------------------------------
constexpr std::size_t kOffBaseVersion = 0;
constexpr std::size_t kOffMgmtClass = 1;
constexpr std::size_t kOffClassVersion = 2;
constexpr std::size_t kOffMethod = 3;
constexpr std::size_t kOffStatus = 4;
constexpr std::size_t kOffClassSpecific = 6;
constexpr std::size_t kOffTid = 8;
constexpr std::size_t kOffAttrId = 16;
constexpr std::size_t kOffReserved = 18;
constexpr std::size_t kOffAttrMod = 20;

// --- data area (bytes 24-255) -------------------------------------------------------------------
// The key comes first in every attribute so that a switch can check it before parsing anything
// else, as an SMA checks M_Key; it also keeps the OpenFlow message 8-byte aligned.
constexpr std::size_t kOffKey = kHeaderSize;   // 24
constexpr std::size_t kOffBody = kOffKey + 8;  // 32

// FlowMod: an OpenFlow 1.5 ofp_flow_mod at kOffBody, then the result trailer.
constexpr std::size_t kOffAffected = 248;  // GetResp only; zero in the Set
constexpr std::size_t kOffTrailerReserved = 252;
constexpr std::size_t kMaxOfpLength = kOffAffected - kOffBody;  // 216

// Offsets inside the ofp_flow_mod (add kOffBody for the MAD offset).
constexpr std::size_t kOfVersion = 0;
constexpr std::size_t kOfType = 1;
constexpr std::size_t kOfLength = 2;
constexpr std::size_t kOfXid = 4;
constexpr std::size_t kOfCookie = 8;
constexpr std::size_t kOfCookieMask = 16;
constexpr std::size_t kOfTableId = 24;
constexpr std::size_t kOfCommand = 25;
constexpr std::size_t kOfIdleTimeout = 26;
constexpr std::size_t kOfHardTimeout = 28;
constexpr std::size_t kOfPriority = 30;
constexpr std::size_t kOfBufferId = 32;
constexpr std::size_t kOfOutPort = 36;
constexpr std::size_t kOfOutGroup = 40;
constexpr std::size_t kOfFlags = 44;
constexpr std::size_t kOfImportance = 46;
constexpr std::size_t kOfMatch = 48;
constexpr std::size_t kOfFixedSize = 56;  // sizeof(ofp_flow_mod): fixed part + empty padded match

constexpr std::uint8_t kOfpVersion15 = 0x06;
constexpr std::uint8_t kOfptFlowMod = 14;
constexpr std::uint16_t kOfpmtOxm = 1;
constexpr std::uint16_t kOfpxmcExperimenter = 0xFFFF;
// Experimenter ids whose top byte is zero carry an IEEE OUI: the OpenFabrics Alliance's
// (libibmad's IB_OPENIB_OUI), the owner of the InfiniBand software stack this class extends.
constexpr std::uint32_t kIbExperimenterId = 0x00001405;
constexpr std::uint16_t kOfpitApplyActions = 4;
constexpr std::uint16_t kOfpatOutput = 0;
constexpr std::uint16_t kOfpatSetField = 25;
constexpr std::uint32_t kOfpNoBuffer = 0xFFFFFFFF;
constexpr std::uint32_t kOfppAny = 0xFFFFFFFF;
constexpr std::uint32_t kOfpgAny = 0xFFFFFFFF;
constexpr std::size_t kOutputActionSize = 16;
constexpr std::size_t kSetSlActionSize = 16;  // 4 action header + 9 OXM + 3 padding
constexpr std::size_t kInstructionHeaderSize = 8;

// The InfiniBand match fields (oxm_field numbers in the experimenter class) and their widths.
enum class IbField : std::uint8_t { kDlid = 0, kSlid = 1, kSl = 2, kDestQp = 3 };
constexpr std::size_t kNumIbFields = 4;
constexpr std::size_t kFieldBytes[kNumIbFields] = {2, 2, 1, 4};
constexpr std::uint32_t kFieldWidthMask[kNumIbFields] = {0xFFFF, 0xFFFF, kSlMask, kQpMask};
constexpr const char* kFieldName[kNumIbFields] = {"DLID", "SLID", "SL", "DEST_QP"};

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

// Barrier GetResp.
constexpr std::size_t kOffBarrierGeneration = 32;
constexpr std::size_t kOffBarrierEnd = 40;

constexpr std::uint8_t kMinPort = 1;
constexpr std::uint8_t kMaxPort = 254;  // IBA switches have physical ports 1-254; 255 is reserved

constexpr std::size_t pad8(std::size_t n) {
  return (n + 7) / 8 * 8;
}

// --- big-endian access
// ----------------------------------------------------------------------------

template <typename T>
void put(MadBytes& b, std::size_t off, T v) {
  static_assert(std::is_unsigned_v<T>);
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (sizeof(T) - 1 - i)));
  }
}

// Callers have checked off + sizeof(T) <= bytes.size(): decode() first insists on 256 bytes and
// every variable-length region is bounded by a length checked against its enclosing region.
template <typename T>
T get(std::span<const std::uint8_t> b, std::size_t off) {
  static_assert(std::is_unsigned_v<T>);
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>((v << 8) | b[off + i]);
  return v;
}

std::uint32_t get_n(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | b[off + i];
  return v;
}

void put_n(MadBytes& b, std::size_t off, std::size_t n, std::uint32_t v) {
  for (std::size_t i = 0; i < n; ++i) {
    b[off + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
  }
}

[[noreturn]] void unrepresentable(const std::string& what) {
  throw std::invalid_argument("SDN MAD encode: " + what);
}

// --- encode
// ---------------------------------------------------------------------------------------

struct FieldRef {
  IbField id;
  std::uint32_t value;
  std::uint32_t mask;
};

template <typename T>
void collect(const std::optional<Masked<T>>& f, IbField id, FieldRef* out, std::size_t& n) {
  if (f) out[n++] = FieldRef{id, f->value, f->mask};
}

std::size_t collect_fields(const FlowMatch& m, FieldRef (&out)[kNumIbFields]) {
  std::size_t n = 0;
  collect(m.dlid, IbField::kDlid, out, n);
  collect(m.slid, IbField::kSlid, out, n);
  collect(m.sl, IbField::kSl, out, n);
  collect(m.dest_qp, IbField::kDestQp, out, n);
  return n;
}

void check_match(const FlowMatch& m) {
  if (std::string e = m.validate(); !e.empty()) unrepresentable("match: " + e);
}

void check_action(const FlowAction& a) {
  if (a.output.value() < kMinPort || a.output.value() > kMaxPort) {
    unrepresentable("output port " + std::to_string(a.output.value()) + " outside 1-254");
  }
  if (a.set_sl && a.set_sl->value() > kSlMask) {
    unrepresentable("set_sl " + std::to_string(a.set_sl->value()) + " above 15");
  }
}

bool command_carries_action(FlowModCommand c) {
  return c == FlowModCommand::kAdd || c == FlowModCommand::kModify ||
         c == FlowModCommand::kModifyStrict;
}

void put_oxm_header(MadBytes& b, std::size_t off, IbField f, bool has_mask, std::size_t len) {
  put<std::uint16_t>(b, off, kOfpxmcExperimenter);
  b[off + 2] = static_cast<std::uint8_t>((static_cast<unsigned>(f) << 1) | (has_mask ? 1u : 0u));
  b[off + 3] = static_cast<std::uint8_t>(len);
  put<std::uint32_t>(b, off + 4, kIbExperimenterId);
}

// Writes the ofp_match at `off`; returns its padded size.
std::size_t put_match(MadBytes& b, std::size_t off, const FlowMatch& m) {
  FieldRef fields[kNumIbFields];
  const std::size_t n = collect_fields(m, fields);
  std::size_t p = off + 4;
  for (std::size_t i = 0; i < n; ++i) {
    const auto idx = static_cast<std::size_t>(fields[i].id);
    const std::size_t w = kFieldBytes[idx];
    // An all-ones mask is OpenFlow's "exact": send the shorter unmasked form.
    const bool has_mask = fields[i].mask != kFieldWidthMask[idx];
    const std::size_t len = 4 + w * (has_mask ? 2 : 1);
    put_oxm_header(b, p, fields[i].id, has_mask, len);
    put_n(b, p + 8, w, fields[i].value);
    if (has_mask) put_n(b, p + 8 + w, w, fields[i].mask);
    p += 4 + len;
  }
  put<std::uint16_t>(b, off, kOfpmtOxm);
  put<std::uint16_t>(b, off + 2, static_cast<std::uint16_t>(p - off));
  return pad8(p - off);
}

// Writes the apply-actions instruction at `off`; returns its size.
std::size_t put_instructions(MadBytes& b, std::size_t off, const FlowAction& a) {
  std::size_t p = off + kInstructionHeaderSize;
  if (a.set_sl) {
    put<std::uint16_t>(b, p, kOfpatSetField);
    put<std::uint16_t>(b, p + 2, static_cast<std::uint16_t>(kSetSlActionSize));
    put_oxm_header(b, p + 4, IbField::kSl, false, 5);
    b[p + 12] = a.set_sl->value();
    p += kSetSlActionSize;
  }
  put<std::uint16_t>(b, p, kOfpatOutput);
  put<std::uint16_t>(b, p + 2, static_cast<std::uint16_t>(kOutputActionSize));
  put<std::uint32_t>(b, p + 4, a.output.value());
  p += kOutputActionSize;  // max_len and padding stay zero
  put<std::uint16_t>(b, off, kOfpitApplyActions);
  put<std::uint16_t>(b, off + 2, static_cast<std::uint16_t>(p - off));
  return p - off;
}

void put_flow_mod(MadBytes& b, const FlowMod& fm, std::uint64_t tid, bool response) {
  const auto cmd = static_cast<std::uint8_t>(fm.command);
  if (cmd > static_cast<std::uint8_t>(FlowModCommand::kDeleteStrict)) {
    unrepresentable("FlowMod command " + std::to_string(cmd));
  }
  check_match(fm.match);
  const bool has_action = command_carries_action(fm.command);
  if (has_action) check_action(fm.action);

  const std::size_t o = kOffBody;
  b[o + kOfVersion] = kOfpVersion15;
  b[o + kOfType] = kOfptFlowMod;
  put<std::uint32_t>(b, o + kOfXid, static_cast<std::uint32_t>(tid));
  put<std::uint64_t>(b, o + kOfCookie, fm.cookie);
  put<std::uint64_t>(b, o + kOfCookieMask, fm.cookie_mask);
  b[o + kOfCommand] = cmd;
  put<std::uint16_t>(b, o + kOfPriority, fm.priority);
  put<std::uint32_t>(b, o + kOfBufferId, kOfpNoBuffer);
  put<std::uint32_t>(b, o + kOfOutPort, kOfppAny);
  put<std::uint32_t>(b, o + kOfOutGroup, kOfpgAny);
  std::size_t len = kOfMatch + put_match(b, o + kOfMatch, fm.match);
  if (has_action) len += put_instructions(b, o + len, fm.action);
  put<std::uint16_t>(b, o + kOfLength, static_cast<std::uint16_t>(len));
  if (response) put<std::uint32_t>(b, kOffAffected, fm.affected);
}

template <typename T>
void put_entry_field(MadBytes& b, std::size_t off, std::size_t width,
                     const std::optional<Masked<T>>& f, std::uint8_t bit, std::uint8_t& fields) {
  if (!f) return;
  fields = static_cast<std::uint8_t>(fields | bit);
  put_n(b, off, width, f->value);
  put_n(b, off + width, width, f->mask);
}

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

bool known_status(std::uint16_t s) {
  switch (static_cast<Status>(s)) {
    case Status::kOk:
    case Status::kBadVersion:
    case Status::kUnsupportedMethod:
    case Status::kUnsupportedAttribute:
    case Status::kInvalidField:
    case Status::kBadKey:
    case Status::kTableFull:
    case Status::kMalformedMatch:
    case Status::kBadAction:
    case Status::kUnsupportedField:
      return true;
  }
  return false;
}

// Which payload alternative a method/attribute pair carries; npos when the pair is not part of
// the class.
constexpr std::size_t kNoPayload = static_cast<std::size_t>(-1);
template <typename T, typename V>
struct IndexIn;
template <typename T, typename... Ts>
struct IndexIn<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    std::size_t i = 0;
    (void)((std::is_same_v<T, Ts> ? false : (++i, true)) && ...);
    return i;
  }();
};
template <typename T>
constexpr std::size_t payload_index() {
  return IndexIn<T, Payload>::value;
}

std::size_t expected_payload(Method m, AttributeId a) {
  const bool resp = m == Method::kGetResp;
  switch (a) {
    case AttributeId::kFlowMod:
      return (m == Method::kSet || resp) ? payload_index<FlowMod>() : kNoPayload;
    case AttributeId::kFlowStats:
      if (m == Method::kGet) return payload_index<FlowStatsRequest>();
      return resp ? payload_index<FlowStatsReply>() : kNoPayload;
    case AttributeId::kTableInfo:
      return (m == Method::kGet || resp) ? payload_index<TableInfo>() : kNoPayload;
    case AttributeId::kBarrier:
      return (m == Method::kGet || resp) ? payload_index<Barrier>() : kNoPayload;
  }
  return kNoPayload;
}

bool known_method(std::uint8_t m) {
  return m == static_cast<std::uint8_t>(Method::kGet) ||
         m == static_cast<std::uint8_t>(Method::kSet) ||
         m == static_cast<std::uint8_t>(Method::kGetResp);
}

// --- decode
// ---------------------------------------------------------------------------------------

// Thrown inside decode() and caught at its boundary: validation is a long chain of checks, each
// of which ends the parse, and unwinding keeps each check one line.
struct Reject {
  DecodeError error;
};

[[noreturn]] void reject(Status s, std::size_t off, std::string what) {
  what += " (byte " + std::to_string(off) + ")";
  throw Reject{DecodeError{s, std::move(what), off}};
}

std::string hex(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 0xF]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> b) : b_(b) {}

  template <typename T>
  [[nodiscard]] T at(std::size_t off) const {
    return get<T>(b_, off);
  }
  [[nodiscard]] std::uint32_t at_n(std::size_t off, std::size_t n) const {
    return get_n(b_, off, n);
  }

  template <typename T>
  void expect(std::size_t off, T want, Status s, const char* field) const {
    const T got = at<T>(off);
    if (got != want)
      reject(s, off, std::string(field) + " is " + hex(got) + ", expected " + hex(want));
  }

  // Bytes [from, to) are padding or reserved: they must be zero. Most of a MAD is such bytes, so
  // the common all-zero case is checked a word at a time (3x faster decode than byte by byte).
  void expect_zero(std::size_t from, std::size_t to, Status s, const char* what) const {
    std::uint64_t any = 0;
    std::size_t i = from;
    for (; i + 8 <= to; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, b_.data() + i, sizeof w);
      any |= w;
    }
    for (; i < to; ++i) any |= b_[i];
    if (any == 0) return;
    for (i = from; b_[i] == 0; ++i) {
    }
    reject(s, i, std::string(what) + " byte is " + hex(b_[i]) + ", must be zero");
  }

 private:
  std::span<const std::uint8_t> b_;
};

template <typename T>
void store_field(std::optional<Masked<T>>& slot, std::uint32_t value, std::uint32_t mask) {
  slot = Masked<T>{static_cast<T>(value), static_cast<T>(mask)};
}

void store(FlowMatch& m, IbField f, std::uint32_t value, std::uint32_t mask) {
  switch (f) {
    case IbField::kDlid:
      store_field(m.dlid, value, mask);
      break;
    case IbField::kSlid:
      store_field(m.slid, value, mask);
      break;
    case IbField::kSl:
      store_field(m.sl, value, mask);
      break;
    case IbField::kDestQp:
      store_field(m.dest_qp, value, mask);
      break;
  }
}

// value / mask of one field, wherever it came from: the width and consistency rules of
// FlowMatch::validate(), reported at the byte where they fail.
void check_field(IbField f, std::uint32_t value, std::uint32_t mask, std::size_t value_off,
                 std::size_t mask_off) {
  const auto idx = static_cast<std::size_t>(f);
  const char* name = kFieldName[idx];
  if (mask == 0) {
    reject(Status::kMalformedMatch, mask_off,
           std::string(name) + " mask is zero (a wildcard is expressed by leaving the field out)");
  }
  if ((mask & ~kFieldWidthMask[idx]) != 0) {
    reject(Status::kMalformedMatch, mask_off,
           std::string(name) + " mask " + hex(mask) + " wider than the field (" +
               hex(kFieldWidthMask[idx]) + ")");
  }
  if ((value & ~kFieldWidthMask[idx]) != 0) {
    reject(Status::kMalformedMatch, value_off,
           std::string(name) + " value " + hex(value) + " wider than the field (" +
               hex(kFieldWidthMask[idx]) + ")");
  }
  if ((value & ~mask) != 0) {
    reject(Status::kMalformedMatch, value_off,
           std::string(name) + " value " + hex(value) + " has bits outside mask " + hex(mask));
  }
}

// The experimenter OXM header at `off`: class, experimenter id, field. Returns the field and
// whether the mask bit is set. `len_limit` is where the enclosing structure ends.
struct OxmHeader {
  IbField field;
  bool has_mask;
  std::size_t length;  // oxm_length: experimenter id + value (+ mask)
};

OxmHeader read_oxm_header(const Reader& r, std::size_t off, std::size_t limit, Status s) {
  if (off + 4 > limit) {
    reject(s, off, "OXM header needs 4 bytes, " + std::to_string(limit - off) + " left");
  }
  const auto cls = r.at<std::uint16_t>(off);
  if (cls != kOfpxmcExperimenter) {
    reject(s, off,
           "OXM class " + hex(cls) + " unknown, only the InfiniBand experimenter class " +
               hex(kOfpxmcExperimenter) + " is used");
  }
  const std::uint8_t fb = r.at<std::uint8_t>(off + 2);
  const std::size_t length = r.at<std::uint8_t>(off + 3);
  const unsigned field = fb >> 1;
  if (off + 4 + length > limit) {
    reject(s, off + 3,
           "OXM length " + std::to_string(length) + " runs past the end of its structure (" +
               std::to_string(limit - off - 4) + " bytes left)");
  }
  if (length < 4) {
    reject(s, off + 3,
           "OXM length " + std::to_string(length) + " too short for the experimenter id");
  }
  const auto exp = r.at<std::uint32_t>(off + 4);
  if (exp != kIbExperimenterId) {
    reject(s, off + 4,
           "OXM experimenter " + hex(exp) + " unknown, expected " + hex(kIbExperimenterId));
  }
  if (field >= kNumIbFields) {
    reject(s, off + 2,
           "OXM field " + std::to_string(field) + " unknown (0-3: DLID SLID SL DEST_QP)");
  }
  const auto f = static_cast<IbField>(field);
  const bool has_mask = (fb & 1u) != 0;
  const std::size_t want = 4 + kFieldBytes[field] * (has_mask ? 2 : 1);
  if (length != want) {
    reject(s, off + 3,
           std::string(kFieldName[field]) + (has_mask ? " with mask" : "") + ": OXM length " +
               std::to_string(length) + ", expected " + std::to_string(want));
  }
  return {f, has_mask, length};
}

// ofp_match at `off` (MAD offset) inside a message ending at `msg_end`. Returns the match and the
// offset after its padding.
std::size_t read_match(const Reader& r, std::size_t off, std::size_t msg_end, FlowMatch& m) {
  constexpr Status kBad = Status::kMalformedMatch;
  if (off + 4 > msg_end) reject(kBad, off, "no room for the ofp_match header");
  const auto type = r.at<std::uint16_t>(off);
  if (type != kOfpmtOxm) {
    reject(kBad, off, "ofp_match type " + std::to_string(type) + ", expected OFPMT_OXM (1)");
  }
  const std::size_t len = r.at<std::uint16_t>(off + 2);
  if (len < 4) reject(kBad, off + 2, "ofp_match length " + std::to_string(len) + " below 4");
  const std::size_t end = off + len;
  if (off + pad8(len) > msg_end) {
    reject(kBad, off + 2,
           "ofp_match length " + std::to_string(len) + " (padded " + std::to_string(pad8(len)) +
               ") runs past the message end at byte " + std::to_string(msg_end));
  }
  bool seen[kNumIbFields] = {};
  std::size_t p = off + 4;
  while (p < end) {
    const OxmHeader h = read_oxm_header(r, p, end, kBad);
    const auto idx = static_cast<std::size_t>(h.field);
    if (seen[idx]) reject(kBad, p, std::string("duplicate ") + kFieldName[idx] + " field");
    seen[idx] = true;
    const std::size_t w = kFieldBytes[idx];
    const std::size_t value_off = p + 8;
    const std::size_t mask_off = h.has_mask ? value_off + w : value_off;
    const std::uint32_t value = r.at_n(value_off, w);
    const std::uint32_t mask = h.has_mask ? r.at_n(mask_off, w) : kFieldWidthMask[idx];
    check_field(h.field, value, mask, value_off, mask_off);
    store(m, h.field, value, mask);
    p += 4 + h.length;
  }
  r.expect_zero(end, off + pad8(len), kBad, "ofp_match padding");
  return off + pad8(len);
}

// The action list of an apply-actions instruction: [set-field SL], output.
FlowAction read_actions(const Reader& r, std::size_t off, std::size_t end) {
  constexpr Status kBad = Status::kInvalidField;
  FlowAction a;
  bool have_output = false;
  std::size_t p = off;
  while (p < end) {
    if (p + 4 > end) reject(kBad, p, "action header needs 4 bytes");
    const auto type = r.at<std::uint16_t>(p);
    const std::size_t len = r.at<std::uint16_t>(p + 2);
    if (len < 8 || len % 8 != 0) {
      reject(kBad, p + 2, "action length " + std::to_string(len) + " not a positive multiple of 8");
    }
    if (p + len > end) {
      reject(kBad, p + 2,
             "action length " + std::to_string(len) + " runs past its instruction (" +
                 std::to_string(end - p) + " bytes left)");
    }
    if (have_output) {
      reject(kBad, p,
             type == kOfpatOutput ? "second output action (exactly one per entry)"
                                  : "action after the output action (it would not apply)");
    }
    if (type == kOfpatOutput) {
      if (len != kOutputActionSize) {
        reject(kBad, p + 2, "output action length " + std::to_string(len) + ", expected 16");
      }
      const auto port = r.at<std::uint32_t>(p + 4);
      if (port < kMinPort || port > kMaxPort) {
        reject(kBad, p + 4, "output port " + hex(port) + " outside the switch ports 1-254");
      }
      r.expect<std::uint16_t>(p + 8, 0, kBad, "output max_len");
      r.expect_zero(p + 10, p + 16, kBad, "output action padding");
      a.output = PortNum{static_cast<std::uint8_t>(port)};
      have_output = true;
    } else if (type == kOfpatSetField) {
      if (a.set_sl) reject(kBad, p, "second set-field action");
      if (len != kSetSlActionSize) {
        reject(kBad, p + 2, "set-field action length " + std::to_string(len) + ", expected 16");
      }
      const OxmHeader h = read_oxm_header(r, p + 4, p + len, kBad);
      if (h.field != IbField::kSl || h.has_mask) {
        reject(kBad, p + 6, "set-field may only rewrite the SL, without a mask");
      }
      const std::uint8_t sl = r.at<std::uint8_t>(p + 12);
      if (sl > kSlMask) reject(kBad, p + 12, "set-field SL " + std::to_string(sl) + " above 15");
      r.expect_zero(p + 13, p + len, kBad, "set-field padding");
      a.set_sl = ServiceLevel{sl};
    } else {
      reject(kBad, p,
             "action type " + std::to_string(type) + " unsupported (output 0, set-field 25)");
    }
    p += len;
  }
  if (!have_output) reject(kBad, end, "no output action (exactly one per entry)");
  return a;
}

FlowMod read_flow_mod(const Reader& r, std::uint64_t tid, bool response) {
  constexpr Status kBad = Status::kInvalidField;
  const std::size_t o = kOffBody;
  FlowMod fm;
  r.expect<std::uint8_t>(o + kOfVersion, kOfpVersion15, kBad, "ofp_header.version");
  r.expect<std::uint8_t>(o + kOfType, kOfptFlowMod, kBad, "ofp_header.type");
  const std::size_t len = r.at<std::uint16_t>(o + kOfLength);
  if (len < kOfFixedSize || len > kMaxOfpLength || len % 8 != 0) {
    reject(kBad, o + kOfLength,
           "ofp_header.length " + std::to_string(len) + " not a multiple of 8 in 56-" +
               std::to_string(kMaxOfpLength));
  }
  r.expect<std::uint32_t>(o + kOfXid, static_cast<std::uint32_t>(tid), kBad,
                          "ofp_header.xid (the low 32 bits of the TransactionID)");
  fm.cookie = r.at<std::uint64_t>(o + kOfCookie);
  fm.cookie_mask = r.at<std::uint64_t>(o + kOfCookieMask);
  r.expect<std::uint8_t>(o + kOfTableId, 0, kBad, "table_id");
  const auto cmd = r.at<std::uint8_t>(o + kOfCommand);
  if (cmd > static_cast<std::uint8_t>(FlowModCommand::kDeleteStrict)) {
    reject(kBad, o + kOfCommand, "command " + std::to_string(cmd) + " unknown (0-4)");
  }
  fm.command = static_cast<FlowModCommand>(cmd);
  r.expect<std::uint16_t>(o + kOfIdleTimeout, 0, kBad, "idle_timeout");
  r.expect<std::uint16_t>(o + kOfHardTimeout, 0, kBad, "hard_timeout");
  fm.priority = r.at<std::uint16_t>(o + kOfPriority);
  r.expect<std::uint32_t>(o + kOfBufferId, kOfpNoBuffer, kBad, "buffer_id");
  r.expect<std::uint32_t>(o + kOfOutPort, kOfppAny, kBad, "out_port");
  r.expect<std::uint32_t>(o + kOfOutGroup, kOfpgAny, kBad, "out_group");
  r.expect<std::uint16_t>(o + kOfFlags, 0, kBad, "flags");
  r.expect<std::uint16_t>(o + kOfImportance, 0, kBad, "importance");

  const std::size_t msg_end = o + len;
  const std::size_t ins = read_match(r, o + kOfMatch, msg_end, fm.match);
  if (command_carries_action(fm.command)) {
    if (ins + kInstructionHeaderSize > msg_end) {
      reject(kBad, ins, "no apply-actions instruction (add and modify need one output action)");
    }
    const auto type = r.at<std::uint16_t>(ins);
    if (type != kOfpitApplyActions) {
      reject(kBad, ins,
             "instruction type " + std::to_string(type) + ", only OFPIT_APPLY_ACTIONS (4)");
    }
    const std::size_t ilen = r.at<std::uint16_t>(ins + 2);
    if (ilen != msg_end - ins) {
      reject(kBad, ins + 2,
             "instruction length " + std::to_string(ilen) + ", the message leaves " +
                 std::to_string(msg_end - ins) + " (exactly one instruction)");
    }
    r.expect_zero(ins + 4, ins + 8, kBad, "instruction padding");
    fm.action = read_actions(r, ins + kInstructionHeaderSize, msg_end);
  } else if (ins != msg_end) {
    reject(kBad, ins, "delete carries instructions");
  }
  r.expect_zero(msg_end, kOffAffected, kBad, "bytes after the OpenFlow message");
  if (response) {
    fm.affected = r.at<std::uint32_t>(kOffAffected);
  } else {
    r.expect_zero(kOffAffected, kOffTrailerReserved, kBad, "affected (response only)");
  }
  r.expect_zero(kOffTrailerReserved, kMadSize, kBad, "reserved");
  return fm;
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

SdnMad read_mad(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != kMadSize) {
    const std::size_t at = bytes.size() < kMadSize ? bytes.size() : kMadSize;
    reject(
        Status::kInvalidField, at,
        "MAD is " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(kMadSize));
  }
  const Reader r(bytes);
  SdnMad m;
  MadHeader& h = m.hdr;
  r.expect<std::uint8_t>(kOffBaseVersion, kBaseVersion, Status::kBadVersion, "BaseVersion");
  r.expect<std::uint8_t>(kOffMgmtClass, kMgmtClass, Status::kInvalidField, "MgmtClass");
  r.expect<std::uint8_t>(kOffClassVersion, kClassVersion, Status::kBadVersion, "ClassVersion");
  const auto method = r.at<std::uint8_t>(kOffMethod);
  if (!known_method(method)) {
    reject(Status::kUnsupportedMethod, kOffMethod,
           "method " + hex(method) + " unsupported (Get 0x01, Set 0x02, GetResp 0x81)");
  }
  h.method = static_cast<Method>(method);
  const bool response = h.method == Method::kGetResp;
  const auto status = r.at<std::uint16_t>(kOffStatus);
  if (!response && status != 0) {
    reject(Status::kInvalidField, kOffStatus, "Status " + hex(status) + " in a request");
  }
  if (!known_status(status)) {
    reject(Status::kInvalidField, kOffStatus, "Status " + hex(status) + " unknown");
  }
  h.status = static_cast<Status>(status);
  r.expect<std::uint16_t>(kOffClassSpecific, 0, Status::kInvalidField, "ClassSpecific");
  h.tid = r.at<std::uint64_t>(kOffTid);
  const auto attr = r.at<std::uint16_t>(kOffAttrId);
  h.attr_id = static_cast<AttributeId>(attr);
  const std::size_t want = expected_payload(h.method, h.attr_id);
  if (want == kNoPayload) {
    reject(Status::kUnsupportedAttribute, kOffAttrId,
           "attribute " + hex(attr) + " with method " + hex(method) + " not part of the class");
  }
  r.expect<std::uint16_t>(kOffReserved, 0, Status::kInvalidField, "Reserved");
  h.attr_mod = r.at<std::uint32_t>(kOffAttrMod);
  if (h.attr_id != AttributeId::kFlowStats && h.attr_mod != 0) {
    reject(Status::kInvalidField, kOffAttrMod,
           "AttributeModifier " + hex(h.attr_mod) + " must be zero for this attribute");
  }
  m.key = r.at<std::uint64_t>(kOffKey);

  switch (h.attr_id) {
    case AttributeId::kFlowMod:
      m.payload = read_flow_mod(r, h.tid, response);
      break;
    case AttributeId::kFlowStats:
      if (response) {
        m.payload = read_stats(r, h.attr_mod);
      } else {
        r.expect_zero(kOffBody, kMadSize, Status::kInvalidField, "FlowStats Get data");
        m.payload = FlowStatsRequest{};
      }
      break;
    case AttributeId::kTableInfo:
      if (response) {
        m.payload = read_table_info(r);
      } else {
        r.expect_zero(kOffBody, kMadSize, Status::kInvalidField, "TableInfo Get data");
        m.payload = TableInfo{};
      }
      break;
    case AttributeId::kBarrier: {
      Barrier b;
      if (response) {
        b.generation = r.at<std::uint64_t>(kOffBarrierGeneration);
        r.expect_zero(kOffBarrierEnd, kMadSize, Status::kInvalidField, "reserved");
      } else {
        r.expect_zero(kOffBody, kMadSize, Status::kInvalidField, "Barrier Get data");
      }
      m.payload = b;
      break;
    }
  }
  return m;
}

}  // namespace

MadBytes encode(const SdnMad& m) {
  const MadHeader& h = m.hdr;
  if (h.base_version != kBaseVersion || h.mgmt_class != kMgmtClass ||
      h.class_version != kClassVersion) {
    unrepresentable("header must carry BaseVersion 1, MgmtClass 0x09, ClassVersion 1");
  }
  const auto method = static_cast<std::uint8_t>(h.method);
  if (!known_method(method)) unrepresentable("method " + hex(method));
  const bool response = h.method == Method::kGetResp;
  const auto status = static_cast<std::uint16_t>(h.status);
  if (!known_status(status)) unrepresentable("status " + hex(status));
  if (!response && status != 0) unrepresentable("a request carries Status 0");
  if (h.class_specific != 0) unrepresentable("ClassSpecific must be zero");
  const std::size_t want = expected_payload(h.method, h.attr_id);
  if (want == kNoPayload) {
    unrepresentable("attribute " + hex(static_cast<std::uint16_t>(h.attr_id)) + " with method " +
                    hex(method));
  }
  if (m.payload.index() != want) {
    unrepresentable("payload type does not match attribute " +
                    hex(static_cast<std::uint16_t>(h.attr_id)) + " / method " + hex(method));
  }
  if (h.attr_id != AttributeId::kFlowStats && h.attr_mod != 0) {
    unrepresentable("AttributeModifier is only used by FlowStats");
  }

  MadBytes b{};
  b[kOffBaseVersion] = h.base_version;
  b[kOffMgmtClass] = h.mgmt_class;
  b[kOffClassVersion] = h.class_version;
  b[kOffMethod] = method;
  put<std::uint16_t>(b, kOffStatus, status);
  put<std::uint64_t>(b, kOffTid, h.tid);
  put<std::uint16_t>(b, kOffAttrId, static_cast<std::uint16_t>(h.attr_id));
  put<std::uint32_t>(b, kOffAttrMod, h.attr_mod);
  put<std::uint64_t>(b, kOffKey, m.key);

  // Requests of the read-only attributes carry no data beyond the key.
  if (const auto* fm = std::get_if<FlowMod>(&m.payload)) {
    put_flow_mod(b, *fm, h.tid, response);
  } else if (const auto* st = std::get_if<FlowStatsReply>(&m.payload)) {
    put_stats(b, *st, h.attr_mod);
  } else if (const auto* ti = std::get_if<TableInfo>(&m.payload); ti && response) {
    put_table_info(b, *ti);
  } else if (const auto* ba = std::get_if<Barrier>(&m.payload); ba && response) {
    put<std::uint64_t>(b, kOffBarrierGeneration, ba->generation);
  }
  return b;
}

DecodeResult decode(std::span<const std::uint8_t> bytes) {
  try {
    return read_mad(bytes);
  } catch (Reject& r) {
    return std::move(r.error);
  }
}

SdnMad make_response(const SdnMad& request, Status status, Payload payload) {
  SdnMad r;
  r.hdr = request.hdr;
  r.hdr.method = Method::kGetResp;
  r.hdr.status = status;
  r.key = request.key;
  r.payload = std::move(payload);
  return r;
}

}  // namespace ibsdn::mad
