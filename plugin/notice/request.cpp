// The ops of the requests, and who may send each.
#include "plugin/notice/request.hpp"

#include <array>

namespace ibsdn {
namespace {

// The ops in the order of the Request alternatives (request_parser.cpp has the same names, each
// with its parser).
constexpr std::array<std::string_view, std::variant_size_v<Request>> kOps = {"job_start",
                                                                             "job_end",
                                                                             "phase",
                                                                             "hint",
                                                                             "jobs",
                                                                             "flows",
                                                                             "links",
                                                                             "route",
                                                                             "audit",
                                                                             "stats",
                                                                             "ping",
                                                                             "quarantine",
                                                                             "quarantine_release"};

}  // namespace

std::string_view op_name(const Request& r) {
  return kOps[r.index()];
}

Privilege required_privilege(const Request& r) {
  if (std::holds_alternative<QuarantineReleaseRequest>(r)) return Privilege::kRoot;
  if (std::holds_alternative<JobStartRequest>(r) || std::holds_alternative<JobEndRequest>(r)) {
    return Privilege::kScheduler;
  }
  if (const auto* a = std::get_if<AuditQuery>(&r); a != nullptr && a->repair) {
    return Privilege::kScheduler;
  }
  if (std::holds_alternative<PhaseRequest>(r) || std::holds_alternative<HintRequest>(r)) {
    return Privilege::kJobOwnerOrScheduler;
  }
  return Privilege::kAnyone;
}

}  // namespace ibsdn
