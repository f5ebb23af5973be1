// The SDN MAD wire codec: the worked example of docs/wire-format.md, round trips of every
// method / attribute, every malformed input we could think of, and a seeded mutation sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "mad/mad_codec.hpp"

namespace ibsdn::mad {
namespace {

using Bytes = std::vector<std::uint8_t>;

// docs/wire-format.md, "Worked example": FlowMod ADD cookie 0x2a, priority 100, SLID 0x12,
// DLID 0x40, output 7; TransactionID 0x1234, key 0x1122334455667788.
constexpr MadBytes kWorkedExample = {
    0x01, 0x09, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,
    0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    0x06, 0x0e, 0x00, 0x60, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x64,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x18, 0xff, 0xff, 0x00, 0x06, 0x00, 0x00, 0x14, 0x05, 0x00, 0x40, 0xff, 0xff,
    0x02, 0x06, 0x00, 0x00, 0x14, 0x05, 0x00, 0x12, 0x00, 0x04, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // bytes 128-255: zero (unused data, the affected trailer of a Set at 216-223, unused 224-255)
};

SdnMad ok(const DecodeResult& r) {
  if (const auto* e = std::get_if<DecodeError>(&r)) {
    ADD_FAILURE() << "decode failed: " << e->reason;
    return {};
  }
  return std::get<SdnMad>(r);
}

TEST(MadCodec, WorkedExample_DecodesEveryField) {
  const SdnMad m = ok(decode(kWorkedExample));
  EXPECT_EQ(m.hdr.base_version, 1);
  EXPECT_EQ(m.hdr.mgmt_class, 0x09);
  EXPECT_EQ(m.hdr.class_version, 1);
  EXPECT_EQ(m.hdr.method, Method::kSet);
  EXPECT_EQ(m.hdr.status, Status::kOk);
  EXPECT_EQ(m.hdr.class_specific, 0);
  EXPECT_EQ(m.hdr.tid, 0x1234u);
  EXPECT_EQ(m.hdr.attr_id, AttributeId::kFlowMod);
  EXPECT_EQ(m.hdr.attr_mod, 0u);
  EXPECT_EQ(m.key, 0x1122334455667788u);
  const auto& fm = std::get<FlowMod>(m.payload);
  EXPECT_EQ(fm.command, FlowModCommand::kAdd);
  EXPECT_EQ(fm.cookie, 0x2au);
  EXPECT_EQ(fm.cookie_mask, 0u);
  EXPECT_EQ(fm.priority, 100);
  ASSERT_TRUE(fm.match.dlid.has_value());
  EXPECT_EQ(fm.match.dlid->value, 0x40);
  EXPECT_EQ(fm.match.dlid->mask, 0xFFFF);
  ASSERT_TRUE(fm.match.slid.has_value());
  EXPECT_EQ(fm.match.slid->value, 0x12);
  EXPECT_EQ(fm.match.slid->mask, 0xFFFF);
  EXPECT_FALSE(fm.match.sl.has_value());
  EXPECT_FALSE(fm.match.dest_qp.has_value());
  EXPECT_EQ(fm.action.output, PortNum{7});
  EXPECT_FALSE(fm.action.set_sl.has_value());
  EXPECT_EQ(fm.affected, 0u);
  EXPECT_EQ(encode(m), kWorkedExample);
}

// docs/wire-format.md, the worked example's GetResp: the switch added one entry.
MadBytes worked_example_response() {
  MadBytes b = kWorkedExample;
  b[3] = 0x81;     // GetResp
  b[0xdb] = 0x01;  // affected = 1 at bytes 0xd8-0xdb (216-219)
  return b;
}

TEST(MadCodec, WorkedExampleResponse_CarriesAffectedBelowByte224) {
  const SdnMad req = ok(decode(kWorkedExample));
  const SdnMad resp = ok(decode(worked_example_response()));
  EXPECT_EQ(resp.hdr.method, Method::kGetResp);
  EXPECT_EQ(resp.hdr.status, Status::kOk);
  EXPECT_EQ(resp.key, req.key);
  FlowMod echo = std::get<FlowMod>(req.payload);
  EXPECT_EQ(std::get<FlowMod>(resp.payload).affected, 1u);
  echo.affected = 1;
  EXPECT_EQ(std::get<FlowMod>(resp.payload), echo);
  EXPECT_EQ(encode(make_response(req, Status::kOk, echo)), worked_example_response());
}

// --- round trips --------------------------------------------------------------------------------

SdnMad mad_of(Method method, AttributeId attr, Payload p, std::uint64_t tid = 7,
              std::uint32_t attr_mod = 0) {
  SdnMad m;
  m.hdr.method = method;
  m.hdr.attr_id = attr;
  m.hdr.tid = tid;
  m.hdr.attr_mod = attr_mod;
  m.key = 0xFEEDFACECAFEBEEFu;
  m.payload = std::move(p);
  return m;
}

template <typename T>
std::optional<Masked<T>> random_field(std::mt19937_64& rng, std::uint32_t width) {
  switch (rng() % 3) {
    case 0:
      return std::nullopt;
    case 1: {
      const auto v = static_cast<T>(rng() & width);
      return Masked<T>{v, static_cast<T>(width)};
    }
    default: {
      auto mask = static_cast<T>(rng() & width);
      if (mask == 0) mask = 1;
      return Masked<T>{static_cast<T>(rng() & mask), mask};
    }
  }
}

FlowMatch random_match(std::mt19937_64& rng) {
  FlowMatch m;
  m.dlid = random_field<std::uint16_t>(rng, 0xFFFF);
  m.slid = random_field<std::uint16_t>(rng, 0xFFFF);
  m.sl = random_field<std::uint8_t>(rng, kSlMask);
  m.dest_qp = random_field<std::uint32_t>(rng, kQpMask);
  return m;
}

FlowAction random_action(std::mt19937_64& rng) {
  FlowAction a;
  a.output = PortNum{static_cast<std::uint8_t>(1 + rng() % 254)};
  if (rng() % 2) a.set_sl = ServiceLevel{static_cast<std::uint8_t>(rng() % 16)};
  return a;
}

FlowMod random_flow_mod(std::mt19937_64& rng, bool response) {
  FlowMod fm;
  fm.command = static_cast<FlowModCommand>(rng() % 5);
  fm.cookie = rng();
  fm.cookie_mask = rng() % 2 ? rng() : 0;
  fm.priority = static_cast<std::uint16_t>(rng());
  fm.match = random_match(rng);
  const bool carries_action = fm.command == FlowModCommand::kAdd ||
                              fm.command == FlowModCommand::kModify ||
                              fm.command == FlowModCommand::kModifyStrict;
  if (carries_action) fm.action = random_action(rng);
  if (response) fm.affected = static_cast<std::uint32_t>(rng());
  return fm;
}

FlowEntry random_entry(std::mt19937_64& rng) {
  FlowEntry e;
  e.cookie = rng();
  e.priority = static_cast<std::uint16_t>(rng());
  e.match = random_match(rng);
  e.action = random_action(rng);
  e.n_packets = rng();
  return e;
}

void expect_round_trip(const SdnMad& m) {
  const MadBytes b = encode(m);
  const DecodeResult r = decode(b);
  ASSERT_TRUE(std::holds_alternative<SdnMad>(r)) << std::get<DecodeError>(r).reason;
  EXPECT_TRUE(std::get<SdnMad>(r) == m);
  EXPECT_EQ(encode(std::get<SdnMad>(r)), b);
}

TEST(MadCodec, FlowMod_RoundTrips_ForRandomCommandsMasksAndSlRewrites) {
  std::mt19937_64 rng(2002);
  int with_set_sl = 0;
  int with_masks = 0;
  for (int i = 0; i < 3000; ++i) {
    const bool response = i % 2 == 1;
    FlowMod fm = random_flow_mod(rng, response);
    with_set_sl += fm.action.set_sl.has_value();
    with_masks += fm.match.dlid && fm.match.dlid->mask != 0xFFFF;
    const SdnMad m =
        mad_of(response ? Method::kGetResp : Method::kSet, AttributeId::kFlowMod, fm, rng());
    expect_round_trip(m);
    if (HasFailure()) return;
  }
  EXPECT_GT(with_set_sl, 500);
  EXPECT_GT(with_masks, 500);
}

TEST(MadCodec, FlowMod_AllFieldsMaskedAndSlRewrite_FitsInTheMad) {
  FlowMod fm;
  fm.command = FlowModCommand::kModifyStrict;
  fm.match.dlid = Masked<std::uint16_t>{0x40, 0xFFF0};
  fm.match.slid = Masked<std::uint16_t>{0x10, 0xFF10};
  fm.match.sl = Masked<std::uint8_t>{0x2, 0x6};
  fm.match.dest_qp = Masked<std::uint32_t>{0x123400, 0xFFFF00};
  fm.action.output = PortNum{254};
  fm.action.set_sl = ServiceLevel{15};
  expect_round_trip(mad_of(Method::kSet, AttributeId::kFlowMod, fm));
}

// Wire-format revision 2: the GetResp's result trailer ends at byte 224, so a requester under
// umad2sim, which overwrites bytes 224-255 (the umad transport zeroes them), still reads the
// outcome. Revision 1 had `affected` at 248 and always read 0 there.
TEST(MadCodec, FlowModResponse_AffectedSurvivesZeroedBytes224To255) {
  FlowMod fm;
  fm.command =
      FlowModCommand::kModifyStrict;  // the largest FlowMod: every field masked, SL rewrite
  fm.match.dlid = Masked<std::uint16_t>{0x40, 0xFFF0};
  fm.match.slid = Masked<std::uint16_t>{0x10, 0xFF10};
  fm.match.sl = Masked<std::uint8_t>{0x2, 0x6};
  fm.match.dest_qp = Masked<std::uint32_t>{0x123400, 0xFFFF00};
  fm.action.output = PortNum{254};
  fm.action.set_sl = ServiceLevel{15};
  for (std::uint32_t affected : {1u, 7u, 0xA5A5A5A5u, ~0u}) {
    fm.affected = affected;
    const SdnMad resp = mad_of(Method::kGetResp, AttributeId::kFlowMod, fm, 0x1234);
    MadBytes b = encode(resp);
    EXPECT_TRUE(std::all_of(b.begin() + 224, b.end(), [](std::uint8_t x) { return x == 0; }))
        << "a FlowMod GetResp uses bytes 224-255";
    std::fill(b.begin() + 224, b.end(), 0);  // what the umad transport delivers under ibsim
    const SdnMad got = ok(decode(b));
    EXPECT_EQ(std::get<FlowMod>(got.payload).affected, affected);
    EXPECT_TRUE(got == resp);
  }
  // The trailer itself is where the docs say: affected at 216-219, big-endian.
  fm.affected = 0x01020304;
  const MadBytes b = encode(mad_of(Method::kGetResp, AttributeId::kFlowMod, fm));
  EXPECT_EQ((std::vector<std::uint8_t>(b.begin() + 216, b.begin() + 224)),
            (std::vector<std::uint8_t>{1, 2, 3, 4, 0, 0, 0, 0}));
}

TEST(MadCodec, Delete_DropsTheIgnoredAction) {
  FlowMod fm;
  fm.command = FlowModCommand::kDelete;
  fm.cookie = 42;
  fm.cookie_mask = ~0ull;
  fm.action.output = PortNum{3};  // deletes carry no instructions on the wire
  const SdnMad d = ok(decode(encode(mad_of(Method::kSet, AttributeId::kFlowMod, fm))));
  const auto& got = std::get<FlowMod>(d.payload);
  EXPECT_EQ(got.command, FlowModCommand::kDelete);
  EXPECT_EQ(got.cookie_mask, ~0ull);
  EXPECT_EQ(got.action, FlowAction{});
  EXPECT_EQ(got.match, FlowMatch{});
}

TEST(MadCodec, FlowStatsPage_FilledToCapacity_RoundTrips) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    FlowStatsReply page;
    page.total = 1000;
    page.generation = rng();
    const std::size_t n = i == 0 ? kMaxStatsEntriesPerMad : rng() % (kMaxStatsEntriesPerMad + 1);
    for (std::size_t k = 0; k < n; ++k) page.entries.push_back(random_entry(rng));
    expect_round_trip(mad_of(Method::kGetResp, AttributeId::kFlowStats, page, rng(), 995));
    if (HasFailure()) return;
  }
}

