#include <algorithm>
#include <stdexcept>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/fat_tree.hpp"
#include "routing/named_registry.hpp"
#include "routing/xgft.hpp"

namespace ibsdn {

#define IBSDN_ALGORITHM(name, suffix) std::unique_ptr<RoutingAlgorithm> make_##suffix();
#include "routing/algorithms.def"
#undef IBSDN_ALGORITHM

namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<RoutingAlgorithm> (*make)();
};

constexpr Entry kAlgorithms[] = {
#define IBSDN_ALGORITHM(name, suffix) {name, &make_##suffix},
#include "routing/algorithms.def"
#undef IBSDN_ALGORITHM
};

}  // namespace

std::unique_ptr<RoutingAlgorithm> make_algorithm(std::string_view name) {
  return find_named(kAlgorithms, name, "routing algorithm").make();
}

std::vector<std::string> algorithm_names() {
  return names_of(kAlgorithms);
}

bool is_algorithm(std::string_view name) {
  return std::ranges::any_of(kAlgorithms, [name](const Entry& e) { return e.name == name; });
}

bool RoutingAlgorithm::route_by_destination(const Fabric& /*f*/, const Deadline& /*deadline*/,
                                            const DestinationColumnSink& /*sink*/) const {
  return false;
}

void check_flows(const RouteRequest& req) {
  const std::size_t n = req.fabric.num_nodes();
  for (std::size_t i = 0; i < req.flows.size(); ++i) {
    const Flow& f = req.flows[i];
    if (!f.src.valid() || !f.dst.valid() || f.src.value() >= n || f.dst.value() >= n ||
        !req.fabric.node(f.src).is_hca() || !req.fabric.node(f.dst).is_hca()) {
      throw std::invalid_argument("flow " + std::to_string(i) + ": endpoints must be HCAs");
    }
    if (f.src == f.dst) {
      throw std::invalid_argument("flow " + std::to_string(i) + ": source equals destination (" +
                                  req.fabric.node(f.src).name + ")");
    }
  }
  if (req.background && req.background->size() != req.fabric.num_links()) {
    throw std::invalid_argument("background load does not match the fabric");
  }
}

void check_per_destination(const RouteRequest& req, const RoutingAlgorithm& alg) {
  if (!req.per_destination || alg.honours_per_destination()) return;
  std::string honouring;
  for (const Entry& e : kAlgorithms) {
    if (!e.make()->honours_per_destination()) continue;
    honouring += (honouring.empty() ? "" : ", ") + std::string(e.name);
  }
  throw std::invalid_argument(std::string(alg.name()) +
                              " cannot route for a target with one output port per switch and "
                              "destination (an LFT): its choice depends on more than the "
                              "destination; these can: " +
                              honouring);
}

namespace {

const DragonflyLayout* layout_of(const Fabric& f, const DragonflyLayout*) {
  return f.dragonfly();
}
const char* layout_needed(const DragonflyLayout*) {
  return "needs a dragonfly or megafly layout (generate one or load a netlist recognised as one)";
}

}  // namespace

template <typename Layout>
std::string LayoutRoutingAlgorithm<Layout>::unsupported_reason(const Fabric& f) const {
  return layout_of(f, static_cast<const Layout*>(nullptr))
             ? ""
             : layout_needed(static_cast<const Layout*>(nullptr));
}

template <typename Layout>
std::vector<Path> LayoutRoutingAlgorithm<Layout>::route(const RouteRequest& req) const {
  check_flows(req);
  check_per_destination(req, *this);
  const Layout* layout = layout_of(req.fabric, static_cast<const Layout*>(nullptr));
  if (!layout) {
    throw std::invalid_argument(std::string(name()) + ": " + unsupported_reason(req.fabric));
  }
  return route_on(req, *layout);
}

template class LayoutRoutingAlgorithm<DragonflyLayout>;

std::string FatTreeRoutingAlgorithm::unsupported_reason(const Fabric& f) const {
  return f.xgft() != nullptr || f.fat_tree() != nullptr
             ? ""
             : "needs a fat-tree (generate one, or load a fabric whose cables join adjacent "
               "levels)";
}

std::vector<Path> FatTreeRoutingAlgorithm::route(const RouteRequest& req) const {
  check_flows(req);
  check_per_destination(req, *this);
  if (const XgftLayout* x = req.fabric.xgft()) return route_on(req, *x);
  if (const FatTreeLayout* t = req.fabric.fat_tree()) return route_on_tree(req, *t);
  throw std::invalid_argument(std::string(name()) + ": " + unsupported_reason(req.fabric));
}

}  // namespace ibsdn
