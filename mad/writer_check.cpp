#include "mad/writer_check.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ibsdn::mad {
namespace {

// Refusal bookkeeping is per sender LID; past this many LIDs, those not reported within the
// interval are forgotten (their next refusal is simply reported again).
constexpr std::size_t kMaxTrackedSenders = 1024;

std::string lid_text(Lid lid) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(lid.value()));
  return buf;
}

}  // namespace

WriterCheck::WriterCheck(WriterPolicy policy, ReadMasterSmLid read)
    : policy_(std::move(policy)), read_(std::move(read)) {}

std::optional<Lid> WriterCheck::refresh(Clock::time_point now) {
  ++reads_;
  read_at_ = now;
  if (auto lid = read_ ? read_() : std::nullopt) master_ = lid;
  return master_;
}

bool WriterCheck::is_master(Lid from) const {
  // MasterSMLID 0: no SM has configured this port; LID 0 is nobody.
  return master_ && master_->value() != 0 && *master_ == from;
}

bool WriterCheck::is_allowed(Lid from) const {
  return std::find(policy_.allowed.begin(), policy_.allowed.end(), from) != policy_.allowed.end();
}

WriterCheck::Verdict WriterCheck::judge(Lid from, Clock::time_point now) {
  if (policy_.any_writer || is_allowed(from)) return {};
  bool fresh = false;
  if (!read_at_ || now - *read_at_ >= policy_.refresh) {
    refresh(now);
    fresh = true;
  }
  if (is_master(from)) return {};
  // Another LID writes: the SM may have failed over since the last read. While no master is
  // known the gap does not apply: the first write of an SM that has just come up must not be
  // refused, and before an SM has configured the switch few LID-routed MADs can reach it at all.
  const bool master_known = master_ && master_->value() != 0;
  if (!fresh && (!master_known || now - *read_at_ >= policy_.reread_gap)) {
    refresh(now);
    if (is_master(from)) return {};
  }
  return refuse(from, now);
}

WriterCheck::Verdict WriterCheck::refuse(Lid from, Clock::time_point now) {
  ++refused_;
  Verdict v;
  v.allowed = false;
  v.why = "LID " + lid_text(from) + " may not write: ";
  if (!master_) {
    v.why += "the master SM's LID could not be read (PortInfo:MasterSMLID)";
  } else if (master_->value() == 0) {
    v.why += "no master SM has configured this switch (PortInfo:MasterSMLID 0)";
  } else {
    v.why += "only the master SM (LID " + lid_text(*master_) + ")";
  }
  if (!policy_.allowed.empty()) {
    v.why += " and the allowed LIDs";
    for (Lid lid : policy_.allowed) v.why += " " + lid_text(lid);
  }
  v.why += " may";

  if (reports_.size() >= kMaxTrackedSenders && !reports_.contains(from.value())) {
    std::erase_if(reports_,
                  [&](const auto& kv) { return now - kv.second.last >= policy_.report_every; });
  }
  auto [it, first] = reports_.try_emplace(from.value(), Reports{now, 0});
  Reports& r = it->second;
  if (first || now - r.last >= policy_.report_every) {
    v.report = true;
    v.unreported = r.unreported;
    r = Reports{now, 0};
  } else {
    ++r.unreported;
  }
  return v;
}

}  // namespace ibsdn::mad
