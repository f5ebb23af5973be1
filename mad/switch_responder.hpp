// The switch side of the SDN MAD class, without any I/O: request bytes in, reply bytes out. It
// owns the switch's flow table. ibsdn-switch-agent wraps it around a transport; tests drive it
// over the loopback transport.
//
// Order of checks: header readable (else no reply) -> class 0x09 (else no reply) -> not a response
// (responses are never answered) -> codec (malformed: the decoder's Status, header echoed) -> key
// (mismatch: kBadKey, nothing applied or revealed) -> method / attribute -> for a FlowMod, the
// sender (ResponderConfig::writers; refused: kNotAuthorized, nothing applied) -> the operation.
// The key comes before the sender so that only key holders can make the writer check read
// PortInfo.
//
// Barrier: requests are handled one at a time in arrival order, so when a Barrier is answered
// every FlowMod received before it has been applied (or refused) already.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flowtable/flow_table.hpp"
#include "mad/sdn_mad.hpp"
#include "mad/writer_check.hpp"

namespace ibsdn::mad {

struct ResponderConfig {
  std::uint64_t key = 0;  // the authentication key every request must carry
  FlowTableConfig table;  // capacity, flow definition level, number of ports
  /// Leading bytes of a reply that reach the requester intact (MadTransport::intact_bytes()):
  /// FlowStats pages hold only as many entries as end within them.
  std::size_t reply_bytes = kMadSize;
  /// Who may send FlowMods (ibsdn-switch-agent: the master SM and --allow-lid); null: every
  /// sender that knows the key (tests and in-process controllers, which have no SM).
  std::shared_ptr<WriterCheck> writers;
};

/// What became of one request, for the caller's log.
struct Handled {
  std::optional<MadBytes> reply;  // nothing when there is nothing to reply to
  std::uint8_t method = 0;        // as received (R bit included)
  std::uint16_t attr_id = 0;
  Status status = Status::kOk;  // the Status of the reply
  std::uint32_t affected = 0;   // FlowMod: entries changed
  std::string detail;           // why, when the status is not kOk or no reply is sent
  /// A refused write from a sender whose refusals were reported less than a minute ago: the
  /// caller's log leaves it out (WriterCheck::Verdict::report).
  bool rate_limited = false;
};

class SwitchResponder {
 public:
  explicit SwitchResponder(ResponderConfig cfg);

  /// Never throws; whatever the bytes are, the responder stays usable. `from` is the sender's LID
  /// (the packet's SLID), which the writer check judges.
  Handled handle(std::span<const std::uint8_t> request, Lid from = Lid{});

  [[nodiscard]] const FlowTable& table() const { return table_; }
  /// For the data-plane side of an emulated switch (lookups) and for tests.
  FlowTable& table() { return table_; }

 private:
  Handled dispatch(const SdnMad& req, Lid from, Handled h);
  const std::vector<FlowEntry>& snapshot();

  std::uint64_t key_;
  std::size_t reply_bytes_;
  std::shared_ptr<WriterCheck> writers_;
  FlowTable table_;
  // FlowStats pages are served from one copy of the table per generation: paging through N
  // entries would otherwise copy the table N / kMaxStatsEntriesPerMad times.
  std::vector<FlowEntry> snapshot_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> snapshot_of_;  // generation, lookups
};

}  // namespace ibsdn::mad
