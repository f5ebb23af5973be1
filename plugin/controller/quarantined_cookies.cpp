// The cookies of quarantined jobs (quarantined_cookies.hpp).
#include "plugin/controller/quarantined_cookies.hpp"

namespace ibsdn::plugin {

void QuarantinedCookies::note_table(Guid sw, const std::vector<FlowEntry>& table) {
  if (cookies_.empty()) return;
  for (const std::uint64_t cookie : cookies_) held_[cookie].erase(sw);
  for (const FlowEntry& e : table) {
    if (cookies_.contains(e.cookie)) ++held_[e.cookie][sw];
  }
}

std::optional<QuarantinedCookies::Held> QuarantinedCookies::held(std::uint64_t cookie) const {
  const auto it = held_.find(cookie);
  if (it == held_.end()) return std::nullopt;
  Held out;
  for (const auto& [sw, n] : it->second) out.entries += n;
  out.switches = it->second.size();
  return out;
}

void QuarantinedCookies::release(std::uint64_t cookie) {
  cookies_.erase(cookie);
  held_.erase(cookie);
}

}  // namespace ibsdn::plugin
