// Weighted max-min fair sharing of directed links among flows, each optionally capped: the
// solver under the flow-level model (flow_model.hpp), SimGrid's lmm "max-min" system without its
// other sharing policies.
//
// A flow f has a weight w_f > 0 and an optional cap. Progressive filling raises a level t from 0;
// every unfixed flow's rate is t x w_f; a link saturates when the rates of its flows reach its
// capacity, which fixes its unfixed flows; a flow reaching its cap is fixed at it. The result is
// the unique weighted max-min fair allocation.
//
// Traffic classes (issue 12, seed 004): every flow has a class; a class has a priority and a share,
// the most of every link's capacity its flows may use together. Classes are served in strict
// priority (the highest first, ties by class index), each by its own progressive filling over
// what the classes before it left of every link, capped by its share. One class of share 1 is
// plain (weighted) max-min. A class that `borrows` is capped only while others want the rest, as
// seed 004's arbiter does (a class over its cap waits until no other class has packets): after
// every class had its turn, one more progressive filling gives what no class took of each link to
// the flows of borrowing classes, max-min among all of them whatever their class and priority
// (seed 004 serves classes over their caps round-robin; the flow model shares per flow).
//
// solve_touched() re-solves only the connected components (links and flows joined through shared
// links, whatever their classes) of the links touched since the last solve (all flows when those
// hold more than half of them); solve_all() re-solves every flow. Both fix links in the order
// (level, link index), so a component gives the same rates either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "routing/ids.hpp"

namespace ibsdn {

struct TrafficClass {
  int priority = 0;       // served before every class of a lower priority
  double link_share = 1;  // in (0, 1]: the most of a link's capacity the class's flows use
  bool borrow = false;    // above link_share, still takes what no other class uses
};

class MaxMinSharing {
 public:
  using FlowSlot = std::uint32_t;
  static constexpr std::uint32_t kNotInHeap = 0xffffffff;

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

  /// Re-solves the components of the links touched since the last solve; appends the flows whose
  /// rate changed (bit for bit) to `changed`. Returns the number of flows re-solved.
  std::size_t solve_touched(std::vector<FlowSlot>& changed);
  /// Re-solves every flow; otherwise as solve_touched.
  std::size_t solve_all(std::vector<FlowSlot>& changed);

  [[nodiscard]] double rate(FlowSlot f) const { return flows_[f].rate; }
  [[nodiscard]] std::size_t active_flows() const { return active_; }
  [[nodiscard]] std::size_t num_links() const { return links_.size(); }

 private:
  struct Flow {
    std::vector<LinkId> route;
    std::vector<std::uint32_t> pos;  // the flow's index in each route link's `flows`
    double weight = 1;
    double cap = 0;
    double rate = 0;
    double base = 0;         // what the filling under way started from (borrowing: its class's)
    std::uint32_t mark = 0;  // == epoch_: in the set being solved
    std::uint8_t traffic_class = 0;
    bool fixed = false;
    bool live = false;
  };
  struct Link {
    double capacity = 0;
    std::vector<FlowSlot> flows;
    double left = 0;  // what the classes solved so far left of `capacity`
    // Progressive filling state.
    double remaining = 0;
    double weight_sum = 0;
    std::uint32_t unfixed = 0;
    double level = 0;  // remaining / weight_sum: where it saturates if nothing else changes
    std::uint32_t heap_pos = kNotInHeap;
    std::uint32_t mark = 0;   // == epoch_: in the set being solved
    std::uint32_t dirty = 0;  // == epoch_: in dirty_
    bool touched = false;
  };

  void touch(LinkId l);
  void next_epoch();
  /// Collects into link_set_ / flow_set_ the components of the touched links; false (and an
  /// incomplete set) as soon as they hold more than half the active flows.
  bool collect_touched();
  void collect_all();
  std::size_t solve_collected(std::vector<FlowSlot>& changed);
  /// Progressive filling of one class's flows in the collected set.
  void solve_class(std::uint8_t c, std::vector<FlowSlot>& changed);
  /// What the classes left of every link, to the flows of borrowing classes.
  void solve_borrowed(std::vector<FlowSlot>& changed);
  /// Progressive filling of the unfixed flows, from their base, over the links' `remaining`.
  void fill(std::vector<FlowSlot>& changed);
  /// Link l's filling state: `remaining` capacity, its unfixed flows' weights, its level.
  void open_link(std::uint32_t l, double remaining);
  void fix(FlowSlot f, double rate, std::vector<FlowSlot>& changed);
  void push_level(std::uint32_t l);
  // An indexed binary min-heap of links by (level, index): one entry per link, moved in place
  // when its level changes, so it stays within the links (no stale entries to wade through).
  [[nodiscard]] bool heap_less(std::uint32_t a, std::uint32_t b) const;
  void heap_place(std::size_t i, std::uint32_t l);
  void heap_up(std::size_t i);
  void heap_down(std::size_t i);
  void heap_erase(std::uint32_t l);
  void flush_dirty();

  std::vector<TrafficClass> classes_;
  std::vector<std::uint8_t> class_order_;  // by priority (highest first), then index
  bool borrowing_ = false;                 // a class of share < 1 borrows
  std::vector<Flow> flows_;
  std::vector<FlowSlot> free_slots_;
  std::vector<Link> links_;
  std::vector<std::uint32_t> touched_;
  std::size_t active_ = 0;
  std::uint32_t epoch_ = 0;
  // Scratch reused by every solve.
  std::vector<std::uint32_t> link_set_;
  std::vector<FlowSlot> flow_set_;
  std::vector<std::uint32_t> dirty_;
  struct LevelEntry {
    double level;
    std::uint32_t index;  // flow slot
  };
  std::vector<std::uint32_t> link_heap_;
  std::vector<LevelEntry> cap_heap_;
};

}  // namespace ibsdn
