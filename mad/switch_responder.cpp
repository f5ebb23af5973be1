#include "mad/switch_responder.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "mad/flow_mod_apply.hpp"
#include "mad/mad_codec.hpp"
#include "mad/raw_header.hpp"

namespace ibsdn::mad {
namespace {

/// The payload a refusal carries: the request's FlowMod echoed (nothing affected), otherwise the
/// attribute's reply body left empty.
Payload refusal_payload(const SdnMad& req) {
  switch (req.hdr.attr_id) {
    case AttributeId::kFlowMod:
      if (const auto* fm = std::get_if<FlowMod>(&req.payload)) {
        FlowMod echo = *fm;
        echo.affected = 0;
        return echo;
      }
      return FlowMod{};
    case AttributeId::kFlowStats:
      return FlowStatsReply{};
    case AttributeId::kTableInfo:
      return TableInfo{};
    case AttributeId::kBarrier:
      return Barrier{};
  }
  return TableInfo{};
}

bool method_known(Method m) {
  return m == Method::kGet || m == Method::kSet;
}

/// Which method each attribute is used with (FlowMod changes the table; the others read it).
Method method_for(AttributeId a) {
  return a == AttributeId::kFlowMod ? Method::kSet : Method::kGet;
}

bool attribute_known(AttributeId a) {
  return a == AttributeId::kFlowMod || a == AttributeId::kFlowStats ||
         a == AttributeId::kTableInfo || a == AttributeId::kBarrier;
}

}  // namespace

SwitchResponder::SwitchResponder(ResponderConfig cfg)
    : key_(cfg.key),
      reply_bytes_(std::min(cfg.reply_bytes, kMadSize)),
      writers_(std::move(cfg.writers)),
      table_(cfg.table) {}

Handled SwitchResponder::handle(std::span<const std::uint8_t> request, Lid from) {
  Handled h;
  const auto raw = peek_header(request);
  if (!raw) {
    h.status = Status::kInvalidField;
    h.detail = "only " + std::to_string(request.size()) + " bytes, no MAD header to answer";
    return h;
  }
  h.method = raw->method;
  h.attr_id = raw->attr_id;
  if (raw->mgmt_class != kMgmtClass) {
    // Only seen under umad2sim, which can route other classes to this port's file descriptor.
    h.detail = "management class " + std::to_string(raw->mgmt_class) + " is not ours: ignored";
    return h;
  }
  if (raw->response()) {
    h.detail = "a response where a request was expected: ignored";
    return h;
  }
  try {
    DecodeResult decoded = decode(request);
    if (const auto* err = std::get_if<DecodeError>(&decoded)) {
      h.status = err->status;
      h.detail = err->reason + " (at byte " + std::to_string(err->offset) + ")";
      h.reply = make_error_reply(request, err->status);
      return h;
    }
    return dispatch(std::get<SdnMad>(decoded), from, std::move(h));
  } catch (const std::exception& e) {
    // A request the codec accepted but the reply cannot be built for: answer generically rather
    // than die, and say why in the log.
    h.status = Status::kInvalidField;
    h.detail = std::string("internal error building the reply: ") + e.what();
    h.reply = make_error_reply(request, h.status);
    return h;
  }
}

Handled SwitchResponder::dispatch(const SdnMad& req, Lid from, Handled h) {
  auto refuse = [&](Status s, std::string why) {
    h.status = s;
    h.detail = std::move(why);
    h.reply = encode(make_response(req, s, refusal_payload(req)));
    return h;
  };
  if (req.key != key_) return refuse(Status::kBadKey, "authentication key mismatch");
  if (!method_known(req.hdr.method))
    return refuse(Status::kUnsupportedMethod, "unsupported method");
  if (!attribute_known(req.hdr.attr_id) || method_for(req.hdr.attr_id) != req.hdr.method) {
    return refuse(Status::kUnsupportedAttribute, "method/attribute combination not supported");
  }

  switch (req.hdr.attr_id) {
    case AttributeId::kFlowMod: {
      const auto* fm = std::get_if<FlowMod>(&req.payload);
      if (!fm) return refuse(Status::kInvalidField, "FlowMod without a flow_mod body");
      if (writers_) {
        WriterCheck::Verdict v = writers_->judge(from);
        if (!v.allowed) {
          h.rate_limited = !v.report;
          if (v.unreported > 0) {
            v.why += " (" + std::to_string(v.unreported) +
                     " more refused from this LID since its last report)";
          }
          return refuse(Status::kNotAuthorized, std::move(v.why));
        }
      }
      const FlowModResult r = apply_flow_mod(table_, *fm);
      FlowMod echo = *fm;
      echo.affected = r.affected;
      h.status = to_mad_status(r.status);
      h.affected = r.affected;
      h.detail = r.detail;
      h.reply = encode(make_response(req, h.status, echo));
      return h;
    }
    case AttributeId::kFlowStats: {
      const std::vector<FlowEntry>& all = snapshot();
      FlowStatsReply page;
      page.total = static_cast<std::uint32_t>(all.size());
      page.generation = table_.generation();
      const std::size_t start = std::min<std::size_t>(req.hdr.attr_mod, all.size());
      // The largest page whose encoding leaves the bytes past reply_bytes_ unused (at least one
      // entry, so that a reader always makes progress).
      for (std::size_t n = std::min(all.size() - start, kMaxStatsEntriesPerMad);; --n) {
        page.entries.assign(all.begin() + static_cast<std::ptrdiff_t>(start),
                            all.begin() + static_cast<std::ptrdiff_t>(start + n));
        MadBytes bytes = encode(make_response(req, Status::kOk, page));
        if (n <= 1 || std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(reply_bytes_),
                                  bytes.end(), [](std::uint8_t b) { return b == 0; })) {
          h.reply = bytes;
          return h;
        }
      }
    }
    case AttributeId::kTableInfo: {
      TableInfo info;
      info.capacity = table_.config().capacity;
      info.used = static_cast<std::uint32_t>(table_.size());
      info.generation = table_.generation();
      info.level = table_.config().level;
      info.num_ports = table_.config().num_ports;
      info.lookups = table_.counters().lookups;
      info.matched = table_.counters().matched;
      info.missed = table_.counters().missed;
      h.reply = encode(make_response(req, Status::kOk, info));
      return h;
    }
    case AttributeId::kBarrier:
      h.reply = encode(make_response(req, Status::kOk, Barrier{table_.generation()}));
      return h;
  }
  return refuse(Status::kUnsupportedAttribute, "unknown attribute");
}

const std::vector<FlowEntry>& SwitchResponder::snapshot() {
  const std::pair<std::uint64_t, std::uint64_t> now{table_.generation(), table_.counters().lookups};
  if (snapshot_of_ != now) {
    snapshot_ = table_.entries();
    snapshot_of_ = now;
  }
  return snapshot_;
}

}  // namespace ibsdn::mad
