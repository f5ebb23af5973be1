#include "plugin/opensm/glue_transport.hpp"

#include <algorithm>
#include <cerrno>
#include <string>

namespace ibsdn::plugin {

void GlueTransport::send(Lid to, std::span<const std::uint8_t> mad,
                         std::chrono::milliseconds /*response_timeout*/) {
  {
    std::lock_guard lock(mu_);
    if (closed_) throw mad::TransportError("the controller is stopping");
  }
  if (mad.size() > mad::kMadSize) throw mad::TransportError("a MAD is at most 256 bytes");
  mad::MadBytes bytes{};
  std::copy(mad.begin(), mad.end(), bytes.begin());
  // The glue may report a failure through failed() before send_mad returns: it only queues.
  const int rc = glue_.send_mad(to, bytes);
  if (rc == OSMSDN_ERR_UNAVAILABLE) {
    throw mad::TransportError("the MAD channel is not bound yet (no SUBNET UP so far)");
  }
  if (rc != OSMSDN_OK) {
    throw mad::TransportError("OpenSM's vendor layer refused the MAD (glue error " +
                              std::to_string(rc) + ")");
  }
}

std::optional<mad::ReceivedMad> GlueTransport::receive(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [this] { return closed_ || !inbox_.empty(); });
  if (closed_) throw mad::TransportError("the controller is stopping");
  if (inbox_.empty()) return std::nullopt;
  mad::ReceivedMad m = inbox_.front();
  inbox_.pop_front();
  return m;
}

void GlueTransport::push(mad::ReceivedMad m) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    if (inbox_.size() >= kMaxInbox) {
      ++dropped_;
      return;
    }
    inbox_.push_back(m);
  }
  cv_.notify_one();
}

void GlueTransport::deliver(Lid from, const mad::MadBytes& bytes) {
  push(mad::ReceivedMad{bytes, mad::kMadSize, from, 0});
}

void GlueTransport::failed(Lid to, const mad::MadBytes& request, bool timed_out) {
  // As libibumad does: our own request handed back with a status, matched by its TID.
  push(mad::ReceivedMad{request, mad::kMadSize, to, timed_out ? ETIMEDOUT : EIO});
}

void GlueTransport::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    inbox_.clear();
  }
  cv_.notify_all();
}

std::size_t GlueTransport::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

}  // namespace ibsdn::plugin
