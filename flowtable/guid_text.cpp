#include "flowtable/guid_text.hpp"

#include <charconv>
#include <cstdio>

namespace ibsdn {

std::string guid_text(Guid g) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(g.value()));
  return buf;
}

std::optional<Guid> parse_guid(std::string_view text) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    return std::nullopt;
  }
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return Guid(v);
}

}  // namespace ibsdn
