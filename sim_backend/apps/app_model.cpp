#include "sim_backend/apps/app_model.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "routing/patterns/grid.hpp"
#include "routing/patterns/pattern.hpp"
#include "sim_backend/apps/app_registry.hpp"

namespace ibsdn {

#define IBSDN_APP(name, suffix, kind, options, dims, bytes, compute, gpu, summary) \
  std::vector<AppPhase> generate_app_##suffix(const AppSpec&, std::uint32_t ranks, \
                                              std::uint64_t seed);                 \
  std::uint64_t app_messages_##suffix(const AppSpec&, std::uint32_t ranks);
#include "sim_backend/apps/apps.def"
#undef IBSDN_APP

namespace app_registry {
namespace {

constexpr Entry kEntries[] = {
#define IBSDN_APP(name, suffix, kind, options, dims, bytes, compute, gpu, summary) \
  {name,                                                                           \
   AppKind::kind,                                                                  \
   options,                                                                        \
   dims,                                                                           \
   bytes,                                                                          \
   compute,                                                                        \
   gpu,                                                                            \
   summary,                                                                        \
   &generate_app_##suffix,                                                         \
   &app_messages_##suffix},
#include "sim_backend/apps/apps.def"
#undef IBSDN_APP
};

}  // namespace

const Entry* find(std::string_view name) {
  for (const Entry& e : kEntries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::span<const Entry> entries() {
  return kEntries;
}

}  // namespace app_registry

namespace {

[[noreturn]] void fail(const AppSpec& spec, const std::string& what) {
  throw std::invalid_argument("app '" + spec.name + "': " + what);
}

void check_ranks(const AppSpec& spec, std::uint32_t ranks) {
  if (ranks == 0) fail(spec, "no ranks");
  if (ranks > kMaxAppRanks) {
    fail(spec, std::to_string(ranks) + " ranks; at most " + std::to_string(kMaxAppRanks) +
                   " are allowed");
  }
}

std::uint64_t pairs_of(std::uint32_t ranks) {
  return std::uint64_t{ranks} * (ranks - 1);
}

// An upper bound on a pattern's flows for `ranks`, from its options alone. Every pattern gives
// each ordered pair at most once (pattern.hpp), so R (R - 1) bounds them all; the others are
// what the pattern's own rule gives.
std::uint64_t pattern_flow_bound(const PatternSpec& p, std::uint32_t ranks) {
  const std::uint64_t r = ranks;
  std::uint64_t bound = pairs_of(ranks);
  const auto at_most = [&](std::uint64_t b) { bound = std::min(bound, b); };
  const std::string& n = p.name;
  if (n == "ring" || n == "random-perm" || n == "shift") {
    at_most(2 * r);
  } else if (n == "2dnn" || n == "random4") {
    at_most(4 * r);
  } else if (n == "3dnn" || n == "stencil3d") {
    at_most(6 * r);
  } else if (n == "random8" || n == "stencil4d") {
    at_most(8 * r);
  } else if (n == "umesh" || n == "spread") {
    at_most(p.max_partners * r);
  } else if (n == "many-to-many") {
    const std::vector<std::uint32_t> dims = p.dims.empty() ? most_cubic(ranks, 3) : p.dims;
    at_most(r * (dims[1] - 1));
  } else if (n == "matrix") {
    // A matrix line is at least "0 1 1" and a newline: 6 bytes per flow at most.
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(p.file, ec);
    if (ec) {
      throw std::invalid_argument("app 'matrix': cannot read '" + p.file + "': " + ec.message());
    }
    at_most(size / 6);
  }
  return bound;
}

std::vector<AppPhase> generate_pattern_source(const AppSpec& spec, std::uint32_t ranks,
                                              std::uint64_t seed) {
  AppPhase phase;
  phase.name = spec.pattern.name;
  phase.iterations = spec.iterations;
  phase.compute_s.assign(ranks, spec.compute_s / spec.gpu_speedup);
  phase.messages = generate_pattern(spec.pattern, ranks, seed);
  std::vector<AppPhase> out;
  out.push_back(std::move(phase));
  return out;
}

bool add_overflows(std::uint64_t& sum, std::uint64_t add) {
  return __builtin_add_overflow(sum, add, &sum);
}

}  // namespace

std::uint64_t app_message_bound(const AppSpec& spec, std::uint32_t ranks) {
  spec.validate();
  check_ranks(spec, ranks);
  if (const app_registry::Entry* e = app_registry::find(spec.name)) return e->bound(spec, ranks);
  return pattern_flow_bound(spec.pattern, ranks);
}

AppProgram generate_app(const AppSpec& spec, std::uint32_t ranks, std::uint64_t seed) {
  const std::uint64_t bound = app_message_bound(spec, ranks);
  if (bound > kMaxAppMessages) {
    fail(spec, "up to " + std::to_string(bound) + " messages on " + std::to_string(ranks) +
                   " ranks; at most " + std::to_string(kMaxAppMessages) + " are allowed");
  }
  AppProgram program;
  program.app = spec.to_string();
  program.ranks = ranks;
  program.gpu_speedup = spec.gpu_speedup;
  const app_registry::Entry* e = app_registry::find(spec.name);
  program.phases =
      e != nullptr ? e->generate(spec, ranks, seed) : generate_pattern_source(spec, ranks, seed);
  // The guarantees the simulator relies on; cheap next to generating the messages.
  std::uint64_t messages = 0;
  for (const AppPhase& phase : program.phases) {
    messages += phase.messages.size();
    bool kept = true;
    for (std::size_t i = 0; i < phase.messages.size(); ++i) {
      const RankFlow& m = phase.messages[i];
      kept = kept && (i == 0 || phase.messages[i - 1].src <= m.src);
      kept = kept && m.src != m.dst && m.src < ranks && m.dst < ranks && m.bytes != 0;
    }
    kept = kept && (phase.collective.empty() || phase.collective.size() == phase.messages.size());
    if (!kept || phase.compute_s.size() != ranks || phase.iterations == 0) {
      throw std::logic_error("app '" + spec.name + "' broke its contract in phase '" + phase.name +
                             "'");
    }
  }
  if (messages > bound || program.phases.empty() || program.phases.size() > kMaxAppPhases) {
    throw std::logic_error("app '" + spec.name + "' exceeded its message or phase bound");
  }
  return program;
}

std::vector<RankFlow> phase_rank_traffic(const AppPhase& phase) {
  AppProgram one;
  one.phases.push_back(phase);
  one.phases.back().iterations = 1;
  return aggregate_rank_traffic(one, TrafficSpan::kOnePass);
}

std::vector<RankFlow> aggregate_rank_traffic(const AppProgram& program, TrafficSpan span) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> sums;
  for (const AppPhase& phase : program.phases) {
    const std::uint64_t times = span == TrafficSpan::kWholeRun ? phase.iterations : 1;
    for (const RankFlow& m : phase.messages) {
      std::uint64_t bytes = 0;
      std::uint64_t& sum = sums[{m.src, m.dst}];
      if (__builtin_mul_overflow(m.bytes, times, &bytes) || add_overflows(sum, bytes)) {
        throw std::overflow_error("app '" + program.app + "': the bytes from rank " +
                                  std::to_string(m.src) + " to rank " + std::to_string(m.dst) +
                                  " exceed 2^64-1");
      }
    }
  }
  std::vector<RankFlow> out;
  out.reserve(sums.size());
  for (const auto& [pair, bytes] : sums) out.push_back({pair.first, pair.second, bytes});
  return out;
}

AppProfile estimate_profile(const AppProgram& program, double bandwidth) {
  if (!(bandwidth > 0)) throw std::invalid_argument("estimate_profile: bandwidth must be above 0");
  AppProfile profile;
  // Doubles: a rank's sum over a phase could exceed 2^64 bytes only in theory, but cannot wrap.
  std::vector<double> sent(program.ranks);
  std::vector<double> received(program.ranks);
  for (const AppPhase& phase : program.phases) {
    std::fill(sent.begin(), sent.end(), 0.0);
    std::fill(received.begin(), received.end(), 0.0);
    for (const RankFlow& m : phase.messages) {
      sent[m.src] += static_cast<double>(m.bytes);
      received[m.dst] += static_cast<double>(m.bytes);
    }
    double most = 0;
    for (std::uint32_t r = 0; r < program.ranks; ++r) {
      most = std::max({most, sent[r], received[r]});
    }
    const double compute = phase.compute_s.empty()
                               ? 0
                               : *std::max_element(phase.compute_s.begin(), phase.compute_s.end());
    profile.compute_s += phase.iterations * compute;
    profile.comm_s += phase.iterations * (most / bandwidth);
  }
  return profile;
}

}  // namespace ibsdn
