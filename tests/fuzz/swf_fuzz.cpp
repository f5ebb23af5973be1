// libFuzzer target: the SWF trace reader (parse_swf and the streaming read_swf) on arbitrary
// bytes, with two oracles: both readers agree (same jobs, or an error on the same line), and a
// trace that parses is written back by format_swf and parses to the same header and jobs. Any
// exception other than SwfError from a reader, any crash and any sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "sim_backend/workload/replay_jobs.hpp"
#include "sim_backend/workload/swf.hpp"

namespace {

bool same(const ibsdn::SwfTrace& a, const ibsdn::SwfTrace& b) {
  if (!(a.header == b.header) || a.jobs.size() != b.jobs.size()) return false;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    if (!a.jobs[i].same_fields(b.jobs[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ibsdn::SwfLimits limits;  // small bounds, so that the limits themselves get exercised
  limits.max_line_length = 256;
  limits.max_jobs = 64;

  std::optional<ibsdn::SwfTrace> parsed;
  std::size_t parse_error_line = 0;
  try {
    parsed = ibsdn::parse_swf(text, "fuzz.swf", limits);
  } catch (const ibsdn::SwfError& e) {
    parse_error_line = e.line();
  }
  std::istringstream in{std::string(text)};
  try {
    const ibsdn::SwfTrace streamed = ibsdn::read_swf(in, "fuzz.swf", limits);
    if (!parsed || !same(*parsed, streamed)) std::abort();
  } catch (const ibsdn::SwfError& e) {
    if (parsed || e.line() != parse_error_line) std::abort();
  }
  if (!parsed) return 0;

  ibsdn::SwfLimits roomy = limits;  // re-indented continuations may grow a header line
  roomy.max_line_length = 4096;
  const ibsdn::SwfTrace again = ibsdn::parse_swf(ibsdn::format_swf(*parsed), "again.swf", roomy);
  if (!same(*parsed, again)) std::abort();
  (void)ibsdn::select_replay_jobs(*parsed, ibsdn::ReplayFilter{16, 2, 8});
  return 0;
}
