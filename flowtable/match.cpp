#include "flowtable/match.hpp"

#include <bit>

namespace ibsdn {

std::optional<FlowDefinitionLevel> parse_flow_definition_level(std::string_view text) {
  if (text == "dlid" || text == "1") return FlowDefinitionLevel::kDlid;
  if (text == "slid-dlid" || text == "2") return FlowDefinitionLevel::kSlidDlid;
  if (text == "slid-dlid-sl" || text == "3") return FlowDefinitionLevel::kSlidDlidSl;
  if (text == "slid-dlid-sl-qp" || text == "4") return FlowDefinitionLevel::kSlidDlidSlQp;
  return std::nullopt;
}

std::string_view to_string(FlowDefinitionLevel level) {
  switch (level) {
    case FlowDefinitionLevel::kDlid:
      return "dlid";
    case FlowDefinitionLevel::kSlidDlid:
      return "slid-dlid";
    case FlowDefinitionLevel::kSlidDlidSl:
      return "slid-dlid-sl";
    case FlowDefinitionLevel::kSlidDlidSlQp:
      return "slid-dlid-sl-qp";
  }
  return "?";
}

FlowMatch FlowMatch::exact_dlid(Lid dlid) {
  FlowMatch m;
  m.dlid = Masked<std::uint16_t>{dlid.value(), 0xFFFF};
  return m;
}

FlowMatch FlowMatch::exact_pair(Lid slid, Lid dlid) {
  FlowMatch m = exact_dlid(dlid);
  m.slid = Masked<std::uint16_t>{slid.value(), 0xFFFF};
  return m;
}

bool FlowMatch::matches(const PacketHeader& h) const {
  return (!dlid || dlid->matches(h.dlid.value())) && (!slid || slid->matches(h.slid.value())) &&
         (!sl || sl->matches(h.sl.value())) && (!dest_qp || dest_qp->matches(h.dest_qp));
}

namespace {

// a covered by b: b's mask is a subset of a's mask and they agree on b's bits.
template <typename T>
bool field_covered(const std::optional<Masked<T>>& a, const std::optional<Masked<T>>& b) {
  if (!b) return true;
  if (!a) return false;
  return static_cast<T>(a->mask & b->mask) == b->mask &&
         static_cast<T>(a->value & b->mask) == b->value;
}

template <typename T>
int bits(const std::optional<Masked<T>>& f) {
  return f ? std::popcount(static_cast<std::uint32_t>(f->mask)) : 0;
}

template <typename T>
std::string check(const std::optional<Masked<T>>& f, const char* name, std::uint32_t width_mask) {
  if (!f) return {};
  if (f->mask == 0) return std::string(name) + ": zero mask (leave the field out to wildcard it)";
  if ((static_cast<std::uint32_t>(f->mask) & ~width_mask) != 0) {
    return std::string(name) + ": mask wider than the field";
  }
  if (static_cast<T>(f->value & ~f->mask) != 0) {
    return std::string(name) + ": value has bits outside the mask";
  }
  return {};
}

}  // namespace

bool FlowMatch::covered_by(const FlowMatch& other) const {
  return field_covered(dlid, other.dlid) && field_covered(slid, other.slid) &&
         field_covered(sl, other.sl) && field_covered(dest_qp, other.dest_qp);
}

int FlowMatch::specificity() const {
  return bits(dlid) + bits(slid) + bits(sl) + bits(dest_qp);
}

FlowDefinitionLevel FlowMatch::required_level() const {
  if (dest_qp) return FlowDefinitionLevel::kSlidDlidSlQp;
  if (sl) return FlowDefinitionLevel::kSlidDlidSl;
  if (slid) return FlowDefinitionLevel::kSlidDlid;
  return FlowDefinitionLevel::kDlid;
}

std::string FlowMatch::validate() const {
  for (std::string e : {check(dlid, "dlid", 0xFFFF), check(slid, "slid", 0xFFFF),
                        check(sl, "sl", kSlMask), check(dest_qp, "dest_qp", kQpMask)}) {
    if (!e.empty()) return e;
  }
  return {};
}

}  // namespace ibsdn
