#include "mad/switch_key_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/config_error.hpp"

namespace ibsdn::mad {
namespace {

constexpr std::string_view kFormat =
    "expected one line: 0x followed by 1 to 16 hex digits, or a decimal number";

[[noreturn]] void fail(std::string_view source, std::size_t line, std::size_t column,
                       const std::string& what) {
  throw KeyFileError(std::string(source), line, column, what);
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

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The checks of the file itself, on lstat() (before anything is opened: opening a device may have
// effects) and again on the opened file.
void check_file(const std::string& path, const struct stat& st, const KeyFileReader& reader) {
  if (S_ISLNK(st.st_mode)) {
    fail(path, 0, 0,
         "a symbolic link; a key file must be a regular file (put the key itself there)");
  }
  if (!S_ISREG(st.st_mode)) fail(path, 0, 0, "not a regular file");
  const uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != 0) {
    const std::string name(reader.name);
    fail(path, 0, 0,
         "owned by uid " + std::to_string(st.st_uid) + ", but " + name + " runs as uid " +
             std::to_string(me) + "; a key file belongs to " + name + "'s user" +
             (me == 0 ? "" : " (or root)"));
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    fail(path, 0, 0,
         "mode " + mode_text(st.st_mode) +
             " gives group or others access, so the key may have leaked: write a new key, give it "
             "to the switches' agents, and keep the file mode 0600 (docs/security.md, "
             "\"Rotating the key\")");
  }
}

}  // namespace

KeyFileError::KeyFileError(std::string source, std::size_t line, std::size_t column,
                           std::string reason)
    : std::runtime_error(located_message(source, line, column, reason)),
      source_(std::move(source)),
      line_(line),
      column_(column),
      reason_(std::move(reason)) {}

std::uint64_t parse_key_file_text(std::string_view text, std::string_view source,
                                  const KeyFileReader& reader) {
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
    // "0755" is more likely a file mode or a hex key without its 0x than a decimal key.
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
         "the key is 0, which means no authentication; " + std::string(reader.without_key) +
             " to mean that");
  }
  return key;
}

std::uint64_t read_key_file(const std::string& path, const KeyFileReader& reader) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) fail(path, 0, 0, std::strerror(errno));
  check_file(path, st, reader);
  // O_NOFOLLOW: a link swapped in after the lstat() would let whoever controls it choose the key.
  // O_NONBLOCK: a FIFO swapped in must not make the open wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  std::string text(kMaxKeyFileBytes + 1, '\0');
  struct stat opened {};
  std::size_t got = 0;
  int err = 0;
  if (::fstat(fd, &opened) != 0) err = errno;
  const bool same = err == 0 && opened.st_dev == st.st_dev && opened.st_ino == st.st_ino;
  while (same && got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (err != 0) fail(path, 0, 0, std::string("cannot read: ") + std::strerror(err));
  if (!same) fail(path, 0, 0, "replaced while being read; try again");
  check_file(path, opened, reader);  // its mode or owner changed between lstat() and open()
  if (got > kMaxKeyFileBytes) {
    fail(path, 0, 0, "longer than " + std::to_string(kMaxKeyFileBytes) + " bytes; not a key file");
  }
  text.resize(got);
  return parse_key_file_text(text, path, reader);
}

std::string key_file_text(std::uint64_t key) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016" PRIx64 "\n", key);
  return text;
}

}  // namespace ibsdn::mad