TEST(MadCodec, FlowStatsPage_OneEntryTooMany_Throws) {
  std::mt19937_64 rng(8);
  FlowStatsReply page;
  page.total = 100;
  for (std::size_t k = 0; k <= kMaxStatsEntriesPerMad; ++k)
    page.entries.push_back(random_entry(rng));
  EXPECT_THROW(encode(mad_of(Method::kGetResp, AttributeId::kFlowStats, page)),
               std::invalid_argument);
}

TEST(MadCodec, ReadOnlyAttributes_RoundTripRequestAndResponse) {
  expect_round_trip(mad_of(Method::kGet, AttributeId::kFlowStats, FlowStatsRequest{}, 1, 40));
  expect_round_trip(mad_of(Method::kGetResp, AttributeId::kFlowStats, FlowStatsReply{}, 1, 0));
  expect_round_trip(mad_of(Method::kGet, AttributeId::kTableInfo, TableInfo{}));
  TableInfo ti{4096, 17, 99, FlowDefinitionLevel::kSlidDlid, 36, 1ull << 40, 5, 6};
  expect_round_trip(mad_of(Method::kGetResp, AttributeId::kTableInfo, ti));
  for (auto level : {FlowDefinitionLevel::kDlid, FlowDefinitionLevel::kSlidDlidSl,
                     FlowDefinitionLevel::kSlidDlidSlQp}) {
    ti.level = level;
    expect_round_trip(mad_of(Method::kGetResp, AttributeId::kTableInfo, ti));
  }
  expect_round_trip(mad_of(Method::kGet, AttributeId::kBarrier, Barrier{}));
  expect_round_trip(mad_of(Method::kGetResp, AttributeId::kBarrier, Barrier{~0ull}));
}

