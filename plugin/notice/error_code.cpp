#include "plugin/notice/error_code.hpp"

#include <array>
#include <utility>

namespace ibsdn {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 15> kErrorNames = {{
    {ErrorCode::kParseError, "parse_error"},
    {ErrorCode::kUnsupportedVersion, "unsupported_version"},
    {ErrorCode::kUnknownOp, "unknown_op"},
    {ErrorCode::kInvalid, "invalid"},
    {ErrorCode::kTooLarge, "too_large"},
    {ErrorCode::kForbidden, "forbidden"},
    {ErrorCode::kUnknownJob, "unknown_job"},
    {ErrorCode::kUnknownHost, "unknown_host"},
    {ErrorCode::kUnknownPhase, "unknown_phase"},
    {ErrorCode::kUnroutable, "unroutable"},
    {ErrorCode::kTimeout, "timeout"},
    {ErrorCode::kInstallFailed, "install_failed"},
    {ErrorCode::kBusy, "busy"},
    {ErrorCode::kNotMaster, "not_master"},
    {ErrorCode::kInternal, "internal"},
}};

}  // namespace

std::string_view to_string(ErrorCode code) {
  for (const auto& [c, name] : kErrorNames) {
    if (c == code) return name;
  }
  return "internal";
}

std::optional<ErrorCode> parse_error_code(std::string_view text) {
  for (const auto& [c, name] : kErrorNames) {
    if (name == text) return c;
  }
  return std::nullopt;
}

}  // namespace ibsdn
