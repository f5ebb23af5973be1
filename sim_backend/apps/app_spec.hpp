// The syntax of an application for the flow-level timing model (docs/simulation-timing.md): which
// program a job runs, as written in a scenario file or on a command line, checked without
// generating anything.
//
//   NAME[:OPTION=VALUE,...]      e.g.  stencil4d:bytes=1M,iter=10,compute=2ms,gpu=4
//                                      shift:k=3,iter=5,compute=10ms
//                                      random-perm-mixed:gap=100ms,rounds=2
//
// NAME is one of three kinds (apps.def registers the first two; app_names() lists all):
// - a skeleton of the thesis' applications (chapter 3.2, Fig 3.1; 4.4.2): stencil3d, stencil4d,
//   subcomm3d, kripke, laghos, amg, sw4lite, milc, nekbone: a communication structure with a
//   compute time per iteration chosen to match the thesis' compute/communication ratio
//   (docs/simulation-timing.md, "Applications in the flow model", has the table);
// - a phased workload of thesis 4.4.2: random-perm-mixed, stencil-mixed, random-perm-third;
// - any other pattern name (routing/patterns/pattern_syntax.def), the pattern's flows as one
//   phase, e.g. `random-perm`, `shift:k=3`, `matrix:file=tm.txt` (a traffic matrix with bytes).
//   stencil3d and stencil4d are skeletons here, not the patterns: they send one message per
//   direction, as the thesis' code does (two to a neighbour that is both +1 and -1).
//
// Options (each app accepts a subset; app_options() lists them):
//   bytes=N      size of the app's main message (halo face, all-to-all block, permutation
//                message), K / M / G suffixes (powers of 1024) as the patterns take it
//   iter=N       iterations of each communication phase, 1..kMaxAppIterations
//   compute=T    base (CPU) compute time per iteration, with a unit: 2ms, 0.5s, 250us, 10ns, or 0
//   gpu=X        GPU compute speedup: every compute time is divided by X (> 0); thesis 3.2
//   dims=AxB...  the skeleton's process grid (extents multiply to the rank count)
//   gap=T        phased workloads: the compute phase between communication phases (100ms)
//   rounds=N     random-perm-mixed, stencil-mixed: how many times the A, gap, B sequence runs
//   and for a pattern source its own options (k, dims, min, max, range, file, bytes).
//
// Every option has a per-app default (app_defaults()); a field an app does not accept must keep
// it. Errors are std::invalid_argument naming the app and the option: "app 'stencil4d': option
// compute: '-2ms' is negative".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "routing/patterns/pattern_spec.hpp"

namespace ibsdn {

/// Bounds known before any program is generated.
inline constexpr std::uint32_t kMaxAppRanks = 1u << 20;           // 1,048,576 ranks
inline constexpr std::uint32_t kMaxAppIterations = 1'000'000;     // per phase
inline constexpr std::size_t kMaxAppPhases = 256;                 // the notice's kMaxPhases
inline constexpr std::uint64_t kMaxAppMessages = 20'000'000;      // over all phases, one pass
inline constexpr std::uint64_t kMaxAppMessageBytes = 1ull << 40;  // 1 TiB per message
inline constexpr double kMaxAppComputeSeconds = 3600.0;           // per iteration, and gap
inline constexpr double kMaxGpuSpeedup = 1e6;
inline constexpr std::uint32_t kMaxAppRounds = 64;  // 4 x 64 - 1 phases <= kMaxAppPhases

enum class AppKind : std::uint8_t { kSkeleton, kPhased, kPattern };

/// An application and its options. Build one with parse() or app_defaults(name) (a YAML reader
/// fills the fields of the latter), then validate().
struct AppSpec {
  std::string name;
  /// Size of the main message (skeletons, phased workloads); a pattern source keeps it in
  /// `pattern.bytes` and leaves this at its default.
  std::uint64_t bytes = PatternSpec::kDefaultBytes;
  std::uint32_t iterations = 10;
  /// Base compute per iteration, seconds, before the GPU speedup.
  double compute_s = 0;
  /// Compute times are divided by this (thesis 3.2's GPU compute scaling).
  double gpu_speedup = 1;
  /// Skeletons: the process grid; empty means the app's default for the rank count.
  std::vector<std::uint32_t> dims;
  /// Phased workloads: the compute between communication phases (thesis 4.4.2: 100 ms).
  double gap_s = 0.1;
  std::uint32_t rounds = 1;
  /// Pattern sources: the pattern and its options (name == this name).
  PatternSpec pattern;

  [[nodiscard]] AppKind kind() const;
  /// Throws std::invalid_argument naming the app and the offending option or value.
  static AppSpec parse(std::string_view text);
  /// Throws std::invalid_argument when the name is unknown, a field the app does not accept
  /// differs from the app's default, or a value is out of its range (independent of ranks).
  void validate() const;
  /// The canonical text: the name plus the options that differ from the app's defaults;
  /// parse(to_string()) == *this.
  [[nodiscard]] std::string to_string() const;
  bool operator==(const AppSpec&) const = default;
};

/// The spec of `name` with every option at that app's default (skeletons: the thesis-matched
/// bytes, compute and GPU speedup). Throws std::invalid_argument for an unknown name.
AppSpec app_defaults(std::string_view name);

/// Skeletons and phased workloads in apps.def order, then the pattern names that are not also
/// apps, in pattern_syntax.def order.
std::vector<std::string> app_names();
/// One line saying what the app is. Throws std::invalid_argument for an unknown name.
std::string summary_of_app(std::string_view name);
/// The option names the app accepts. Throws std::invalid_argument for an unknown name.
std::vector<std::string> app_options(std::string_view name);

/// A duration as `compute=` and `gap=` take it: a non-negative decimal number followed by s, ms,
/// us or ns (`0` alone is allowed), e.g. `2ms`, `0.5s`, `1e-3s`. nullopt when malformed; `why`
/// (when given) says how ("is negative", "needs a unit (s, ms, us, ns)", "is not a number").
std::optional<double> parse_duration(std::string_view text, std::string* why);
/// The shortest text parse_duration() reads back to exactly `seconds`: "2ms", "0.1s", "0".
std::string duration_to_string(double seconds);

}  // namespace ibsdn
