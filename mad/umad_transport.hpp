// The SDN MAD class over libibumad: one port of one CA, class 0x09 version 1 registered either as
// a plain requester (responses only) or as the responder for Get / Set (the switch agent). Runs
// unchanged under ibsim's umad2sim (LD_PRELOAD) with SIM_HOST choosing the node.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "mad/transport.hpp"

namespace ibsdn::mad {

/// Whether to claim the port's SM role (see UmadOptions::claim_sm_port).
enum class SmPortClaim { kNo, kYes, kIfSimulated };

struct UmadOptions {
  std::string ca;  // empty: libibumad's default CA
  int port = 0;    // 0: the first active port of the CA
  /// Register Get and Set of the class so that unsolicited requests arrive (the switch agent).
  bool responder = false;
  /// Also open the port's issm device, which marks this client as the port's SM. Only for ibsim:
  /// it hands requests sent to QP 0/1 of a node only to the node's SM client, so a switch agent
  /// must claim that role to see any request. Never on real hardware (it sets PortInfo:IsSM).
  /// kIfSimulated: only when the CA is the device umad2sim presents.
  /// The claim comes with a duty: ibsim forwards to the SM client the SMPs it does not answer
  /// itself, SMInfo above all, and an OpenSM that gets no answer waits for ever (umad2sim has no
  /// send timeouts). The transport answers them: SMInfo Get as an SM in state NOTACTIVE, which
  /// OpenSM then ignores, anything else with "unsupported attribute". They never reach receive().
  SmPortClaim claim_sm_port = SmPortClaim::kNo;
};

class UmadTransport : public MadTransport {
 public:
  /// Opens and registers; throws TransportError naming the libibumad call that failed and errno.
  explicit UmadTransport(const UmadOptions& opts);
  ~UmadTransport() override;
  UmadTransport(const UmadTransport&) = delete;
  UmadTransport& operator=(const UmadTransport&) = delete;

  void send(Lid to, std::span<const std::uint8_t> mad,
            std::chrono::milliseconds response_timeout = {}) override;
  std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) override;
  [[nodiscard]] Lid local_lid() const override { return lid_; }
  /// kUmad2simIntactBytes on umad2sim's device (whose bytes beyond it are zeroed on receipt so
  /// that the loss is deterministic), 256 otherwise.
  [[nodiscard]] std::size_t intact_bytes() const override { return intact_; }

  [[nodiscard]] const std::string& ca_name() const { return ca_name_; }
  [[nodiscard]] int port_num() const { return port_num_; }
  [[nodiscard]] bool claimed_sm_port() const { return issm_fd_ >= 0; }
  /// SMPs answered on behalf of the claimed SM role.
  [[nodiscard]] std::uint64_t smps_answered() const { return smps_answered_; }

  /// PortInfo:MasterSMLID of this port (Lid 0: no SM has set it), read with a zero-hop
  /// directed-route SMP Get of PortInfo on this transport's own descriptor: under umad2sim a
  /// second descriptor registering the SMI classes (libibmad's) would take their MADs from this
  /// one for good. Waits up to `timeout`; MADs of class 0x09 that arrive meanwhile are kept, in
  /// order, for receive(). nullopt when no answer came or the SMA refused. Throws TransportError.
  std::optional<Lid> query_master_sm_lid(std::chrono::milliseconds timeout);

 private:
  /// One umad_recv() of up to `timeout`; nullopt when nothing came.
  std::optional<ReceivedMad> receive_one(std::chrono::milliseconds timeout);
  /// SMPs are never handed to receive()'s caller: requests are answered (claimed SM role), our
  /// PortInfo answer is recorded, anything else is dropped. True when `m` was an SMP.
  bool take_smp(const ReceivedMad& m);
  void answer_smp(const std::uint8_t* smp, std::size_t length, Lid from);
  int directed_route_agent();

  std::string ca_name_;
  int port_num_ = 0;
  Lid lid_{};
  std::size_t intact_ = kMadSize;
  int fd_ = -1;
  int agent_ = -1;
  int issm_fd_ = -1;
  int smi_agents_[2] = {-1, -1};  // LID-routed and directed-route SMI, when the SM role is claimed
  int dr_requester_ = -1;         // directed-route SMI, registered to send PortInfo queries
  std::uint64_t port_guid_ = 0;
  std::uint64_t smps_answered_ = 0;
  std::uint32_t smp_seq_ = 0;                     // low TID half of the last PortInfo query sent
  std::uint32_t smp_waiting_ = 0;                 // ... of the one waiting for its answer; 0: none
  std::optional<std::optional<Lid>> smp_answer_;  // its answer: a LID, or refused (nullopt)
  std::deque<ReceivedMad> pending_;               // class-0x09 MADs that came during a query
};

}  // namespace ibsdn::mad
