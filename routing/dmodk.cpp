// Destination-mod-k and source-mod-k on XGFTs (thesis 2.2.1; Zahavi's D-mod-K).
//
// Going up from level l-1, the up digit y_l is floor(key / (w_1*...*w_{l-1})) mod w_l, where the
// key is the destination's host index (DmodK) or the source's (SmodK). DmodK depends only on the
// destination, so it is exactly what a linear forwarding table can hold; SmodK is not.
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {
namespace {

class ModK final : public XgftRoutingAlgorithm {
 public:
  explicit ModK(bool by_destination) : by_destination_(by_destination) {}
  std::string_view name() const override { return by_destination_ ? "dmodk" : "smodk"; }
  std::string_view summary() const override {
    return by_destination_ ? "destination-mod-k up-port choice (the LFT default on fat-trees)"
                           : "source-mod-k up-port choice (reference; not expressible in an LFT)";
  }
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
