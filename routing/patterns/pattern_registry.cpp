// The pattern registry: each name of patterns.def to its generator.
#include <stdexcept>
#include <utility>

#include "routing/named_registry.hpp"
#include "routing/patterns/pattern.hpp"

namespace ibsdn {

#define IBSDN_PATTERN(name, suffix)                                                \
  std::vector<RankFlow> generate_##suffix(const PatternSpec&, std::uint32_t ranks, \
                                          std::uint64_t seed);
#include "routing/patterns/patterns.def"
#undef IBSDN_PATTERN

namespace {

struct Generator {
  std::string_view name;
  std::vector<RankFlow> (*generate)(const PatternSpec&, std::uint32_t, std::uint64_t);
};

constexpr Generator kGenerators[] = {
#define IBSDN_PATTERN(name, suffix) {name, &generate_##suffix},
#include "routing/patterns/patterns.def"
#undef IBSDN_PATTERN
};

}  // namespace

std::vector<RankFlow> generate_pattern(const PatternSpec& spec, std::uint32_t ranks,
                                       std::uint64_t seed) {
  spec.validate();
  const Generator* generator = nullptr;
  for (const Generator& g : kGenerators) {
    if (g.name == spec.name) generator = &g;
  }
  if (generator == nullptr) {
    throw std::logic_error("pattern '" + spec.name + "' has a syntax but no generator");
  }
  if (ranks == 0) throw std::invalid_argument("pattern '" + spec.name + "': no ranks");
  std::vector<RankFlow> flows = generator->generate(spec, ranks, seed);
  // The guarantees every caller relies on; cheap next to generating the flows.
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const RankFlow& f = flows[i];
    const bool ordered =
        i == 0 || std::pair(flows[i - 1].src, flows[i - 1].dst) < std::pair(f.src, f.dst);
    if (!ordered || f.src == f.dst || f.src >= ranks || f.dst >= ranks || f.bytes == 0) {
      throw std::logic_error("pattern '" + spec.name + "' broke its contract at flow " +
                             std::to_string(i));
    }
  }
  return flows;
}

std::vector<std::string> generator_names() {
  return names_of(kGenerators);
}

}  // namespace ibsdn
