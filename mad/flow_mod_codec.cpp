#include "mad/flow_mod_codec.hpp"

#include <optional>
#include <string>

#include "mad/codec_layout.hpp"
#include "mad/flow_fields_codec.hpp"

namespace ibsdn::mad::wire {
namespace {

// FlowMod: an OpenFlow 1.5 ofp_flow_mod at kOffBody, then the 8-byte result trailer, which ends
// at byte 224. Every transport delivers bytes 0-223 intact (umad2sim overwrites 224-255), so the
// GetResp's `affected` reaches the requester whatever carries it; wire-format revision 1 had the
// trailer at 248 and lost it under ibsim (docs/wire-format.md, section 10).
constexpr std::size_t kOffAffected = 216;  // GetResp only; zero in the Set
constexpr std::size_t kOffTrailerReserved = 220;
constexpr std::size_t kOffTrailerEnd = 224;                     // 224-255: zero in every FlowMod
constexpr std::size_t kMaxOfpLength = kOffAffected - kOffBody;  // 184

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

// The largest FlowMod the class can express (docs/wire-format.md 4.4): all four match fields with
// masks (4 + 12 + 12 + 10 + 16 = 54, padded to 56), an SL rewrite and the output.
constexpr std::size_t kLargestFlowMod =
    kOfMatch + 56 + kInstructionHeaderSize + kSetSlActionSize + kOutputActionSize;  // 144
static_assert(kLargestFlowMod <= kMaxOfpLength);
static_assert(kOffTrailerEnd == kOffAffected + 8);

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

}  // namespace

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

namespace {

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

}  // namespace

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
  r.expect_zero(kOffTrailerReserved, kOffTrailerEnd, kBad, "trailer reserved");
  r.expect_zero(kOffTrailerEnd, kMadSize, kBad, "unused tail (224-255)");
  return fm;
}

}  // namespace ibsdn::mad::wire
