// Weighted max-min fair sharing of directed links among flows, each optionally capped: the
// solver under the flow-level model (flow_model.hpp), SimGrid's lmm "max-min" system without its
// other sharing policies.
//
// A flow f has a weight w_f > 0 and an optional cap. Progressive filling raises a level t from 0;
// every unfixed flow's rate is t x w_f; a link saturates when the rates of its flows reach its
// capacity, which fixes its unfixed flows; a flow reaching its cap is fixed at it. The result is
// the unique weighted max-min fair allocation.
//
// Traffic classes (seed 004): every flow has a class; a class has a priority and a share,
// the most of every link's capacity its flows may use together. Classes are served in strict
// priority (the highest first, ties by class index), each by its own progressive filling over
// what the classes before it left of every link, capped by its share. One class of share 1 is
// plain (weighted) max-min. A class that `borrows` is capped only while others want the rest, as
// seed 004's arbiter does (a class over its cap waits until no other class has packets): after
// every class had its turn, one more progressive filling gives what no class took of each link to
// the flows of borrowing classes, max-min among all of them whatever their class and priority
// (seed 004 serves classes over their caps round-robin; the flow model shares per flow).
//
// solve_all() runs the progressive filling over every flow (max_min_sharing.cpp). solve_touched()
// (max_min_incremental.cpp) re-solves only what the changes since the last solve (flows added or
// removed, and for lower classes the links whose higher-class load moved) can change, and gives the
// same allocation (up to rounding: it works on residual capacities, so the last bits may differ).
//
// Why solve_touched() is exact. Every flow keeps the certificate of its rate from the last solve:
// its cap, or its bottleneck, a link that was saturated with no flow on it at a higher normalised
// rate (rate / weight). A feasible allocation in which every flow has such a certificate is the
// max-min fair one (it is unique), so a re-solve only has to leave no flow without one. It runs
// progressive filling over a set S of flows, the others held at their old rates (their links'
// capacity less those rates is what S shares), and widens S as the level t rises:
//   - S starts with the new flows; the links touched (and, for a lower class, those whose
//     higher-class load changed) enter the solve. A touched link that is now over-full pulls in
//     every flow of the class on it with a rate above 0.
//   - When a link enters the solve, the held flows whose bottleneck it is get a check at their
//     normalised rate (they all got the link's level when it saturated; the lowest of them, should
//     rounding part them): when t reaches it, the link must still be saturated (its capacity less
//     the held rates, less t x the weights of S's unfixed flows on it, is ~0). If not, they join S
//     at t (each was using about t x weight, so no link's state jumps). A flow with its bottleneck
//     elsewhere keeps a valid certificate: the link did not change, and nothing on it did.
//   - When a link saturates at t with held flows on it above t, its saturation comes from their
//     old rates, which they would have to give up: they join S at t instead of S being fixed.
// A link enters when a flow on it joins at t; that flow was at or below the normalised rate of
// every held flow whose bottleneck the link is, so their checks are never in the past. At the end
// S's flows are fixed at a cap or at a link with nothing on it above them, checked held flows
// keep a saturated bottleneck with nothing above them, and unchecked ones have one that did not
// change: every flow has its certificate. Relative slack 1e-12 in the comparisons absorbs
// rounding. Classes are solved in order, each against the final rates of the classes before it.
//
// Borrowing classes make every solve a full one (solve_touched() runs solve_all()): exact, but
// not bounded by what moves. The certificates above hold for the rates the classes' fillings
// give; borrowing then raises flows above them, and what a flow may borrow on a link depends on
// every class's rate there, so a held flow's certificate says nothing about its borrowed part
// and a change anywhere in the classes' solves can move the borrowing everywhere. A full solve
// first re-solves every class from scratch (the classes' rates, not the borrowed ones, are what
// lower classes share), then borrows; it reports the flows whose final rate differs from before.
//
// Cost: the flows whose rate changes, those sharing their links that have to be looked at, and
// the checks; not the connected component. On a fabric where most flows cross one another a single
// start or end does move most rates (max-min couples a link's flows through their levels), and
// then an exact re-solve costs more than a full one (set_full_fallback).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "routing/ids.hpp"
#include "sim_backend/flowmodel/level_heaps.hpp"

namespace ibsdn {

struct TrafficClass {
  int priority = 0;       // served before every class of a lower priority
  double link_share = 1;  // in (0, 1]: the most of a link's capacity the class's flows use
  bool borrow = false;    // above link_share, still takes what no other class uses
};

class MaxMinSharing {
 public:
  using FlowSlot = std::uint32_t;

