// A flow case: directed links (bandwidth, latency) and messages (start, size, explicit route), the
// input that the SimGrid reference (simgrid_flows.cpp) and `ibsdn-sim flows` both simulate so that
// their completion times can be compared (docs/simulation-flow.md, "Validation against SimGrid";
// README.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

struct FlowCaseLink {
  std::string name;
  double bandwidth = 0;  // bytes/s, > 0
  double latency = 0;    // s, >= 0
};

struct FlowCaseMessage {
  std::uint64_t id = 0;
  double start = 0;                // s, >= 0
  std::uint64_t size = 0;          // bytes, > 0 (SimGrid sends whole bytes)
  std::vector<std::size_t> route;  // indices into FlowCase::links, in order, each at most once
  std::size_t line = 0;            // where it was declared, for messages about it
};

struct FlowCase {
  std::vector<FlowCaseLink> links;
  std::vector<FlowCaseMessage> messages;  // in file order
};

/// Bounds on what a case may hold, checked while reading (the loops over links, messages and
/// route hops are bounded by them).
struct FlowCaseLimits {
  std::size_t max_links = 1'000'000;
  std::size_t max_messages = 1'000'000;
  std::size_t max_route_links = 4096;
  std::size_t max_line_length = 1 << 20;
};

/// Parses a flow case (format in tests/simgrid/README.md). Throws FileLineError
/// ("SOURCE:LINE: what") for anything malformed: an unknown keyword, a wrong field count, a
/// malformed or out-of-range number, a bad or duplicate name or ID, a route that is empty, has an
/// empty element, names an undeclared link or one link twice, or a limit exceeded.
FlowCase parse_flow_case(std::string_view text, std::string_view source,
                         const FlowCaseLimits& limits = {});

}  // namespace ibsdn
