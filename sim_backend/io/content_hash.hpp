// SHA-256 (OpenSSL's libcrypto) of bytes and of files: what a scenario's hash is made of. A
// cryptographic hash rather than a short one of our own: the hash stands for a scenario and the
// content of its traces and fabrics in every output file, so two different inputs must not share
// it by accident, and SHA-256 is the same on every platform and version.
#pragma once

#include <string>
#include <string_view>

namespace ibsdn {

/// 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

/// SHA-256 of a file's content, read in blocks. Throws std::runtime_error("why") when the file
/// cannot be read.
std::string file_sha256_hex(const std::string& path);

}  // namespace ibsdn