TEST(MadCodec, MakeResponse_KeepsTidAttributeAndModifier) {
  const SdnMad req = mad_of(Method::kGet, AttributeId::kFlowStats, FlowStatsRequest{}, 0xABCDEF, 5);
  FlowStatsReply page;
  page.total = 5;
  const SdnMad resp = make_response(req, Status::kOk, page);
  EXPECT_EQ(resp.hdr.method, Method::kGetResp);
  EXPECT_EQ(resp.hdr.tid, 0xABCDEFu);
  EXPECT_EQ(resp.hdr.attr_id, AttributeId::kFlowStats);
  EXPECT_EQ(resp.hdr.attr_mod, 5u);
  EXPECT_EQ(resp.key, req.key);
  expect_round_trip(resp);

  FlowMod fm = std::get<FlowMod>(ok(decode(kWorkedExample)).payload);
  fm.affected = 1;
  const SdnMad fresp = make_response(ok(decode(kWorkedExample)), Status::kTableFull, fm);
  EXPECT_EQ(fresp.hdr.status, Status::kTableFull);
  expect_round_trip(fresp);
}

TEST(MadCodec, Encode_RejectsWhatTheWireCannotCarry) {
  const auto fm_with = [](auto change) {
    FlowMod fm;
    fm.action.output = PortNum{1};
    change(fm);
    return mad_of(Method::kSet, AttributeId::kFlowMod, fm);
  };
  EXPECT_THROW(encode(mad_of(Method::kSet, AttributeId::kTableInfo, TableInfo{})),
               std::invalid_argument);
  EXPECT_THROW(encode(mad_of(Method::kGet, AttributeId::kFlowMod, FlowMod{})),
               std::invalid_argument);
  EXPECT_THROW(encode(mad_of(Method::kSet, AttributeId::kFlowMod, Barrier{})),
               std::invalid_argument);
  EXPECT_THROW(encode(mad_of(Method::kGet, AttributeId::kTableInfo, TableInfo{}, 1, 3)),
               std::invalid_argument);
  EXPECT_THROW(encode(fm_with([](FlowMod& f) { f.action.output = PortNum{0}; })),
               std::invalid_argument);
  EXPECT_THROW(encode(fm_with([](FlowMod& f) { f.action.output = PortNum{255}; })),
               std::invalid_argument);
  EXPECT_THROW(encode(fm_with([](FlowMod& f) { f.action.set_sl = ServiceLevel{16}; })),
               std::invalid_argument);
  EXPECT_THROW(encode(fm_with([](FlowMod& f) {
                 f.match.dlid = Masked<std::uint16_t>{0x41, 0xFFF0};
               })),
               std::invalid_argument);
  EXPECT_THROW(encode(fm_with([](FlowMod& f) {
                 f.match.dest_qp = Masked<std::uint32_t>{1u << 24, 1u << 24};
               })),
               std::invalid_argument);
  EXPECT_THROW(encode(fm_with([](FlowMod& f) { f.command = static_cast<FlowModCommand>(9); })),
               std::invalid_argument);
  SdnMad req_with_status = fm_with([](FlowMod&) {});
  req_with_status.hdr.status = Status::kTableFull;
  EXPECT_THROW(encode(req_with_status), std::invalid_argument);
  TableInfo over{10, 11};
  EXPECT_THROW(encode(mad_of(Method::kGetResp, AttributeId::kTableInfo, over)),
               std::invalid_argument);
  FlowStatsReply past_total;
  past_total.total = 1;
  past_total.entries.resize(1);
  past_total.entries[0].action.output = PortNum{1};
  EXPECT_THROW(encode(mad_of(Method::kGetResp, AttributeId::kFlowStats, past_total, 1, 1)),
               std::invalid_argument);
}

