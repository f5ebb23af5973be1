// The controller's MAD requests in flight, by transaction id, with their deadlines.
//
// Transaction ids are 32 bits: OpenSM's vendor layer keeps one match table for all its agents
// (the SM's, the SA's, perfmgr's and ours) and matches a response on the low 32 bits of its TID
// only, the kernel (or umad2sim) using the high half for its own routing. The SM numbers its
// SMPs with a counter from a small start value; ours live at 0x5D000000 | (24-bit counter), far
// above where the SM's counter gets in practice (2^30 SMPs).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "flowtable/types.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::plugin {

using Clock = std::chrono::steady_clock;

struct PendingRequest {
  std::uint32_t tid = 0;
  Lid lid{};
  std::string target;  // the switch's name, for logs
  mad::AttributeId attr = mad::AttributeId::kTableInfo;
  std::uint64_t round = 0;  // which SUBNET UP asked for it
  Clock::time_point deadline{};
};

class PendingRequests {
 public:
  static constexpr std::uint32_t kTidBase = 0x5D000000u;
  static constexpr std::uint32_t kTidCounterMask = 0x00FFFFFFu;

  /// The next transaction id (never kTidBase itself, so never 0 in the counter part).
  std::uint32_t next_tid();

  void add(PendingRequest r);
  /// Removes and returns the request with this id, if it is still pending.
  std::optional<PendingRequest> take(std::uint32_t tid);
  /// Removes and returns every request whose deadline is not after `now`, oldest first.
  std::vector<PendingRequest> take_expired(Clock::time_point now);
  std::vector<PendingRequest> take_all();
  [[nodiscard]] std::optional<Clock::time_point> earliest_deadline() const;
  [[nodiscard]] bool empty() const { return by_tid_.empty(); }
  [[nodiscard]] std::size_t size() const { return by_tid_.size(); }

 private:
  std::uint32_t counter_ = 0;
  std::unordered_map<std::uint32_t, PendingRequest> by_tid_;
};

}  // namespace ibsdn::plugin
