#include "mad/agent/cli_common.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "mad/switch_key_file.hpp"

namespace ibsdn::mad::cli {

std::uint64_t parse_hex_u64(std::string_view text, std::string_view what) {
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
  if (digits.empty() || digits.size() > 16 || ec != std::errc() ||
      ptr != digits.data() + digits.size()) {
    throw std::invalid_argument(std::string(what) + ": '" + std::string(text) +
                                "' is not a hex number of at most 64 bits");
  }
  return v;
}

std::uint64_t resolve_key(const KeySource& src, std::string_view program) {
  const int given =
      (src.key_text.empty() ? 0 : 1) + (src.key_file.empty() ? 0 : 1) + (src.no_key ? 1 : 0);
  if (given == 0) {
    throw std::invalid_argument(
        "no key: give --key-file PATH (or --key HEX), or --no-key to go without authentication");
  }
  if (given > 1) {
    throw std::invalid_argument("--key, --key-file and --no-key exclude each other: give one");
  }
  if (src.no_key) return 0;
  if (!src.key_file.empty()) return read_key_file(src.key_file, {program, "run with --no-key"});
  const std::uint64_t key = parse_hex_u64(src.key_text, "--key");
  if (key == 0) {
    throw std::invalid_argument(
        "--key 0 means no authentication: use --no-key to run without a key");
  }
  return key;
}

Lid parse_lid(std::string_view text) {
  std::string_view digits = text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  unsigned v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || v == 0 ||
      v > 0xBFFF) {
    throw std::invalid_argument("LID '" + std::string(text) +
                                "' is not a unicast LID (1..0xBFFF, decimal or 0x-hex)");
  }
  return Lid(static_cast<std::uint16_t>(v));
}

std::string read_hex_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::string bytes;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      std::string_view w = word;
      if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
      if (w.size() % 2 != 0) {
        throw std::runtime_error(path + ":" + std::to_string(line_no) + ": '" + word +
                                 "' is not a whole number of hex bytes");
      }
      for (std::size_t i = 0; i < w.size(); i += 2) {
        unsigned b = 0;
        const auto [ptr, ec] = std::from_chars(w.data() + i, w.data() + i + 2, b, 16);
        if (ec != std::errc() || ptr != w.data() + i + 2) {
          throw std::runtime_error(path + ":" + std::to_string(line_no) + ": '" + word +
                                   "' is not hex");
        }
        bytes.push_back(static_cast<char>(b));
      }
    }
  }
  if (bytes.size() > 256) {
    throw std::runtime_error(path + ": " + std::to_string(bytes.size()) +
                             " bytes, a MAD has at most 256");
  }
  return bytes;
}

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03d", buf, static_cast<int>(ms.count()));
  return out;
}

}  // namespace ibsdn::mad::cli