// --- malformed input ----------------------------------------------------------------------------

// An independent, byte-level FlowMod builder: the malformed cases need structures the encoder
// refuses to produce.
struct RawFlowMod {
  Bytes oxms;     // the OXM TLVs of the match
  Bytes actions;  // the actions of the single apply-actions instruction
  bool instruction = true;
  std::uint8_t command = 0;
  Bytes extra;  // appended after the instruction, inside the OpenFlow length
};

void put16(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}
void put32(Bytes& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v >> 16));
  put16(b, static_cast<std::uint16_t>(v));
}
void set16(MadBytes& b, std::size_t off, std::uint16_t v) {
  b[off] = static_cast<std::uint8_t>(v >> 8);
  b[off + 1] = static_cast<std::uint8_t>(v);
}
void set32(MadBytes& b, std::size_t off, std::uint32_t v) {
  set16(b, off, static_cast<std::uint16_t>(v >> 16));
  set16(b, off + 2, static_cast<std::uint16_t>(v));
}

// field: 0 DLID, 1 SLID, 2 SL, 3 DEST_QP; value / mask in `width` bytes.
Bytes oxm(unsigned field, std::size_t width, std::uint32_t value,
          std::optional<std::uint32_t> mask = std::nullopt) {
  Bytes b;
  put16(b, 0xFFFF);
  b.push_back(static_cast<std::uint8_t>((field << 1) | (mask ? 1 : 0)));
  b.push_back(static_cast<std::uint8_t>(4 + width * (mask ? 2 : 1)));
  put32(b, 0x00001405);
  for (std::size_t i = width; i-- > 0;) b.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  if (mask) {
    for (std::size_t i = width; i-- > 0;) b.push_back(static_cast<std::uint8_t>(*mask >> (8 * i)));
  }
  return b;
}
Bytes output(std::uint32_t port) {
  Bytes b;
  put16(b, 0);
  put16(b, 16);
  put32(b, port);
  b.resize(16, 0);
  return b;
}
Bytes set_sl(std::uint8_t sl) {
  Bytes b;
  put16(b, 25);
  put16(b, 16);
  Bytes f = oxm(2, 1, sl);
  b.insert(b.end(), f.begin(), f.end());
  b.resize(16, 0);
  return b;
}
Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

