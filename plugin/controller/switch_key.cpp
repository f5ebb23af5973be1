#include "plugin/controller/switch_key.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "plugin/controller/state_dir.hpp"
#include "plugin/controller/state_error.hpp"

namespace ibsdn {
namespace {

constexpr std::string_view kFormat =
    "expected one line: 0x followed by 1 to 16 hex digits, or a decimal number";
// Far more than a key line (at most 21 bytes): anything longer is not a key file.
constexpr std::size_t kMaxKeyFileBytes = 4096;
// getrandom() returning 0 eight times in a row means a broken kernel, not bad luck (2^-512).
constexpr int kMaxZeroDraws = 8;

[[noreturn]] void fail(std::string_view source, std::size_t line, std::size_t column,
                       const std::string& what) {
  throw ConfigError(source, line, column, what);
}

// One character for a message, without repeating the rest of the line (it may be a key).
std::string describe(char c) {
  if (c == '\r') return "a carriage return (DOS line end)";
  if (c == ' ' || c == '\t') return "a blank";
  if (c >= 0x21 && c <= 0x7e) return std::string("'") + c + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
  return std::string("byte ") + hex;
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::uint64_t parse_switch_key_text(std::string_view text, std::string_view source) {
  if (text.empty()) fail(source, 1, 0, std::string("empty; ") + std::string(kFormat));
  const std::size_t newline = text.find('\n');
  if (newline != std::string_view::npos && newline + 1 != text.size()) {
    fail(source, 2, 0, "more than one line; a key file holds one key on one line");
  }
  const std::string_view line = text.substr(0, newline);
  if (line.empty()) fail(source, 1, 0, std::string("empty line; ") + std::string(kFormat));

  std::uint64_t key = 0;
  if (line.size() >= 2 && line[0] == '0' && (line[1] == 'x' || line[1] == 'X')) {
    const std::string_view digits = line.substr(2);
    for (std::size_t i = 0; i < digits.size(); ++i) {
      if (!is_hex_digit(digits[i])) {
        fail(source, 1, i + 3, "unexpected " + describe(digits[i]) + "; expected a hex digit");
      }
    }
    if (digits.empty()) fail(source, 1, 3, "no hex digits after 0x");
    if (digits.size() > 16) fail(source, 1, 19, "more than 16 hex digits: not a 64-bit key");
    (void)std::from_chars(digits.data(), digits.data() + digits.size(), key, 16);
  } else {
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (!is_digit(line[i])) {
        fail(source, 1, i + 1, "unexpected " + describe(line[i]) + "; " + std::string(kFormat));
      }
    }
    if (line.size() > 1 && line[0] == '0') {
      fail(source, 1, 1, "a decimal key with a leading 0; write 0x for a hex key");
    }
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), key, 10);
    if (ec == std::errc::result_out_of_range) {
      fail(source, 1, 1, "larger than 2^64-1: not a 64-bit key");
    }
  }
  if (key == 0) {
    fail(source, 1, 1,
         "the key is 0, which means no authentication; write `switch_key: none` in the "
         "configuration to mean that");
  }
  return key;
}

std::string switch_key_text(std::uint64_t key) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016" PRIx64 "\n", key);
  return text;
}

std::uint64_t read_switch_key_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) fail(path, 0, 0, std::strerror(errno));
  if (S_ISLNK(st.st_mode)) {
    fail(path, 0, 0,
         "a symbolic link; a key file must be a regular file (put the key itself there)");
  }
  if (!S_ISREG(st.st_mode)) fail(path, 0, 0, "not a regular file");
  if (st.st_uid != ::geteuid()) {
    fail(path, 0, 0,
         "owned by uid " + std::to_string(st.st_uid) + ", but the controller runs as uid " +
             std::to_string(::geteuid()) + "; a key file belongs to the controller's user");
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    fail(path, 0, 0,
         "mode " + state_dir::mode_text(st.st_mode) +
             " gives group or others access, so the key may have leaked: write a new key, give it "
             "to the switches' agents, and keep the file mode 0600 (docs/security.md, "
             "\"Rotating the key\")");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  std::string text(kMaxKeyFileBytes + 1, '\0');
  struct stat opened {};
  std::size_t got = 0;
  int err = 0;
  if (::fstat(fd, &opened) != 0) err = errno;
  while (err == 0 && got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (err != 0) fail(path, 0, 0, std::string("cannot read: ") + std::strerror(err));
  if (opened.st_dev != st.st_dev || opened.st_ino != st.st_ino) {
    fail(path, 0, 0, "replaced while being read; try again");
  }
  if (got > kMaxKeyFileBytes) {
    fail(path, 0, 0, "longer than " + std::to_string(kMaxKeyFileBytes) + " bytes; not a key file");
  }
  text.resize(got);
  return parse_switch_key_text(text, path);
}

std::uint64_t generate_switch_key() {
  for (int draw = 0; draw < kMaxZeroDraws; ++draw) {
    std::uint64_t key = 0;
    ssize_t n = -1;
    do {
      n = ::getrandom(&key, sizeof key, 0);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof key)) {
      throw StateError(std::string("switch key: getrandom: ") +
                       (n < 0 ? std::strerror(errno) : "short read"));
    }
    if (key != 0) return key;
  }
  throw StateError("switch key: getrandom gave only zeros");
}

std::uint64_t resolve_switch_key(const Config& config, std::vector<std::string>& warnings) {
  switch (config.switch_key_source) {
    case SwitchKeySource::kNone:
      return 0;
    case SwitchKeySource::kConfig:
      if (config.switch_key == 0) {
        throw ConfigError("switch_key", 0, 0,
                          "0 disables authentication; write `switch_key: none` to mean that");
      }
      return config.switch_key;
    case SwitchKeySource::kFile:
      if (!config.switch_key_file) {
        throw ConfigError("switch_key_file", 0, 0, "no file named");
      }
      return read_switch_key_file(*config.switch_key_file);
    case SwitchKeySource::kStateDirFile:
      break;
  }
  const std::string path = config.state_dir + "/" + kSwitchKeyFileName;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 || errno != ENOENT) return read_switch_key_file(path);
  const std::uint64_t key = generate_switch_key();
  if (!state_dir::write_atomically(config.state_dir, kSwitchKeyFileName, switch_key_text(key),
                                   state_dir::Replace::kNo)) {
    return read_switch_key_file(path);  // another process wrote one first: that one counts
  }
  warnings.push_back(path +
                     ": generated a new switch key (first start). Switches' agents refuse this "
                     "controller's flow changes until they use it: give each a 0600 copy "
                     "(ibsdn-switch-agent --key-file)");
  return key;
}

}  // namespace ibsdn
