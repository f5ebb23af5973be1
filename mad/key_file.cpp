#include "mad/key_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace ibsdn::mad {
namespace {

// A key line is at most 20 decimal digits and a newline; a file much longer is not a key file.
constexpr std::size_t kMaxKeyFileBytes = 64;

std::string file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

/// Closes the descriptor on every way out of read_key_file().
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::optional<std::uint64_t> parse_key_text(std::string_view text) {
  int base = 10;
  std::string_view digits = text;
  if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
    if (digits.size() > 16) return std::nullopt;
  }
  // from_chars accepts neither a sign nor spaces, and reports values beyond 64 bits.
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return v;
}

std::uint64_t read_key_file(const std::string& path) {
  // O_NOFOLLOW: a link would let whoever controls it choose the key this program trusts.
  // O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused below.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ELOOP) {
      throw KeyFileError(path + ": is a symbolic link; give the key file itself");
    }
    throw KeyFileError(path + ": cannot open: " + std::strerror(err));
  }
  // Judged on the open file, so that nothing can be swapped in between the check and the read.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw KeyFileError(path + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    throw KeyFileError(path + ": is " + file_type(st.st_mode) + ", not a regular file");
  }
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    throw KeyFileError(path + ": is owned by uid " + std::to_string(st.st_uid) +
                       ", neither this user (uid " + std::to_string(::geteuid()) + ") nor root");
  }
  if ((st.st_mode & 077) != 0) {
    throw KeyFileError(path + ": permissions " + octal_mode(st.st_mode) +
                       " are too open: group and others must have no access (chmod 600 " + path +
                       ")");
  }

  char buf[kMaxKeyFileBytes + 1];
  std::size_t size = 0;
  while (size < sizeof buf) {
    const ssize_t n = ::read(fd.get(), buf + size, sizeof buf - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw KeyFileError(path + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  if (size > kMaxKeyFileBytes) {
    throw KeyFileError(path + ": longer than " + std::to_string(kMaxKeyFileBytes) +
                       " bytes; a key file holds one line, the key");
  }
  std::string_view text(buf, size);
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  const auto nl = text.find('\n');
  if (nl == 0 || text.empty()) {
    throw KeyFileError(path + ":1: empty; expected the key (0x and 1-16 hex digits, or decimal)");
  }
  if (nl != std::string_view::npos) {
    throw KeyFileError(path + ":2: a key file holds one line, the key, and nothing after it");
  }
  const auto key = parse_key_text(text);
  if (!key) {
    std::string shown(text.substr(0, 24));
    for (char& c : shown) {
      if (c < 0x20 || c > 0x7e) c = '?';
    }
    throw KeyFileError(path + ":1: '" + shown + (text.size() > 24 ? "..." : "") +
                       "' is not a 64-bit key (0x and 1-16 hex digits, or decimal; no spaces)");
  }
  if (*key == 0) {
    throw KeyFileError(path +
                       ":1: key 0 means no authentication; a key file must hold a non-zero key "
                       "(run with --no-key to go without one)");
  }
  return *key;
}

}  // namespace ibsdn::mad
