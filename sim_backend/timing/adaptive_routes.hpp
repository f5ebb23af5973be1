// Adaptive routing at flow granularity for the flow-level timing model (docs/simulation-timing.md):
// the routes a message takes, chosen from the fabric and the link loads at the moment it starts.
//
// The flow model has no packets, so per-packet adaptivity becomes a choice of routes per message:
// on a fat-tree a split over several minimal routes (the engine gives each of k routes a sub-flow
// of weight 1/k and max-min sharing spreads the bytes by the bandwidth each route has left); on a
// dragonfly or megafly one route, minimal or Valiant, chosen by UGAL or progressive adaptive
// routing (PAR). docs/simulation-timing.md, "Adaptive routing in the flow model", states the
// rules.
//
// Link loads (LinkLoads): one value per directed link of the fabric, indexed by LinkId::value(),
// in flows: the summed weights of the flows already crossing the link (a message on one route
// counts 1, each of a split message's k sub-flows 1/k), divided by the link's capacity relative to
// a reference capacity when capacities differ (LinkFlowLoads does both). Flows rather than the
// utilisation of the max-min solution, because a utilisation saturates at 1 on every bottleneck:
// it cannot tell a link carrying one flow from one carrying ten, while a new flow gets about
// capacity / (n + 1) of a link that n flows share; and because counts change as soon as a flow is
// added, before the next re-solve, so messages starting at one instant see each other. Loads
// within 1e-9 of each other are ties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "routing/fabric.hpp"
#include "routing/fat_tree_paths.hpp"
#include "routing/flow.hpp"

namespace ibsdn {

/// Read-only per-directed-link loads, in flows (see the file comment); size == num_links().
using LinkLoads = std::span<const double>;

/// Keeps LinkLoads up to date as flows come and go: add() and remove() cost O(route length).
class LinkFlowLoads {
 public:
  /// Every link's load is divided by (its capacity / reference_gbps); reference_gbps <= 0 takes
  /// the largest capacity of the fabric.
  explicit LinkFlowLoads(const Fabric& f, double reference_gbps = 0);
  void add(std::span<const LinkId> route, double weight);
  /// The reverse of add(route, weight); a load that falls below 1e-9 becomes exactly 0.
  void remove(std::span<const LinkId> route, double weight);
  [[nodiscard]] LinkLoads view() const { return loads_; }

 private:
  std::vector<double> scale_;  // 1 / (capacity / reference)
  std::vector<double> loads_;
};

// ----------------------------------------------------------------------------------------------
// Fat-trees (any layered up*/down* fabric: complete, tapered or degraded XGFTs).

struct FatTreeAdaptiveOptions {
  /// A leaf up-port is used when its link's load is at most the least loaded candidate's plus
  /// this many flows. Infinity: every up-port on a shortest path (oblivious spreading).
  double split_slack = 1.0;
  /// At most this many routes, the least loaded up-ports first (ties by port order); 0: no bound
  /// but the source leaf's up-ports.
  std::size_t max_routes = 0;
};

/// The split of a message over minimal up*/down* routes, as per-packet least-loaded up-port
/// choice spreads a message's packets. Rule, for hosts s and d:
/// - on one leaf: the single route s, leaf, d;
/// - otherwise one route per up-port p of s's leaf that lies on a shortest up*/down* path to d's
///   leaf (TowardLeaf) and whose link load is within split_slack of the least loaded such port
///   (then the max_routes least loaded); each route climbs from p's switch by its least loaded
///   valid up-port (ties: the lowest port number) to the turn level, then goes down the valid
///   down-port (the unique one on an XGFT; the least loaded among parallel cables), to d.
/// Routes come in the order of their leaf up-port; they differ in their first switch-to-switch
/// link, so there are at most as many as the leaf has up-ports (w_2 on an XGFT).
/// Cost: O(k x h x U) per call (k routes, h levels, U up-ports per switch), no allocation once
/// `out`'s paths have grown; the first call toward each destination leaf computes its TowardLeaf
/// (O(nodes), kept: O(leaves x nodes) bytes at most). Not thread-safe.
class FatTreeAdaptiveRoutes {
 public:
  /// Throws std::invalid_argument when the fabric has no fat-tree layout or the options are bad.
  explicit FatTreeAdaptiveRoutes(const Fabric& f, FatTreeAdaptiveOptions options = {});

  /// Replaces `out` with the routes from HCA `src` to HCA `dst` (directed links, host to host)
  /// and returns their count (>= 1). Throws std::invalid_argument naming the problem when src or
  /// dst is not a host of the tree, src == dst, `loads` has the wrong size, a load read is
  /// negative or not a number, or no up*/down* path joins the two.
  std::size_t routes(NodeIdx src, NodeIdx dst, LinkLoads loads, std::vector<Path>& out);

 private:
  struct Candidate {
    PortNum port{};
    double load = 0;
  };
  [[nodiscard]] double load(LinkLoads loads, LinkId l) const;
  /// The least, over n's shortest ways down to tw's leaf, of the most loaded link on the way (0
  /// at the leaf).
  [[nodiscard]] double down_bottleneck(const TowardLeaf& tw, NodeIdx n, LinkLoads loads) const;
  [[nodiscard]] std::uint32_t host(NodeIdx n, const char* which) const;

