#include "routing/flow_compiler.hpp"

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>

#include "flowtable/flow_table.hpp"
#include "routing/link_load.hpp"
#include "routing/route_quality.hpp"

namespace ibsdn {
namespace {

struct Hop {
  NodeIdx sw;
  PortNum port;
};

bool more_important(const Flow& a, const Flow& b) {
  if (a.elephant != b.elephant) return a.elephant;
  if (a.weight != b.weight) return a.weight > b.weight;
  return a.bytes > b.bytes;
}

std::vector<Hop> switch_hops(const Fabric& f, const Path& p) {
  std::vector<Hop> out;
  for (LinkId l : p) {
    const Link& ln = f.link(l);
    if (f.node(ln.from).is_switch()) out.push_back({ln.from, ln.from_port});
  }
  return out;
}

}  // namespace

FlowTables build_flow_tables(const std::map<NodeIdx, std::vector<FlowEntry>>& tables) {
  FlowTables built;
  for (const auto& [sw, entries] : tables) {
    FlowTable t(
        FlowTableConfig{static_cast<std::uint32_t>(std::max<std::size_t>(1, entries.size())),
                        FlowDefinitionLevel::kSlidDlidSlQp, 254});
    for (const FlowEntry& e : entries) {
      const FlowModResult r = t.add(e);
      if (!r.ok()) throw std::invalid_argument("flow entry for tracing: " + r.detail);
    }
    built.emplace(sw, std::move(t));
  }
  return built;
}

const FlowEntry* winning_entry(const FlowTables& tables, NodeIdx sw, const PacketHeader& h) {
  const auto it = tables.find(sw);
  return it == tables.end() ? nullptr : it->second.peek(h);
}

const FlowEntry* winning_entry(const FlowTables& a, const FlowTables& b, NodeIdx sw,
                               const PacketHeader& h) {
  const FlowEntry* x = winning_entry(a, sw, h);
  const FlowEntry* y = winning_entry(b, sw, h);
  if (x == nullptr || y == nullptr) return x != nullptr ? x : y;
  if (x->priority != y->priority) return x->priority > y->priority ? x : y;
  return y->match.specificity() > x->match.specificity() ? y : x;
}

ForwardingOverride flow_table_override(const std::map<NodeIdx, std::vector<FlowEntry>>& tables) {
  return flow_table_override(std::make_shared<const FlowTables>(build_flow_tables(tables)));
}

ForwardingOverride flow_table_override_of(const FlowTables& tables) {
  // A shared_ptr that owns nothing: the caller keeps the tables alive.
  return flow_table_override(std::shared_ptr<const FlowTables>(std::shared_ptr<void>(), &tables));
}

ForwardingOverride flow_table_override(std::shared_ptr<const FlowTables> built) {
  return [built](NodeIdx sw, const PacketHeader& h) -> std::optional<PortNum> {
    const FlowEntry* e = winning_entry(*built, sw, h);
    if (e == nullptr) return std::nullopt;
    return e->action.output;
  };
}

CompiledFlows compile_flows(const Fabric& f, const LftSet& lfts, std::span<const Flow> flows,
                            std::span<const Path> paths, JobId job, const CompileOptions& opt) {
  if (flows.size() != paths.size()) throw std::invalid_argument("compile_flows: one path per flow");
  if (opt.pinned != nullptr && opt.pinned->size() != flows.size()) {
    throw std::invalid_argument("compile_flows: one pinned mark per flow");
  }
  const std::size_t n = flows.size();
  const FlowTables no_tables;
  const FlowTables& foreign = opt.foreign != nullptr ? *opt.foreign : no_tables;
  const auto pinned = [&](std::size_t i) { return opt.pinned != nullptr && (*opt.pinned)[i]; };
  const LidMap& lids = opt.lids != nullptr ? *opt.lids : lfts.lids;
  CompiledFlows out;
  out.on_default.assign(n, false);

  // Where would a packet go without this job's entries: another job's entry, else the LFT.
  const auto default_port = [&](NodeIdx sw, Lid slid, Lid dlid) -> std::optional<PortNum> {
    if (const FlowEntry* e = winning_entry(foreign, sw, PacketHeader{slid, dlid})) {
      return e->action.output;
    }
    if (!lfts.has_table(sw)) return std::nullopt;
    return lfts.table(sw).out(dlid);
  };
  // An entry this job may not add: another job holds one with the same match and priority.
  // Only the two shapes the compiler emits can collide, so only those are indexed.
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint16_t, std::uint16_t>> held;
  for (const auto& [sw, table] : foreign) {
    for (const FlowEntry& e : table.entries()) {
      const FlowMatch& m = e.match;
      const auto shape = m == FlowMatch::exact_dlid(Lid(m.dlid ? m.dlid->value : 0))
                             ? std::optional<std::uint32_t>(0x10000u)
                         : m.slid && m == FlowMatch::exact_pair(Lid(m.slid->value),
                                                                Lid(m.dlid ? m.dlid->value : 0))
                             ? std::optional<std::uint32_t>(m.slid->value)
                             : std::nullopt;
      if (shape) held.emplace(sw.value(), *shape, m.dlid->value, e.priority);
    }
  }
  const auto taken = [&](NodeIdx sw, const FlowMatch& m, std::uint16_t priority) {
    const std::uint32_t src = m.slid ? m.slid->value : 0x10000u;
    return held.contains({sw.value(), src, m.dlid->value, priority});
  };
  const std::uint16_t exact_priority = opt.priority;
  const std::uint16_t wildcard_priority =
      static_cast<std::uint16_t>(opt.priority > 0 ? opt.priority - 1 : 0);

  // Where does each chosen path leave the default route?
  std::vector<std::vector<Hop>> hops(n);
  std::vector<std::vector<Hop>> needs(n);
  for (std::size_t i = 0; i < n; ++i) {
    opt.deadline.check_every(i, "compiling: checking paths");
    if (std::string why = validate_path(f, flows[i], paths[i]); !why.empty()) {
      throw std::invalid_argument("compile_flows: flow " + std::to_string(i) + ": " + why);
    }
    const Lid slid = lids.lid(flows[i].src);
    const Lid dlid = lids.lid(flows[i].dst);
    if (dlid.value() == 0 || slid.value() == 0) {
      throw std::invalid_argument("compile_flows: flow " + std::to_string(i) +
                                  " has an endpoint without a LID");
    }
    hops[i] = switch_hops(f, paths[i]);
    out.path_hops += hops[i].size();
    if (pinned(i)) continue;
    for (const Hop& h : hops[i]) {
      if (default_port(h.sw, slid, dlid) != h.port) needs[i].push_back(h);
    }
  }

  // Admit flows by importance while every switch they need has room.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return more_important(flows[a], flows[b]);
  });
  std::vector<std::uint32_t> used(f.num_nodes(), 0);
  if (opt.used) {
    for (std::size_t s = 0; s < used.size() && s < opt.used->size(); ++s) used[s] = (*opt.used)[s];
  }
  const auto in_lft = [&](NodeIdx sw) {
    return opt.lft_switches != nullptr && sw.value() < opt.lft_switches->size() &&
           (*opt.lft_switches)[sw.value()];
  };
  const bool all_dlid = opt.level == FlowDefinitionLevel::kDlid;
  const auto dlid_only = [&](NodeIdx sw) { return all_dlid || in_lft(sw); };
  // A destination-wide entry here would divert other jobs' traffic, or another job holds it.
  const auto wildcard_blocked = [&](NodeIdx sw, Lid dlid, PortNum port) {
    if (taken(sw, FlowMatch::exact_dlid(dlid), wildcard_priority)) return true;
    if (opt.foreign_traffic == nullptr) return false;
    const auto it = opt.foreign_traffic->find({sw, dlid.value()});
    if (it == opt.foreign_traffic->end()) return false;
    return it->second.size() > 1 || !it->second.contains(port.value());
  };
  std::map<std::pair<NodeIdx, std::uint16_t>, PortNum> dlid_port;  // kDlid: committed entries
  std::vector<bool> admitted(n, false);
  std::uint64_t step = 0;
  for (std::uint32_t i : order) {
    opt.deadline.check_every(step++, "compiling: admitting flows");
    if (pinned(i)) continue;
    const Lid slid = lids.lid(flows[i].src);
    const Lid dlid = lids.lid(flows[i].dst);
    std::map<NodeIdx, std::uint32_t> extra;
    bool fits = true;
    for (const Hop& h : needs[i]) {
      if (dlid_only(h.sw)) {
        auto it = dlid_port.find({h.sw, dlid.value()});
        if (it != dlid_port.end()) {
          fits = fits && it->second == h.port;
          continue;
        }
        fits = fits && !wildcard_blocked(h.sw, dlid, h.port);
      } else {
        fits = fits && !taken(h.sw, FlowMatch::exact_pair(slid, dlid), exact_priority);
      }
      ++extra[h.sw];
    }
    for (const auto& [sw, k] : extra) {
      fits = fits && (in_lft(sw) || used[sw.value()] + k <= opt.capacity);
    }
    if (!fits) continue;
    admitted[i] = true;
    for (const auto& [sw, k] : extra) used[sw.value()] += k;
    for (const Hop& h : needs[i]) {
      if (dlid_only(h.sw)) dlid_port.emplace(std::pair{h.sw, dlid.value()}, h.port);
    }
  }

  // The paths the job's flows would take if their entries were exact: chosen for admitted
  // flows, the default (other jobs' entries, then the LFT) for the others. A destination's
  // entries at a switch can be merged when all of these agree on the port there.
  TraceOptions foreign_only;
  if (!foreign.empty()) foreign_only.override_port = flow_table_override_of(foreign);
  std::vector<Path> intended(n);
  for (std::size_t i = 0; i < n; ++i) {
    opt.deadline.check_every(i, "compiling: tracing default routes");
    if (admitted[i]) {
      intended[i] = paths[i];
      continue;
    }
    Trace t = trace(f, lfts, flows[i].src, flows[i].dst, foreign_only);
    if (!t.ok()) {
      throw std::invalid_argument("compile_flows: the default route of flow " + std::to_string(i) +
                                  " fails: " + t.error);
    }
    intended[i] = std::move(t.path);
  }
  std::map<std::pair<NodeIdx, std::uint16_t>, std::set<std::uint8_t>> ports_toward;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t dlid = lids.lid(flows[i].dst).value();
    for (const Hop& h : switch_hops(f, intended[i]))
      ports_toward[{h.sw, dlid}].insert(h.port.value());
  }

  std::set<std::pair<NodeIdx, std::uint16_t>> merged;
  for (std::uint32_t i : order) {
    if (!admitted[i]) continue;
    const Lid slid = lids.lid(flows[i].src);
    const Lid dlid = lids.lid(flows[i].dst);
    out.override_hops += needs[i].size();
    for (const Hop& h : needs[i]) {
      const auto key = std::pair{h.sw, dlid.value()};
      const bool whole_destination =
          dlid_only(h.sw) ||
          (opt.aggregate && ports_toward[key].size() == 1 && !wildcard_blocked(h.sw, dlid, h.port));
      FlowEntry e;
      e.cookie = job.value();
      e.action.output = h.port;
      if (whole_destination) {
        if (!merged.insert(key).second) continue;  // one entry covers the destination already
        e.match = FlowMatch::exact_dlid(dlid);
        // Below the exact entries, so another job's per-pair entry would still win.
        e.priority = wildcard_priority;
      } else {
        e.match = FlowMatch::exact_pair(slid, dlid);
        e.priority = exact_priority;
      }
      out.tables[h.sw].push_back(e);
      ++out.entries;
    }
  }

  // What the fabric will really do: trace every flow through the LFTs, the other jobs' entries
  // and the new ones.
  const auto own = std::make_shared<const FlowTables>(build_flow_tables(out.tables));
  TraceOptions to;
  to.lids = opt.lids;
  to.override_port = [&foreign, own](NodeIdx sw, const PacketHeader& h) -> std::optional<PortNum> {
    const FlowEntry* e = winning_entry(*own, foreign, sw, h);
    if (e == nullptr) return std::nullopt;
    return e->action.output;
  };
  LinkLoad load(f);
  out.effective.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    opt.deadline.check_every(i, "compiling: tracing the compiled entries");
    Trace t = trace(f, lfts, flows[i].src, flows[i].dst, to);
    if (!t.ok()) {
      throw std::invalid_argument("compile_flows: flow " + std::to_string(i) +
                                  " is not delivered with the compiled entries: " + t.error);
    }
    out.effective[i] = std::move(t.path);
    out.on_default[i] = out.effective[i] != paths[i];
    out.flows_on_default += out.on_default[i] ? 1 : 0;
    load.add(out.effective[i]);
  }
  out.effective_max_link_load = load.max_flows();
  return out;
}

}  // namespace ibsdn
