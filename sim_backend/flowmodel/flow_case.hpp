// The "flow case" text format: links and messages with fixed routes, the input shared by
// `ibsdn-sim flows` and the SimGrid comparison tool (tests/simgrid/). docs/simulation-flow.md has
// the format:
//
//   # comments (from '#' to the end of the line) and blank lines are ignored
//   link NAME BANDWIDTH LATENCY    # bytes/s > 0, seconds >= 0; NAME [A-Za-z0-9_.:-]+, unique
//   message ID START SIZE ROUTE    # ID unique integer >= 0; START s >= 0; SIZE bytes > 0;
//                                  # ROUTE link names separated by commas, declared earlier
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_line_error.hpp"
#include "sim_backend/flowmodel/flow_model.hpp"

namespace ibsdn {

class FlowCaseError : public FileLineError {
 public:
  using FileLineError::FileLineError;
};

/// Bounds known before reading: a case beyond them is refused at the line that crosses them.
struct FlowCaseLimits {
  std::size_t max_links = 10'000'000;
  std::size_t max_messages = 10'000'000;
  std::size_t max_route_links = 4096;
  std::size_t max_line_length = 1 << 20;  // bytes; a route of 4096 long names fits
};

struct FlowCase {
  std::vector<FlowLink> links;
  std::vector<FlowMessage> messages;  // in file order
};

/// Parses a case held in memory. Throws FlowCaseError "SOURCE:LINE: what".
FlowCase parse_flow_case(std::string_view text, std::string_view source,
                         const FlowCaseLimits& limits = {});

/// Reads a case file. Throws FlowCaseError (content) or std::invalid_argument (cannot read).
FlowCase read_flow_case_file(const std::string& path, const FlowCaseLimits& limits = {});

/// The case as text that parse_flow_case() reads back to the same case (numbers in %.17g;
/// links named by their names, or "l<index>" when a name is empty). Throws
/// std::invalid_argument when names are not unique or not of the format's alphabet.
std::string format_flow_case(const FlowCase& c);

/// One line per message, "ID COMPLETION" (seconds, %.17g), sorted by ID: the output of
/// `ibsdn-sim flows`, compared line by line with the SimGrid tool's.
std::string format_completions(const std::vector<FlowMessage>& messages,
                               const std::vector<double>& completion);

}  // namespace ibsdn
