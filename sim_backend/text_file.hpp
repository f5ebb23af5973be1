// Writing an output file of ibsdn-sim whole, with an error that says which file and why.
#pragma once

#include <string>
#include <string_view>

namespace ibsdn {

/// Writes `text` to `path` (created or truncated). Throws std::runtime_error "cannot write
/// <what> 'PATH': reason" when it cannot open, write or close the file.
void write_text_file(const std::string& path, std::string_view text, std::string_view what);

}  // namespace ibsdn