constexpr std::size_t kOxm0 = 84;  // the first OXM TLV

MadBytes build(const RawFlowMod& raw) {
  MadBytes b{};
  std::copy(kWorkedExample.begin(), kWorkedExample.begin() + 80, b.begin());  // headers
  b[57] = raw.command;
  Bytes body;
  put16(body, 1);
  put16(body, static_cast<std::uint16_t>(4 + raw.oxms.size()));
  body.insert(body.end(), raw.oxms.begin(), raw.oxms.end());
  body.resize((body.size() + 7) / 8 * 8, 0);
  if (raw.instruction) {
    put16(body, 4);
    put16(body, static_cast<std::uint16_t>(8 + raw.actions.size()));
    put32(body, 0);
    body.insert(body.end(), raw.actions.begin(), raw.actions.end());
  }
  body.insert(body.end(), raw.extra.begin(), raw.extra.end());
  std::copy(body.begin(), body.end(), b.begin() + 80);
  set16(b, 34, static_cast<std::uint16_t>(48 + body.size()));
  return b;
}

RawFlowMod valid_raw() {
  RawFlowMod r;
  r.oxms = cat({oxm(0, 2, 0x40), oxm(1, 2, 0x12)});
  r.actions = output(7);
  return r;
}

struct Malformed {
  std::string name;
  MadBytes bytes;
  Status status;
  std::size_t offset;
};

MadBytes mutated(MadBytes b, const std::function<void(MadBytes&)>& f) {
  f(b);
  return b;
}

MadBytes header_only(Method method, AttributeId attr, std::uint32_t attr_mod = 0) {
  SdnMad m;
  m.hdr.method = method;
  m.hdr.attr_id = attr;
  m.hdr.attr_mod = attr_mod;
  if (attr == AttributeId::kFlowStats) {
    m.payload = method == Method::kGet ? Payload{FlowStatsRequest{}} : Payload{FlowStatsReply{}};
  } else if (attr == AttributeId::kBarrier) {
    m.payload = Barrier{};
  } else if (attr == AttributeId::kTableInfo) {
    m.payload = TableInfo{};
  }
  return encode(m);
}

MadBytes stats_page() {
  std::mt19937_64 rng(3);
  FlowStatsReply page;
  page.total = 10;
  for (int i = 0; i < 2; ++i) {
    FlowEntry e = random_entry(rng);
    e.match = FlowMatch::exact_pair(Lid{1}, Lid{2});
    e.action.set_sl.reset();
    page.entries.push_back(e);
  }
  return encode(mad_of(Method::kGetResp, AttributeId::kFlowStats, page, 1, 0));
}

