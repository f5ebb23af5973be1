// An in-memory fabric for tests: endpoints attached at LIDs, MADs delivered in order through
// thread-safe queues. Like ibsim, a request sent to a LID nobody is attached at comes back to its
// sender with status ETIMEDOUT; like umad2sim, it can be told to deliver only the first bytes of
// every MAD intact.
#pragma once

#include <memory>
#include <utility>

#include "mad/transport.hpp"

namespace ibsdn::mad {

class LoopbackTransport;

class LoopbackFabric {
 public:
  /// `intact_bytes`: bytes of each MAD delivered, the rest zeroed (kUmad2simIntactBytes mimics
  /// umad2sim).
  explicit LoopbackFabric(std::size_t intact_bytes = kMadSize);
  ~LoopbackFabric();
  LoopbackFabric(const LoopbackFabric&) = delete;
  LoopbackFabric& operator=(const LoopbackFabric&) = delete;

  /// A new endpoint at `lid`. Throws TransportError when the LID is taken. The endpoint may
  /// outlive the fabric object (they share the switchboard).
  std::unique_ptr<LoopbackTransport> attach(Lid lid);

  struct Switchboard;

 private:
  std::shared_ptr<Switchboard> board_;
};

class LoopbackTransport : public MadTransport {
 public:
  ~LoopbackTransport() override;
  void send(Lid to, std::span<const std::uint8_t> mad,
            std::chrono::milliseconds response_timeout = {}) override;
  std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) override;
  [[nodiscard]] Lid local_lid() const override { return lid_; }
  [[nodiscard]] std::size_t intact_bytes() const override;

  struct Inbox;

 private:
  friend class LoopbackFabric;
  LoopbackTransport(std::shared_ptr<LoopbackFabric::Switchboard> board, Lid lid,
                    std::shared_ptr<Inbox> inbox);

  std::shared_ptr<LoopbackFabric::Switchboard> board_;
  Lid lid_;
  std::shared_ptr<Inbox> inbox_;
};

/// The common case: two endpoints that only talk to each other.
std::pair<std::unique_ptr<LoopbackTransport>, std::unique_ptr<LoopbackTransport>>
make_loopback_pair(Lid a, Lid b);

}  // namespace ibsdn::mad
