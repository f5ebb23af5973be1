// Every switch of a fabric as the controller sees it over MADs, in-process: each switch's agent
// logic (mad::SwitchResponder, the code ibsdn-switch-agent runs) behind one MadTransport that
// answers a request as it is sent. No threads, no ibsim: the simulator and the benchmarks drive
// the real JobController against it, and the switches' flow tables are the data plane packets
// are traced through (forwarding()).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "flowtable/flow_table.hpp"
#include "mad/switch_responder.hpp"
#include "mad/transport.hpp"
#include "routing/fabric.hpp"
#include "routing/lft.hpp"

namespace ibsdn {

class Switchboard : public mad::MadTransport {
 public:
  /// One agent per switch of `f`, at the switch's LID, holding `key`; `table` gives every
  /// switch's capacity and flow definition level (the number of ports is each switch's own).
  Switchboard(const Fabric& f, const LidMap& lids, std::uint64_t key, FlowTableConfig table = {});

  void send(Lid to, std::span<const std::uint8_t> mad, std::chrono::milliseconds timeout) override;
  std::optional<mad::ReceivedMad> receive(std::chrono::milliseconds timeout) override;
  [[nodiscard]] Lid local_lid() const override { return Lid(1); }

  /// MADs sent so far.
  [[nodiscard]] std::uint64_t sent() const { return sent_; }
  /// Entries all switches hold.
  [[nodiscard]] std::size_t entries() const;
  /// The data plane: at switch `sw`, the port of the entry a packet matches (counted by the
  /// switch's table like any lookup), nullopt for a miss (the LFT decides). Valid while the
  /// switchboard lives.
  [[nodiscard]] ForwardingOverride forwarding();

 private:
  std::vector<std::unique_ptr<mad::SwitchResponder>> by_node_;  // by NodeIdx; null for HCAs
  std::vector<mad::SwitchResponder*> by_lid_;                   // by LID; null where no switch
  std::deque<mad::ReceivedMad> inbox_;
  std::uint64_t sent_ = 0;
};

}  // namespace ibsdn
