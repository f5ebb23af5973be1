#include "plugin/notice/fields.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ibsdn::notice_fields {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxMessage = 400;

std::string pointer_token(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= kMaxMessage) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", byte);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

[[noreturn]] void fail(ErrorCode code, const std::string& at, std::string_view what) {
  std::string message = at.empty() ? std::string(what) : "at " + at + ": " + std::string(what);
  throw Failure{{code, printable(at), printable(message)}};
}

std::string child(const std::string& at, std::string_view key) {
  return at + "/" + pointer_token(key);
}
std::string child(const std::string& at, std::size_t index) {
  return at + "/" + std::to_string(index);
}

Object::Object(const json& j, std::string at, std::string_view what) : j_(j), at_(std::move(at)) {
  if (!j.is_object()) {
    fail(ErrorCode::kInvalid, at_,
         "expected " + std::string(what) + " (an object), got " + j.type_name());
  }
}

void Object::allow_only(std::initializer_list<std::string_view> known,
                        std::string_view context) const {
  for (const auto& [key, value] : j_.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(ErrorCode::kInvalid, child(at_, key),
           "unknown field for " + std::string(context) + " (accepted: " + list + ")");
    }
  }
}

const json* Object::find(std::string_view key) const {
  const auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

const json& Object::need(std::string_view key) const {
  const json* v = find(key);
  if (!v) fail(ErrorCode::kInvalid, child(at_, key), "missing");
  return *v;
}

std::uint64_t to_uint(const json& v, const std::string& at, std::uint64_t min, std::uint64_t max,
                      std::string_view what) {
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (!v.is_number_integer()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be an integer in " + range + ", got " +
             (v.is_number_float() ? std::string("a non-integer number") : v.type_name()));
  }
  if (!v.is_number_unsigned()) {
    fail(ErrorCode::kInvalid, at, std::string(what) + " must not be negative (" + range + ")");
  }
  const auto x = v.get<std::uint64_t>();
  if (x < min || x > max) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " " + std::to_string(x) + " is out of range " + range);
  }
  return x;
}

const std::string& to_string_value(const json& v, const std::string& at, std::string_view what) {
  if (!v.is_string()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be a string, got " + std::string(v.type_name()));
  }
  return v.get_ref<const std::string&>();
}

bool to_bool(const json& v, const std::string& at, std::string_view what) {
  if (!v.is_boolean()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be true or false, got " + std::string(v.type_name()));
  }
  return v.get<bool>();
}

const json& to_array(const json& v, const std::string& at, std::string_view what, std::size_t max) {
  if (!v.is_array()) {
    fail(ErrorCode::kInvalid, at,
         std::string(what) + " must be an array, got " + std::string(v.type_name()));
  }
  if (v.size() > max) {
    fail(ErrorCode::kTooLarge, at,
         std::string(what) + " has " + std::to_string(v.size()) + " elements, the limit is " +
             std::to_string(max));
  }
  return v;
}

}  // namespace ibsdn::notice_fields