  /// Links with these capacities (> 0), and the traffic classes (at least one, at most 256).
  explicit MaxMinSharing(std::vector<double> capacities,
                         std::vector<TrafficClass> classes = {TrafficClass{}});

  /// Adds a flow of class `traffic_class` over `route` (distinct links, at least one) with weight
  /// > 0 and cap (0: none); its rate is 0 until the next solve (and may stay 0 when classes of a
  /// higher priority fill its links). Slots of removed flows are reused.
  FlowSlot add(std::span<const LinkId> route, double weight, double cap,
               std::uint8_t traffic_class = 0);
  /// Removes a flow; its links are touched.
  void remove(FlowSlot f);

  /// Re-solves what the changes since the last solve can change (the header comment; every flow
  /// when a class borrows); appends
  /// the flows whose rate changed (bit for bit) to `changed`. Returns the number of flows
  /// re-solved.
  std::size_t solve_touched(std::vector<FlowSlot>& changed);
  /// Whether solve_touched() solves in full for the next 16 calls after an incremental solve
  /// that re-solved more than 40 % of the flows it already had, the new ones aside (default on).
  /// Both are exact; per flow a full solve costs about a third of an incremental one, so where one
  /// start or end moves most rates (flows spread evenly over a fabric's links) solving in full is
  /// the cheaper of the two, and it tries the incremental solve again after the 16. Tests of the
  /// incremental solve turn this off.
  void set_full_fallback(bool on) {
    full_fallback_ = on;
    if (!on) full_solves_left_ = 0;
  }
  /// Re-solves every flow; otherwise as solve_touched.
  std::size_t solve_all(std::vector<FlowSlot>& changed);

  [[nodiscard]] double rate(FlowSlot f) const { return flows_[f].rate; }
  [[nodiscard]] std::size_t active_flows() const { return active_; }
  [[nodiscard]] std::size_t num_links() const { return links_.size(); }

 private:
  // A flow's certificate (the header comment): a link index, or one of these.
  static constexpr std::uint32_t kAtCap = 0xfffffffe;
  static constexpr std::uint32_t kUnsolved = 0xffffffff;

  // Flows live in slots; a slot's hot fields are one small record, its mark an entry of a dense
  // array (a saturating link finds its open flows by those alone), and its route a fixed-stride
  // row of route_links_ (the stride is the longest route yet), so a solve reaches a flow's record
  // and route without following a pointer and can fetch both ahead of use.
  struct Flow {
    double weight = 1;
    double cap = 0;
    double rate = 0;
    double base = 0;  // what the filling under way started from: 0, or borrowing its class's rate
    std::uint32_t bottleneck = kUnsolved;
    std::uint16_t hops = 0;  // route length
    std::uint8_t traffic_class = 0;
    bool live = false;
  };
  struct Link {
    double capacity = 0;
    std::vector<FlowSlot> flows;
    // Progressive filling state of the class being solved, while the link is in the solve.
    double remaining = 0;   // the class's capacity less the rates of held and fixed flows
    double weight_sum = 0;  // of S's unfixed flows
    std::uint32_t unfixed = 0;
    std::uint32_t held = 0;   // the class's flows on the link outside S
    double held_max = 0;      // at least their largest normalised rate
    std::uint32_t mark = 0;   // == epoch_: in the solve
    std::uint32_t dirty = 0;  // == epoch_: in dirty_
    std::uint32_t seed = 0;   // == solve_count_: in seeds_
    bool touched = false;
  };

