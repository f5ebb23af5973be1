// libFuzzer target: the scenario parser (sim_backend/scenario/scenario.hpp) on arbitrary bytes,
// with oracles: a scenario that loads expands to run_count() runs whose labels are distinct when
// anything is swept, and parsing it again gives the same hash. Any exception other than
// ConfigError, any crash and any sanitizer report is a finding. Relative paths resolve in a folder
// that does not exist, so file keys are exercised up to the missing file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "sim_backend/scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const char* base = "/nonexistent/ibsdn-scenario-fuzz";
  try {
    const ibsdn::Scenario s = ibsdn::parse_scenario(text, "fuzz.yaml", base);
    const auto runs = ibsdn::expand(s);
    if (runs.size() != s.run_count() || runs.empty()) std::abort();
    std::set<std::string> labels;
    for (const auto& r : runs) labels.insert(r.label);
    if (!s.axes().empty() && labels.size() != runs.size()) std::abort();
    if (ibsdn::parse_scenario(text, "again.yaml", base).hash() != s.hash()) std::abort();
  } catch (const ibsdn::ConfigError&) {
  }
  return 0;
}
