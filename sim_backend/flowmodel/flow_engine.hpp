// The flow-level model as an online engine (docs/simulation-flow.md): the caller starts messages at
// the current time and advances the clock; the engine tells which messages completed.
// simulate_flows() (flow_model.hpp) is this engine driven by a fixed list of start times; the
// timing simulator drives it from job programs, NIC queues and compute periods.
//
// A message is sent over one route or split over several (adaptive routing): each route is a
// sub-flow of weight w / k for k routes, so a message spread over k paths competes like one flow
// and max-min gives each path what it has spare. The message's rate is the sum of its sub-flows';
// it completes when its bytes are sent, all sub-flows at once (the bytes are not assigned to
// paths ahead of time: a packet-sprayed message finishes on every path together). Its latency is
// its routes' largest; no bandwidth is used before it has passed.
//
// Time: now() only moves forward, through advance(). Events within kSameTime (relative) of each
// other happen together. Completions at one time are reported in message id order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "routing/ids.hpp"
#include "sim_backend/flowmodel/flow_model.hpp"
#include "sim_backend/flowmodel/max_min_sharing.hpp"

namespace ibsdn {

/// A message to start now: its id (the caller's; distinct among unfinished messages, and the
/// order of simultaneous completions), size (bytes, > 0, finite), routes (1 to kMaxRoutes, each
/// at least one link, no link twice within a route), an optional cap on the whole message's rate
/// (bytes/s, 0: none; split evenly over its routes) and its traffic class.
struct EngineMessage {
  static constexpr std::size_t kMaxRoutes = 1024;
  std::uint64_t id = 0;
  double size = 0;
  std::vector<std::vector<LinkId>> routes;
  double rate_cap = 0;
  std::uint8_t traffic_class = 0;
};

class FlowEngine {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  /// Throws std::invalid_argument for a link without positive finite bandwidth or with a
  /// negative or infinite latency, and for bad classes (max_min_sharing.hpp).
  FlowEngine(std::vector<FlowLink> links, FlowModelOptions options = {});

  [[nodiscard]] double now() const { return now_; }
  [[nodiscard]] std::size_t unfinished() const { return live_; }
  [[nodiscard]] const std::vector<FlowLink>& links() const { return links_; }

  /// Starts `m` at now(). Throws std::invalid_argument (naming the message) when it does not
  /// satisfy EngineMessage's conditions or its id is already unfinished; the engine is unchanged.
  void start(const EngineMessage& m);
  /// start()'s checks of `m` alone (not of its id), without starting it.
  void validate(const EngineMessage& m) const;

  /// Moves an unfinished message's remaining bytes onto new routes (a controller re-route): its
  /// sub-flows leave their links now and the new ones join after the new routes' latency, as if
  /// the rest were a new message. Throws std::invalid_argument for an unknown id or bad routes.
  void reroute(std::uint64_t id, const std::vector<std::vector<LinkId>>& routes);

  /// The earliest time at which a message becomes active or completes (now() after a reroute of
  /// an active message: its old links are re-solved then); kNever when nothing will.
  [[nodiscard]] double next_event_time();

  /// Moves the clock to `t` (>= now(), finite). When t reaches next_event_time() (within
  /// kSameTime), the activations and completions due are processed, the rates they change
  /// re-solved, and the ids of the messages completed appended to `completed` in id order.
  /// Never passes an event: advance(t) with t beyond next_event_time() stops there; the return
  /// value is the time reached.
  double advance(double t, std::vector<std::uint64_t>& completed);

  /// The bytes each directed link has carried since the engine was made, up to now().
  [[nodiscard]] double link_bytes(LinkId l) const;
  /// The sum of the rates crossing each directed link as the last solve left them (bytes/s),
  /// divided by its bandwidth: the link's utilisation in [0, 1] (up to rounding).
  [[nodiscard]] std::span<const double> link_utilisation() const { return utilisation_; }

  /// Counters since the engine was made.
  [[nodiscard]] const FlowRunStats& stats() const { return stats_; }

 private:
  struct SubFlow {
    MaxMinSharing::FlowSlot slot = 0;
    std::uint32_t route = 0;  // index into routes_
    double rate = 0;
  };
  struct Message {
    std::uint64_t id = 0;
    std::vector<std::vector<LinkId>> routes;
    std::vector<SubFlow> subs;  // empty until active
    double cap = 0;             // per sub-flow
    double activation = 0;
    double remaining = 0;
    double rate = 0;  // the sum of its sub-flows'
    double since = 0;
    std::uint32_t version = 0;
    std::uint32_t mark = 0;  // == version: settled in this apply_rates()
    std::uint8_t traffic_class = 0;
    bool live = false;
    bool active = false;
  };
  struct Timed {
    double time;
    std::uint64_t id;
    std::uint32_t message;
    std::uint32_t version;
  };

  void check_routes(std::uint64_t id, const std::vector<std::vector<LinkId>>& routes) const;
  void schedule_activation(std::uint32_t i);
  void apply_rates();
  void activate(std::uint32_t i);
  void finish(std::uint32_t i);
  void leave_links(Message& m);
  void settle(Message& m);
  void rate_changed(std::uint32_t i);
  void subflow_rate(std::uint32_t i, std::size_t s, double rate);
  void link_rate(LinkId l, double delta, int flows);
  void drop_stale();
  void compact();

  std::vector<FlowLink> links_;
  FlowModelOptions options_;
  MaxMinSharing sharing_;
  double now_ = 0;
  std::size_t live_ = 0;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> free_messages_;
  std::unordered_map<std::uint64_t, std::uint32_t> by_id_;           // unfinished: id -> message
  std::vector<std::pair<std::uint32_t, std::uint32_t>> slot_owner_;  // slot -> (message, sub)
  std::vector<Timed> activations_;                                   // min-heap by (time, id)
  std::vector<Timed> completions_;  // min-heap by (time, id), lazily invalidated by version
  std::vector<MaxMinSharing::FlowSlot> changed_;
  std::vector<std::uint32_t> done_;
  std::vector<std::uint32_t> touched_messages_;
  bool resolve_pending_ = false;  // sub-flows left links outside advance(): re-solve at now()
  // Per link: the sub-flows and rate crossing it, its utilisation, its bytes until `link_since_`.
  std::vector<std::uint32_t> link_flows_;
  std::vector<double> link_rate_;
  std::vector<double> utilisation_;
  std::vector<double> link_bytes_;
  std::vector<double> link_since_;
  FlowRunStats stats_;
};

}  // namespace ibsdn
