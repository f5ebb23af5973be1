// The simulator's parts that do not run it: NIC policies, programs as phases, and the route
// sources of the LFTs and of the fabric's adaptive routing (timing_sim.hpp).
#include <charconv>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "sim_backend/timing/timing_sim.hpp"

namespace ibsdn {

NicPolicy NicPolicy::parse(std::string_view text) {
  if (text == "fcfs") return {};
  if (text == "rr") return {Kind::kRoundRobin, 0};
  if (text.starts_with("rr-")) {
    const std::string_view digits = text.substr(3);
    std::uint32_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc{} && end == digits.data() + digits.size() && !digits.empty() && n >= 1 &&
        n <= kMaxN) {
      return {Kind::kRoundRobinN, n};
    }
  }
  throw std::invalid_argument("NIC scheduling '" + std::string(text) +
                              "': expected fcfs, rr or rr-N with N in 1.." + std::to_string(kMaxN));
}

std::string NicPolicy::to_string() const {
  switch (kind) {
    case Kind::kFcfs:
      return "fcfs";
    case Kind::kRoundRobin:
      return "rr";
    case Kind::kRoundRobinN:
      return "rr-" + std::to_string(n);
  }
  return "?";
}

std::size_t NicPolicy::limit() const {
  switch (kind) {
    case Kind::kFcfs:
      return 1;
    case Kind::kRoundRobin:
      return std::numeric_limits<std::size_t>::max();
    case Kind::kRoundRobinN:
      return n;
  }
  return 1;
}

std::vector<TimingPhase> timing_phases(const AppProgram& program) {
  std::vector<TimingPhase> phases;
  phases.reserve(program.phases.size());
  for (const AppPhase& p : program.phases) {
    phases.push_back({.name = p.name,
                      .iterations = p.iterations,
                      .barrier_before = p.barrier_before,
                      .compute = p.compute_s,
                      .messages = p.messages,
                      .collective = p.collective});
  }
  return phases;
}

std::uint32_t TimingJob::rank_count() const {
  return ranks != 0 ? ranks : static_cast<std::uint32_t>(nodes.size()) * ranks_per_node;
}

namespace {

class LftRouteSource final : public RouteSource {
 public:
  LftRouteSource(const Fabric& fabric, const LftSet& lfts) : fabric_(fabric), lfts_(lfts) {}
  std::string job_started(const TimingJob& /*job*/, std::span<const NodeIdx> /*rank_node*/,
                          double /*now*/) override {
    return "ok";
  }
  void job_ended(std::uint64_t /*job*/, double /*now*/) override {}
  void routes(std::uint64_t /*job*/, NodeIdx src, NodeIdx dst, const LinkState& /*links*/,
              std::vector<std::vector<LinkId>>& out) override {
    const std::uint64_t key = (std::uint64_t{src.value()} << 32) | dst.value();
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      Trace t = trace(fabric_, lfts_, src, dst);
      if (!t.ok()) {
        throw std::runtime_error("LFT route " + fabric_.node(src).name + " -> " +
                                 fabric_.node(dst).name + ": " + t.error);
      }
      it = cache_.emplace(key, std::move(t.path)).first;
    }
    out.push_back(it->second);
  }

 private:
  const Fabric& fabric_;
  const LftSet& lfts_;
  std::unordered_map<std::uint64_t, Path> cache_;
};

class AdaptiveRouteSource final : public RouteSource {
 public:
  AdaptiveRouteSource(const Fabric& fabric, const AdaptiveRoutingOptions& options)
      : adaptive_(fabric, options) {}
  std::string job_started(const TimingJob& /*job*/, std::span<const NodeIdx> /*rank_node*/,
                          double /*now*/) override {
    return "ok";
  }
  void job_ended(std::uint64_t /*job*/, double /*now*/) override {}
  void routes(std::uint64_t /*job*/, NodeIdx src, NodeIdx dst, const LinkState& links,
              std::vector<std::vector<LinkId>>& out) override {
    // The draws' key: one per decision, in the simulation's (deterministic) order.
    adaptive_.routes(src, dst, decisions_++, links.flows, paths_);
    out.insert(out.end(), paths_.begin(), paths_.end());
  }

 private:
  AdaptiveRoutes adaptive_;
  std::uint64_t decisions_ = 0;
  std::vector<Path> paths_;
};

}  // namespace

std::unique_ptr<RouteSource> lft_routes(const Fabric& fabric, const LftSet& lfts) {
  return std::make_unique<LftRouteSource>(fabric, lfts);
}

std::unique_ptr<RouteSource> adaptive_routes(const Fabric& fabric,
                                             const AdaptiveRoutingOptions& options) {
  return std::make_unique<AdaptiveRouteSource>(fabric, options);
}

}  // namespace ibsdn
