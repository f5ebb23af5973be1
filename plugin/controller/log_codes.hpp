// The codes of the log lines that report an error, in OpenSM's dialect: OpenSM starts such a line
// with "ERR " and four hex digits (`ERR 3A0B: ...`), the first two naming the part of OpenSM that
// logs it. ibsdn uses the prefix 5D, which OpenSM does not (3.3.23 nor its current sources); the
// third digit names the file:
//   5D0x  the C glue (plugin/opensm/glue/glue.h has those: C cannot include this header)
//   5D1x  plugin/opensm/controller_bridge.cpp     5D2x  plugin/opensm/controller_runtime.cpp
//   5D3x  job_controller.cpp               5D4x  job_placement.cpp
//   5D5x  job_reconcile.cpp                5D6x  job_audit.cpp
//   5D7x  job_persistence.cpp              5D8x  notice_server.cpp, notice_framing.cpp
// A code names one condition at one place and never changes meaning: operators search for it, and
// docs/operations.md ("Log messages") says what each means and what to do.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ibsdn {

enum class LogCode : std::uint16_t {
  // plugin/opensm/controller_bridge.cpp: the osmsdn_* functions' exception barrier.
  kCreateFailed = 0x5D10,       // the controller does not start (also to syslog)
  kAbiMismatch = 0x5D11,        // glue and controller built apart (also to syslog)
  kStopFailed = 0x5D12,         // osmsdn_stop threw
  kEngineFailed = 0x5D13,       // the "sdn" routing engine could not compute the LFTs
  kSubnetUpFailed = 0x5D14,     // a SUBNET UP could not be handed to the controller
  kMadReceivedFailed = 0x5D15,  // a MAD answer could not be handed to the transport
  kMadFailureFailed = 0x5D16,   // a MAD failure could not be handed to the transport
  // plugin/opensm/controller_runtime.cpp: the controller thread.
  kEventsDropped = 0x5D20,        // the event queue was full
  kEventFailed = 0x5D21,          // handling a SUBNET UP or notice threw
  kPeriodicCheckFailed = 0x5D22,  // the periodic check threw
  kSmStateFailed = 0x5D23,        // OpenSM's SM state could not be applied
  // job_controller.cpp
  kNoticeFailed = 0x5D30,   // a notice ended in an internal error
  kPublishFailed = 0x5D31,  // the view for queries could not be published
  // job_placement.cpp
  kStoreRestoreFailed = 0x5D40,  // a failed install could not restore the state store
  kStoreUpdateFailed = 0x5D41,   // a withdrawn job could not be stored
  // job_reconcile.cpp
  kJobUnplaceable = 0x5D50,  // a job's hosts are not on the fabric
  kRerouteFailed = 0x5D51,   // a job could not be re-routed; its entries are removed
  // job_audit.cpp
  kRepairFailed = 0x5D60,  // a switch did not take the repair
  // job_persistence.cpp
  kStoreRemoveFailed = 0x5D70,    // an ended job could not be removed from the store
  kReloadFailed = 0x5D71,         // the jobs could not be reloaded from the store
  kJobQuarantined = 0x5D72,       // a stored job is unreadable: quarantined now
  kJobStaysQuarantined = 0x5D73,  // a job quarantined before is still there
  kQuarantineFailed = 0x5D74,     // an unreadable job could not be moved to the quarantine
  // notice_server.cpp; 5D8B notice_framing.cpp
  kServerLoopFailed = 0x5D80,     // the server's loop threw; it continues
  kPollFailed = 0x5D81,           // poll() failed
  kRequestDropped = 0x5D82,       // the controller dropped a request unanswered
  kResponseMalformed = 0x5D83,    // the controller's response was not one line
  kReplyFailed = 0x5D84,          // a reply could not be sent; the connection is closed
  kServeFailed = 0x5D85,          // serving a line threw; the connection is closed
  kIoFailed = 0x5D86,             // reading or writing threw; the connection is closed
  kAcceptFailed = 0x5D87,         // accept() failed; accepting pauses
  kNoPeerCredentials = 0x5D88,    // SO_PEERCRED failed; the connection is closed
  kInvalidDescriptor = 0x5D89,    // poll() reported POLLNVAL for a connection
  kHandlerFailed = 0x5D8A,        // the request handler threw
  kOutputLimitExceeded = 0x5D8B,  // a response exceeds max_output_bytes
  // job_takeover.cpp
  kTakeoverStoreFailed = 0x5D90,  // a job taken over from the switches could not be stored
};

/// Every LogCode, for the checks below and the tests. A new code is added here too.
inline constexpr std::array kLogCodes = {
    LogCode::kCreateFailed,        LogCode::kAbiMismatch,       LogCode::kStopFailed,
    LogCode::kEngineFailed,        LogCode::kSubnetUpFailed,    LogCode::kMadReceivedFailed,
    LogCode::kMadFailureFailed,    LogCode::kEventsDropped,     LogCode::kEventFailed,
    LogCode::kPeriodicCheckFailed, LogCode::kNoticeFailed,      LogCode::kPublishFailed,
    LogCode::kStoreRestoreFailed,  LogCode::kStoreUpdateFailed, LogCode::kJobUnplaceable,
    LogCode::kRerouteFailed,       LogCode::kRepairFailed,      LogCode::kStoreRemoveFailed,
    LogCode::kReloadFailed,        LogCode::kJobQuarantined,    LogCode::kJobStaysQuarantined,
    LogCode::kQuarantineFailed,    LogCode::kServerLoopFailed,  LogCode::kPollFailed,
    LogCode::kRequestDropped,      LogCode::kResponseMalformed, LogCode::kReplyFailed,
    LogCode::kServeFailed,         LogCode::kIoFailed,          LogCode::kAcceptFailed,
    LogCode::kNoPeerCredentials,   LogCode::kInvalidDescriptor, LogCode::kHandlerFailed,
    LogCode::kOutputLimitExceeded, LogCode::kSmStateFailed,     LogCode::kTakeoverStoreFailed,
};

/// ibsdn's share of OpenSM's code space: 5D00..5DFF.
inline constexpr std::uint16_t kLogCodePrefix = 0x5D00;

/// True when every code has ibsdn's prefix and none is listed twice.
constexpr bool log_codes_valid() {
  for (std::size_t i = 0; i < kLogCodes.size(); ++i) {
    const auto v = static_cast<std::uint16_t>(kLogCodes[i]);
    if ((v & 0xFF00) != kLogCodePrefix) return false;
    for (std::size_t j = i + 1; j < kLogCodes.size(); ++j) {
      if (kLogCodes[i] == kLogCodes[j]) return false;
    }
  }
  return true;
}
static_assert(log_codes_valid(), "log codes must be unique and start with 5D");

/// "ERR 5D13", as OpenSM prints a code.
std::string to_string(LogCode code);

/// "ERR 5D13: " + message: an error line in OpenSM's format.
std::string error_line(LogCode code, std::string_view message);

/// `context` (e.g. "notice socket: ") put in front of a log message, but after the message's
/// "ERR XXXX: " code when it has one, so that the code stays first where operators look for it.
std::string in_context(std::string_view context, std::string_view message);

}  // namespace ibsdn
