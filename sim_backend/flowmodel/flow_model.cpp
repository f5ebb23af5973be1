#include "sim_backend/flowmodel/flow_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "sim_backend/flowmodel/flow_engine.hpp"

namespace ibsdn {
namespace {

EngineMessage engine_message(const FlowMessage& m, std::uint64_t id) {
  return {.id = id,
          .size = m.size,
          .routes = {m.route},
          .rate_cap = m.rate_cap,
          .traffic_class = m.traffic_class};
}

}  // namespace

std::vector<double> simulate_flows(const std::vector<FlowLink>& links,
                                   const std::vector<FlowMessage>& messages,
                                   const FlowModelOptions& options, FlowRunStats* stats) {
  if (messages.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("flow model: more than 2^32 - 2 messages");
  }
  FlowEngine engine(links, options);
  for (const FlowMessage& m : messages) {
    if (!(m.start >= 0) || !std::isfinite(m.start)) {
      throw std::invalid_argument("flow model: message " + std::to_string(m.id) +
                                  ": start is not a finite time >= 0");
    }
    engine.validate(engine_message(m, m.id));
  }
  // The engine's ids are the messages' indices: ids in a list need not be distinct.
  std::vector<std::uint32_t> order(messages.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return messages[a].start < messages[b].start;
  });
  std::vector<double> completion(messages.size(), FlowEngine::kNever);
  std::vector<std::uint64_t> done;
  std::size_t next = 0;
  for (;;) {
    const double start = next < order.size() ? messages[order[next]].start : FlowEngine::kNever;
    const double event = engine.next_event_time();
    if (start == FlowEngine::kNever && event == FlowEngine::kNever) break;
    done.clear();
    const double t = engine.advance(std::min(start, event), done);
    for (const std::uint64_t i : done) completion[i] = t;
    // Every message due by now (within the engine's notion of "at once") starts now.
    while (next < order.size() && messages[order[next]].start <= t) {
      const std::uint32_t i = order[next++];
      engine.start(engine_message(messages[i], i));
    }
  }
  if (engine.unfinished() != 0) {
    // Only a class starved by classes whose flows never end could leave flows here.
    throw std::logic_error("flow model: flows left at rate 0 with nothing left to end");
  }
  if (stats != nullptr) *stats = engine.stats();
  return completion;
}

}  // namespace ibsdn
