// The controller's MAD transport inside opensm: requests leave through the glue's send_mad
// (OpenSM's vendor layer, class 0x09), answers and failures come back through the glue's
// callbacks on the vendor's receiver thread and wait here for the controller thread's
// mad::MadClient. The callbacks never block: a full inbox drops (and counts) the MAD, which the
// client then sees as a timeout and retries.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>

#include "mad/transport.hpp"
#include "plugin/opensm/glue_services.hpp"

namespace ibsdn::plugin {

class GlueTransport : public mad::MadTransport {
 public:
  static constexpr std::size_t kMaxInbox = 1u << 16;

  explicit GlueTransport(const GlueServices& glue) : glue_(glue) {}

  /// Throws mad::TransportError when the channel is not bound yet, the vendor layer refuses the
  /// MAD, or close() was called.
  void send(Lid to, std::span<const std::uint8_t> mad,
            std::chrono::milliseconds response_timeout = {}) override;
  /// Throws mad::TransportError once close() was called (so that a blocked client returns).
  std::optional<mad::ReceivedMad> receive(std::chrono::milliseconds timeout) override;
  [[nodiscard]] Lid local_lid() const override { return Lid(0); }
  /// The glue zeroes bytes 224-255 of what it hands up (umad2sim overwrites them under ibsim).
  [[nodiscard]] std::size_t intact_bytes() const override { return mad::kUmad2simIntactBytes; }

  /// From the glue's callbacks (any thread).
  void deliver(Lid from, const mad::MadBytes& bytes);
  void failed(Lid to, const mad::MadBytes& request, bool timed_out);
  /// Wakes every receive() and makes all later calls throw.
  void close();
  [[nodiscard]] std::size_t dropped() const;

 private:
  void push(mad::ReceivedMad m);

  GlueServices glue_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<mad::ReceivedMad> inbox_;
  bool closed_ = false;
  std::size_t dropped_ = 0;
};

}  // namespace ibsdn::plugin