std::vector<Malformed> malformed_cases() {
  const MadBytes good = build(valid_raw());
  const auto with = [&](auto f) { return mutated(good, f); };
  const auto raw_with = [](auto f) {
    RawFlowMod r = valid_raw();
    f(r);
    return build(r);
  };
  const Status kIF = Status::kInvalidField;
  const Status kMM = Status::kMalformedMatch;
  std::vector<Malformed> c = {
      {"base version 2", with([](MadBytes& b) { b[0] = 2; }), Status::kBadVersion, 0},
      {"class version 2", with([](MadBytes& b) { b[2] = 2; }), Status::kBadVersion, 2},
      {"class 0x81 (SMP)", with([](MadBytes& b) { b[1] = 0x81; }), kIF, 1},
      {"method Send", with([](MadBytes& b) { b[3] = 0x03; }), Status::kUnsupportedMethod, 3},
      {"method Set with R bit", with([](MadBytes& b) { b[3] = 0x82; }), Status::kUnsupportedMethod,
       3},
      {"unknown attribute", with([](MadBytes& b) { set16(b, 16, 0x0099); }),
       Status::kUnsupportedAttribute, 16},
      {"FlowMod Get", with([](MadBytes& b) { b[3] = 0x01; }), Status::kUnsupportedAttribute, 16},
      {"TableInfo Set",
       mutated(header_only(Method::kGet, AttributeId::kTableInfo),
               [](MadBytes& b) { b[3] = 0x02; }),
       Status::kUnsupportedAttribute, 16},
      {"status in a request", with([](MadBytes& b) { b[5] = 0x1C; }), kIF, 4},
      {"unknown status", with([](MadBytes& b) { b[3] = 0x81, set16(b, 4, 0x0010); }), kIF, 4},
      {"class specific", with([](MadBytes& b) { b[7] = 1; }), kIF, 6},
      {"header reserved", with([](MadBytes& b) { b[19] = 1; }), kIF, 18},
      {"attribute modifier on FlowMod", with([](MadBytes& b) { b[23] = 1; }), kIF, 20},
      {"OpenFlow 1.3 version", with([](MadBytes& b) { b[32] = 0x04; }), kIF, 32},
      {"not a flow_mod", with([](MadBytes& b) { b[33] = 13; }), kIF, 33},
      {"length past the buffer", with([](MadBytes& b) { set16(b, 34, 0xFFF8); }), kIF, 34},
      {"length into the trailer", with([](MadBytes& b) { set16(b, 34, 192); }), kIF, 34},
      {"length past byte 224", with([](MadBytes& b) { set16(b, 34, 224); }), kIF, 34},
      {"length not a multiple of 8", with([](MadBytes& b) { set16(b, 34, 0x61); }), kIF, 34},
      {"length below the fixed part", with([](MadBytes& b) { set16(b, 34, 48); }), kIF, 34},
      {"xid differs from the TID", with([](MadBytes& b) { b[39] ^= 1; }), kIF, 36},
      {"table 1", with([](MadBytes& b) { b[56] = 1; }), kIF, 56},
      {"command 5", with([](MadBytes& b) { b[57] = 5; }), kIF, 57},
      {"idle timeout", with([](MadBytes& b) { b[59] = 30; }), kIF, 58},
      {"hard timeout", with([](MadBytes& b) { b[60] = 1; }), kIF, 60},
      {"buffer id", with([](MadBytes& b) { set32(b, 64, 0); }), kIF, 64},
      {"out_port filter", with([](MadBytes& b) { set32(b, 68, 3); }), kIF, 68},
      {"out_group filter", with([](MadBytes& b) { set32(b, 72, 3); }), kIF, 72},
      {"flags", with([](MadBytes& b) { b[77] = 1; }), kIF, 76},
      {"importance", with([](MadBytes& b) { b[79] = 1; }), kIF, 78},
      {"OFPMT_STANDARD match", with([](MadBytes& b) { set16(b, 80, 0); }), kMM, 80},
      {"match length past the message", with([](MadBytes& b) { set16(b, 82, 0x00F0); }), kMM, 82},
      {"match length below 4", with([](MadBytes& b) { set16(b, 82, 3); }), kMM, 82},
      {"OXM length 7 for DLID", with([](MadBytes& b) { b[kOxm0 + 3] = 7; }), kMM, kOxm0 + 3},
      {"OXM length past the match", with([](MadBytes& b) { b[kOxm0 + 3] = 0xFF; }), kMM, kOxm0 + 3},
      {"OXM basic class", with([](MadBytes& b) { set16(b, kOxm0, 0x8000); }), kMM, kOxm0},
      {"other experimenter", with([](MadBytes& b) { b[kOxm0 + 5] = 0x20; }), kMM, kOxm0 + 4},
      {"unknown field 5", with([](MadBytes& b) { b[kOxm0 + 2] = 5 << 1; }), kMM, kOxm0 + 2},
      {"duplicate DLID", raw_with([](RawFlowMod& r) {
         r.oxms = cat({oxm(0, 2, 0x40), oxm(0, 2, 0x41)});
       }),
       kMM, kOxm0 + 10},
      {"value outside mask", raw_with([](RawFlowMod& r) { r.oxms = oxm(0, 2, 0x41, 0xFFF0); }), kMM,
       kOxm0 + 8},
      {"zero mask", raw_with([](RawFlowMod& r) { r.oxms = oxm(1, 2, 0, 0); }), kMM, kOxm0 + 10},
      {"SL 16", raw_with([](RawFlowMod& r) { r.oxms = oxm(2, 1, 16); }), kMM, kOxm0 + 8},
      {"SL mask 0x1f", raw_with([](RawFlowMod& r) { r.oxms = oxm(2, 1, 1, 0x1F); }), kMM,
       kOxm0 + 9},
      {"QP 2^24", raw_with([](RawFlowMod& r) { r.oxms = oxm(3, 4, 1u << 24); }), kMM, kOxm0 + 8},
      {"truncated OXM header", raw_with([](RawFlowMod& r) {
         r.oxms = Bytes{0xFF, 0xFF};
       }),
       kMM, kOxm0},
      {"nonzero match padding",
       mutated(raw_with([](RawFlowMod& r) { r.oxms = oxm(0, 2, 0x40); }),
               [](MadBytes& b) { b[95] = 1; }),
       kMM, 95},
      {"add without instruction", raw_with([](RawFlowMod& r) { r.instruction = false; }), kIF, 104},
      {"missing output", raw_with([](RawFlowMod& r) { r.actions = set_sl(3); }), kIF, 128},
      {"empty action list", raw_with([](RawFlowMod& r) { r.actions.clear(); }), kIF, 112},
      {"two outputs", raw_with([](RawFlowMod& r) {
         r.actions = cat({output(1), output(2)});
       }),
       kIF, 128},
      {"set-field after output", raw_with([](RawFlowMod& r) {
         r.actions = cat({output(1), set_sl(2)});
       }),
       kIF, 128},
      {"two set-fields", raw_with([](RawFlowMod& r) {
         r.actions = cat({set_sl(1), set_sl(2), output(1)});
       }),
       kIF, 128},
      {"set-field SL 16", raw_with([](RawFlowMod& r) {
         r.actions = cat({set_sl(16), output(1)});
       }),
       kIF, 124},
      {"set-field of DLID", raw_with([](RawFlowMod& r) {
         Bytes a = set_sl(1);
         a[6] = 0;  // field DLID, width mismatch caught first by length
         r.actions = cat({a, output(1)});
       }),
       kIF, 119},
      {"output port 0", raw_with([](RawFlowMod& r) { r.actions = output(0); }), kIF, 116},
      {"output port 255", raw_with([](RawFlowMod& r) { r.actions = output(255); }), kIF, 116},
      {"output to OFPP_CONTROLLER", raw_with([](RawFlowMod& r) { r.actions = output(0xFFFFFFFD); }),
       kIF, 116},
      {"output max_len", with([](MadBytes& b) { b[121] = 0x80; }), kIF, 120},
      {"output padding", with([](MadBytes& b) { b[127] = 1; }), kIF, 127},
      {"group action", with([](MadBytes& b) { set16(b, 112, 22); }), kIF, 112},
      {"action length 12", with([](MadBytes& b) { set16(b, 114, 12); }), kIF, 114},
      {"action length past instruction", with([](MadBytes& b) { set16(b, 114, 0x40); }), kIF, 114},
      {"write-actions instruction", with([](MadBytes& b) { set16(b, 104, 3); }), kIF, 104},
      {"instruction length short", with([](MadBytes& b) { set16(b, 106, 16); }), kIF, 106},
      {"instruction padding", with([](MadBytes& b) { b[108] = 1; }), kIF, 108},
      {"second instruction",
       raw_with([](RawFlowMod& r) { r.extra = Bytes{0, 1, 0, 8, 0, 0, 0, 0}; }), kIF, 106},
      {"delete with instructions", raw_with([](RawFlowMod& r) { r.command = 3; }), kIF, 104},
      {"trailing garbage", with([](MadBytes& b) { b[200] = 0xAA; }), kIF, 200},
      {"trailing garbage before the trailer", with([](MadBytes& b) { b[215] = 1; }), kIF, 215},
      {"affected in a Set", with([](MadBytes& b) { b[219] = 1; }), kIF, 219},
      {"trailer reserved", with([](MadBytes& b) { b[223] = 1; }), kIF, 223},
      {"revision 1 affected (248)", with([](MadBytes& b) { b[251] = 1; }), kIF, 251},
      {"unused tail", with([](MadBytes& b) { b[255] = 1; }), kIF, 255},
      {"stats count 6", mutated(stats_page(), [](MadBytes& b) { b[36] = 6; }), kIF, 36},
      {"stats page past total", mutated(stats_page(), [](MadBytes& b) { set32(b, 32, 1); }), kIF,
       36},
      {"stats reserved", mutated(stats_page(), [](MadBytes& b) { b[38] = 1; }), kIF, 38},
      {"stats entry value outside mask",
       mutated(stats_page(), [](MadBytes& b) { set16(b, 48 + 22, 0x00F0); }), kMM, 48 + 20},
      {"stats entry absent field with bytes",
       mutated(stats_page(), [](MadBytes& b) { b[48 + 36] = 1; }), kMM, 48 + 36},
      {"stats entry unknown field bit",
       mutated(stats_page(), [](MadBytes& b) { b[48 + 18] |= 0x80; }), kIF, 48 + 18},
      {"stats entry port 0", mutated(stats_page(), [](MadBytes& b) { b[48 + 19] = 0; }), kIF,
       48 + 19},
      {"stats entry set_sl without bit", mutated(stats_page(), [](MadBytes& b) { b[48 + 38] = 1; }),
       kIF, 48 + 38},
      {"stats unused entry", mutated(stats_page(), [](MadBytes& b) { b[200] = 1; }), kIF, 200},
      {"stats Get with data",
       mutated(header_only(Method::kGet, AttributeId::kFlowStats), [](MadBytes& b) { b[40] = 1; }),
       kIF, 40},
      {"table info level 0",
       mutated(encode(mad_of(Method::kGetResp, AttributeId::kTableInfo, TableInfo{8, 1})),
               [](MadBytes& b) { b[48] = 0; }),
       kIF, 48},
      {"table info used above capacity",
       mutated(encode(mad_of(Method::kGetResp, AttributeId::kTableInfo, TableInfo{8, 1})),
               [](MadBytes& b) { b[39] = 9; }),
       kIF, 36},
      {"barrier reply reserved",
       mutated(header_only(Method::kGetResp, AttributeId::kBarrier),
               [](MadBytes& b) { b[255] = 1; }),
       kIF, 255},
  };
  return c;
}

