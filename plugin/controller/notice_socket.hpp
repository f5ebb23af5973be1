// The notice socket's file (internal to the notice server, notice_server.cpp): created safely
// before the server listens, removed when it stops. Root creates it where clients of other uids
// connect, so nothing here follows a guess: the path is checked, only the last directory is
// created, a file that is not a socket is never removed, a socket another process listens on is
// never taken over (a stale one, whose server died, is), and the group and mode are set before the
// first connect() can succeed.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "common/unique_fd.hpp"

namespace ibsdn::notice_detail {

/// Throws std::runtime_error "notice socket PATH: WHY".
[[noreturn]] void fail_socket(const std::string& path, const std::string& why);
/// The same with errno's text after `what`: "notice socket PATH: WHAT: ERRNO TEXT". `what` is a
/// literal or a view built beforehand: building a message must not clobber errno.
[[noreturn]] void fail_socket_errno(const std::string& path, std::string_view what);

/// An absolute path that fits a Unix socket address (at most 107 bytes), without NUL, not a
/// directory; fail_socket() otherwise.
void check_socket_path(const std::string& path);

/// The file bind() created: stop() removes it only while it is still this one.
struct SocketFile {
  ino_t ino = 0;
  dev_t dev = 0;
};

struct ListeningSocket {
  UniqueFd fd;  // non-blocking, close-on-exec
  SocketFile file;
};

/// `path` passed check_socket_path(). Looks `group` up (before anything is created, so that a wrong
/// group leaves no file behind), creates the parent directory (0755) when missing (not its
/// ancestors), removes a stale socket, binds, gives the file to `group` with mode 0660 (without a
/// group: mode 0600) and listens. Throws std::runtime_error naming the path and the reason; a
/// failure after bind() removes the file.
ListeningSocket listen_on(const std::string& path, const std::optional<std::string>& group);

/// Removes the socket file at `path` if it is still `file` (a successor may have replaced it).
/// The errno of a failed unlink(), 0 otherwise.
int remove_socket_file(const std::string& path, SocketFile file);

}  // namespace ibsdn::notice_detail
