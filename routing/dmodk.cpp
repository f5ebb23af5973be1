// Destination-mod-k and source-mod-k on XGFTs (thesis 2.2.1; Zahavi's D-mod-K).
//
// Going up from level l-1, the up digit y_l is floor(key / (w_1*...*w_{l-1})) mod w_l, where the
// key is the destination's host index (DmodK) or the source's (SmodK). DmodK depends only on the
// destination, so it is exactly what a linear forwarding table can hold; SmodK is not.
// On any other fat-tree the same digits pick among each switch's up ports, skipping those that
// leave the shortest up*/down* paths of what remains (UpDownPaths::modk_path).
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/fat_tree_paths.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

class ModK final : public FatTreeRoutingAlgorithm {
 public:
  explicit ModK(bool by_destination) : by_destination_(by_destination) {}
  std::string_view name() const override { return by_destination_ ? "dmodk" : "smodk"; }
  std::string_view summary() const override {
    return by_destination_ ? "destination-mod-k up-port choice (the LFT default on fat-trees)"
                           : "source-mod-k up-port choice (reference; not expressible in an LFT)";
  }
  bool honours_per_destination() const override { return by_destination_; }
  std::vector<Path> route_on(const RouteRequest& req, const XgftLayout& layout) const override {
    const XgftLayout* x = &layout;
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "dmodk routes the flows");
      const std::uint32_t s = x->host_of_node[req.flows[i].src.value()];
      const std::uint32_t d = x->host_of_node[req.flows[i].dst.value()];
      out[i].reserve(2 * static_cast<std::size_t>(x->params.h));
      xgft_path(req.fabric, *x, s, d, y_index(*x, by_destination_ ? d : s), out[i]);
    }
    return out;
  }

  std::vector<Path> route_on_tree(const RouteRequest& req,
                                  const FatTreeLayout& layout) const override {
    UpDownPaths paths(req.fabric, layout);
    std::vector<Path> out(req.flows.size());
    for (std::size_t i = 0; i < req.flows.size(); ++i) {
      req.deadline.check_every(i, "dmodk routes the flows");
      const std::uint32_t s = layout.host_of_node[req.flows[i].src.value()];
      const std::uint32_t d = layout.host_of_node[req.flows[i].dst.value()];
      paths.modk_path(s, d, by_destination_ ? d : s, out[i]);
    }
    return out;
  }

  bool route_by_destination(const Fabric& f, const Deadline& deadline,
                            const DestinationColumnSink& sink) const override {
    if (!by_destination_) return false;
    const XgftLayout* x = f.xgft();
    if (x == nullptr) {
      if (const FatTreeLayout* t = f.fat_tree()) return columns_on_tree(f, *t, deadline, sink);
      throw std::invalid_argument(std::string(name()) + ": " + unsupported_reason(f));
    }
    const int h = x->params.h;
    std::vector<PortNum> out(f.num_nodes(), PortNum{});
    for (std::uint32_t d = 0; d < x->hosts.size(); ++d) {
      deadline.check_every(d, "dmodk fills the tables toward each destination");
      std::fill(out.begin(), out.end(), PortNum{});
      const std::uint64_t y = y_index(*x, d);
      for (int l = 1; l <= h; ++l) {
        const auto& level = x->switches[static_cast<std::size_t>(l - 1)];
        const std::uint64_t positions = x->w_prefix[l];  // switches per x index
        const std::uint64_t y_here = y % positions;
        const std::uint64_t x_of_d = d / x->m_prefix[l];
        const auto down = static_cast<std::size_t>(x->host_digit(d, l));
        const auto up = l < h ? static_cast<std::size_t>((y / positions) %
                                                         static_cast<std::uint64_t>(x->params.w[l]))
                              : 0;
        for (std::uint64_t xi = 0; xi * positions < level.size(); ++xi) {
          const NodeIdx sw = level[xi * positions + y_here];
          out[sw.value()] =
              xi == x_of_d ? x->down_port[sw.value()][down] : x->up_port[sw.value()][up];
        }
      }
      sink(DestinationColumn{x->hosts[d], out});
    }
    return true;
  }

  // One leaf's shortest-path structure serves all its hosts; a column costs O(switches).
  static bool columns_on_tree(const Fabric& f, const FatTreeLayout& t, const Deadline& deadline,
                              const DestinationColumnSink& sink) {
    UpDownPaths paths(f, t);
    std::vector<PortNum> out(f.num_nodes(), PortNum{});
    TowardLeaf tw;
    std::uint64_t done = 0;
    for (NodeIdx leaf : t.switches.front()) {
      tw.compute(f, t, leaf);
      for (PortNum host_port : t.down_ports[leaf.value()]) {
        deadline.check_every(done++, "dmodk fills the tables toward each destination");
        const NodeIdx dst = f.port(leaf, host_port).peer;
        const std::uint32_t d = t.host_of_node[dst.value()];
        for (const auto& level : t.switches) {
          for (NodeIdx sw : level) out[sw.value()] = paths.modk_port(tw, sw, d);
        }
        out[leaf.value()] = host_port;
        sink(DestinationColumn{dst, out});
      }
    }
    return true;
  }

  static std::uint64_t y_index(const XgftLayout& x, std::uint64_t key) {
    std::uint64_t y = 0;
    for (int l = 2; l <= x.params.h; ++l) {
      const std::uint64_t digit =
          (key / x.w_prefix[l - 1]) % static_cast<std::uint64_t>(x.params.w[l - 1]);
      y += digit * x.w_prefix[l - 1];
    }
    return y;
  }

 private:
  bool by_destination_;
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_dmodk() {
  return std::make_unique<ModK>(true);
}
std::unique_ptr<RoutingAlgorithm> make_smodk() {
  return std::make_unique<ModK>(false);
}

}  // namespace ibsdn
