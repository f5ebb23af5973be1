// Syntax of the names that reach the controller from outside: host names, user and group names,
// phase names, routing-algorithm names. Each check returns an empty string when the name is
// acceptable, otherwise why not (without repeating the name, so that callers can quote it safely
// with quote_for_message.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ibsdn {

inline constexpr std::size_t kMaxHostnameLength = 253;
inline constexpr std::size_t kMaxHostnameLabel = 63;
inline constexpr std::size_t kMaxUserNameLength = 32;
inline constexpr std::size_t kMaxPhaseNameLength = 64;
inline constexpr std::size_t kMaxAlgorithmNameLength = 64;

/// RFC 1123 host names: dot-separated labels of 1-63 letters, digits and '-', a label neither
/// starting nor ending with '-', at most 253 characters in all.
std::string hostname_problem(std::string_view name);

/// POSIX-portable user and group names as Debian's adduser accepts them: 1-32 characters, a
/// letter or '_' first, then letters, digits, '_', '.', '-', and an optional final '$' (Samba
/// machine accounts).
std::string user_name_problem(std::string_view name);

/// Communication-phase names: 1-64 letters, digits, '_', '.', ':' or '-'.
std::string phase_name_problem(std::string_view name);

/// Routing-algorithm names (routing/algorithms.def): 1-64 lower-case letters, digits and '-',
/// a letter first. Only the syntax: which algorithms exist is the controller's to say.
std::string algorithm_name_problem(std::string_view name);

}  // namespace ibsdn
