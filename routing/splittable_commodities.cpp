#include "routing/splittable_commodities.hpp"

#include <algorithm>
#include <utility>

namespace ibsdn {
namespace {

std::string node_name(const Fabric& f, NodeIdx n) {
  return "'" + f.node(n).name + "'";
}

bool is_hca_of(const Fabric& f, NodeIdx n) {
  return n.valid() && n.value() < f.num_nodes() && f.node(n).is_hca();
}

}  // namespace

std::string collect_commodities(const Fabric& f, std::span<const Flow> flows,
                                std::vector<Commodity>& out) {
  std::vector<Flow> pairs;
  pairs.reserve(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& fl = flows[i];
    if (fl.src == fl.dst) continue;
    if (!is_hca_of(f, fl.src) || !is_hca_of(f, fl.dst)) {
      return "flow " + std::to_string(i) + ": " +
             (is_hca_of(f, fl.src) ? "destination" : "source") + " is not an HCA of the fabric";
    }
    pairs.push_back(fl);
  }
  std::sort(pairs.begin(), pairs.end(), [](const Flow& a, const Flow& b) {
    return std::pair(a.dst, a.src) < std::pair(b.dst, b.src);
  });
  for (const Flow& fl : pairs) {
    if (out.empty() || out.back().dst != fl.dst) out.push_back(Commodity{fl.dst, {}, {}, {}});
    std::vector<Demand>& s = out.back().sources;
    // A flow without a byte count weighs one byte, as in every volume measure (flow_volume).
    const std::uint64_t bytes = fl.bytes > 0 ? fl.bytes : 1;
    if (!s.empty() && s.back().src == fl.src) {
      s.back().bytes += bytes;
    } else {
      s.push_back(Demand{fl.src, bytes});
    }
  }
  return {};
}

CommodityPruner::CommodityPruner(const Fabric& f, LinkFilter allowed)
    : f_(f),
      allowed_(std::move(allowed)),
      source_(f.num_nodes(), 0),
      forward_(f.num_nodes(), 0),
      backward_(f.num_nodes(), 0),
      checked_(f.num_links(), 0),
      usable_(f.num_links(), false) {}

std::string CommodityPruner::prune(Commodity& c) {
  ++stamp_;
  queue_.clear();
  for (const Demand& d : c.sources) {
    source_[d.src.value()] = stamp_;
    forward_[d.src.value()] = stamp_;
    queue_.push_back(d.src);
  }
  search(c, forward_, true);
  backward_[c.dst.value()] = stamp_;
  queue_.assign(1, c.dst);
  search(c, backward_, false);
  for (const Demand& d : c.sources) {
    if (backward_[d.src.value()] != stamp_) {
      return "no allowed path from " + node_name(f_, d.src) + " to " + node_name(f_, c.dst);
    }
  }
  // After the backward search queue_ holds exactly the nodes that can reach the destination.
  for (NodeIdx n : queue_) {
    if (forward_[n.value()] != stamp_) continue;
    c.nodes.push_back(n);
    for (const Port& p : f_.node(n).ports) {
      if (p.connected() && usable(c, p.out) && backward_[p.peer.value()] == stamp_) {
        c.links.push_back(p.out);
      }
    }
  }
  return {};
}

bool CommodityPruner::usable(const Commodity& c, LinkId l) {
  if (checked_[l.value()] == stamp_) return usable_[l.value()];
  const Link& k = f_.link(l);
  bool ok = k.gbps > 0;
  if (ok && f_.node(k.from).is_hca()) ok = source_[k.from.value()] == stamp_;
  if (ok && f_.node(k.to).is_hca()) ok = k.to == c.dst;
  if (ok && allowed_) ok = allowed_(c.dst, l);
  checked_[l.value()] = stamp_;
  usable_[l.value()] = ok;
  return ok;
}

/// Breadth-first over usable links from the nodes in queue_ (already marked), downstream
/// (forward) or upstream; every node reached is marked and appended to queue_.
void CommodityPruner::search(const Commodity& c, std::vector<std::uint32_t>& mark, bool forward) {
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    for (const Port& p : f_.node(queue_[head]).ports) {
      if (!p.connected() || mark[p.peer.value()] == stamp_) continue;
      if (!usable(c, forward ? p.out : f_.reverse(p.out))) continue;
      mark[p.peer.value()] = stamp_;
      queue_.push_back(p.peer);
    }
  }
}

}  // namespace ibsdn
