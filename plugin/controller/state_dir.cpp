#include "plugin/controller/state_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/unique_fd.hpp"
#include "plugin/controller/state_error.hpp"

namespace ibsdn::state_dir {
namespace {

constexpr mode_t kGroupOtherWrite = S_IWGRP | S_IWOTH;
constexpr mode_t kGroupOther = S_IRWXG | S_IRWXO;

std::string errno_text(int err) {
  return std::strerror(err);
}

std::string uid_text(uid_t uid) {
  return "uid " + std::to_string(uid);
}

void write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw StateError(path + ": cannot write: " + errno_text(errno));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The pid a lock holder wrote into the lock file, or "" when there is none yet.
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return {};
  std::string pid(buf, static_cast<std::size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  for (const char c : pid) {
    if (c < '0' || c > '9') return {};
  }
  return pid;
}

}  // namespace

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

void prepare(const std::string& dir, std::vector<std::string>& warnings) {
  if (dir.empty()) throw StateError("state store: the state directory is empty");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) throw StateError("state directory " + dir + ": " + errno_text(errno));
    if (::mkdir(dir.c_str(), 0700) != 0) {
      throw StateError("state directory " + dir + ": cannot create: " + errno_text(errno));
    }
    // mkdir's mode passes through the umask, which may have taken the owner's bits too.
    if (::chmod(dir.c_str(), 0700) != 0) {
      throw StateError("state directory " + dir + ": cannot chmod 0700: " + errno_text(errno));
    }
    return;
  }
  if (!S_ISDIR(st.st_mode)) throw StateError("state directory " + dir + ": not a directory");
  if (st.st_uid != ::geteuid()) {
    throw StateError("state directory " + dir + ": owned by " + uid_text(st.st_uid) +
                     ", but the controller runs as " + uid_text(::geteuid()) +
                     ": its files could have been changed by that user; check them, then chown "
                     "the directory");
  }
  if ((st.st_mode & kGroupOtherWrite) != 0) {
    throw StateError("state directory " + dir + ": writable by group or others (mode " +
                     mode_text(st.st_mode) +
                     "): its files could have been replaced; check them, then chmod 0700 it");
  }
  if ((st.st_mode & kGroupOther) != 0) {
    const mode_t tightened = st.st_mode & ~kGroupOther & 07777;
    if (::chmod(dir.c_str(), tightened) != 0) {
      throw StateError("state directory " + dir + ": mode " + mode_text(st.st_mode) +
                       " lets group or others read it, and chmod " + mode_text(tightened) +
                       " failed: " + errno_text(errno));
    }
    warnings.push_back("state directory " + dir + ": mode " + mode_text(st.st_mode) +
                       " let group or others read it; changed to " + mode_text(tightened));
  }
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0) {
    throw StateError("state directory " + dir +
                     ": on a read-only file system; the controller writes every job change "
                     "there (remount it read-write, or point state_dir to a writable directory)");
  }
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    throw StateError("state directory " + dir + ": not writable by " + uid_text(::geteuid()) +
                     " (" + errno_text(errno) + "); chmod 0700 it");
  }
}

bool check_file(const std::string& path, std::vector<std::string>& warnings) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    throw StateError(path + ": " + errno_text(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    throw StateError(path +
                     ": a symbolic link; the state directory holds regular files only (remove "
                     "the link and put the file itself there)");
  }
  if (!S_ISREG(st.st_mode)) throw StateError(path + ": not a regular file");
  if (st.st_uid != ::geteuid()) {
    throw StateError(path + ": owned by " + uid_text(st.st_uid) + ", but the controller runs as " +
                     uid_text(::geteuid()) + ": check its contents, then chown it");
  }
  if ((st.st_mode & kGroupOtherWrite) != 0) {
    throw StateError(path + ": writable by group or others (mode " + mode_text(st.st_mode) +
                     "): it could have been changed; check it, then chmod 0600 it");
  }
  if ((st.st_mode & kGroupOther) != 0) {
    const mode_t tightened = st.st_mode & ~kGroupOther & 07777;
    if (::chmod(path.c_str(), tightened) != 0) {
      throw StateError(path + ": mode " + mode_text(st.st_mode) +
                       " lets group or others read it, and chmod " + mode_text(tightened) +
                       " failed: " + errno_text(errno));
    }
    warnings.push_back(path + ": mode " + mode_text(st.st_mode) +
                       " let group or others read it; changed to " + mode_text(tightened));
  }
  return true;
}

void require_private(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw StateError(path + ": " + errno_text(errno));
  }
  if (!S_ISREG(st.st_mode) || (st.st_mode & kGroupOther) != 0 || st.st_uid != ::geteuid()) {
    throw StateError(path + ": expected a regular file of mode 0600 owned by " +
                     uid_text(::geteuid()) + ", found mode " + mode_text(st.st_mode) +
                     " owned by " + uid_text(st.st_uid));
  }
}

Lock Lock::acquire(const std::string& dir, const std::string& name,
                   std::vector<std::string>& warnings) {
  const std::string path = dir + "/" + name;
  check_file(path, warnings);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    throw StateError("state directory " + dir + ": cannot open the lock file " + path + ": " +
                     errno_text(errno));
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      throw StateError("state directory " + dir + ": cannot lock " + path + ": " +
                       errno_text(errno));
    }
    const std::string pid = holder_pid(fd.get());
    throw StateError("state directory " + dir + " is in use by process " +
                     (pid.empty() ? std::string("(pid not written yet)") : pid) +
                     " (another opensm with the same state_dir?); give each SM port its own "
                     "state_dir");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) != 0) {
    throw StateError(path + ": cannot truncate: " + errno_text(errno));
  }
  write_all(fd.get(), pid, path);
  return Lock(fd.release());
}

Lock::Lock(Lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

Lock& Lock::operator=(Lock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Lock::~Lock() {
  // Closing the last descriptor of the open file description releases the flock. The file stays:
  // removing it would race with the next controller's open().
  if (fd_ >= 0) ::close(fd_);
}

bool write_atomically(const std::string& dir, const std::string& name, std::string_view content,
                      Replace replace) {
  const std::string path = dir + "/" + name;
  const std::string tmp = dir + "/." + name + ".tmp";
  // A temporary file left by a crash is garbage: the caller holds the directory's lock.
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) {
    throw StateError(tmp + ": cannot remove a leftover temporary file: " + errno_text(errno));
  }
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.get() < 0) throw StateError(path + ": cannot create " + tmp + ": " + errno_text(errno));
    try {
      write_all(fd.get(), content, tmp);
      if (::fsync(fd.get()) != 0) throw StateError(tmp + ": fsync: " + errno_text(errno));
      if (::close(fd.release()) != 0) throw StateError(tmp + ": close: " + errno_text(errno));
    } catch (...) {
      ::unlink(tmp.c_str());
      throw;
    }
  }
  int rc = 0;
  if (replace == Replace::kYes) {
    rc = ::rename(tmp.c_str(), path.c_str());
  } else {
    rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && errno == EINVAL) {
      // The file system has no RENAME_NOREPLACE: link() never replaces either.
      rc = ::link(tmp.c_str(), path.c_str());
      if (rc == 0) ::unlink(tmp.c_str());
    }
  }
  if (rc != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    if (err == EEXIST && replace == Replace::kNo) return false;
    throw StateError(path + ": cannot rename " + tmp + " to it: " + errno_text(err));
  }
  sync_dir(dir);
  return true;
}

void sync_dir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::fsync(fd.get()) != 0) {
    throw StateError("state directory " + dir + ": fsync: " + errno_text(errno));
  }
}

}  // namespace ibsdn::state_dir
