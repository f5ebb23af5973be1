#include "plugin/controller/notice_socket.hpp"

#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "plugin/controller/notice_connection.hpp"

namespace ibsdn::notice_detail {
namespace {

sockaddr_un socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

gid_t lookup_group(const std::string& path, const std::string& group) {
  std::vector<char> buffer(1024);
  ::group entry{};
  ::group* found = nullptr;
  int err;
  while ((err = ::getgrnam_r(group.c_str(), &entry, buffer.data(), buffer.size(), &found)) ==
             ERANGE &&
         buffer.size() < (std::size_t{1} << 20)) {
    buffer.resize(buffer.size() * 2);
  }
  if (err != 0) fail_socket(path, "cannot look up group '" + group + "': " + errno_text(err));
  if (found == nullptr) fail_socket(path, "group '" + group + "' does not exist");
  return found->gr_gid;
}

// Creates the socket's directory when missing. Only the last component: a missing ancestor more
// likely means a wrong path than a directory to create as root.
void make_parent_directory(const std::string& path) {
  const std::string parent = path.substr(0, std::max<std::size_t>(path.rfind('/'), 1));
  struct stat st {};
  if (::stat(parent.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) fail_socket(path, "the parent " + parent + " is not a directory");
    return;
  }
  if (errno != ENOENT) fail_socket_errno(path, "cannot stat its directory");
  if (::mkdir(parent.c_str(), 0755) != 0) {
    if (errno == EEXIST) return;  // created meanwhile by someone else: not ours to chmod
    fail_socket_errno(path, "cannot create its directory");
  }
  // mkdir applies the umask; the directory must be traversable by the socket's group.
  if (::chmod(parent.c_str(), 0755) != 0) {
    fail_socket_errno(path, "cannot set mode 0755 on its directory");
  }
}

// Removes a socket file left by a server that died without unlinking it. A socket that accepts
// connections (or has a full backlog) belongs to a live server: taking it over would silently cut
// that server off from its clients.
void remove_stale_socket(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    fail_socket_errno(path, "cannot stat");
  }
  if (!S_ISSOCK(st.st_mode)) fail_socket(path, "exists and is not a socket; refusing to remove it");
  const UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (probe.get() < 0) fail_socket_errno(path, "cannot create a socket");
  const sockaddr_un addr = socket_address(path);
  int rc;
  do {
    rc = ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0 || errno == EAGAIN || errno == EINPROGRESS) {
    fail_socket(path, "another process is listening on this socket; refusing to take it over");
  }
  if (errno == ENOENT) return;  // removed meanwhile
  if (errno != ECONNREFUSED) {
    fail_socket_errno(path, "cannot tell whether the existing socket is in use");
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    fail_socket_errno(path, "cannot remove the stale socket");
  }
}

}  // namespace

[[noreturn]] void fail_socket(const std::string& path, const std::string& why) {
  throw std::runtime_error("notice socket " + path + ": " + why);
}

[[noreturn]] void fail_socket_errno(const std::string& path, std::string_view what) {
  const int err = errno;
  fail_socket(path, std::string(what) + ": " + errno_text(err));
}

void check_socket_path(const std::string& path) {
  if (path.empty() || path.front() != '/') fail_socket(path, "not an absolute path");
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    fail_socket(path, "longer than " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                          " bytes, the limit of a Unix socket address");
  }
  if (path.find('\0') != std::string::npos) fail_socket(path, "contains a NUL byte");
  if (path.back() == '/') fail_socket(path, "names a directory");
}

ListeningSocket listen_on(const std::string& path, const std::optional<std::string>& group) {
  // Before anything is created, so that a wrong group leaves no file behind.
  std::optional<gid_t> gid;
  if (group) gid = lookup_group(path, *group);

  make_parent_directory(path);
  remove_stale_socket(path);

  ListeningSocket sock;
  sock.fd = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (sock.fd.get() < 0) fail_socket_errno(path, "cannot create a socket");
  const sockaddr_un addr = socket_address(path);
  if (::bind(sock.fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    fail_socket(path, err == EADDRINUSE ? "another process created the socket meanwhile"
                                        : "cannot bind: " + errno_text(err));
  }
  // From here on a failure removes the file again. Group and mode are set before listen(): until
  // then every connect() is refused, so the umask-dependent mode bind() gave is never usable.
  try {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) fail_socket_errno(path, "cannot stat after bind");
    sock.file = {st.st_ino, st.st_dev};
    if (gid && ::chown(path.c_str(), static_cast<uid_t>(-1), *gid) != 0) {
      const int err = errno;
      fail_socket(path, "cannot give the socket to group '" + *group + "': " + errno_text(err));
    }
    const mode_t mode = gid ? 0660 : 0600;
    if (::chmod(path.c_str(), mode) != 0) {
      fail_socket_errno(path, "cannot set the socket's mode");
    }
    if (::listen(sock.fd.get(), SOMAXCONN) != 0) fail_socket_errno(path, "cannot listen");
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  return sock;
}

int remove_socket_file(const std::string& path, SocketFile file) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || st.st_ino != file.ino || st.st_dev != file.dev) return 0;
  return ::unlink(path.c_str()) != 0 ? errno : 0;
}

}  // namespace ibsdn::notice_detail
