// The switch side of the SDN MAD class, without any I/O: request bytes in, reply bytes out. It
// owns the switch's flow table. ibsdn-switch-agent wraps it around a transport; tests drive it
// over the loopback transport.
//
// Order of checks: header readable (else no reply) -> class 0x09 (else no reply) -> not a response
// (responses are never answered) -> codec (malformed: the decoder's Status, header echoed) -> key
// (mismatch: kBadKey, nothing applied or revealed) -> method / attribute -> the operation.
//
// Barrier: requests are handled one at a time in arrival order, so when a Barrier is answered
// every FlowMod received before it has been applied (or refused) already.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flowtable/flow_table.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad {

struct ResponderConfig {
  std::uint64_t key = 0;  // the authentication key every request must carry
  FlowTableConfig table;  // capacity, flow definition level, number of ports
  /// Leading bytes of a reply that reach the requester intact (MadTransport::intact_bytes()):
  /// FlowStats pages hold only as many entries as end within them.
  std::size_t reply_bytes = kMadSize;
};

/// What became of one request, for the caller's log.
struct Handled {
  std::optional<MadBytes> reply;  // nothing when there is nothing to reply to
  std::uint8_t method = 0;        // as received (R bit included)
  std::uint16_t attr_id = 0;
  Status status = Status::kOk;  // the Status of the reply
  std::uint32_t affected = 0;   // FlowMod: entries changed
  std::string detail;           // why, when the status is not kOk or no reply is sent
};

class SwitchResponder {
 public:
  explicit SwitchResponder(ResponderConfig cfg);

  /// Never throws; whatever the bytes are, the responder stays usable.
  Handled handle(std::span<const std::uint8_t> request);

  [[nodiscard]] const FlowTable& table() const { return table_; }
  /// For the data-plane side of an emulated switch (lookups) and for tests.
  FlowTable& table() { return table_; }

 private:
  Handled dispatch(const SdnMad& req, Handled h);
  const std::vector<FlowEntry>& snapshot();

  std::uint64_t key_;
  std::size_t reply_bytes_;
  FlowTable table_;
  // FlowStats pages are served from one copy of the table per generation: paging through N
  // entries would otherwise copy the table N / kMaxStatsEntriesPerMad times.
  std::vector<FlowEntry> snapshot_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> snapshot_of_;  // generation, lookups
};

}  // namespace ibsdn::mad
