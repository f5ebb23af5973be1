// libFuzzer target: parse_netlist (and the XGFT and dragonfly recognisers it runs) on arbitrary
// bytes. Any exception other than NetlistError, any crash and any sanitizer report is a finding;
// so is a recognised dragonfly on which the dragonfly algorithms route an invalid path.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "routing/algorithm.hpp"
#include "routing/dragonfly.hpp"
#include "routing/netlist.hpp"
#include "routing/route_quality.hpp"
#include "routing/xgft.hpp"

namespace {

// A few flows from the first hosts to the last ones: bounded work per input.
void check_dragonfly_routes(const ibsdn::Fabric& f) {
  const auto& hosts = f.hcas();
  std::vector<ibsdn::Flow> flows;
  for (std::size_t i = 0; i < hosts.size() && flows.size() < 16; ++i) {
    ibsdn::Flow fl;
    fl.src = hosts[i];
    fl.dst = hosts[hosts.size() - 1 - (i * 7) % hosts.size()];
    if (fl.src != fl.dst) flows.push_back(fl);
  }
  for (const char* name : {"df-minimal", "df-valiant", "df-global-adaptive"}) {
    const auto paths = ibsdn::make_algorithm(name)->route(ibsdn::RouteRequest{f, flows});
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (!ibsdn::validate_path(f, flows[i], paths[i]).empty()) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ibsdn::Fabric f = ibsdn::parse_netlist(text, "fuzz.net");
    std::string why;
    (void)ibsdn::recognize_xgft(f, &why);
    if (ibsdn::recognize_dragonfly(f, &why)) check_dragonfly_routes(f);
  } catch (const ibsdn::NetlistError&) {
  }
  return 0;
}
