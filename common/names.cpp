#include "common/names.hpp"

namespace ibsdn {
namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::string hostname_problem(std::string_view name) {
  if (name.empty()) return "empty host name";
  if (name.size() > kMaxHostnameLength) {
    return "longer than " + std::to_string(kMaxHostnameLength) + " characters";
  }
  std::size_t label_start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '.') {
      const char c = name[i];
      if (!is_alpha(c) && !is_digit(c) && c != '-') {
        return "character " + std::to_string(i + 1) + " is not a letter, digit, '-' or '.'";
      }
      continue;
    }
    const std::string_view label = name.substr(label_start, i - label_start);
    if (label.empty()) return "empty label (leading, trailing or doubled '.')";
    if (label.size() > kMaxHostnameLabel) {
      return "a label is longer than " + std::to_string(kMaxHostnameLabel) + " characters";
    }
    if (label.front() == '-' || label.back() == '-') return "a label starts or ends with '-'";
    label_start = i + 1;
  }
  return {};
}

std::string user_name_problem(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.size() > kMaxUserNameLength) {
    return "longer than " + std::to_string(kMaxUserNameLength) + " characters";
  }
  if (!is_alpha(name[0]) && name[0] != '_') return "does not start with a letter or '_'";
  for (std::size_t i = 1; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '$' && i + 1 == name.size()) break;
    if (!is_alpha(c) && !is_digit(c) && c != '_' && c != '.' && c != '-') {
      return "character " + std::to_string(i + 1) + " is not a letter, digit, '_', '.' or '-'";
    }
  }
  return {};
}

std::string phase_name_problem(std::string_view name) {
  if (name.empty()) return "empty phase name";
  if (name.size() > kMaxPhaseNameLength) {
    return "longer than " + std::to_string(kMaxPhaseNameLength) + " characters";
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!is_alpha(c) && !is_digit(c) && c != '_' && c != '.' && c != ':' && c != '-') {
      return "character " + std::to_string(i + 1) + " is not a letter, digit, '_', '.', ':' or '-'";
    }
  }
  return {};
}

std::string algorithm_name_problem(std::string_view name) {
  if (name.empty()) return "empty algorithm name";
  if (name.size() > kMaxAlgorithmNameLength) {
    return "longer than " + std::to_string(kMaxAlgorithmNameLength) + " characters";
  }
  if (name[0] < 'a' || name[0] > 'z') return "does not start with a lower-case letter";
  for (std::size_t i = 1; i < name.size(); ++i) {
    const char c = name[i];
    if ((c < 'a' || c > 'z') && !is_digit(c) && c != '-') {
      return "character " + std::to_string(i + 1) + " is not a lower-case letter, digit or '-'";
    }
  }
  return {};
}

}  // namespace ibsdn