  const Fabric& f_;
  const FatTreeLayout& t_;
  FatTreeAdaptiveOptions options_;
  UpDownPaths paths_;  // the TowardLeaf cache
  std::vector<Candidate> candidates_;
};

// ----------------------------------------------------------------------------------------------
// Dragonflies and megaflies (routing/dragonfly.hpp).

enum class DragonflyAdaptiveRule : std::uint8_t {
  kUgalLocal,    // UGAL-L: the load of each path's first switch-to-switch link
  kUgalGlobal,   // UGAL-G: the largest load on each path's switch-to-switch links
  kProgressive,  // PAR: UGAL-L at the source router, again at the minimal path's gateway
};

/// "ugal-l", "ugal-g", "par"; throws std::invalid_argument listing them otherwise.
DragonflyAdaptiveRule parse_dragonfly_adaptive_rule(std::string_view name);
std::string_view to_string(DragonflyAdaptiveRule rule);

struct DragonflyAdaptiveOptions {
  DragonflyAdaptiveRule rule = DragonflyAdaptiveRule::kProgressive;
  /// b in "minimal iff q_m x H_m <= q_nm x H_nm + b", in flows x switch-to-switch hops: b / H_m
  /// is the load a minimal path may carry before an idle Valiant path is preferred. The default
  /// keeps a 3-hop minimal path while it carries at most one flow more than the Valiant path.
  double bias = 3.0;
  /// Valiant paths drawn per decision, the best (least q x H, then the first drawn) competing.
  std::uint32_t valiant_candidates = 1;
  /// Seeds the draws (intermediate group, global links, local route), with each call's key.
  std::uint64_t seed = 0;
};

enum class DragonflyDecision : std::uint8_t {
  kMinimal,        // a minimal path (the only kind within a group or with fewer than 3 groups)
  kValiant,        // a Valiant path chosen at the source router
  kDivertedByPar,  // PAR: minimal at the source router, Valiant from the gateway router on
};
std::string_view to_string(DragonflyDecision decision);

/// UGAL-L, UGAL-G and PAR at flow granularity. Rule, for hosts s and d on routers rs and rd in
/// groups gs and gd (H: switch-to-switch hops; q: the rule's load measure; ties within 1e-9):
/// - the minimal candidate: of the minimal paths (routing/dragonfly.hpp: one per global link
///   between gs and gd, or per spine between two leaves of a megafly group), the one of least q,
///   ties to df-minimal's hashed choice, then in rotation from it;
/// - gs == gd or fewer than 3 groups: that path;
/// - otherwise valiant_candidates Valiant paths are drawn (intermediate group uniform over the
///   others, then both global links and the local route inside it uniform, from
///   PatternRng(hash(seed, key, s, d))); the minimal path is taken iff
///   q_m x H_m <= q_nm x H_nm + bias, else the best Valiant one (kValiant);
/// - PAR only, when minimal won and the minimal global link leaves from a router gw != rs (always
///   on a megafly: the spine): at gw, the minimal path's remaining part (q'_m: the global link's
///   load) is weighed against a Valiant path through one of gw's own global links to a group
///   other than gs, gd (drawn uniformly; q'_nm: that link's load), both counting hops from gw on;
///   if "minimal" loses, the route is that Valiant path, sharing the minimal one's hops to gw
///   (kDivertedByPar). Diverting through gw's own links keeps the route loop-free.
/// Cost: O((minimal paths + valiant_candidates + 1) x path length + gw's ports) per call, no
/// allocation once the buffers have grown. Not thread-safe.
class DragonflyAdaptiveRoutes {
 public:
  /// Throws std::invalid_argument when the fabric has no dragonfly layout or the options are bad.
  explicit DragonflyAdaptiveRoutes(const Fabric& f, DragonflyAdaptiveOptions options = {});

  /// Replaces `out` with the route from HCA `src` to HCA `dst`; `key` (e.g. the message id)
  /// varies the draws between messages of one pair. Throws std::invalid_argument naming the
  /// problem when src or dst is not a host of the fabric, src == dst, `loads` has the wrong size,
  /// or a load read is negative or not a number.
  DragonflyDecision route(NodeIdx src, NodeIdx dst, std::uint64_t key, LinkLoads loads, Path& out);

 private:
  struct Scored {
    double q = 0;
    std::size_t hops = 0;
    [[nodiscard]] double cost() const { return q * static_cast<double>(hops); }
  };
  [[nodiscard]] double load(LinkLoads loads, LinkId l) const;
  [[nodiscard]] Scored score(const Path& p, LinkLoads loads) const;
  void check_host(NodeIdx n, const char* which) const;

  const Fabric& f_;
  const DragonflyLayout& x_;
  DragonflyAdaptiveOptions options_;
  Path buf_;
  Path best_min_;
  Path best_valiant_;
};

// ----------------------------------------------------------------------------------------------
// One entry point for the simulator: whichever of the two the fabric's layout calls for.

struct AdaptiveRoutingOptions {
  FatTreeAdaptiveOptions fat_tree;
  DragonflyAdaptiveOptions dragonfly;
};

class AdaptiveRoutes {
 public:
  /// Throws std::invalid_argument when the fabric is neither a fat-tree nor a dragonfly-class
  /// fabric (a fat-tree layout wins when both are attached).
  explicit AdaptiveRoutes(const Fabric& f, const AdaptiveRoutingOptions& options = {});
  ~AdaptiveRoutes();
  AdaptiveRoutes(AdaptiveRoutes&&) noexcept;
  AdaptiveRoutes& operator=(AdaptiveRoutes&&) noexcept;

  /// Replaces `out` with the routes of a message from `src` to `dst` (one on a dragonfly) and
  /// returns their count; `key` as DragonflyAdaptiveRoutes::route (unused on fat-trees).
  std::size_t routes(NodeIdx src, NodeIdx dst, std::uint64_t key, LinkLoads loads,
                     std::vector<Path>& out);

 private:
  std::unique_ptr<FatTreeAdaptiveRoutes> fat_tree_;
  std::unique_ptr<DragonflyAdaptiveRoutes> dragonfly_;
};

}  // namespace ibsdn
