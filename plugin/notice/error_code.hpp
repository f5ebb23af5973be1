// The error codes of the notice protocol (docs/notice-protocol.md, "Error codes") and the error
// a request line is refused with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsdn {

enum class ErrorCode : std::uint8_t {
  // Request errors (parse_request).
  kParseError,          // not JSON, not one JSON object, or nested too deep
  kUnsupportedVersion,  // "v" is not 1
  kUnknownOp,           // "op" names no request
  kInvalid,             // a field is missing, unknown, of the wrong type or out of range
  kTooLarge,            // the line or an array exceeds its limit
  // Controller errors (the request was well formed).
  kForbidden,      // the peer may not send this request
  kUnknownJob,     // no active job with that id
  kUnknownHost,    // a host name the fabric has no HCA for
  kUnknownPhase,   // phase begin / end of a phase the job has not declared or begun
  kUnroutable,     // the algorithm cannot route this job on this fabric
  kTimeout,        // job_start_timeout_ms elapsed
  kInstallFailed,  // switches did not accept the flow entries (traffic stays on the LFT)
  kBusy,           // the fabric is being re-swept; retry
  kNotMaster,      // this opensm is not the master SM: its controller does not act on switches
  kInternal,       // a bug: the controller logged the details
};
std::string_view to_string(ErrorCode code);
std::optional<ErrorCode> parse_error_code(std::string_view text);

/// Why parse_request() refused a line.
struct RequestError {
  ErrorCode code = ErrorCode::kInvalid;
  std::string at;       // JSON pointer of the offending value ("" for the whole line)
  std::string message;  // says what and where; printable ASCII
};

}  // namespace ibsdn