TEST(MadCodec, MalformedInputs_GiveTheirStatusAndOffset) {
  ASSERT_TRUE(std::holds_alternative<SdnMad>(decode(build(valid_raw()))));
  ASSERT_TRUE(std::holds_alternative<SdnMad>(decode(stats_page())));
  const auto cases = malformed_cases();
  EXPECT_GE(cases.size(), 25u);
  for (const Malformed& m : cases) {
    const DecodeResult r = decode(m.bytes);
    const auto* e = std::get_if<DecodeError>(&r);
    ASSERT_NE(e, nullptr) << m.name << ": decoded";
    EXPECT_EQ(e->status, m.status) << m.name << ": " << e->reason;
    EXPECT_EQ(e->offset, m.offset) << m.name << ": " << e->reason;
    EXPECT_NE(e->reason.find("byte " + std::to_string(e->offset)), std::string::npos)
        << m.name << ": " << e->reason;
  }
}

TEST(MadCodec, TruncatedOrOversizedBuffers_AreInvalidAtTheirEnd) {
  for (std::size_t len = 0; len < kMadSize; ++len) {
    const DecodeResult r = decode(std::span(kWorkedExample.data(), len));
    const auto* e = std::get_if<DecodeError>(&r);
    ASSERT_NE(e, nullptr) << len;
    EXPECT_EQ(e->status, Status::kInvalidField) << len;
    EXPECT_EQ(e->offset, len);
  }
  Bytes longer(kWorkedExample.begin(), kWorkedExample.end());
  longer.push_back(0);
  const DecodeResult r = decode(longer);
  ASSERT_TRUE(std::holds_alternative<DecodeError>(r));
  EXPECT_EQ(std::get<DecodeError>(r).offset, kMadSize);
}