  void touch(LinkId l);
  void next_epoch();
  [[nodiscard]] std::span<const std::uint32_t> route(FlowSlot f) const {
    return {route_links_.data() + std::size_t{f} * stride_, flows_[f].hops};
  }
  /// Makes rows at least `hops` long.
  void widen_routes(std::size_t hops);
  // A slot's mark (mark_): in S, the set being solved, or open (in S and not fixed yet).
  [[nodiscard]] bool in_set(FlowSlot f) const { return (mark_[f] | 1U) == epoch_ + 1; }
  [[nodiscard]] bool open(FlowSlot f) const { return mark_[f] == epoch_; }
  std::size_t solve(bool all, std::vector<FlowSlot>& changed);
  void add_seed(std::uint32_t l);
  /// One class's progressive filling: over all its flows, or from the seeds (the header comment).
  std::size_t solve_class(std::uint8_t c, bool all, std::vector<FlowSlot>& changed);
  /// The class's share of a link: its share of the capacity, at most what the classes before it
  /// left.
  [[nodiscard]] double class_capacity(const Link& link, std::uint8_t c) const;
  /// Brings link l into the solve of class c; flows of S on it must be marked already.
  void enter(std::uint32_t l, std::uint8_t c);
  /// Brings link l into a solve of class c in which no flow is held, with no flow of S on it yet.
  void enter_empty(std::uint32_t l, std::uint8_t c);
  /// Moves a held flow into S, unfixed, at the current level.
  void join(FlowSlot f, std::uint8_t c);
  /// Joins the held flows on l whose normalised rate is above `level`; false when there are none.
  bool release_held(std::uint32_t l, double level, std::uint8_t c);
  /// Joins the held flows whose bottleneck is l unless l is still saturated at `level`.
  void check_bottleneck(std::uint32_t l, double level, std::uint8_t c);
  /// Raises the level until every flow of S is fixed (class c: whose held flows may join).
  void fill(std::uint8_t c, std::vector<FlowSlot>& changed);
  /// fill() for a solve in which nothing joins and nothing is checked (every flow of the class in
  /// S, or borrowing): levels only rise, and the links wait in a radix heap.
  void fill_rising(std::vector<FlowSlot>& changed);
  /// Fixes the open flows of link l, saturated at `level`.
  void saturate(std::uint32_t l, double level, std::vector<FlowSlot>& changed);
  /// What the classes left of every link, to the flows of borrowing classes (the header comment).
  void solve_borrowed();
  /// Brings link l into the borrowing solve: what no class took of it, S's flows on it unfixed.
  void enter_spare(std::uint32_t l);
  /// Fixes f at `rate` (its base and more), certified by `bottleneck`.
  void fix(FlowSlot f, double rate, std::uint32_t bottleneck, std::vector<FlowSlot>& changed);
  [[nodiscard]] static double link_level(const Link& link);
  void push_level(std::uint32_t l);
  /// Brings the heap's top entries up to date until the top is.
  void settle_top();
  void flush_dirty();

  std::vector<TrafficClass> classes_;
  std::vector<std::uint8_t> class_order_;  // by priority (highest first), then index
  std::vector<std::uint8_t> class_rank_;   // a class's position in class_order_
  bool borrowing_ = false;                 // a class of share < 1 borrows: every solve is full
  bool full_fallback_ = true;
  bool rising_only_ = false;            // the fill under way only raises levels: fixes push none
  std::uint32_t full_solves_left_ = 0;  // solve_touched() calls to solve in full
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> mark_;         // per slot: epoch_ in S and unfixed, epoch_ + 1 fixed
  std::vector<std::uint32_t> route_links_;  // slot f's route: stride_ entries from f x stride_
  std::vector<std::uint32_t> route_pos_;    // the flow's index in each route link's `flows`
  std::size_t stride_ = 8;
  std::vector<FlowSlot> free_slots_;
  std::vector<FlowSlot> added_;  // since the last solve
  std::vector<Link> links_;
  std::vector<std::uint32_t> touched_;
  std::size_t active_ = 0;
  std::uint32_t epoch_ = 2;  // even; marks 0 and 1 are never in S
  std::uint32_t solve_count_ = 0;
  // Scratch reused by every solve.
  std::vector<std::uint32_t> seeds_;  // links whose class capacity or flows changed
  std::vector<FlowSlot> flow_set_;
  std::vector<FlowSlot> batch_;  // the open flows of a saturating link
  std::vector<std::uint32_t> dirty_;
  // Links by the level at which they saturate (remaining / weight_sum, if nothing else changes).
  // A level that falls moves at once; one that rises is a bound from below until it comes up
  // (push_level, settle_top). fill() keeps them in link_heap_, fill_rising() in rising_heap_.
  IndexedLevelHeap link_heap_;
  RadixLevelHeap rising_heap_;
  std::vector<LevelEntry> cap_heap_;     // S's capped flows by cap / weight
  std::vector<LevelEntry> check_heap_;   // links to check, by their held flows' rate (link index)
  std::vector<double> prior_rates_;      // borrowing: every slot's rate before the solve
  std::vector<FlowSlot> class_changed_;  // borrowing: what the classes' solves moved
};

}  // namespace ibsdn
