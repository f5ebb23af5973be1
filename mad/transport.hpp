// How SDN MADs move between a controller and a switch: send 256 bytes to a LID, receive with a
// timeout. Two implementations: libibumad (umad_transport.hpp, also under ibsim's umad2sim) and
// an in-memory fabric for tests (loopback_transport.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "flowtable/types.hpp"
#include "mad/sdn_mad.hpp"

namespace ibsdn::mad {

/// The transport itself failed (a libibumad call, a closed endpoint): not a MAD-level error.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One MAD as it arrived.
struct ReceivedMad {
  MadBytes bytes{};        // zero-padded when fewer than 256 bytes arrived
  std::size_t length = 0;  // bytes actually received
  Lid from{};              // the sender's LID (the SLID of the packet)
  /// 0 for a MAD that arrived. ETIMEDOUT: this is our own request handed back undelivered or
  /// unanswered (the kernel's send timeout; ibsim does the same when it cannot route a MAD or
  /// finds no client at the destination).
  int status = 0;
};

class MadTransport {
 public:
  virtual ~MadTransport() = default;

  /// Sends one MAD (up to 256 bytes; shorter buffers are zero-padded) to the GSI (QP 1, Q_Key
  /// 0x80010000) of `to`. For a request, `response_timeout` is how long the requester will wait:
  /// the kernel only passes a response up to an agent that sent its request with a timeout.
  /// Throws TransportError.
  virtual void send(Lid to, std::span<const std::uint8_t> mad,
                    std::chrono::milliseconds response_timeout = {}) = 0;

  /// Waits up to `timeout` for one MAD; nullopt when none came. Throws TransportError.
  virtual std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) = 0;

  /// The LID of the port this transport is attached to (0 when not yet assigned).
  [[nodiscard]] virtual Lid local_lid() const = 0;

  /// How many leading bytes of a received MAD arrive intact; the rest read as zero. 256 except
  /// under ibsim (see kUmad2simIntactBytes); a responder keeps its replies' data within it.
  [[nodiscard]] virtual std::size_t intact_bytes() const { return kMadSize; }
};

/// ibsim's umad2sim (Debian ibsim 0.10 and upstream) receives each MAD into a buffer of
/// sizeof(struct sim_request) = 288 bytes but writes umad_size() + 256 = 320 into it: the last 32
/// MAD bytes (224-255) land past the allocation and come back as heap garbage. Under umad2sim
/// only bytes 0-223 are usable.
inline constexpr std::size_t kUmad2simIntactBytes = 224;

/// Byte 3 of the common MAD header is R (bit 7) | method.
[[nodiscard]] inline bool is_response(std::span<const std::uint8_t> mad) {
  return mad.size() > 3 && (mad[3] & 0x80) != 0;
}

}  // namespace ibsdn::mad
