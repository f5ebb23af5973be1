#include "sim_backend/timing/controller_routes.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "routing/patterns/traffic_matrix.hpp"
#include "sim_backend/apps/app_model.hpp"

namespace ibsdn {
namespace {

std::uint64_t pair_key(NodeIdx src, NodeIdx dst) {
  return (std::uint64_t{src.value()} << 32) | dst.value();
}

/// The job's traffic as the controller takes it: one pass of its program (every phase's
/// messages once) summed per rank pair, exactly the pairs the timing model sends; with an
/// elephant threshold only the pairs that reach it.
TrafficMatrix job_matrix(const TimingJob& job, double elephant_bytes) {
  AppProgram program;
  program.ranks = job.rank_count();
  program.phases.reserve(job.phases.size());
  for (const TimingPhase& p : job.phases) {
    AppPhase phase;
    phase.name = p.name;
    phase.iterations = p.iterations;
    phase.messages = p.messages;
    program.phases.push_back(std::move(phase));
  }
  TrafficMatrix m;
  m.flows = aggregate_rank_traffic(program, TrafficSpan::kOnePass);
  if (elephant_bytes > 0) {
    std::erase_if(m.flows,
                  [&](const RankFlow& f) { return static_cast<double>(f.bytes) < elephant_bytes; });
  }
  return m;
}

class ControllerRouteSource final : public RouteSource {
 public:
  ControllerRouteSource(const Subnet& subnet, const LftSet& lfts, const ReplayOptions& options,
                        const AdaptiveRoutingOptions& adaptive, double elephant_bytes)
      : subnet_(subnet),
        lfts_(lfts),
        session_(subnet, lfts, options),
        elephant_bytes_(elephant_bytes) {
    if (!(elephant_bytes >= 0) || !std::isfinite(elephant_bytes)) {
      throw std::invalid_argument("controller routes: elephant threshold " +
                                  std::to_string(elephant_bytes) + " is not a byte count");
    }
    if (options.routing == "dmodk") {
      throw std::invalid_argument(
          "controller routes: routing dmodk has no controller (use the "
          "LFT routes)");
    }
    if (options.routing == "sdn-adaptive") adaptive_.emplace(subnet.fabric, adaptive);
  }

  std::string job_started(const TimingJob& job, std::span<const NodeIdx> /*rank_node*/,
                          double now) override {
    ReplayJob r;
    r.id = job.id;
    r.start = now;
    r.end = now;
    r.nodes = job.nodes;
    r.traffic = job_matrix(job, elephant_bytes_);
    const SessionJob& s = session_.start_job(r);
    Routed& routed = jobs_[job.id];
    routed.job = &s;
    routed.adaptive = adaptive_.has_value() && s.entries == 0 && s.status == "ok";
    for (std::size_t i = 0; i < s.flows.size(); ++i) {
      routed.flow_of.emplace(pair_key(s.flows[i].src, s.flows[i].dst), i);
    }
    return s.status;
  }

  void job_ended(std::uint64_t job, double now) override {
    jobs_.erase(job);
    session_.end_job(job, now);
  }

  void routes(std::uint64_t job, NodeIdx src, NodeIdx dst, const LinkState& links,
              std::vector<std::vector<LinkId>>& out) override {
    const auto it = jobs_.find(job);
    if (it == jobs_.end()) {
      throw std::logic_error("controller routes: job " + std::to_string(job) + " is not running");
    }
    const Routed& routed = it->second;
    if (routed.adaptive) {
      adaptive_->routes(src, dst, decisions_++, links.flows, paths_);
      out.insert(out.end(), paths_.begin(), paths_.end());
      return;
    }
    const auto f = routed.flow_of.find(pair_key(src, dst));
    if (f != routed.flow_of.end()) {
      out.push_back(routed.job->paths[f->second]);
      return;
    }
    // A pair the controller was not told (below the elephant threshold): as the fabric carries
    // it now.
    TraceOptions opts;
    opts.override_port = session_.forwarding();
    Trace t = trace(subnet_.fabric, lfts_, src, dst, opts);
    if (!t.ok()) {
      throw std::runtime_error("controller route " + subnet_.fabric.node(src).name + " -> " +
                               subnet_.fabric.node(dst).name + ": " + t.error);
    }
    out.push_back(std::move(t.path));
  }

  std::vector<std::uint64_t> take_changed() override { return session_.take_changed(); }

 private:
  struct Routed {
    const SessionJob* job = nullptr;
    bool adaptive = false;
    std::unordered_map<std::uint64_t, std::size_t> flow_of;  // host pair -> index in flows
  };

  const Subnet& subnet_;
  const LftSet& lfts_;
  ReplaySession session_;
  double elephant_bytes_ = 0;
  std::optional<AdaptiveRoutes> adaptive_;
  std::map<std::uint64_t, Routed> jobs_;
  std::uint64_t decisions_ = 0;
  std::vector<Path> paths_;
};

}  // namespace

std::unique_ptr<RouteSource> controller_routes(const Subnet& subnet, const LftSet& lfts,
                                               const ReplayOptions& options,
                                               const AdaptiveRoutingOptions& adaptive,
                                               double elephant_bytes) {
  return std::make_unique<ControllerRouteSource>(subnet, lfts, options, adaptive, elephant_bytes);
}

}  // namespace ibsdn
