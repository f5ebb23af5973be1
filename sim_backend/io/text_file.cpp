#include "sim_backend/io/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ibsdn {

void write_text_file(const std::string& path, std::string_view text, std::string_view what) {
  const std::string prefix = "cannot write " + std::string(what) + " '" + path + "': ";
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) throw std::runtime_error(prefix + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const int saved = errno;
  if (std::fclose(out) != 0 || !written) {
    throw std::runtime_error(prefix + std::strerror(written ? errno : saved));
  }
}

std::string read_text_file(const std::string& path, std::string_view what) {
  const std::string prefix = "cannot read " + std::string(what) + " '" + path + "': ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument(prefix + "a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(prefix + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::invalid_argument(prefix + std::strerror(errno));
  return std::move(text).str();
}

}  // namespace ibsdn
