#include "mad/responder_loop.hpp"

#include <span>
#include <thread>

namespace ibsdn::mad {

void serve(MadTransport& transport, SwitchResponder& responder, const std::atomic<bool>& stop,
           const ServeHooks& hooks, const ServeOptions& opts) {
  auto error = [&](const std::string& what) {
    if (hooks.on_error) hooks.on_error(what);
  };
  int failures = 0;
  while (!stop.load()) {
    std::optional<ReceivedMad> in;
    try {
      in = transport.receive(opts.poll);
      failures = 0;
    } catch (const TransportError& e) {
      if (++failures >= opts.max_receive_failures) throw;
      error(std::string("receive: ") + e.what());
      std::this_thread::sleep_for(opts.poll);
      continue;
    }
    if (!in) continue;
    if (in->status != 0) {
      // One of our own replies handed back undelivered: nothing to answer.
      Handled h;
      h.method = in->length > 3 ? in->bytes[3] : 0;
      h.detail = "a reply to LID " + std::to_string(in->from.value()) +
                 " came back undelivered (transport status " + std::to_string(in->status) + ")";
      if (hooks.on_mad) hooks.on_mad(*in, h);
      continue;
    }
    Handled h =
        responder.handle(std::span<const std::uint8_t>(in->bytes.data(), in->length), in->from);
    if (h.reply) {
      try {
        transport.send(in->from, *h.reply);
      } catch (const TransportError& e) {
        error(std::string("reply to LID ") + std::to_string(in->from.value()) + ": " + e.what());
      }
    }
    if (hooks.on_mad) hooks.on_mad(*in, h);
  }
}

}  // namespace ibsdn::mad
