// The comma-separated parameter lists the topology generators are given ("4,8,4,33",
// "megafly(16,16,16,16,33)", "pod-tree(4,16,24,8,16)"): one reader for all of them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ibsdn {

/// `s` without leading and trailing spaces and tabs.
std::string trim_blanks(std::string_view s);

/// Splits "x,y,z", optionally wrapped as "<wrapper>(x,y,z)" (any case), into exactly
/// names.size() integers. Throws std::invalid_argument naming the wrapper and the value that is
/// not an integer, or the expected list when there are more or fewer values.
std::vector<int> parse_param_values(std::string_view text, std::string_view wrapper,
                                    const std::vector<std::string_view>& names);

}  // namespace ibsdn
