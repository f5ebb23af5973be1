// libFuzzer target: parse_netlist (and the XGFT recogniser it runs) on arbitrary bytes. Any
// exception other than NetlistError, any crash and any sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "routing/netlist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ibsdn::Fabric f = ibsdn::parse_netlist(text, "fuzz.net");
    std::string why;
    (void)ibsdn::recognize_xgft(f, &why);
  } catch (const ibsdn::NetlistError&) {
  }
  return 0;
}
