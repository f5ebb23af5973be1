// How the controller's messages and log lines name a job ("job 42") and its traffic, and the
// clocks its answers and records read.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>

#include "flowtable/types.hpp"
#include "plugin/notice/request.hpp"

namespace ibsdn::plugin {

inline std::string job_text(JobId id) {
  return "job " + std::to_string(id.value());
}

/// A job's traffic in log lines and summaries: the pattern as written, or "matrix".
inline std::string traffic_text(const Traffic& t) {
  if (const auto* p = std::get_if<PatternSpec>(&t)) return p->to_string();
  return "matrix";
}

/// Milliseconds since `t` (steady clock), for the answers' timings.
inline double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

/// Milliseconds since the Unix epoch (wall clock), for a job's recorded start.
inline std::int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ibsdn::plugin
