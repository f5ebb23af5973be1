// How the controller's messages and log lines name a job: "job 42".
#pragma once

#include <string>

#include "flowtable/types.hpp"

namespace ibsdn::plugin {

inline std::string job_text(JobId id) {
  return "job " + std::to_string(id.value());
}

}  // namespace ibsdn::plugin
