// Reading an input file and writing an output file of ibsdn-sim whole, with an error that says
// which file and why.
#pragma once

#include <string>
#include <string_view>

namespace ibsdn {

/// Writes `text` to `path` (created or truncated). Throws std::runtime_error "cannot write
/// <what> 'PATH': reason" when it cannot open, write or close the file.
void write_text_file(const std::string& path, std::string_view text, std::string_view what);

/// The bytes of the file at `path`. Throws std::invalid_argument "cannot read <what> 'PATH':
/// reason" when it is a directory or cannot be opened or read.
std::string read_text_file(const std::string& path, std::string_view what);

}  // namespace ibsdn
