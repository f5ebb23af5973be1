// Typed access to the values of a request's JSON, each error naming the value by its JSON pointer
// (RFC 6901: /phases/1/matrix/5/2). Internal to the notice library: the request parser throws
// Failure, and parse_request() turns it into its RequestError, so no exception leaves the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "plugin/notice/error_code.hpp"

namespace ibsdn::notice_fields {

struct Failure {
  RequestError error;
};

/// Error messages quote client input: printable ASCII (\xNN escapes), cut at a bound.
std::string printable(std::string_view text);

/// Throws Failure; `what` is prefixed with "at POINTER: " unless `at` is empty.
[[noreturn]] void fail(ErrorCode code, const std::string& at, std::string_view what);

/// The pointer of a member (`~` and `/` escaped) or an element below `at`.
std::string child(const std::string& at, std::string_view key);
std::string child(const std::string& at, std::size_t index);

/// The fields of one JSON object.
class Object {
 public:
  /// Fails (kInvalid) unless `j` is an object; `what` names it in the message ("a phase").
  Object(const nlohmann::json& j, std::string at, std::string_view what);

  /// Fails (kInvalid, at the field) on a key not in `known`, listing the accepted ones.
  void allow_only(std::initializer_list<std::string_view> known, std::string_view context) const;
  [[nodiscard]] const nlohmann::json* find(std::string_view key) const;
  [[nodiscard]] bool has(std::string_view key) const { return find(key) != nullptr; }
  /// The field, or fails (kInvalid, "missing").
  [[nodiscard]] const nlohmann::json& need(std::string_view key) const;
  /// The field's pointer.
  [[nodiscard]] std::string at(std::string_view key) const { return child(at_, key); }

 private:
  const nlohmann::json& j_;
  std::string at_;
};

// Each fails with kInvalid (kTooLarge for an array over `max`), naming `what` and the range.
std::uint64_t to_uint(const nlohmann::json& v, const std::string& at, std::uint64_t min,
                      std::uint64_t max, std::string_view what);
const std::string& to_string_value(const nlohmann::json& v, const std::string& at,
                                   std::string_view what);
bool to_bool(const nlohmann::json& v, const std::string& at, std::string_view what);
const nlohmann::json& to_array(const nlohmann::json& v, const std::string& at,
                               std::string_view what, std::size_t max);

}  // namespace ibsdn::notice_fields
