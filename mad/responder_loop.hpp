// The switch agent's main loop, independent of the transport: receive, answer, report; until
// asked to stop. Shared by ibsdn-switch-agent and the tests that run an agent over loopback.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "mad/switch_responder.hpp"
#include "mad/transport.hpp"

namespace ibsdn::mad {

struct ServeHooks {
  /// Called for every MAD received, after it was answered (or not).
  std::function<void(const ReceivedMad&, const Handled&)> on_mad;
  /// Problems that are not a request's fault (a reply that could not be sent, ...).
  std::function<void(const std::string&)> on_error;
};

struct ServeOptions {
  /// How often `stop` is looked at while no MAD arrives.
  std::chrono::milliseconds poll{200};
  /// Consecutive receive failures after which the transport is considered dead.
  int max_receive_failures = 50;
};

/// Runs until `stop` is true (returns) or the transport keeps failing (throws TransportError).
/// Nothing a peer sends ends it.
void serve(MadTransport& transport, SwitchResponder& responder, const std::atomic<bool>& stop,
           const ServeHooks& hooks = {}, const ServeOptions& opts = {});

}  // namespace ibsdn::mad