// Seeded byte flips and truncations of valid MADs: decode returns a result or an error (ASan in
// CI checks it never reads outside the buffer), and whatever decodes re-encodes to the same MAD.
TEST(MadCodec, MutatedMads_NeverCrash_AndWhatDecodesRoundTrips) {
  std::mt19937_64 rng(0x5EED);
  std::vector<MadBytes> seeds = {kWorkedExample, stats_page(),
                                 encode(mad_of(Method::kGetResp, AttributeId::kTableInfo,
                                               TableInfo{8, 1, 2, FlowDefinitionLevel::kDlid})),
                                 header_only(Method::kGetResp, AttributeId::kBarrier)};
  for (int i = 0; i < 8; ++i) {
    seeds.push_back(
        encode(mad_of(Method::kSet, AttributeId::kFlowMod, random_flow_mod(rng, false), 0x1234)));
  }
  int decoded = 0;
  int rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    Bytes b(seeds[i % seeds.size()].begin(), seeds[i % seeds.size()].end());
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      // Bias toward the header and the first OpenFlow bytes, where the structure is.
      const std::size_t at = rng() % 2 ? rng() % 136 : rng() % b.size();
      b[at] = rng() % 2 ? static_cast<std::uint8_t>(rng())
                        : static_cast<std::uint8_t>(b[at] ^ (1u << (rng() % 8)));
    }
    if (rng() % 10 == 0) b.resize(rng() % b.size());
    const DecodeResult r = decode(b);
    if (const auto* m = std::get_if<SdnMad>(&r)) {
      ++decoded;
      const DecodeResult again = decode(encode(*m));
      ASSERT_TRUE(std::holds_alternative<SdnMad>(again));
      ASSERT_TRUE(std::get<SdnMad>(again) == *m) << "mutation " << i;
    } else {
      ++rejected;
      EXPECT_LE(std::get<DecodeError>(r).offset, kMadSize);
    }
  }
  EXPECT_GT(decoded, 100);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace ibsdn::mad
