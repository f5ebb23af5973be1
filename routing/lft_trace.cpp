// Tracing a flow hop by hop through the LFTs (and flow-table overrides).
#include "routing/lft.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <unordered_map>

#include "routing/lft_text.hpp"

namespace ibsdn {

using lft_detail::lid_label;
using lft_detail::port_text;

// ---- tracer ---------------------------------------------------------------------------------

std::string_view to_string(TraceStatus s) {
  switch (s) {
    case TraceStatus::kDelivered:
      return "delivered";
    case TraceStatus::kNoLid:
      return "no LID";
    case TraceStatus::kNoTable:
      return "no LFT";
    case TraceStatus::kUnset:
      return "unset entry";
    case TraceStatus::kNoSuchPort:
      return "no such port";
    case TraceStatus::kUncabled:
      return "port not cabled";
    case TraceStatus::kLoop:
      return "loop";
    case TraceStatus::kTooManyHops:
      return "too many hops";
    case TraceStatus::kWrongDestination:
      return "wrong destination";
  }
  return "?";
}

Trace trace(const Fabric& f, const LftSet& lfts, NodeIdx src, NodeIdx dst,
            const TraceOptions& opts) {
  if (!f.node(src).is_hca() || !f.node(dst).is_hca() || src == dst) {
    throw std::invalid_argument("trace: endpoints must be two distinct HCAs");
  }
  Trace t;
  const auto stop = [&t](TraceStatus s, std::string why) {
    t.status = s;
    t.error = std::move(why);
    return t;
  };
  const LidMap& lids = opts.lids != nullptr ? *opts.lids : lfts.lids;
  const PacketHeader header{lids.lid(src), lids.lid(dst)};
  if (header.slid.value() == 0) return stop(TraceStatus::kNoLid, f.node(src).name + " has no LID");
  if (header.dlid.value() == 0) return stop(TraceStatus::kNoLid, f.node(dst).name + " has no LID");
  // Built only for error messages: all-pairs checks trace millions of routes.
  const auto to = [&]() { return "LID " + lid_label(f, lids, header.dlid); };

  const LidOwner from = *lids.owner(header.slid);
  const Port& first = f.port(src, from.port);
  if (!first.connected()) {
    return stop(TraceStatus::kUncabled,
                f.node(src).name + " port " + port_text(from.port) + " (its LID's) is not cabled");
  }
  t.path.push_back(first.out);
  NodeIdx at = first.peer;
  std::size_t switch_hops = 0;
  while (f.node(at).is_switch()) {
    const std::string& name = f.node(at).name;
    for (std::size_t i = 1; i < t.path.size(); ++i) {
      if (f.link(t.path[i]).from == at) {
        return stop(TraceStatus::kLoop, "loop: " + to() + " comes back to " + name + " after " +
                                            std::to_string(t.path.size() - i) + " hops");
      }
    }
    if (++switch_hops > opts.max_hops) {
      return stop(TraceStatus::kTooManyHops,
                  to() + " crosses more than " + std::to_string(opts.max_hops) + " switches");
    }
    if (!lfts.has_table(at)) return stop(TraceStatus::kNoTable, name + " has no LFT");
    std::optional<PortNum> chosen;
    if (opts.override_port) chosen = opts.override_port(at, header);
    const PortNum out = chosen.value_or(lfts.table(at).out(header.dlid));
    const auto where = [&]() { return name + (chosen ? " (override)" : "") + " sends " + to(); };
    if (out == kLftUnset) return stop(TraceStatus::kUnset, name + " has no entry for " + to());
    if (out == kSwitchPort0) {
      return stop(TraceStatus::kWrongDestination, where() + " to its own port 0");
    }
    if (out.value() > f.node(at).ports.size()) {
      return stop(TraceStatus::kNoSuchPort, where() + " to port " + port_text(out) +
                                                ", but it has " +
                                                std::to_string(f.node(at).ports.size()));
    }
    const Port& p = f.port(at, out);
    if (!p.connected()) {
      return stop(TraceStatus::kUncabled, where() + " to port " + port_text(out) + ", not cabled");
    }
    t.path.push_back(p.out);
    at = p.peer;
  }
  if (at != dst) {
    return stop(TraceStatus::kWrongDestination,
                to() + " is delivered to " + f.node(at).name + ", not " + f.node(dst).name);
  }
  return t;
}

}  // namespace ibsdn
