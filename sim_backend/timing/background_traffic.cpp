#include "sim_backend/timing/background_traffic.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <string>
#include <utility>

namespace ibsdn {

BackgroundSender::BackgroundSender(const BackgroundTraffic& spec, std::vector<double> bandwidth)
    : spec_(spec), queued_(bandwidth.size(), 0), rng_(spec.seed) {
  assert(bandwidth.size() >= 2);
  period_.reserve(bandwidth.size());
  for (const double b : bandwidth) period_.push_back(spec.bytes / (spec.load * b));
}

void BackgroundSender::start(double now) {
  start_ = now;
  end_ = spec_.duration > 0 ? now + spec_.duration : std::numeric_limits<double>::infinity();
}

double BackgroundSender::first(std::uint32_t node) {
  // 2^53 steps: the offset is a uniform double in [0, 1) on every platform.
  constexpr std::uint64_t kSteps = std::uint64_t{1} << 53;
  const double u = static_cast<double>(rng_.below(kSteps)) / static_cast<double>(kSteps);
  return start_ + u * period_[node];
}

bool BackgroundSender::injecting(double now) const {
  return now < end_ && injected_ < spec_.max_messages;
}

std::optional<std::uint32_t> BackgroundSender::inject(std::uint32_t node) {
  if (queued_[node] >= BackgroundTraffic::kMaxQueued) {
    ++skipped_;
    return std::nullopt;
  }
  ++queued_[node];
  ++injected_;
  ++in_flight_;
  const auto others = static_cast<std::uint32_t>(queued_.size() - 1);
  const auto draw = static_cast<std::uint32_t>(rng_.below(others));
  return draw < node ? draw : draw + 1;
}

void BackgroundSender::delivered(std::uint32_t node, double seconds) {
  assert(queued_[node] > 0 && in_flight_ > 0);
  --queued_[node];
  --in_flight_;
  ++delivered_;
  time_sum_ += seconds;
  time_max_ = std::max(time_max_, seconds);
}

void BackgroundSender::report(TimedJob& out) const {
  out.messages = delivered_;
  out.network_bytes = static_cast<double>(delivered_) * spec_.bytes;
  out.comm_time = delivered_ == 0 ? 0 : time_sum_ / static_cast<double>(delivered_);
  out.max_comm_time = time_max_;
  out.compute_time = 0;
  out.skipped = skipped_;
  out.unfinished = in_flight_;
  out.status = injected_ >= spec_.max_messages
                   ? "background, stopped at its limit of " + std::to_string(spec_.max_messages) +
                         " messages"
                   : "background";
}

}  // namespace ibsdn
